#!/bin/sh
# Install the build into a scratch DESTDIR and build examples/downstream/ against it with
# CMake, twice: through liblatmc's CMake package (find_package(latmc), shared and static) and
# through pkg-config (pkg_check_modules); run every program. Skipped (77) without cmake.
# Usage: check-downstream.sh BUILD_DIR SRC_DIR [EXTRA_FLAGS] (e.g. -fsanitize=... for a
# sanitized build, whose library only loads into a sanitized program)
set -eu
build=$1
src=$2
extra=${3:-}
command -v cmake >/dev/null 2>&1 || { echo "cmake not installed: skipped"; exit 77; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
root=$scratch/root

meson install -C "$build" --no-rebuild --quiet --destdir "$root" >"$scratch/install.log" 2>&1 ||
    { cat "$scratch/install.log"; exit 1; }
config=$(find "$root" -name latmcConfig.cmake | head -n 1)
pcfile=$(find "$root" -name latmc.pc | head -n 1)
[ -n "$config" ] || { echo "latmcConfig.cmake was not installed"; exit 1; }
[ -n "$pcfile" ] || { echo "latmc.pc was not installed"; exit 1; }
[ -f "$(dirname "$config")/latmcConfigVersion.cmake" ] ||
    { echo "latmcConfigVersion.cmake was not installed"; exit 1; }
# The prefix inside the DESTDIR, from the package file's own location (the config file
# must find everything relative to itself, so nothing else tells CMake where it is).
prefix=$(sed -n 's/^prefix=//p' "$pcfile")
libdir=$(pkg-config --define-variable=prefix="$root$prefix" --variable=libdir "$pcfile")

configure_build() {
    dir=$1
    shift
    cmake -S "$src/examples/downstream" -B "$dir" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_C_FLAGS="$extra" -DCMAKE_CXX_FLAGS="$extra" \
        -DCMAKE_EXE_LINKER_FLAGS="$extra" "$@" >"$dir.log" 2>&1 &&
    cmake --build "$dir" >>"$dir.log" 2>&1 || { cat "$dir.log"; exit 1; }
    grep 'liblatmc .* from' "$dir.log" || true
}

# 1. find_package(latmc) through CMAKE_PREFIX_PATH.
configure_build "$scratch/config" -DLATMC_FIND=config -DCMAKE_PREFIX_PATH="$root$prefix"
# CMake records the imported library's directory as the programs' RUNPATH: they start
# from the private prefix with no LD_LIBRARY_PATH.
env -u LD_LIBRARY_PATH "$scratch/config/downstream"
env -u LD_LIBRARY_PATH "$scratch/config/downstream_cxx"
[ -x "$scratch/config/downstream_static" ] ||
    { echo "the CMake package has no latmc::latmc_static"; exit 1; }
if readelf -d "$scratch/config/downstream_static" | grep -q 'liblatmc'; then
    echo "the static downstream program still needs liblatmc.so"; exit 1
fi
"$scratch/config/downstream_static"
# The version file: a major the package does not provide is refused, its own accepted.
mkdir "$scratch/version"
cat >"$scratch/version/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(version_check LANGUAGES C)
find_package(latmc 99 CONFIG QUIET)
if(latmc_FOUND)
  message(FATAL_ERROR "find_package(latmc 99) accepted version ${latmc_VERSION}")
endif()
find_package(latmc 0.1 CONFIG REQUIRED)
message(STATUS "version check: 99 refused, ${latmc_VERSION} accepted")
CMAKE
cmake -S "$scratch/version" -B "$scratch/version/b" -DCMAKE_PREFIX_PATH="$root$prefix" \
    >"$scratch/version.log" 2>&1 || { cat "$scratch/version.log"; exit 1; }
grep 'version check' "$scratch/version.log"

# 2. pkg-config: latmc.pc names paths under the real prefix; the sysroot maps them into
#    the DESTDIR.
PKG_CONFIG_PATH=$(dirname "$pcfile") PKG_CONFIG_SYSROOT_DIR=$root \
    configure_build "$scratch/pc" -DLATMC_FIND=pkgconfig
env -u LD_LIBRARY_PATH "$scratch/pc/downstream"
env -u LD_LIBRARY_PATH "$scratch/pc/downstream_cxx"
echo "CMake downstream: built with find_package (shared, static, C++) and pkg-config; all ran"
