#!/bin/sh
# CI job: the thread rules under ThreadSanitizer (doc/robustness.md). Builds, in
# build-tsan/, only liblatmc and the thread test, with GCC's -fsanitize=thread, and runs
# tests/robustness/test_threads: threads hammering const calls on one sim (failing and
# succeeding), non-const calls on different sims of one ctx, log callbacks, and the CPU
# backend status from exited threads. Any race report fails the job.
#
# OpenMP is disabled in this build (-Dopenmp=disabled): GCC's libgomp is not built with
# TSan instrumentation, so its barriers look like races to TSan (false positives), while
# the rules under test are about the library's own shared state between the caller's
# threads, which is the same with and without OpenMP. The OpenMP paths are covered for
# bit identity by the repro suite and for memory errors by the ASan build.
# SIMD kernels are left out too (-Dsimd=false): they run inside one sim, not between
# threads. Cost: about a minute on 2 cores.
set -eu
cd "$(dirname "$0")/.."
dir=build-tsan
[ -f "$dir/build.ninja" ] ||
    meson setup "$dir" -Db_sanitize=thread -Db_lundef=false -Dopenmp=disabled -Dsimd=false \
        -Dcuda=disabled -Dexamples=false -Ddocs=disabled >/dev/null
ninja -C "$dir" tests/robustness/test_threads
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1"
export LD_LIBRARY_PATH="$dir"
test_bin="$dir/tests/robustness/test_threads"
log="$dir/ci-tsan.log"
# Kernels with many random mmap bits break TSan's memory layout ("unexpected memory
# mapping"): only then run again without address-space randomisation.
set +e
"$test_bin" >"$log" 2>&1
st=$?
if [ "$st" -ne 0 ] && grep -q "unexpected memory mapping" "$log" &&
    setarch "$(uname -m)" -R true 2>/dev/null; then
    echo "ci-tsan: TSan needs a fixed memory layout here: running under setarch -R"
    setarch "$(uname -m)" -R "$test_bin" >"$log" 2>&1
    st=$?
fi
set -e
cat "$log"
if [ "$st" -ne 0 ]; then
    echo "ci-tsan: FAILED (status $st; 66 = a data race)"
    exit 1
fi
echo "ci-tsan: the thread rules hold, no data race"
