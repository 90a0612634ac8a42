#!/bin/bash
# Host check of the batched Swendsen-Wang and Wolff members' per-site rules against the CPU
# backend's chain (tools/ens_sw_host_check.cu): compiles backends/cuda/clusters/
# cuda_sw_batch_kernels.cu's host-callable rules into a program linked with the build's liblatmc.
# Needs nvcc, no GPU.
# Usage: tools/ens-sw-host-check.sh [BUILD_DIR]   (from the repository root; default build)
exec bash tools/nvcc-host-check.sh "${1:-build}" tools/ens_sw_host_check.cu --link -std=c++14 \
    -fmad=false -Ibackends/cuda -Ibackends/cuda/clusters
