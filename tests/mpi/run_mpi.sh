#!/bin/sh
# The MPI tests of one model (tests/mpi/test_mpi_sim.c) under mpirun, CPU ranks:
#   bit-identity to the single-process sim on 1, 2, 3 and 4 ranks (with a save/load round
#   trip on each), a checkpoint saved on 4 ranks loaded on 1 and 3 ranks and by plain
#   liblatmc, and a desc that differs between ranks refused on every rank.
# Usage: run_mpi.sh MPIRUN TEST_EXE MODEL. Exit 77 (with the reason) where MPI's launcher
# is missing or the model does not run on several ranks yet.
set -u
mpirun=$1
exe=$2
model=$3
if ! command -v "$mpirun" >/dev/null 2>&1; then
    echo "SKIP: no MPI launcher ($mpirun) found"
    exit 77
fi
# Open MPI refuses root without these (CI runs as root) and wants oversubscription to run
# 4 ranks on 2 cores; shared memory only, no network probing.
flags=""
if "$mpirun" --version 2>/dev/null | grep -q "Open MPI"; then
    flags="--allow-run-as-root --oversubscribe --mca btl self,vader"
    export OMPI_MCA_rmaps_base_oversubscribe=1
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT INT TERM
run() {
    np=$1
    shift
    echo "== mpirun -np $np $(basename "$exe") $*"
    # shellcheck disable=SC2086
    timeout 120 "$mpirun" $flags -np "$np" "$exe" "$@"
}
for np in 1 2 3 4; do
    run "$np" identity "$model" "$dir"
    rc=$?
    if [ "$rc" -eq 77 ]; then
        echo "SKIP: $model does not run on $np ranks yet (see the line above); not a pass"
        exit 77
    fi
    [ "$rc" -eq 0 ] || { echo "FAIL: identity on $np ranks (status $rc)"; exit 1; }
done
run 4 save "$model" "$dir/four.ckpt" || { echo "FAIL: save on 4 ranks"; exit 1; }
for np in 1 3; do
    run "$np" load "$model" "$dir/four.ckpt" ||
        { echo "FAIL: load on $np ranks of a checkpoint saved on 4"; exit 1; }
done
run 3 mismatch "$model" "$dir" || { echo "FAIL: desc mismatch"; exit 1; }
echo "PASS: $model"
