#!/bin/bash
# Host check of the 1-bit Ising leaf's group arithmetic (tools/bits_host_check.cu): compiles
# backends/cuda/ising/ising_bits.cu with BITS_HOST_CHECK, which makes its walk, neighbour
# words, class addresses and group update host-callable. Needs nvcc, no GPU.
# Usage: tools/bits-host-check.sh [BUILD_DIR]   (from the repository root; default build)
set -e
b=${1:-build}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
nvcc -std=c++17 -arch=sm_90 -DBITS_HOST_CHECK -Ibackends/cuda/ising -Ibackends/cuda -Ilib \
    -I"$b/lib" -Iinclude -I"$b/include" -O2 tools/bits_host_check.cu -o "$t/check" 2>&1 |
    grep -v "pragma unroll" | grep -i error && exit 1
"$t/check"
