#!/bin/bash
# Host check of the float count of phi^4's fixed point (tools/phi4_float_host_check.cu):
# compiles backends/cuda/modes_fixed.cuh's host-callable rule into a program. Needs nvcc,
# no GPU.
# Usage: tools/phi4-float-host-check.sh [BUILD_DIR]   (from the repository root; default build)
exec bash tools/nvcc-host-check.sh "${1:-build}" tools/phi4_float_host_check.cu -std=c++17 \
    -Ibackends/cuda
