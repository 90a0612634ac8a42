#!/bin/bash
# Host check of the sums the batched CUDA Heisenberg sweep kernel leaves before a tempering
# round, against the one-lattice reduction's order (tools/heis_sums_host_check.cu). Needs
# nvcc, no GPU.
# Usage: tools/heis-sums-host-check.sh [BUILD_DIR]   (from the repository root; default build)
set -e
b=${1:-build}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
nvcc -std=c++14 -arch=sm_90 -fmad=false -Ibackends/cuda/ensembles -Ibackends/cuda \
    -Ibackends/cuda/heisenberg -Ilib -I"$b/lib" -Iinclude -I"$b/include" -O2 \
    tools/heis_sums_host_check.cu -o "$t/check" 2>&1 | grep -v "pragma unroll" | grep -i error && exit 1
"$t/check"
