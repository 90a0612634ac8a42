#!/bin/bash
# Host check of the CUDA member lanes' site functions against the CPU's (tools/lanes_host_check.cu):
# compiles the kernel file with LANES_HOST_CHECK, which makes its site functions host-callable.
# Needs nvcc, no GPU.
# Usage: tools/lanes-host-check.sh [BUILD_DIR]   (from the repository root; default build)
exec bash tools/nvcc-host-check.sh "${1:-build}" tools/lanes_host_check.cu -std=c++14 \
    -DLANES_HOST_CHECK -include vector -Ibackends/cuda/ising -Ibackends/cuda
