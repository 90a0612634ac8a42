#!/bin/sh
# README's second command: install what is missing, build and run every test suite, then
# again with AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/). Ends with one
# line "tests: N passed, N failed, N skipped" over both builds.
set -eu
cd "$(dirname "$0")/.."
sh tools/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
passed=0
failed=0
skipped=0
status=0

# run_tests DIR [meson test options]: run, show the output, add up meson's summary counts.
run_tests() {
    dir=$1
    shift
    log="$dir/meson-logs/ci-test-output.txt"
    set +e
    meson test -C "$dir" --num-processes "$jobs" --print-errorlogs "$@" >"$log" 2>&1
    st=$?
    set -e
    cat "$log"
    count() { awk -v k="$1:" 'index($0, k) == 1 { n += $NF } END { print n + 0 }' "$log"; }
    passed=$((passed + $(count Ok) + $(count "Expected Fail")))
    failed=$((failed + $(count Fail) + $(count "Unexpected Pass") + $(count Timeout)))
    skipped=$((skipped + $(count Skipped)))
    [ "$st" -eq 0 ] || status=$st
}

echo "== build/ (debugoptimized) =="
[ -f build/build.ninja ] || meson setup build
ninja -C build
run_tests build

echo "== build-asan/ (ASan + UBSan) =="
[ -f build-asan/build.ninja ] ||
    meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false
ninja -C build-asan
# Any UBSan report fails the run; leak checking is on (ASan's default on Linux).
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
    run_tests build-asan --timeout-multiplier 4

sh tools/ci-tsan.sh || { status=1; failed=$((failed + 1)); }
sh tools/ci-python.sh || status=$?   # the Python package (pip install ., pytest)

echo "tests: $passed passed, $failed failed, $skipped skipped"
exit "$status"
