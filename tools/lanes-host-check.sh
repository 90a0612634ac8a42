#!/bin/bash
# Host check of the CUDA member lanes' site function against the CPU's (tools/lanes_host_check.cu):
# compiles a copy of the kernel file with lanes_site_fast made host-callable. Needs nvcc.
# Usage: tools/lanes-host-check.sh [BUILD_DIR]   (from the repository root; default build)
set -e
b=${1:-build}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
sed 's/^__device__ __forceinline__ uint32_t lanes_site_fast(/__host__ __device__ __forceinline__ uint32_t lanes_site_fast(/' \
    backends/cuda/ensembles/ens_lanes_kernels.cu > "$t/ens_lanes_kernels.cu"
nvcc -std=c++14 -include vector -I"$t" -Ibackends/cuda/ensembles -Ibackends/cuda -Ilib -I"$b/lib" \
    -Iinclude -I"$b/include" -O2 tools/lanes_host_check.cu -o "$t/check" 2>&1 | grep -v "pragma unroll" | grep -i error && exit 1
"$t/check"
