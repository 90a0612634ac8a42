#!/bin/bash
# Host check (no GPU) of the CUDA Heisenberg ensembles' sums reductions
# (backends/cuda/heisenberg/heisenberg_batch_kernels.cu: ens_heisenberg_measure_kernel, the padded
# ens_heisenberg_measure_fast_kernel and the window pipeline ens_heisenberg_measure_window_kernel, with
# its round form ens_heisenberg_round_window_kernel):
# their text, cut out of the .cu, runs as host code with one POSIX thread per CUDA thread
# and a pthread barrier for __syncthreads (tools/heisenberg_window_host_check.cpp); each kernel's
# sums are compared bit for bit with the one-lattice reduction's order on many shapes, every
# thread's barrier count with the others', and the shared memory starts as NaNs (a term
# read before it is written shows). SAN=thread builds with ThreadSanitizer (a race between
# a producer's write and a consumer's read of the ring, unordered by the barriers, is
# reported), SAN=address with AddressSanitizer (the shared memory and the members' arrays
# are allocations of exactly their size). Needs g++ and the CUDA headers.
# Usage: tools/heisenberg-window-host-check.sh [BUILD_DIR] [quick | random N]   (from the repository root)
set -e
b=${1:-build}
cuda=${CUDA_HOME:-/usr/local/cuda}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
# KERNELS: a mutant, to see the check fail
src=${KERNELS:-backends/cuda/heisenberg/heisenberg_batch_kernels.cu}
# the chunks' total the reductions share, the reductions (from the section's heading to the
# launch helpers), the fast kernel's shared memory and the launch's choice of kernel
awk '/^__host__ __device__ inline double ens_heisenberg_chunks_total/ { p = 1 } p { print }
     p && /^}/ { p = 0 }' "$src" >"$t/region.inc"
awk '/^\/\* ---- the members. sums/ { p = 1 } /^\/\* Whether the device takes smem/ { p = 0 } p' \
    "$src" >>"$t/region.inc"
awk '/^static size_t ens_heisenberg_fast_smem/ { p = 1 } p { print } p && /^}/ { p = 0 }' \
    "$src" >>"$t/region.inc"
awk '/^extern "C" int cuda_ens_heisenberg_measure_fits/ { p = 1 } p { print } p && /^}/ { p = 0 }' \
    "$src" >>"$t/region.inc"
grep -q 'ens_heisenberg_measure_window_kernel' "$t/region.inc" &&
    grep -q 'cuda_ens_heisenberg_measure_fits' "$t/region.inc" ||
    { echo "heisenberg-window-host-check: the kernels' text not found in $src"; exit 1; }
# dynamic shared memory: the block's allocation
sed -i 's/extern __shared__ double \([a-z_]*\)\[\];/double *const \1 = (double *)sim_smem;/' \
    "$t/region.inc"
flags="-O1 -g -ffp-contract=off" # the module is built with -fmad=false
case "${SAN:-}" in
thread) flags="$flags -fsanitize=thread" ;;
address) flags="$flags -fsanitize=address,undefined -fno-sanitize-recover=all" ;;
esac
g++ -std=c++17 $flags -Wall -Wno-unknown-pragmas -Wno-unused-function -Wno-maybe-uninitialized \
    -I"$t" -Ibackends/cuda/heisenberg -Ibackends/cuda -Ilib -I"$b/lib" -Iinclude -I"$b/include" \
    -I"$cuda/include" tools/heisenberg_window_host_check.cpp -o "$t/check" -lpthread
"$t/check" ${2:-} ${3:-}
