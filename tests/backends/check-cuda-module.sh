#!/bin/sh
# The CUDA module latmc-cuda.so exports exactly one symbol, latmc_module_entry, and needs
# neither liblatmc (it uses the core services only) nor a CUDA library: the runtime is
# linked statically and loads the driver (libcuda.so.1) itself at run time, so the module
# loads anywhere and reports "no CUDA device" where there is no driver.
# Usage: check-cuda-module.sh MODULE
set -eu
mod=$1
exports=$(nm -D --defined-only "$mod" | awk '$2 ~ /^[TDBRVWiu]$/ {print $3}' | sort)
if [ "$exports" != "latmc_module_entry" ]; then
    echo "latmc-cuda.so must export latmc_module_entry only; it exports:"
    printf '%s\n' "$exports"
    exit 1
fi
needed=$(readelf -d "$mod" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
bad=$(printf '%s\n' "$needed" | grep -i -E 'cuda|latmc' || true)
if [ -n "$bad" ]; then
    echo "latmc-cuda.so needs:"; printf '%s\n' "$bad"; exit 1
fi
echo "latmc-cuda.so exports latmc_module_entry only; NEEDED:" $needed
