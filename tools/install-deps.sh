#!/bin/sh
# Install what building and testing liblatmc needs and this machine lacks (Debian/Ubuntu).
# Installs nothing when everything is there; needs root (or sudo) only when it installs.
set -eu

# Debian package that provides each thing we check for.
missing=""
need() { # need PACKAGE CHECK-COMMAND...
    pkg=$1
    shift
    if ! "$@" >/dev/null 2>&1; then
        missing="$missing $pkg"
    fi
}
need gcc             command -v cc
need g++             command -v c++
need meson           command -v meson
need ninja-build     command -v ninja
need pkgconf         command -v pkg-config
need libcmocka-dev   pkg-config --exists cmocka
need binutils        command -v readelf
need abigail-tools   command -v abidiff
# SIMDe: the AVX-512 kernels are also tested on CPUs without AVX-512, emulated (kernels suite)
need libsimde-dev    test -f /usr/include/simde/x86/avx512.h
# clang and libFuzzer: the checkpoint fuzzer's CI run (tools/ci-fuzz.sh)
need clang-14        command -v clang-14
need libclang-rt-14-dev sh -c 'ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a'
# The Python package (tools/ci-python.sh): a venv with pip in it
need python3         command -v python3
need python3-venv    sh -c 'd=$(mktemp -d) && python3 -m venv "$d/v"; r=$?; rm -rf "$d"; exit $r'
need python3-pip     python3 -m pip --version
# HDF5: latmc --hdf5 (built by -Dhdf5=auto where found; the cli suite reads the file back)
need libhdf5-dev     pkg-config --exists hdf5
# MPI: liblatmc_mpi (-Dmpi=auto) and the mpi suite's mpirun runs (doc/mpi.md)
need libopenmpi-dev  pkg-config --exists ompi-c
need openmpi-bin     command -v mpirun
# clang: the static and shared pkg-config recipes are checked with both C compilers
need clang           command -v clang

if [ -z "$missing" ]; then
    echo "install-deps: everything needed is installed"
    exit 0
fi
echo "install-deps: installing$missing"
if [ "$(id -u)" -eq 0 ]; then
    sudo=""
elif command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
else
    echo "install-deps: need root or sudo to install:$missing" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "install-deps: done"
