#!/bin/sh
# The identity matrix's mpi rows (tests/repro/identity) under mpirun on RANKS ranks: every
# rank runs every row, one part per rank. Usage: run_mpi_matrix.sh MPIRUN EXE RANKS [ARGS]
# (ARGS: more of the identity matrix's options, such as --spec NAME). Exit
# 77 (with the reason) where MPI's launcher is missing or every row was skipped.
set -u
mpirun=$1
exe=$2
np=$3
if ! command -v "$mpirun" >/dev/null 2>&1; then
    echo "SKIP: no MPI launcher ($mpirun) found"
    exit 77
fi
flags=""
if "$mpirun" --version 2>/dev/null | grep -q "Open MPI"; then
    flags="--allow-run-as-root --oversubscribe --mca btl self,vader"
    export OMPI_MCA_rmaps_base_oversubscribe=1
fi
shift 3
echo "== mpirun -np $np $(basename "$exe") --layout mpi $*"
# shellcheck disable=SC2086
exec timeout 280 "$mpirun" $flags -np "$np" "$exe" --layout mpi "$@"
