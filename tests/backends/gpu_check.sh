#!/bin/sh
# The CUDA backend's check on a GPU machine: build, the backends / physics / repro suites,
# then the CUDA conformance program under compute-sanitizer (memcheck with leak check,
# racecheck, initcheck, synccheck), each exit status checked, and a summary.
#
# Usage (from anywhere):  tests/backends/gpu_check.sh CMOCKA [BUILD_DIR]
#   CMOCKA     a folder holding the libcmocka0 and libcmocka-dev .deb files, or the tree
#              they were unpacked into (dpkg -x); the GPU machine has no cmocka of its own
#   BUILD_DIR  default /tmp/build-gpu-check (created, or reconfigured when it exists)
#
# Preparing CMOCKA on a machine with apt (Debian/Ubuntu, amd64), in the repository root
# (.deps/ is ignored by git, so it travels only when carried explicitly):
#   mkdir -p .deps/cmocka && (cd .deps/cmocka && apt-get download libcmocka0 libcmocka-dev)
# then, on the GPU machine:  tests/backends/gpu_check.sh .deps/cmocka
#
# Needs there: nvcc, meson, ninja, a C compiler, pkg-config, compute-sanitizer (found on
# PATH or in the CUDA toolkit next to nvcc). Exit status 0 only when every step passed
# and the CUDA tests really ran (not skipped).
#
# To fit a short device session, two variables narrow it down (defaults: everything):
#   GPU_CHECK_SUITES      meson suites to run, default "backends physics repro"
#   GPU_CHECK_SANITIZERS  compute-sanitizer tools, default
#                         "memcheck racecheck initcheck synccheck" ("" for none)
set -u

die() { echo "gpu_check: $*" >&2; exit 2; }

[ $# -ge 1 ] || die "usage: $0 CMOCKA_DEBS_OR_PREFIX [BUILD_DIR]"
src=$(cd "$(dirname "$0")/../.." && pwd) || die "cannot find the source tree"
cmocka=$(cd "$1" && pwd) || die "no folder $1"
build=${2:-/tmp/build-gpu-check}
mkdir -p "$build" || die "cannot create $build"
build=$(cd "$build" && pwd)

# --- cmocka from the .deb files ------------------------------------------------------
root=$cmocka
if ls "$cmocka"/*.deb >/dev/null 2>&1; then
    root=$build/cmocka-root
    rm -rf "$root" && mkdir -p "$root" || die "cannot create $root"
    for deb in "$cmocka"/*.deb; do
        dpkg -x "$deb" "$root" || die "cannot unpack $deb"
    done
fi
libdir=$(dirname "$(find "$root" -name 'libcmocka.so*' | head -n 1)")
[ -f "$root/usr/include/cmocka.h" ] && [ -d "$libdir" ] ||
    die "no cmocka.h / libcmocka.so under $root (unpack libcmocka0 and libcmocka-dev)"
# The packaged cmocka.pc names /usr: write one that names the unpacked tree.
mkdir -p "$build/cmocka-pc"
cat > "$build/cmocka-pc/cmocka.pc" <<EOF
Name: cmocka
Description: The cmocka unit testing library (unpacked for gpu_check.sh)
Version: $(sed -n 's/^Version: *//p' "$libdir/pkgconfig/cmocka.pc" 2>/dev/null || echo 1.1.5)
Libs: -L$libdir -lcmocka
Cflags: -I$root/usr/include
EOF
export PKG_CONFIG_PATH="$build/cmocka-pc${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CPATH="$root/usr/include${CPATH:+:$CPATH}"
export LIBRARY_PATH="$libdir${LIBRARY_PATH:+:$LIBRARY_PATH}"
# Without pkg-config, Meson looks for cmocka through CMake (cmocka-config.cmake).
export CMAKE_PREFIX_PATH="$root/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"

# --- tools -------------------------------------------------------------------------------
command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] || die "no nvcc"
command -v nvcc >/dev/null 2>&1 || PATH=/usr/local/cuda/bin:$PATH
nvcc_dir=$(dirname "$(command -v nvcc)")
sanitizer=$(command -v compute-sanitizer 2>/dev/null ||
            ls "$nvcc_dir/compute-sanitizer" "$nvcc_dir/../compute-sanitizer/compute-sanitizer" \
               2>/dev/null | head -n 1)
echo "== gpu_check: source $src, build $build"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null
nvcc --version | tail -n 2
echo "meson $(meson --version), ninja $(ninja --version), compute-sanitizer: ${sanitizer:-none}"

results=""
failed=0
record() { # name status
    results="$results$(printf '%-44s %s' "$1" "$2")
"
    case $2 in PASS*) ;; *) failed=1 ;; esac
}

