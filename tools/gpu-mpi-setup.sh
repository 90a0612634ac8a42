#!/bin/sh
# An MPI for liblatmc_mpi on a machine that reaches no package registry (the GPU machines,
# doc/mpi.md "GPU ranks"). Source it:  . tools/gpu-mpi-setup.sh [PREFIX]
#
#   1. An MPI already installed (mpicc and mpirun on PATH: Ubuntu 24.04's Open MPI 4.1 on
#      the H200 machines) is used as it is.
#   2. Otherwise the Debian/Ubuntu packages carried in .deps/mpi/*.deb (fetched where a
#      registry is reachable, see below) are unpacked into PREFIX (default /tmp/latmc-mpi)
#      with dpkg -x, and PATH, LD_LIBRARY_PATH, OPAL_PREFIX and PKG_CONFIG_PATH point there.
#
# Fetching the packages (on a machine of the same distribution, with apt):
#   mkdir -p .deps/mpi && cd .deps/mpi && apt-get download openmpi-bin openmpi-common \
#       libopenmpi3 libopenmpi-dev libpmix2 libhwloc15 libevent-core-2.1-7 \
#       libevent-pthreads-2.1-7 libfabric1 libucx0 libpsm2-2 libnl-3-200 libnl-route-3-200
# (names of Debian 12; Ubuntu 24.04: libopenmpi3t64, libpmix2t64, libhwloc15,
# libevent-*-2.1-7t64). Open MPI run as root needs --allow-run-as-root.
# Prints what it found; returns 1 (without exiting the caller's shell) if nothing.
latmc_mpi_prefix=${1:-/tmp/latmc-mpi}
if command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1; then
    echo "gpu-mpi-setup: installed MPI: $(command -v mpirun) ($(mpirun --version 2>&1 | head -n1))"
elif ls .deps/mpi/*.deb >/dev/null 2>&1; then
    mkdir -p "$latmc_mpi_prefix"
    for deb in .deps/mpi/*.deb; do dpkg -x "$deb" "$latmc_mpi_prefix"; done
    ompi_lib=$(dirname "$(find "$latmc_mpi_prefix" -name 'libmpi.so*' | head -n1)")
    export PATH="$latmc_mpi_prefix/usr/bin:$PATH"
    export LD_LIBRARY_PATH="$ompi_lib:$ompi_lib/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export PKG_CONFIG_PATH="$ompi_lib/pkgconfig:$ompi_lib/openmpi/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    # Open MPI finds its components and help files relative to OPAL_PREFIX
    export OPAL_PREFIX="$latmc_mpi_prefix/usr"
    echo "gpu-mpi-setup: unpacked the packages of .deps/mpi into $latmc_mpi_prefix"
else
    echo "gpu-mpi-setup: no MPI installed and no .deps/mpi/*.deb to unpack (see this script's" \
         "header for fetching them)"
    # shellcheck disable=SC2317 # exit: when run rather than sourced
    return 1 2>/dev/null || exit 1
fi
# Whether the MPI passes CUDA device buffers (liblatmc_mpi asks it the same way at run time)
if command -v ompi_info >/dev/null 2>&1; then
    echo "gpu-mpi-setup: $(ompi_info --parsable --all 2>/dev/null |
        grep -m1 'mpi_built_with_cuda_support:value' || echo 'CUDA support: not reported')"
fi
