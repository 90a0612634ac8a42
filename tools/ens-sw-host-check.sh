#!/bin/bash
# Host check of the batched Swendsen-Wang members' per-site rules against the CPU backend's
# chain (tools/ens_sw_host_check.cu): compiles backends/cuda/ensembles/ens_sw_kernels.cu's
# host-callable rules into a program linked with the build's liblatmc. Needs nvcc, no GPU.
# Usage: tools/ens-sw-host-check.sh [BUILD_DIR]   (from the repository root; default build)
set -e
b=${1:-build}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
nvcc -std=c++14 -arch=sm_90 -fmad=false -Ibackends/cuda/ensembles -Ibackends/cuda \
    -Ibackends/cuda/clusters -Ilib -I"$b/lib" -Iinclude -I"$b/include" -O2 \
    tools/ens_sw_host_check.cu -o "$t/check" -L"$b" -llatmc -Xlinker -rpath -Xlinker "$(cd "$b" && pwd)" \
    2>&1 | grep -v "pragma unroll" | grep -i error && exit 1
"$t/check"
