#!/bin/sh
# The GPU side of the robustness campaign (doc/robustness.md), for a machine with NVIDIA
# GPUs and a CUDA build of liblatmc (meson setup BUILD -Dcuda=enabled; ninja -C BUILD):
#
#   1. every test of the 'cuda' suite -- one GPU, several GPUs (tests/cuda), MPI parts on
#      GPUs (tests/mpi, through mpirun: every rank is followed), ensembles on the GPU
#      (test_ens_* cuda), the backends' conformance and the device faults -- under
#      compute-sanitizer's memcheck (with leak checking), racecheck, initcheck and
#      synccheck, each tool a pass of its own; a test that the tool reports an error in
#      fails;
#   2. device out-of-memory: test_cuda_faults alone (a lattice larger than the card is
#      LATMC_ENOMEM at create, then a small sim runs on the same device).
#
# Usage: sh tools/gpu-campaign.sh BUILD [OUT]    (OUT: gpu-campaign-out by default)
# Environment: TOOLS (default "memcheck racecheck initcheck synccheck"), SUITE (default cuda),
# TIMEOUT_MULTIPLIER (default 30: the tools slow kernels down 10 to 100 times).
# Writes OUT/<tool>.log (meson's test log) and OUT/summary.txt: per tool, the tests run,
# failed and skipped, and the sanitizer's error counts. Exit 0 when nothing failed.
set -u
build=${1:?usage: tools/gpu-campaign.sh BUILD [OUT]}
out=${2:-gpu-campaign-out}
tools=${TOOLS:-memcheck racecheck initcheck synccheck}
suite=${SUITE:-cuda}
mult=${TIMEOUT_MULTIPLIER:-30}
cs=$(command -v compute-sanitizer 2>/dev/null || echo /usr/local/cuda/bin/compute-sanitizer)
if [ ! -x "$cs" ]; then
    echo "gpu-campaign: no compute-sanitizer (CUDA toolkit's bin/)" >&2
    exit 2
fi
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    echo "gpu-campaign: no usable GPU (nvidia-smi -L fails)" >&2
    exit 2
fi
mkdir -p "$out"
summary="$out/summary.txt"
{
    echo "gpu-campaign: $(date -u +%Y-%m-%dT%H:%MZ) on $(hostname)"
    nvidia-smi -L
    "$cs" --version | tail -n 1
} >"$summary"
failed=0
for tool in $tools; do
    case $tool in
        memcheck) flags="--tool memcheck --leak-check full" ;;
        racecheck) flags="--tool racecheck --racecheck-report analysis" ;;
        initcheck) flags="--tool initcheck" ;;
        synccheck) flags="--tool synccheck" ;;
        *) echo "gpu-campaign: unknown tool $tool" >&2; exit 2 ;;
    esac
    # --target-processes all: follow mpirun's ranks and the tests' child processes;
    # --error-exitcode: a report fails the test even where the test itself passed.
    wrapper="$cs $flags --target-processes all --error-exitcode 86 --print-limit 20"
    echo "== $tool: meson test --suite $suite under compute-sanitizer" | tee -a "$summary"
    meson test -C "$build" --suite "$suite" --num-processes 1 \
        --timeout-multiplier "$mult" --wrapper "$wrapper" >"$out/$tool.out" 2>&1
    st=$?
    cp "$build/meson-logs/testlog.txt" "$out/$tool.log" 2>/dev/null
    grep -E '^(Ok|Fail|Skipped|Timeout):' "$out/$tool.out" | tee -a "$summary"
    echo "sanitizer error summaries with errors: $(grep -c 'ERROR SUMMARY: [1-9]' \
        "$out/$tool.log" 2>/dev/null || echo 0)" | tee -a "$summary"
    [ "$st" -eq 0 ] || failed=1
done
echo "== device out-of-memory at create (test_cuda_faults)" | tee -a "$summary"
meson test -C "$build" test_cuda_faults --print-errorlogs >"$out/oom.out" 2>&1
st=$?
grep -E '^(Ok|Fail|Skipped):|ENOMEM|out of memory' "$out/oom.out" | head -n 20 | tee -a "$summary"
[ "$st" -eq 0 ] || failed=1
echo "gpu-campaign: $([ "$failed" -eq 0 ] && echo ok || echo FAILED); logs in $out/" |
    tee -a "$summary"
exit "$failed"
