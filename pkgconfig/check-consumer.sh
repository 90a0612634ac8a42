#!/bin/sh
# Install the build into a scratch prefix and build an out-of-tree program against it
# through pkg-config, shared and static; run both.
# Usage: check-consumer.sh BUILD_DIR SRC_DIR [EXTRA_CFLAGS]  (e.g. -fsanitize=... for a
# sanitized build, whose library only loads into a sanitized program)
set -eu
build=$1
src=$2
extra=${3:-}
cc="${CC:-cc} $extra"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

meson install -C "$build" --no-rebuild --quiet --destdir "$scratch/root" >"$scratch/install.log" 2>&1 ||
    { cat "$scratch/install.log"; exit 1; }
pcfile=$(find "$scratch/root" -name latmc.pc | head -n 1)
[ -n "$pcfile" ] || { echo "latmc.pc was not installed"; exit 1; }
prefix=$(sed -n 's/^prefix=//p' "$pcfile")
export PKG_CONFIG_PATH="$(dirname "$pcfile")"
pc="pkg-config --define-variable=prefix=$scratch/root$prefix"

has_cuda=$($pc --variable=latmc_has_cuda latmc)
moduledir=$($pc --variable=moduledir latmc)
echo "pkg-config: $($pc --modversion latmc), moduledir $moduledir, latmc_has_cuda=$has_cuda"
# latmc_has_cuda says whether the CUDA module was built, and then it is in moduledir.
case $has_cuda in
    true) [ -f "$moduledir/latmc-cuda.so" ] || { echo "latmc-cuda.so not in $moduledir"; exit 1; } ;;
    false) [ ! -e "$moduledir/latmc-cuda.so" ] || { echo "stray latmc-cuda.so"; exit 1; } ;;
    *) echo "latmc_has_cuda is neither true nor false"; exit 1 ;;
esac

# Shared: the SONAME is the ABI major.
$cc -std=c99 -Wall -Wextra -Werror $($pc --cflags latmc) "$src/pkgconfig/consumer/consumer.c" \
    -o "$scratch/consumer" $($pc --libs latmc)
libdir=$($pc --variable=libdir latmc)
LD_LIBRARY_PATH="$libdir" "$scratch/consumer"
readelf -d "$libdir/liblatmc.so" | grep -q 'SONAME.*liblatmc\.so\.1\]'

# Static: everything from the archive, private dependencies from Libs.private.
$cc -std=c99 -Wall -Wextra -Werror -DLATMC_STATIC $($pc --cflags latmc) \
    "$src/pkgconfig/consumer/consumer.c" -o "$scratch/consumer_static" \
    "$libdir/liblatmc.a" $($pc --libs --static latmc | sed 's/-llatmc//')
if readelf -d "$scratch/consumer_static" | grep -q 'liblatmc'; then
    echo "static consumer still needs liblatmc.so"; exit 1
fi
"$scratch/consumer_static"
echo "pkg-config consumer: shared and static builds ran"
