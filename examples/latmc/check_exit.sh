#!/bin/sh
# Run a command and check its exact exit status (a test wrapper for the cli suite).
#   check_exit.sh EXPECTED COMMAND [ARG]...
# For EXPECTED 2 (bad command line) it also checks that stderr names the problem on a
# "latmc: " line and gives the usage hint, and that stdout stays empty.
# For EXPECTED 1 (the library refused or failed) it checks for a "latmc: " message.
# For EXPECTED 0 it checks that stderr stays empty (the program was asked for --help etc.).
if [ $# -lt 2 ]; then
    echo "usage: check_exit.sh EXPECTED COMMAND [ARG]..." >&2
    exit 99
fi
expected=$1
shift
cmd="$*"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/latmc-check.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
"$@" >"$tmp/out" 2>"$tmp/err" </dev/null
code=$?

fail() {
    echo "FAIL: $*" >&2
    echo "command: $cmd" >&2
    echo "--- stdout ---" >&2; cat "$tmp/out" >&2
    echo "--- stderr ---" >&2; cat "$tmp/err" >&2
    exit 1
}

[ "$code" -eq "$expected" ] || fail "exit status $code, expected $expected"
if [ "$expected" -eq 2 ]; then
    grep -q '^latmc: ' "$tmp/err" || fail "no 'latmc: ' message on stderr"
    grep -q -i 'usage' "$tmp/err" || fail "no usage hint on stderr"
    [ ! -s "$tmp/out" ] || fail "output on stdout for a bad command line"
fi
if [ "$expected" -eq 1 ]; then
    grep -q '^latmc: ' "$tmp/err" || fail "no 'latmc: ' message on stderr"
fi
if [ "$expected" -eq 0 ]; then
    [ ! -s "$tmp/err" ] || fail "unexpected output on stderr"
fi
cat "$tmp/err" >&2
exit 0
