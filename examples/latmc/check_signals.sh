#!/bin/sh
# Runs that survive the batch system (cli suite), with real signals and a real failing
# checkpoint target:
#   check_signals.sh LATMC PYTHON3
# 1. SIGTERM mid-run: exit 143, the results so far on stdout, a checkpoint, a --json
#    saying so, the --csv holding at least the checkpoint's rows; resuming it to a
#    slightly later end then gives exactly that many measurements (CSV rewritten and
#    continued consistently).
# 2. SIGUSR1 mid-run: exit 138 and the results so far.
# 3. The checkpoint's directory moved away mid-run: the failure is reported, the run goes
#    on; once the directory is back the next checkpoint succeeds and says so (a missing
#    directory fails for root too, unlike chmod).
# 4. The same with --checkpoint-failure stop: the run stops at the failure with its
#    results and exit status 1.
if [ $# -lt 2 ]; then
    echo "usage: check_signals.sh LATMC PYTHON3" >&2
    exit 99
fi
latmc=$1
py=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/latmc-signals.XXXXXX") || exit 99
pid=""
trap '[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT

. "$(dirname "$0")/check_lib.sh"

# wait_for DESCRIPTION COMMAND...: poll (0.1 s) until COMMAND succeeds, at most 30 s,
# failing early when the run in the background has ended.
wait_for() {
    what=$1
    shift
    i=0
    until "$@"; do
        i=$((i + 1))
        [ $i -le 300 ] || fail "timed out waiting for: $what"
        kill -0 "$pid" 2>/dev/null || { "$@" && return 0; fail "latmc ended before: $what"; }
        sleep 0.1
    done
}

rows_at_least() { # FILE N: at least N measurement lines
    [ -f "$1" ] && [ "$(grep -c '^[0-9]' "$1")" -ge "$2" ]
}

# A run far too long to finish: every test stops it.
long="-L 16 --beta 0.4 --therm 0 --sweeps 1000000000 --seed 11"

# ---- 1. SIGTERM ----
# shellcheck disable=SC2086
"$latmc" $long --checkpoint "$tmp/t.ckp" --csv "$tmp/t.csv" --json "$tmp/t.json" \
    >"$tmp/term.out" 2>"$tmp/term.err" </dev/null &
pid=$!
wait_for "the first measurements in the CSV" rows_at_least "$tmp/t.csv" 20
kill -TERM "$pid"
wait "$pid"
code=$?
pid=""
[ "$code" -eq 143 ] || fail "SIGTERM: exit status $code, expected 143"
grep -q '^  note  *interrupted after' "$tmp/term.out" || fail "SIGTERM: no 'interrupted' note"
grep -q '^  energy  *-[0-9]' "$tmp/term.out" || fail "SIGTERM: no results"
[ -f "$tmp/t.ckp" ] || fail "SIGTERM: no checkpoint"
done=$(sed -n 's/^  note  *interrupted after \([0-9]*\) of.*/\1/p' "$tmp/term.out")
[ -n "$done" ] && [ "$done" -gt 0 ] || fail "SIGTERM: cannot read the sweep count"
"$py" - "$tmp/t.json" "$done" <<'PYEOF' || fail "SIGTERM: the JSON does not say what happened"
import json, sys
j = json.load(open(sys.argv[1]))
done = int(sys.argv[2])
r = j["run"]
assert r["interrupted"] is True and r["signal"] == 15 and r["exit_status"] == 143, r
assert r["last_sweep"] == done and r["measurements"] == done, (r, done)
assert j["observables"]["energy"]["mean"] < 0
PYEOF
rows=$(grep -c '^[0-9]' "$tmp/t.csv")
[ "$rows" -eq "$done" ] || fail "SIGTERM: the CSV has $rows rows, the run made $done"
# resume to 7 sweeps past where it stopped
end=$((done + 7))
"$latmc" -L 16 --beta 0.4 --therm 0 --sweeps "$end" --seed 11 --resume "$tmp/t.ckp" \
    --csv "$tmp/t.csv" --quiet >"$tmp/resume.out" 2>"$tmp/resume.err" </dev/null ||
    fail "resume after SIGTERM: exit status $?"
grep -q "resumed from .* at sweep $done ($done measurements read back)" "$tmp/resume.out" ||
    fail "resume: the report does not say where it resumed"
rows=$(grep -c '^[0-9]' "$tmp/t.csv")
[ "$rows" -eq "$end" ] || fail "resume: the CSV has $rows rows, expected $end"
last=$(tail -n 1 "$tmp/t.csv" | cut -d, -f1,2)
[ "$last" = "$((end - 1)),$end" ] || fail "resume: last CSV row '$last', expected index,sweep $((end - 1)),$end"

# ---- 2. SIGUSR1 ----
# shellcheck disable=SC2086
"$latmc" $long --csv "$tmp/u.csv" >"$tmp/usr1.out" 2>"$tmp/usr1.err" </dev/null &
pid=$!
wait_for "measurements before SIGUSR1" rows_at_least "$tmp/u.csv" 5
kill -USR1 "$pid"
wait "$pid"
code=$?
pid=""
[ "$code" -eq 138 ] || fail "SIGUSR1: exit status $code, expected 138"
grep -q '^  note  *interrupted after' "$tmp/usr1.out" || fail "SIGUSR1: no 'interrupted' note"

# ---- 3. failing checkpoints, default policy: report, go on, retry ----
mkdir "$tmp/d"
# shellcheck disable=SC2086
"$latmc" $long --checkpoint "$tmp/d/c.ckp" --checkpoint-every 200 \
    >"$tmp/retry.out" 2>"$tmp/retry.err" </dev/null &
pid=$!
wait_for "the first checkpoint" test -f "$tmp/d/c.ckp"
mv "$tmp/d" "$tmp/d.gone" # atomic, unlike rm -r of a directory being written in
wait_for "a failed checkpoint reported" grep -q 'checkpoint at sweep [0-9]* failed' "$tmp/retry.err"
kill -0 "$pid" 2>/dev/null || fail "retry: latmc ended after a failed checkpoint"
mkdir "$tmp/d"
wait_for "a checkpoint after the directory came back" grep -q 'written again' "$tmp/retry.err"
[ -f "$tmp/d/c.ckp" ] || fail "retry: 'written again' but no checkpoint file"
kill -TERM "$pid"
wait "$pid"
code=$?
pid=""
[ "$code" -eq 143 ] || fail "retry: exit status $code, expected 143"
grep -q 'going on, trying again every 200 sweeps' "$tmp/retry.err" || fail "retry: no 'going on' message"
"$latmc" -L 16 --beta 0.4 --therm 0 --sweeps 1000000000 --seed 11 --resume "$tmp/d/c.ckp" \
    --sweeps 1 --quiet >"$tmp/check.out" 2>"$tmp/check.err" </dev/null
[ $? -eq 2 ] && grep -q 'past the end' "$tmp/check.err" ||
    fail "retry: the checkpoint written after the failures does not load"

# ---- 4. failing checkpoints, --checkpoint-failure stop ----
mkdir -p "$tmp/e"
# shellcheck disable=SC2086
"$latmc" $long --checkpoint "$tmp/e/c.ckp" --checkpoint-every 200 --checkpoint-failure stop \
    >"$tmp/stop.out" 2>"$tmp/stop.err" </dev/null &
pid=$!
wait_for "the first checkpoint (stop policy)" test -f "$tmp/e/c.ckp"
mv "$tmp/e" "$tmp/e.gone"
wait "$pid"
code=$?
pid=""
[ "$code" -eq 1 ] || fail "stop: exit status $code, expected 1"
grep -q 'stopping (--checkpoint-failure stop)' "$tmp/stop.err" || fail "stop: no message"
grep -q '^  energy  *-[0-9]' "$tmp/stop.out" || fail "stop: no results"
echo "signals and failing checkpoints: ok (SIGTERM at sweep $done)"
exit 0
