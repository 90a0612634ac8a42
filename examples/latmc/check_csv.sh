#!/bin/sh
# A tiny real run writing a CSV: check the exit status, the line count (header + one
# line per measurement), the header, and that stdout has the results table.
#   check_csv.sh EXPECTED_LINES LATMC [ARG]...      (--csv FILE is appended)
if [ $# -lt 2 ]; then
    echo "usage: check_csv.sh EXPECTED_LINES LATMC [ARG]..." >&2
    exit 99
fi
expected=$1
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/latmc-csv.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
"$@" --csv "$tmp/series.csv" >"$tmp/out" 2>"$tmp/err" </dev/null
code=$?

fail() {
    echo "FAIL: $*" >&2
    echo "--- stdout ---" >&2; cat "$tmp/out" >&2
    echo "--- stderr ---" >&2; cat "$tmp/err" >&2
    exit 1
}

[ "$code" -eq 0 ] || fail "exit status $code, expected 0"
[ -f "$tmp/series.csv" ] || fail "no CSV written"
lines=$(wc -l <"$tmp/series.csv" | tr -d ' ')
[ "$lines" -eq "$expected" ] || fail "CSV has $lines lines, expected $expected"
head -n 1 "$tmp/series.csv" | grep -q 'energy' || fail "CSV header has no 'energy' column"
for col in energy '|m|' 'm^2' 'm^4' acceptance 'Binder U4' chi; do
    grep -q "^ *$col " "$tmp/out" || fail "no '$col' row in the results"
done
[ ! -s "$tmp/err" ] || fail "output on stderr with --quiet"
cat "$tmp/out"
exit 0
