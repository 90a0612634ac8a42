#!/bin/bash
# Host check of the CUDA counts' exact weighing (tools/modes_exact_host_check.cu): compiles
# backends/cuda/modes_exact.cuh's host-callable sums into a program. Needs nvcc, no GPU.
# Usage: tools/modes-exact-host-check.sh [BUILD_DIR]   (from the repository root; default build)
exec bash tools/nvcc-host-check.sh "${1:-build}" tools/modes_exact_host_check.cu -std=c++17 \
    -Ibackends/cuda
