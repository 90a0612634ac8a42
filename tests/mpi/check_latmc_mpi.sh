#!/bin/sh
# latmc-mpi, the latmc program over MPI ranks (doc/mpi.md):
#   1. `mpirun -np 3 latmc-mpi ARGS --json` reports exactly what `latmc ARGS --json` does
#      (observables, acceptance, derived quantities), and names the ranks; with the
#      bit-sliced chain (decisions = 1) its checkpoint is latmc's byte for byte, and
#      resumed on other ranks it ends where latmc's uninterrupted run ends;
#   2. SIGTERM to one rank stops every rank (exit status 143) with a final checkpoint, which
#      plain latmc resumes to exactly the results of the uninterrupted run.
#   3. SIGKILL to one rank ends the job (MPI's abort, no hang); the last checkpoint loads.
# Usage: check_latmc_mpi.sh MPIRUN LATMC_MPI LATMC. Exit 77 without an MPI launcher.
set -u
mpirun=$1
latmc_mpi=$2
latmc=$3
command -v "$mpirun" >/dev/null 2>&1 || { echo "SKIP: no MPI launcher"; exit 77; }
flags=""
if "$mpirun" --version 2>/dev/null | grep -q "Open MPI"; then
    flags="--allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }
same_results() { # same_results A.json B.json: every result equal, the inputs aside
    python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
diff = [k for k in ("observables", "acceptance", "derived", "degenerate") if a.get(k) != b.get(k)]
if diff:
    print("results differ in", diff)
    sys.exit(1)
PY
}

args="-L 32 --beta 0.44 --therm 50 --sweeps 400 --seed 7 --threads 1 --quiet"
# shellcheck disable=SC2086
"$mpirun" $flags -np 3 "$latmc_mpi" $args --json "$tmp/mpi.json" >"$tmp/mpi.out" 2>&1 ||
    { cat "$tmp/mpi.out"; fail "latmc-mpi on 3 ranks exited $?"; }
# shellcheck disable=SC2086
"$latmc" $args --json "$tmp/one.json" >/dev/null 2>&1 || fail "latmc exited $?"
same_results "$tmp/mpi.json" "$tmp/one.json" || fail "3 ranks and one process differ"
grep -q '"ranks": *3' "$tmp/mpi.json" || fail "the JSON inputs do not name 3 ranks"
grep -q "on each of 3 MPI ranks" "$tmp/mpi.out" || fail "the report does not name the ranks"
[ "$(grep -c '^latmc results' "$tmp/mpi.out")" -eq 1 ] || fail "not one report (rank 0 only)"
echo "ok: latmc-mpi on 3 ranks reports exactly what latmc does"

# 1b. The bit-sliced chain (decisions = 1: checkpoint format version 3): the final
#     checkpoint of 2 ranks is latmc's, byte for byte; resumed on 3 ranks it ends where one
#     uninterrupted run ends.
dec="-L 32 --beta 0.44 --therm 50 --seed 7 --threads 1 --quiet --param decisions=1"
# shellcheck disable=SC2086
"$mpirun" $flags -np 2 "$latmc_mpi" $dec --sweeps 400 --checkpoint "$tmp/dec-mpi.ckpt" \
    >"$tmp/dec.out" 2>&1 ||
    { cat "$tmp/dec.out"; fail "latmc-mpi decisions=1 on 2 ranks exited $?"; }
# shellcheck disable=SC2086
"$latmc" $dec --sweeps 400 --checkpoint "$tmp/dec-one.ckpt" >/dev/null 2>&1 ||
    fail "latmc decisions=1 exited $?"
cmp -s "$tmp/dec-mpi.ckpt" "$tmp/dec-one.ckpt" ||
    fail "decisions=1: the checkpoint of 2 ranks differs from latmc's"
# shellcheck disable=SC2086
"$mpirun" $flags -np 3 "$latmc_mpi" $dec --sweeps 800 --resume "$tmp/dec-mpi.ckpt" \
    --json "$tmp/dec-resumed.json" >"$tmp/dec.out" 2>&1 ||
    { cat "$tmp/dec.out"; fail "latmc-mpi decisions=1 resumed on 3 ranks exited $?"; }
# shellcheck disable=SC2086
"$latmc" $dec --sweeps 800 --json "$tmp/dec-whole.json" >/dev/null 2>&1 || fail "latmc exited $?"
same_results "$tmp/dec-resumed.json" "$tmp/dec-whole.json" ||
    fail "decisions=1: saved on 2 ranks, resumed on 3, differs from the uninterrupted run"
echo "ok: decisions=1: the checkpoint of 2 ranks is latmc's; resumed on 3 ranks: identical"

