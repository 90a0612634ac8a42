#!/bin/sh
# Compare liblatmc.so with the committed ABI baseline (abi/liblatmc.abi) with libabigail.
# Added functions are allowed (doc/ABI.md); any other change fails. Exit 77 (skipped)
# when abidiff is not installed. Usage: check-abi.sh LIB SRC_DIR BUILD_DIR
set -u
lib=$1
src=$2
build=$3
if ! command -v abidiff >/dev/null 2>&1; then
    echo "abidiff (libabigail, Debian package abigail-tools) not installed: ABI check skipped"
    exit 77
fi
abidiff --no-added-syms --drop-private-types \
    --headers-dir2 "$src/include/latmc" --headers-dir2 "$build/include/latmc" \
    "$src/abi/liblatmc.abi" "$lib"
status=$?
if [ $status -ne 0 ]; then
    echo "ABI differs from abi/liblatmc.abi (abidiff status $status). If the change is"
    echo "intended and allowed by doc/ABI.md, regenerate the baseline as doc/ABI.md says."
    exit 1
fi
echo "ABI matches abi/liblatmc.abi (added functions allowed)"
