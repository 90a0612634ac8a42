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
