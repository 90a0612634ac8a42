#!/bin/bash
# Host check of the 1-bit Ising leaf's group arithmetic (tools/bits_host_check.cu): compiles
# backends/cuda/ising/ising_bits.cu with BITS_HOST_CHECK, which makes its walk, neighbour
# words, class addresses and group update host-callable. Needs nvcc, no GPU.
# Usage: tools/bits-host-check.sh [BUILD_DIR]   (from the repository root; default build)
exec bash tools/nvcc-host-check.sh "${1:-build}" tools/bits_host_check.cu -std=c++17 \
    -DBITS_HOST_CHECK -Ibackends/cuda/ising -Ibackends/cuda
