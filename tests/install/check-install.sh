#!/bin/sh
# Installed programs run from wherever the installation lies, with a clean environment.
# Installs the build with --destdir into a scratch directory (so the programs do not sit
# where the configured prefix says: a relocated installation), moves it once more, and runs
# the installed latmc --version, latmc-info and latmc-bench --help under `env -i` (no
# LD_LIBRARY_PATH, no LATMC_MODULE_PATH). Also checks that no build path is compiled into
# the installed library or the programs' RUNPATH, and that latmc-info reports the CUDA
# backend once, from the installed module when one was built.
# It also checks that every installed file that states the version states meson.build's
# (latmc --version, latmc-info, version.h, latmc.pc, the CMake version file).
# Usage: check-install.sh BUILD_DIR HAS_CUDA(true|false) [VERSION]
set -eu
build=$(cd "$1" && pwd)
has_cuda=$2
version=${3:-}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

meson install -C "$build" --no-rebuild --quiet --destdir "$scratch/stage" >"$scratch/install.log" 2>&1 ||
    { cat "$scratch/install.log"; fail "meson install"; }
mv "$scratch/stage" "$scratch/moved"
latmc=$(find "$scratch/moved" -path '*/bin/latmc' -type f | head -n 1)
[ -n "$latmc" ] || fail "no bin/latmc installed"
bin=$(dirname "$latmc")
lib=$(dirname "$(find "$scratch/moved" -name 'liblatmc.so.1' | head -n 1)")
echo "installed (and moved): $bin, $lib"

run() { # run NAME ARGS...: clean environment, output kept in $out
    name=$1
    shift
    set +e
    out=$(env -i PATH=/usr/bin:/bin HOME="$scratch" "$bin/$name" "$@" 2>&1)
    st=$?
    set -e
    printf '%s\n' "$out" | sed "s|^|  $name: |"
    [ "$st" -eq 0 ] || fail "$name $* exited with $st"
}

run latmc --version
printf '%s\n' "$out" | grep -q '^latmc (liblatmc) [0-9]' || fail "latmc --version printed no version"
run latmc-bench --help
run latmc-info
printf '%s\n' "$out" | grep -q '^liblatmc [0-9]' || fail "latmc-info printed no version"

# The CUDA backend's line in the "backends" section: each candidate file named at most once
# (an installed library reaches <libdir>/latmc-1 both next to itself and as the built-in
# directory), and the reason given once in the whole output.
cuda_line=$(printf '%s\n' "$out" | sed -n '/^backends/,/^$/p' | grep '^  cuda  ' || true)
[ -n "$cuda_line" ] || fail "no cuda line under backends"
for f in $(printf '%s\n' "$cuda_line" | grep -o '/[^ ;]*latmc-cuda\.so' | sort | uniq -d); do
    fail "latmc-info names $f twice: $cuda_line"
done
reason=$(printf '%s\n' "$cuda_line" | sed 's/^  cuda *//')
[ "$(printf '%s\n' "$out" | grep -cF "$reason")" -eq 1 ] || fail "the cuda reason is printed twice"
if [ "$has_cuda" = true ]; then
    # the installed module, found next to the installed (and moved) liblatmc
    printf '%s\n' "$cuda_line" | grep -q "$lib/latmc-1/latmc-cuda.so" ||
        fail "latmc-info did not find the installed module in $lib/latmc-1: $cuda_line"
fi

# No build path in what was installed: RUNPATHs relative to $ORIGIN, the library's strings.
for prog in latmc latmc-info latmc-bench; do
    rp=$(readelf -d "$bin/$prog" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
    case $rp in
        *"$build"*) fail "$prog's RUNPATH names the build directory: $rp" ;;
        '$ORIGIN'*) ;;
        *) fail "$prog's RUNPATH is not relative to \$ORIGIN: '$rp'" ;;
    esac
done
if readelf -p .rodata "$lib/liblatmc.so.1" | grep -qF "$build"; then
    fail "liblatmc.so.1 contains the build path $build"
fi
# One version (meson.build's) in every installed file that states it.
if [ -n "$version" ]; then
    run latmc --version
    [ "$out" = "latmc (liblatmc) $version" ] || fail "latmc --version: $out (meson.build: $version)"
    run latmc-info
    printf '%s\n' "$out" | grep -q "^liblatmc $version (headers $version," ||
        fail "latmc-info does not report $version"
    h=$(find "$scratch/moved" -path '*/latmc/version.h' | head -n 1)
    grep -q "^#define LATMC_VERSION_STRING \"$version\"" "$h" || fail "$h is not $version"
    for pcf in $(find "$scratch/moved" -name 'latmc*.pc'); do
        grep -qx "Version: $version" "$pcf" || fail "$pcf: $(grep '^Version' "$pcf")"
    done
    cv=$(find "$scratch/moved" -name latmcConfigVersion.cmake | head -n 1)
    if [ -n "$cv" ]; then
        grep -q "set(PACKAGE_VERSION \"$version\")" "$cv" || fail "$cv is not $version"
    fi
    echo "ok: version $version in the installed programs, header, .pc files and CMake package"
fi
# The manual page: installed, and naming every option of the installed program's --help.
man=$(find "$scratch/moved" -path '*/man1/latmc.1' | head -n 1)
[ -n "$man" ] || fail "no man1/latmc.1 installed"
run latmc --help
for opt in $(printf '%s\n' "$out" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    grep -qF -- "$(printf '%s' "$opt" | sed 's/-/\\-/g')" "$man" || fail "latmc.1 does not describe $opt"
done
echo "ok: man1/latmc.1 describes every option of latmc --help"

# The examples: sources and a Makefile in share/doc/liblatmc/examples, built there against the
# installed latmc.pc (its prefix mapped to the moved installation), one of them run with a
# clean environment (the Makefile's rpath, no LD_LIBRARY_PATH).
exdir=$(find "$scratch/moved" -path '*/share/doc/liblatmc/examples' -type d | head -n 1)
[ -n "$exdir" ] && [ -f "$exdir/Makefile" ] || fail "no share/doc/liblatmc/examples/Makefile"
pcdir=$(dirname "$(find "$scratch/moved" -name latmc.pc | head -n 1)")
pcprefix=$(sed -n 's/^prefix=//p' "$pcdir/latmc.pc")
moved_prefix=$scratch/moved$pcprefix
mkdir "$scratch/exbuild"
# A sanitized build's library (build-asan) needs the sanitizers' runtime first in the
# program: the examples are built with the same -fsanitize then.
sanitize=""
case ${LATMC_SANITIZE:-none} in none | "") ;; *) sanitize="-fsanitize=$LATMC_SANITIZE" ;; esac
if ! PKG_CONFIG_PATH=$pcdir make -s -C "$scratch/exbuild" -f "$exdir/Makefile" \
        CFLAGS="-O2 -g $sanitize" LDFLAGS="$sanitize" \
        PKG_CONFIG="pkg-config --define-variable=prefix=$moved_prefix" >"$scratch/make.log" 2>&1; then
    cat "$scratch/make.log"
    fail "the installed examples do not build with their Makefile"
fi
for p in ising_critical potts_transition phi4_lab spinglass_replicas spinglass_pt \
         checkpoint_restart device_select; do
    [ -x "$scratch/exbuild/$p" ] || fail "the Makefile did not build $p"
done
out=$(cd "$scratch/exbuild" && env -i PATH=/usr/bin:/bin ./device_select --quick 2>&1) ||
    fail "the installed example device_select did not run: $out"
echo "ok: the installed examples built with their Makefile against latmc.pc; device_select ran"

echo "ok: installed programs ran from a moved installation with a clean environment"
