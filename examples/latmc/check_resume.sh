#!/bin/sh
# Checkpoints and --resume (cli suite).
#
#   check_resume.sh LATMC split "PART_ARGS" [ARG]...
#     Run ARGS in one go with --checkpoint; run ARGS PART_ARGS (stopping early, e.g. a
#     smaller --sweeps) with --checkpoint, then resume it with ARGS. The two final
#     checkpoints, their series and the --csv files must be byte-identical, and so must
#     the tables on stdout (from the 'observable' line on). Then resuming with another
#     lattice, or past the end of the run, must be refused with exit status 2.
#   check_resume.sh LATMC bad
#     --resume of a file that is not a checkpoint, of a truncated one: exit status 1 and
#     the library's message; of one made with another --every: exit status 2.
if [ $# -lt 2 ]; then
    echo "usage: check_resume.sh LATMC split|bad [...]" >&2
    exit 99
fi
latmc=$1
mode=$2
shift 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/latmc-resume.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/check_lib.sh"


if [ "$mode" = bad ]; then
    echo "not a checkpoint" >"$tmp/garbage.ckp"
    run garbage 1 --resume "$tmp/garbage.ckp" --quiet
    grep -q '^latmc: .*corrupt or mismatched file: .*checkpoint' "$tmp/garbage.err" ||
        fail "garbage: no library message"
    run missing 1 --resume "$tmp/none.ckp" --quiet
    grep -q '^latmc: .*input/output error: .*none.ckp' "$tmp/missing.err" ||
        fail "missing: no library message"
    run good 0 -L 8 --beta 0.4 --therm 10 --sweeps 20 --quiet --checkpoint "$tmp/good.ckp"
    head -c 200 "$tmp/good.ckp" >"$tmp/cut.ckp"
    run cut 1 -L 8 --beta 0.4 --therm 10 --sweeps 20 --quiet --resume "$tmp/cut.ckp"
    grep -q '^latmc: .*corrupt or mismatched file: .*cut.ckp' "$tmp/cut.err" ||
        fail "cut: no library message"
    # the measurements were made with another --every: a usage error naming it
    run other_every 2 -L 8 --beta 0.4 --therm 10 --sweeps 30 --every 2 --quiet \
        --resume "$tmp/good.ckp"
    grep -q "every=1.*every=2" "$tmp/other_every.err" || fail "other_every: no message"
    [ ! -e "$tmp/good.ckp.csv" ] || fail "a .ckp.csv sidecar was written"
    [ ! -s "$tmp/garbage.out" ] || fail "garbage: output on stdout"
    exit 0
fi

[ "$mode" = split ] || { echo "check_resume.sh: unknown mode $mode" >&2; exit 99; }
part=$1
shift
run whole 0 "$@" --quiet --checkpoint "$tmp/a.ckp" --csv "$tmp/a.csv"
# shellcheck disable=SC2086 # PART_ARGS is a list of words
run part 0 "$@" $part --quiet --checkpoint "$tmp/b.ckp"
run resumed 0 "$@" --quiet --resume "$tmp/b.ckp" --checkpoint "$tmp/b.ckp" --csv "$tmp/b.csv"
cmp "$tmp/a.ckp" "$tmp/b.ckp" || fail "the final checkpoints (sim and measurements) differ"
[ ! -e "$tmp/a.ckp.csv" ] && [ ! -e "$tmp/b.ckp.csv" ] || fail "a .ckp.csv sidecar was written"
# the --csv series: the same rows (the header comments say how each run started)
grep -v '^#' "$tmp/a.csv" >"$tmp/a.rows"
grep -v '^#' "$tmp/b.csv" >"$tmp/b.rows"
cmp "$tmp/a.rows" "$tmp/b.rows" || fail "the --csv series differ"
grep -q '^# resumed_from = ' "$tmp/b.csv" || fail "the resumed CSV does not say so"
# ... and keeps the original inputs: how the chain started (the checkpoint keeps it)
start_a=$(grep '^# start = ' "$tmp/a.csv")
start_b=$(grep '^# start = ' "$tmp/b.csv")
[ -n "$start_a" ] && [ "$start_a" = "$start_b" ] ||
    fail "the resumed CSV says '$start_b', the original '$start_a'"
sed -n '/^  observable/,$p' "$tmp/whole.out" >"$tmp/whole.table"
sed -n '/^  observable/,$p' "$tmp/resumed.out" >"$tmp/resumed.table"
[ -s "$tmp/whole.table" ] || fail "no results table"
cmp "$tmp/whole.table" "$tmp/resumed.table" || fail "the results tables differ"
grep -q 'resumed from' "$tmp/resumed.out" || fail "the report does not say it resumed"
grep '^  energy' "$tmp/whole.out"
grep '^  energy' "$tmp/resumed.out"

run other_lattice 2 "$@" -L 12 --quiet --resume "$tmp/b.ckp" --checkpoint "$tmp/c.ckp"
grep -q 'the checkpoint has lattice' "$tmp/other_lattice.err" || fail "other_lattice: message"
run past_end 2 "$@" --sweeps 1 --quiet --resume "$tmp/b.ckp" --checkpoint "$tmp/c.ckp"
grep -q 'past the end' "$tmp/past_end.err" || fail "past_end: message"
exit 0
