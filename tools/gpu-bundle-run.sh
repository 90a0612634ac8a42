#!/bin/sh
# Run the tests of a bundle made by tools/gpu-bundle.sh, one at a time (the GPU tests
# share one device: side by side each runs many times slower), from the source checkout
# the bundle was made from, on a machine without meson.
#
# Usage: sh tools/gpu-bundle-run.sh BUNDLE [FIRST [COUNT]]
#   FIRST, COUNT  lines of BUNDLE/tests.tsv to run (default: all), so that a long list
#                 can be split over calls of a time-limited session
# Environment:
#   BUDGET   seconds: start no test after this long (default: none); the tests not
#            started are listed as "not run"
#   MODULE   a latmc-cuda.so to test instead of the bundle's
#   LOGS     a folder for the output of each failed test (default: none kept)
# Unpacks BUNDLE/build.tar.xz into a folder of its own under ${TMPDIR:-/tmp}, and
# BUNDLE/cmocka/*.deb where the machine has no libcmocka.so.0. Prints a line a test
# (OK, FAIL(status), SKIP, TIMEOUT; seconds; name), the failures' last lines, and
# "tests: N passed, N failed, N skipped"; exit status 1 when a test failed.
set -u
bundle=${1:?usage: tools/gpu-bundle-run.sh BUNDLE [FIRST [COUNT]]}
first=${2:-1}
count=${3:-1000000}
bundle=$(cd "$bundle" && pwd)
src=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$bundle/tests.tsv" ] && [ -f "$bundle/build.tar.xz" ] ||
    { echo "gpu-bundle-run: $bundle has no tests.tsv and build.tar.xz" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/latmc-bundle.XXXXXX") || exit 2
mkdir "$work/build" && tar -C "$work/build" -xJf "$bundle/build.tar.xz" ||
    { echo "gpu-bundle-run: cannot unpack $bundle/build.tar.xz" >&2; exit 2; }
if [ -n "${MODULE:-}" ]; then
    cp "$MODULE" "$work/build/backends/cuda/latmc-cuda.so" || exit 2
fi
extra=
if ls "$bundle"/cmocka/*.deb >/dev/null 2>&1 &&
   ! ldconfig -p 2>/dev/null | grep -q 'libcmocka\.so\.0 '; then
    for deb in "$bundle"/cmocka/*.deb; do
        dpkg -x "$deb" "$work/cmocka" || exit 2
    done
    extra=$(dirname "$(find "$work/cmocka" -name 'libcmocka.so.0*' | head -n 1)")
fi
[ -n "${LOGS:-}" ] && mkdir -p "$LOGS"

subst() { printf '%s' "$1" | sed -e "s#@BUILD@#$work/build#g" -e "s#@SRC@#$src#g"; }
start=$(date +%s)
passed=0 failed=0 skipped=0 line=0 stopped=0
tab=$(printf '\t')
while IFS=$tab read -r name timeout env cmd wd; do
    line=$((line + 1))
    [ "$line" -lt "$first" ] && continue
    [ "$line" -ge $((first + count)) ] && break
    if [ -n "${BUDGET:-}" ] && [ $(($(date +%s) - start)) -ge "$BUDGET" ]; then
        echo "not run (BUDGET): $name"
        stopped=$((stopped + 1))
        continue
    fi
    [ "$env" = - ] && env=
    env=$(subst "$env")
    cmd=$(subst "$cmd")
    wd=$(subst "$wd")
    # after the test's own environment (meson's LD_LIBRARY_PATH names the build's
    # folders), cmocka's folder in front
    setenv=
    [ -n "$env" ] && setenv="export $env;"
    [ -n "$extra" ] && setenv="$setenv export LD_LIBRARY_PATH=$extra:\${LD_LIBRARY_PATH:-};"
    [ "$timeout" -gt 0 ] 2>/dev/null || timeout=1800
    t0=$(date +%s)
    # stdin from /dev/null: the list is the loop's stdin, and a test (mpirun) may read its own
    (cd "$wd" && eval "$setenv exec timeout $timeout $cmd") </dev/null >"$work/out" 2>&1
    st=$?
    secs=$(($(date +%s) - t0))
    case $st in
        0) res=OK; passed=$((passed + 1)) ;;
        77) res=SKIP; skipped=$((skipped + 1)) ;;
        124) res=TIMEOUT; failed=$((failed + 1)) ;;
        *) res="FAIL($st)"; failed=$((failed + 1)) ;;
    esac
    printf '%-9s %5ss  %s\n' "$res" "$secs" "$name"
    case $res in
        OK | SKIP) ;;
        *)
            tail -n 20 "$work/out" | sed 's/^/    /'
            [ -n "${LOGS:-}" ] &&
                cp "$work/out" "$LOGS/$(printf '%s' "$name" | tr -c 'A-Za-z0-9._-' _).log"
            ;;
    esac
done <"$bundle/tests.tsv"
rm -rf "$work"
[ "$stopped" -gt 0 ] && echo "gpu-bundle-run: $stopped test(s) not run (BUDGET)"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
