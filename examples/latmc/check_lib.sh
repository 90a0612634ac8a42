# Shared by the latmc check scripts (sourced; they set $latmc and $tmp first).
# Outputs go to $tmp/NAME.out and $tmp/NAME.err; fail shows them (and any files named in
# $fail_also) and exits 1.

fail() {
    echo "FAIL: $*" >&2
    for f in "$tmp"/*.out "$tmp"/*.err ${fail_also:-}; do
        [ -s "$f" ] && { echo "--- $f ---" >&2; head -c 3000 "$f" >&2; }
    done
    exit 1
}

# run NAME EXPECTED_STATUS ARG...: latmc ARG... with stdout to NAME.out, stderr to NAME.err
run() {
    name=$1
    want=$2
    shift 2
    "$latmc" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null
    code=$?
    [ "$code" -eq "$want" ] || fail "$name: exit status $code, expected $want (latmc $*)"
}