# 2. A signal to one rank: every rank stops at the same sweep, with a checkpoint.
common="-L 32 --beta 0.44 --therm 100 --seed 9 --threads 1 --quiet"
# shellcheck disable=SC2086
"$mpirun" $flags -np 2 "$latmc_mpi" $common --sweeps 100000000 --checkpoint "$tmp/run.ckpt" \
    --checkpoint-every 200 \
    --json "$tmp/stopped.json" >"$tmp/stopped.out" 2>&1 &
job=$!
i=0
ranks=""
while [ $i -lt 100 ]; do # the ranks: mpirun's children, once both run
    # children of mpirun, from /proc (no procps needed); their names have no spaces
    ranks=$(cat /proc/[0-9]*/stat 2>/dev/null | awk -v p="$job" '$4 == p { print $1 }' |
            tr '\n' ' ')
    [ "$(echo $ranks | wc -w)" -ge 2 ] && break
    sleep 0.1
    i=$((i + 1))
done
i=0
while [ ! -f "$tmp/run.ckpt" ] && [ $i -lt 600 ]; do # past the first periodic checkpoint
    sleep 0.1
    i=$((i + 1))
done
last=$(echo $ranks | awk '{print $NF}')
[ -n "$last" ] || fail "no rank processes found under mpirun ($job)"
kill -TERM "$last"
wait "$job"
st=$?
[ "$st" -eq 143 ] || { cat "$tmp/stopped.out"; fail "SIGTERM to one rank: exit status $st, want 143"; }
[ -f "$tmp/run.ckpt" ] || fail "no final checkpoint"
stopped=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["run"]
print(r["last_sweep"] if r["signal"] == 15 else -1)' "$tmp/stopped.json")
[ "$stopped" -gt 100 ] || fail "the JSON does not record signal 15 after thermalization"
# Resumed by plain latmc (with the same --checkpoint-every: it names the checkpoints' sweeps) up to 500 sweeps past the stop, against one uninterrupted run to there.
sweeps=$((stopped - 100 + 500))
# shellcheck disable=SC2086
"$latmc" $common --sweeps $sweeps --resume "$tmp/run.ckpt" --json "$tmp/resumed.json" \
    >/dev/null 2>&1 || fail "latmc --resume of latmc-mpi's checkpoint exited $?"
# shellcheck disable=SC2086
"$latmc" $common --sweeps $sweeps --json "$tmp/whole.json" >/dev/null 2>&1 || fail "latmc exited $?"
same_results "$tmp/resumed.json" "$tmp/whole.json" ||
    fail "stopped on 2 ranks and resumed in one process differs from the uninterrupted run"
echo "ok: SIGTERM to one rank stopped both (143) at sweep $stopped with a checkpoint; resumed by latmc: identical"

# 3. A rank killed from outside (SIGKILL): MPI ends the whole job (no rank left waiting),
#    and the last periodic checkpoint on disk is intact (temporary file, fsync, rename).
rm -f "$tmp/run.ckpt"
# shellcheck disable=SC2086
timeout 120 "$mpirun" $flags -np 2 "$latmc_mpi" $common --sweeps 100000000 \
    --checkpoint "$tmp/run.ckpt" --checkpoint-every 100 >"$tmp/killed.out" 2>&1 &
job=$!
i=0
while [ ! -f "$tmp/run.ckpt" ] && [ $i -lt 600 ]; do
    sleep 0.1
    i=$((i + 1))
done
sleep 0.5
ranks=$(cat /proc/[0-9]*/stat 2>/dev/null | awk -v p="$job" '$4 == p { print $1 }' | tr '\n' ' ')
# timeout(1) runs mpirun as its child: the ranks are the grandchildren
for t in $ranks; do
    ranks="$ranks $(cat /proc/[0-9]*/stat 2>/dev/null | awk -v p="$t" '$4 == p { print $1 }' | tr '\n' ' ')"
done
victim=$(for r in $ranks; do [ "$(cat /proc/$r/comm 2>/dev/null)" = latmc-mpi ] && echo $r; done | tail -n 1)
[ -n "$victim" ] || fail "no latmc-mpi rank found to kill"
kill -KILL "$victim"
t0=$(date +%s)
wait "$job"
st=$?
echo "the job ended $(( $(date +%s) - t0 )) s after the kill"
[ "$st" -ne 0 ] && [ "$st" -ne 124 ] || fail "a killed rank: the job's status $st (want a failure, not a hang)"
# shellcheck disable=SC2086
"$latmc" $common --resume "$tmp/run.ckpt" --sweeps 1 >/dev/null 2>"$tmp/resume.err"
rs=$?
# the resumed run may say the checkpoint is past its end (exit 2): the file was read whole
[ "$rs" -eq 0 ] || [ "$rs" -eq 2 ] || { cat "$tmp/resume.err"; fail "the last checkpoint is damaged"; }
grep -qi "corrupt" "$tmp/resume.err" && fail "the last checkpoint is damaged"
echo "ok: a killed rank ended the job (status $st); the last checkpoint on disk loads"
