#!/bin/bash
# Host check of the CUDA Ising chains' dependency window (tools/chain_host_check.cu):
# compiles backends/cuda/ising/ising_packed_chain.cu into a host program and checks, for
# many lattice shapes, that each task's window of the step before holds every row the task
# reads. Needs nvcc, no GPU.
# Usage: tools/chain-host-check.sh [BUILD_DIR]   (from the repository root; default build)
exec bash tools/nvcc-host-check.sh "${1:-build}" tools/chain_host_check.cu -std=c++17 \
    -Ibackends/cuda/ising -Ibackends/cuda
