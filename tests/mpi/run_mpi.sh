#!/bin/sh
# liblatmc_mpi's refusals and agreed failures for one model (tests/mpi/test_mpi_sim.c)
# under mpirun: a desc that differs between ranks, an invalid desc on one rank, bad spins
# on one rank, a save rank 0 cannot write. The chains on ranks are the identity matrix's
# mpi rows (run_mpi_matrix.sh).
# Usage: run_mpi.sh MPIRUN TEST_EXE MODEL [RANKS]. Exit 77 (with the reason) where MPI's
# launcher is missing or a cuda_* model finds no GPU. RANKS: default 3.
set -u
mpirun=$1
exe=$2
model=$3
np=${4:-3}
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
echo "== mpirun -np $np $(basename "$exe") mismatch $model"
# shellcheck disable=SC2086
timeout 120 "$mpirun" $flags -np "$np" "$exe" mismatch "$model" "$dir"
rc=$?
[ "$rc" -eq 77 ] && { echo "SKIP: $model (see the line above); not a pass"; exit 77; }
[ "$rc" -eq 0 ] || { echo "FAIL: mismatch on $np ranks (status $rc)"; exit 1; }
echo "PASS: $model"
