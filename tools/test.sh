#!/bin/sh
# README's second command: install what is missing, build and run every test suite, then
# again with AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/).
set -eu
cd "$(dirname "$0")/.."
sh tools/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)

echo "== build/ (debugoptimized) =="
[ -f build/build.ninja ] || meson setup build
ninja -C build
meson test -C build --num-processes "$jobs" --print-errorlogs

echo "== build-asan/ (ASan + UBSan) =="
[ -f build-asan/build.ninja ] ||
    meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false
ninja -C build-asan
# Any UBSan report fails the run; leak checking is on (ASan's default on Linux).
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
    meson test -C build-asan --num-processes "$jobs" --print-errorlogs --timeout-multiplier 4
