#!/bin/bash
# Host check of the sums the batched CUDA Heisenberg sweep kernel leaves before a tempering
# round, against the one-lattice reduction's order (tools/heisenberg_sums_host_check.cu). Needs
# nvcc, no GPU.
# Usage: tools/heisenberg-sums-host-check.sh [BUILD_DIR]   (from the repository root; default build)
exec bash tools/nvcc-host-check.sh "${1:-build}" tools/heisenberg_sums_host_check.cu -std=c++14 \
    -fmad=false -Ibackends/cuda -Ibackends/cuda/exec -Ibackends/cuda/heisenberg
