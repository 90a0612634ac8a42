#!/bin/sh
# Install the build into a scratch prefix and build an out-of-tree program against it
# through pkg-config, shared (latmc.pc) and static (latmc-static.pc), with every C compiler
# found (gcc and clang); run each.
# Usage: check-consumer.sh BUILD_DIR SRC_DIR [EXTRA_CFLAGS]  (e.g. -fsanitize=... for a
# sanitized build, whose library only loads into a sanitized program)
set -eu
build=$1
src=$2
extra=${3:-}
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

# pkg-config --libs --static latmc names each private dependency once (no -fopenmp
# repeated per linked part, issue 12).
static_libs=$($pc --libs --static latmc)
dups=$(printf '%s\n' $static_libs | sort | uniq -d)
[ -z "$dups" ] || { echo "pkg-config --libs --static latmc repeats: $dups ($static_libs)"; exit 1; }

# Each compiler found here (CC, cc, gcc, clang): README's two recipes, shared and static.
compilers=""
seen=""
for c in "${CC:-cc}" gcc clang; do
    path=$(command -v "$c" 2>/dev/null) || continue
    real=$(readlink -f "$path")
    case " $seen " in *" $real "*) continue ;; esac
    seen="$seen $real"
    compilers="$compilers $c"
done
libdir=$($pc --variable=libdir latmc)
readelf -d "$libdir/liblatmc.so" | grep -q 'SONAME.*liblatmc\.so\.1\]'
for c in $compilers; do
    cc="$c $extra"
    # A sanitizer build's flags are GCC's; its consumer is built with GCC alone.
    if [ -n "$extra" ] && [ "$c" = clang ]; then continue; fi
    # Shared: the SONAME is the ABI major. README's recipe, rpath included: the program
    # starts from this private prefix with no LD_LIBRARY_PATH.
    $cc -std=c99 -Wall -Wextra -Werror $($pc --cflags latmc) "$src/pkgconfig/consumer/consumer.c" \
        -o "$scratch/consumer" $($pc --libs latmc) -Wl,-rpath,$($pc --variable=libdir latmc)
    env -u LD_LIBRARY_PATH "$scratch/consumer"

    # Static: latmc-static.pc names the archive by path and its private dependencies.
    $cc -std=c99 -Wall -Wextra -Werror $($pc --cflags latmc-static) \
        "$src/pkgconfig/consumer/consumer.c" -o "$scratch/consumer_static" \
        $($pc --libs latmc-static)
    needed=$(readelf -d "$scratch/consumer_static" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    if printf '%s\n' "$needed" | grep -q 'liblatmc'; then
        echo "$c: static consumer still needs liblatmc.so ($needed)"; exit 1
    fi
    if printf '%s\n' "$needed" | grep -q 'libgomp' && printf '%s\n' "$needed" | grep -q 'libomp'; then
        echo "$c: static consumer loads two OpenMP runtimes ($needed)"; exit 1
    fi
    # run it with no way to reach the installed liblatmc.so
    env -u LD_LIBRARY_PATH "$scratch/consumer_static"
    echo "pkg-config consumer ($c): shared and static builds ran; static NEEDED:" $needed
done
