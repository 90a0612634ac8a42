#!/bin/sh
# A tiny real run writing a CSV: check the exit status, the CSV's header (the columns
# recorded) and line count (header + one line per measurement), and that stdout has
# the results table with a row for each column.
#   check_csv.sh EXPECTED_LINES EXPECTED_HEADER LATMC [ARG]...   (--csv FILE is appended)
if [ $# -lt 3 ]; then
    echo "usage: check_csv.sh EXPECTED_LINES EXPECTED_HEADER LATMC [ARG]..." >&2
    exit 99
fi
expected=$1
header=$2
shift 2
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
got=$(head -n 1 "$tmp/series.csv")
[ "$got" = "$header" ] || fail "CSV header '$got', expected '$header'"
# the table's row label of each CSV column
for col in $(echo "$header" | tr ',' ' '); do
    case $col in
    index) continue ;;
    absm) label='|m|' ;;
    m2) label='m^2' ;;
    m4) label='m^4' ;;
    phi2) label='phi^2' ;;
    overlap2) label='q^2' ;;
    *) label=$col ;;
    esac
    grep -q "^  $label  *[-0-9]" "$tmp/out" || fail "no '$label' row with a value in the results"
done
case ",$header," in
*,m,*) derived='Binder U4' ;;
*) derived='<m^4>/<m^2>^2' ;;
esac
for row in acceptance "$derived" chi C; do
    grep -q "^  $row  *[-0-9]" "$tmp/out" || fail "no '$row' row with a value in the results"
done
case ",$header," in
*,overlap2,*)
    for row in '<q^4>/<q^2>^2' chi_SG; do
        grep -q "^  $row  *[-0-9]" "$tmp/out" || fail "no '$row' row in the results"
    done ;;
esac
[ ! -s "$tmp/err" ] || fail "output on stderr with --quiet"
cat "$tmp/out"
exit 0