# --- build ---------------------------------------------------------------------------------
if [ -f "$build/build.ninja" ]; then
    meson setup --reconfigure "$build" "$src" -Dcuda=enabled > "$build/setup.log" 2>&1
else
    meson setup "$build" "$src" -Dcuda=enabled > "$build/setup.log" 2>&1
fi
st=$?
sed -n '/Backends and features/,/Parts/p' "$build/setup.log"
if [ $st -ne 0 ]; then
    tail -n 30 "$build/setup.log"
    record "meson setup -Dcuda=enabled" "FAIL ($st)"
    printf '\n== summary\n%s' "$results"; exit 1
fi
record "meson setup -Dcuda=enabled" PASS
if ninja -C "$build" > "$build/ninja.log" 2>&1; then
    record "ninja" PASS
else
    tail -n 40 "$build/ninja.log"
    record "ninja" FAIL
    printf '\n== summary\n%s' "$results"; exit 1
fi
grep -i 'warning' "$build/ninja.log" | head -n 20
module=$build/backends/cuda/latmc-cuda.so
echo "== $module: NEEDED"
readelf -d "$module" | grep NEEDED

# --- test suites -------------------------------------------------------------------------
suites=${GPU_CHECK_SUITES-backends physics repro kernels}
suite_args=""
for suite in $suites; do suite_args="$suite_args --suite $suite"; done
# shellcheck disable=SC2086
meson test -C "$build" $suite_args --print-errorlogs > "$build/suites.log" 2>&1
st=$?
grep -E '^ *[0-9]+/[0-9]+ ' "$build/suites.log"
sed -n '/^Ok:/,/^Timeout:/p' "$build/suites.log"
[ $st -eq 0 ] && record "meson test $suites" PASS || record "meson test $suites" "FAIL ($st)"
# The CUDA tests of the suites run must have run, not skipped.
must_run=""
case " $suites " in *" backends "*) must_run="conformance cuda:cuda phi4:cuda heisenberg" ;; esac
case " $suites " in *" physics "*)
    must_run="$must_run:test_ising_enumeration cuda:test_ising_kaufman cuda"
    must_run="$must_run:test_potts_enumeration cuda:test_potts_ising cuda"
    must_run="$must_run:test_fss_observables cuda" ;;
esac
IFS_SAVED=$IFS
IFS=:
for t in $must_run; do
    IFS=$IFS_SAVED
    [ -n "$t" ] || continue
    # "project:suite / name  OK" (older Meson) or "suite - project:name  OK" (newer)
    line=$(grep -E "(/ |:)$t +[A-Z]" "$build/suites.log" | tail -n 1)
    case $line in
        *" OK "*) record "  $t ran on the GPU" PASS ;;
        *) record "  $t ran on the GPU" "FAIL: ${line:-not found}" ;;
    esac
done
IFS=$IFS_SAVED
echo "== conformance cuda output"
sed -n '/conformance cuda/,/^$/p' "$build/meson-logs/testlog.txt" | grep -E 'CUDA device|loaded|RUN|OK|FAIL|PASSED|differ' | head -n 40

# --- compute-sanitizer -------------------------------------------------------------------
conf=$build/tests/backends/test_backend_conformance
tools=${GPU_CHECK_SANITIZERS-memcheck racecheck initcheck synccheck}
if [ -z "$tools" ]; then
    record "compute-sanitizer" "PASS (none asked for)"
elif [ -z "$sanitizer" ]; then
    record "compute-sanitizer" "FAIL: not found"
else
    for tool in $tools; do
        extra=""
        [ $tool = memcheck ] && extra="--leak-check full"
        # LATMC_TEST_NO_OOM: the deliberate 1 TiB cudaMalloc of the out-of-memory test
        # would be reported as an API error by the sanitizer.
        # shellcheck disable=SC2086
        LATMC_MODULE_PATH=$build/backends/cuda LATMC_TEST_NO_OOM=1 \
            "$sanitizer" --tool $tool $extra --error-exitcode 99 "$conf" cuda \
            > "$build/sanitizer-$tool.log" 2>&1
        st=$?
        grep -E '========= (ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|Program hit)' \
            "$build/sanitizer-$tool.log" | head -n 5
        if [ $st -eq 0 ] && ! grep -q 'PASSED' "$build/sanitizer-$tool.log"; then
            st=98 # nothing ran (skipped?)
        fi
        if [ $st -eq 0 ]; then
            record "compute-sanitizer --tool $tool" PASS
        else
            tail -n 30 "$build/sanitizer-$tool.log"
            record "compute-sanitizer --tool $tool" "FAIL ($st, $build/sanitizer-$tool.log)"
        fi
    done
fi

printf '\n== summary\n%s' "$results"
[ $failed -eq 0 ] && echo "gpu_check: all passed" || echo "gpu_check: FAILED"
exit $failed
