#!/bin/sh
# Run an example and check what it promises: exit status 0, the files it writes (non-empty),
# a line of its output matching a pattern (so a run that prints nothing useful fails), and,
# when it says gnuplot drew the plot, a PNG in the output directory.
# With EX_HIDE_GNUPLOT=1 the example runs with a PATH that has no gnuplot, and must say so
# and still succeed.
# Usage: check-outputs.sh PROGRAM OUTDIR "FILE1 FILE2 ..." PATTERN [ARGS...]
set -eu
prog=$1
outdir=$2
files=$3
pattern=$4
shift 4
rm -rf "$outdir"
set +e
if [ "${EX_HIDE_GNUPLOT:-0}" = 1 ]; then
    out=$(PATH=/nonexistent-dir "$prog" "$@" 2>&1)
else
    out=$("$prog" "$@" 2>&1)
fi
st=$?
set -e
printf '%s\n' "$out"
[ "$st" -eq 0 ] || { echo "FAIL: $prog exited with $st"; exit 1; }
for f in $files; do
    [ -s "$outdir/$f" ] || { echo "FAIL: $outdir/$f missing or empty"; exit 1; }
done
printf '%s\n' "$out" | grep -Eq -- "$pattern" ||
    { echo "FAIL: no output line matches '$pattern'"; exit 1; }
if printf '%s\n' "$out" | grep -q 'plot written in'; then
    ls "$outdir"/*.png >/dev/null 2>&1 || { echo "FAIL: gnuplot ran but left no PNG"; exit 1; }
fi
if [ "${EX_HIDE_GNUPLOT:-0}" = 1 ]; then
    printf '%s\n' "$out" | grep -q 'gnuplot is not installed' ||
        { echo "FAIL: no word about the missing gnuplot"; exit 1; }
fi
echo "ok: exit 0, files present, output matches '$pattern'"
