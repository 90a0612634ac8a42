#!/bin/sh
# A tiny real run writing a CSV: check the exit status, the CSV's header comment (the
# inputs), its column line (the columns recorded), line count (column line + one line per
# measurement) and sweep column, and that stdout has the results table with a row for
# each column.
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
# the header comment: every input as "# key = value"
for key in program version model ndim extent algorithm seed backend threads therm sweeps every; do
    grep -q "^# $key = ." "$tmp/series.csv" || fail "no '# $key = ' line in the CSV header"
done
grep -v '^#' "$tmp/series.csv" >"$tmp/data.csv"
lines=$(wc -l <"$tmp/data.csv" | tr -d ' ')
[ "$lines" -eq "$expected" ] || fail "CSV has $lines lines, expected $expected"
got=$(head -n 1 "$tmp/data.csv")
[ "$got" = "$header" ] || fail "CSV header '$got', expected '$header'"
# the column line is the file's first line (numpy's genfromtxt(names=True, comments="#")
# takes its names from there), the inputs follow as comments
[ "$(head -n 1 "$tmp/series.csv")" = "$header" ] || fail "the column line is not the first line"
# the sweep column: therm + (index + 1) * every, so a constant step from the first row
therm=$(sed -n 's/^# therm = //p' "$tmp/series.csv")
every=$(sed -n 's/^# every = //p' "$tmp/series.csv")
awk -F, -v t="$therm" -v e="$every" 'NR > 1 && $2 != t + ($1 + 1) * e { bad = NR } END { exit bad ? 1 : 0 }' \
    "$tmp/data.csv" || fail "the sweep column is not therm + (index + 1) * every"
# the table's row label of each CSV column
for col in $(echo "$header" | tr ',' ' '); do
    case $col in
    index|sweep) continue ;;
    absm) label='|m|' ;;
    m2) label='m^2' ;;
    m4) label='m^4' ;;
    phi2) label='phi^2' ;;
    overlap2) label='q^2' ;;
    m2_k0) label='|m(0)|^2' ;;
    m2_kmin) label='|m(kmin)|^2' ;;
    overlap2_kmin) label='|q(kmin)|^2' ;;
    largest_cluster) label='largest C/N' ;;
    cluster_m2) label='cluster m^2' ;;
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
# the clusters' improved estimator: n/a for Potts, a value for Ising (h = 0)
case ",$header,$*" in
*,cluster_m2,*potts*)
    grep -q "^  chi (clusters)  *n/a" "$tmp/out" || fail "no 'chi (clusters)' row with n/a" ;;
*,cluster_m2,*)
    grep -q "^  chi (clusters)  *[0-9]" "$tmp/out" || fail "no 'chi (clusters)' value" ;;
esac
case ",$header," in
*,overlap2,*)
    for row in '<q^4>/<q^2>^2' chi_SG; do
        grep -q "^  $row  *[-0-9]" "$tmp/out" || fail "no '$row' row in the results"
    done ;;
esac
[ ! -s "$tmp/err" ] || fail "output on stderr with --quiet"
cat "$tmp/out"
exit 0
