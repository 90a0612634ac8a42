#!/bin/sh
# The MPI tests of one model (tests/mpi/test_mpi_sim.c) under mpirun, CPU ranks:
#   bit-identity to the single-process sim on 1, 2, 3 and 4 ranks (with a save/load round
#   trip on each), a checkpoint saved on 4 ranks (byte for byte the single-process sim's,
#   streamed in chunks of one plane) loaded on 1 and 3 ranks and by plain liblatmc, and a
#   desc that differs between ranks refused on every rank.
# Usage: run_mpi.sh MPIRUN TEST_EXE MODEL [MAX_RANKS]. Exit 77 (with the reason) where MPI's
# launcher is missing, the model does not run on several ranks yet, or a cuda_* model finds
# no GPU. MAX_RANKS (default 4) caps the rank counts: GPU ranks share one GPU in tests, so
# they run 1 to 3 ranks (save on 3, load on 1 and 2).
set -u
mpirun=$1
exe=$2
model=$3
max=${4:-4}
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
np=1
while [ "$np" -le "$max" ]; do
    run "$np" identity "$model" "$dir"
    rc=$?
    if [ "$rc" -eq 77 ]; then
        echo "SKIP: $model does not run on $np ranks here (see the line above); not a pass"
        exit 77
    fi
    [ "$rc" -eq 0 ] || { echo "FAIL: identity on $np ranks (status $rc)"; exit 1; }
    np=$((np + 1))
done
# checkpoints stream in chunks of one plane here (many chunks per rank through MPI)
export LATMC_CHECKPOINT_CHUNK_BYTES=1
run "$max" save "$model" "$dir/saved.ckpt" || { echo "FAIL: save on $max ranks"; exit 1; }
for np in 1 $((max - 1)); do
    run "$np" load "$model" "$dir/saved.ckpt" ||
        { echo "FAIL: load on $np ranks of a checkpoint saved on $max"; exit 1; }
done
unset LATMC_CHECKPOINT_CHUNK_BYTES
run $((max - 1)) mismatch "$model" "$dir" || { echo "FAIL: desc mismatch"; exit 1; }
echo "PASS: $model"
