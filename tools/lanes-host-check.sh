#!/bin/bash
# Host check of the CUDA member lanes' site functions against the CPU's (tools/lanes_host_check.cu):
# compiles the kernel file with LANES_HOST_CHECK, which makes its site functions host-callable.
# Needs nvcc, no GPU.
# Usage: tools/lanes-host-check.sh [BUILD_DIR]   (from the repository root; default build)
set -e
b=${1:-build}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
nvcc -std=c++14 -arch=sm_90 -DLANES_HOST_CHECK -include vector -Ibackends/cuda/ensembles -Ibackends/cuda -Ilib \
    -I"$b/lib" -Iinclude -I"$b/include" -O2 tools/lanes_host_check.cu -o "$t/check" 2>&1 |
    grep -v "pragma unroll" | grep -i error && exit 1
"$t/check"
