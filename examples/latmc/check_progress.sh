#!/bin/sh
# The progress bar (cli suite): drawn when stderr is a terminal (a pseudo-terminal made
# by script(1)), with sweeps done, rate and time left; not with --quiet. Exit 77 (skip)
# where script(1) is missing.
#   check_progress.sh LATMC
latmc=$1
command -v script >/dev/null 2>&1 || { echo "script(1) not installed: skipped"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/latmc-progress.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
run="'$latmc' -L 64 --beta 0.4 --therm 0 --sweeps 4000 --threads 1"
script -qec "$run" /dev/null >"$tmp/tty.out" 2>&1 </dev/null || {
    echo "FAIL: latmc under script(1): exit status $?"; cat "$tmp/tty.out"; exit 1; }
grep -q 'measure .*sweeps/s  ETA' "$tmp/tty.out" ||
    { echo "FAIL: no progress bar on a terminal"; cat "$tmp/tty.out"; exit 1; }
grep -q '/4k sweeps' "$tmp/tty.out" ||
    { echo "FAIL: the bar does not count sweeps done of 4k"; cat "$tmp/tty.out"; exit 1; }
script -qec "$run --quiet" /dev/null >"$tmp/quiet.out" 2>&1 </dev/null
grep -q 'sweeps/s' "$tmp/quiet.out" && { echo "FAIL: a progress bar with --quiet"; exit 1; }
echo "progress: ok"
exit 0
