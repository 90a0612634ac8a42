#!/bin/sh
# liblatmc.so exports the public latmc_* functions and nothing else, under the LATMC_1
# version node, its SONAME is liblatmc.so.1, and it needs no CUDA library. Usage: check-exports.sh LIB HEADER_DIR
set -eu
lib=$1
headers=$2
exports=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sort)
bad=$(printf '%s\n' "$exports" | grep -v '^latmc_[a-z0-9_]*@@LATMC_1$' || true)
[ -z "$bad" ] || { echo "unexpected exports:"; echo "$bad"; exit 1; }
# Every exported function is declared in a public header, and every declared one exported.
declared=$(grep -ho '^LATMC_API [^(]*(' "$headers"/*.h | sed 's/($//; s/.*[ *]//' | sort -u)
exported=$(printf '%s\n' "$exports" | sed 's/@@LATMC_1$//' | sort -u)
if [ "$declared" != "$exported" ]; then
    echo "declared and exported functions differ:"
    printf 'declared:\n%s\nexported:\n%s\n' "$declared" "$exported"
    exit 1
fi
readelf -d "$lib" | grep -q 'SONAME.*\[liblatmc\.so\.1\]' || { echo "SONAME is not liblatmc.so.1"; exit 1; }
# liblatmc must load where CUDA is absent: CUDA lives in the latmc-cuda module only.
if readelf -d "$lib" | grep 'NEEDED' | grep -qi 'cuda'; then
    echo "liblatmc.so needs a CUDA library:"; readelf -d "$lib" | grep NEEDED; exit 1
fi
echo "$(printf '%s\n' "$exported" | wc -l) exported functions, all public and versioned LATMC_1"
