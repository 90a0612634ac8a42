#!/bin/sh
# Install the build into a scratch DESTDIR, compile examples/downstream_mpi/main.c with the
# MPI compiler wrapper and `pkg-config --cflags --libs latmc-mpi`, run it on 1 and 3 ranks:
# the same energy, bit for bit. Skipped (77) without mpicc or mpirun.
# Usage: check-downstream-mpi.sh BUILD_DIR SRC_DIR [EXTRA_FLAGS] (e.g. -fsanitize=...)
set -eu
build=$1
src=$2
extra=${3:-}
for tool in mpicc mpirun pkg-config; do
    command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool not installed"; exit 77; }
done
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
root=$scratch/root
meson install -C "$build" --no-rebuild --quiet --destdir "$root" >"$scratch/install.log" 2>&1 ||
    { cat "$scratch/install.log"; exit 1; }
pcfile=$(find "$root" -name latmc-mpi.pc | head -n 1)
[ -n "$pcfile" ] || { echo "FAIL: latmc-mpi.pc was not installed"; exit 1; }
prefix=$(sed -n 's/^prefix=//p' "$pcfile")
libdir=$(pkg-config --define-variable=prefix="$root$prefix" --variable=libdir "$pcfile")
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pcfile")
flags=$(PKG_CONFIG_SYSROOT_DIR=$root pkg-config --cflags --libs latmc-mpi)
# doc/mpi.md's recipe: the rpath (the .pc file's libdir, here inside the DESTDIR) lets the
# ranks start from this private prefix with no LD_LIBRARY_PATH
echo "mpicc main.c $flags -Wl,-rpath,$libdir"
# shellcheck disable=SC2086
mpicc $extra "$src/examples/downstream_mpi/main.c" $flags -Wl,-rpath,"$libdir" -o "$scratch/ising_mpi"
mpiflags=""
if mpirun --version 2>/dev/null | grep -q "Open MPI"; then
    mpiflags="--allow-run-as-root --oversubscribe --mca btl self,vader"
fi
# shellcheck disable=SC2086
one=$(env -u LD_LIBRARY_PATH mpirun $mpiflags -np 1 "$scratch/ising_mpi")
# shellcheck disable=SC2086
three=$(env -u LD_LIBRARY_PATH mpirun $mpiflags -np 3 "$scratch/ising_mpi")
echo "$one"
echo "$three"
[ "${one% (*}" = "${three% (*}" ] || { echo "FAIL: 1 and 3 ranks differ"; exit 1; }
# The same through the CMake package: find_package(latmc COMPONENTS mpi), latmc::latmc_mpi.
if command -v cmake >/dev/null 2>&1; then
    cmake -S "$src/examples/downstream_mpi" -B "$scratch/cm" -DCMAKE_PREFIX_PATH="$root$prefix" \
        -DCMAKE_C_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" >"$scratch/cm.log" 2>&1 &&
        cmake --build "$scratch/cm" >>"$scratch/cm.log" 2>&1 || { cat "$scratch/cm.log"; exit 1; }
    # shellcheck disable=SC2086
    # CMake records the imported libraries' directory as RUNPATH
    two=$(env -u LD_LIBRARY_PATH mpirun $mpiflags -np 2 "$scratch/cm/ising_mpi")
    echo "$two (CMake, latmc::latmc_mpi)"
    [ "${one% (*}" = "${two% (*}" ] || { echo "FAIL: the CMake build on 2 ranks differs"; exit 1; }
else
    echo "cmake not installed: the CMake package's component mpi not checked"
fi
echo "ok: a downstream MPI program built with latmc-mpi.pc, the same on 1 and 3 ranks"
