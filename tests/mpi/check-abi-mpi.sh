#!/bin/sh
# liblatmc_mpi.so against its committed ABI baseline (abi/liblatmc_mpi.abi), as
# tests/abi/check-abi.sh does for liblatmc: added functions allowed, any other change fails.
# The baseline was written against Open MPI (its MPI_Comm is a pointer, MPICH's an int: a
# liblatmc_mpi is tied to the MPI it was built with), so other MPIs skip (77), as does a
# machine without abidiff. Usage: check-abi-mpi.sh LIB SRC_DIR BUILD_DIR MPI_DEP_NAME
set -u
lib=$1
src=$2
build=$3
mpi=$4
command -v abidiff >/dev/null 2>&1 || { echo "SKIP: abidiff not installed"; exit 77; }
case $mpi in
    ompi*) ;;
    *) echo "SKIP: the baseline is Open MPI's; this build uses $mpi"; exit 77 ;;
esac
abidiff --no-added-syms --drop-private-types \
    --headers-dir2 "$src/include/latmc" --headers-dir2 "$src/mpi/include/latmc" \
    --headers-dir2 "$build/include/latmc" "$src/abi/liblatmc_mpi.abi" "$lib"
status=$?
if [ $status -ne 0 ]; then
    echo "ABI differs from abi/liblatmc_mpi.abi (abidiff status $status). If the change is"
    echo "allowed (doc/ABI.md), regenerate it: abidw --headers-dir include/latmc"
    echo "  --headers-dir mpi/include/latmc --headers-dir build/include/latmc"
    echo "  --drop-private-types --no-corpus-path --out-file abi/liblatmc_mpi.abi build/mpi/liblatmc_mpi.so"
    exit 1
fi
echo "ABI matches abi/liblatmc_mpi.abi (added functions allowed)"
