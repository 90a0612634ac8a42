#!/bin/sh
# Every function liblatmc exports (nm -D) must be called by the misuse suite (test_misuse.c,
# and the ensemble's bad-input suite tests/ensemble/test_ens_inputs.c): a new public function
# without its misuse cases fails here.
# Usage: check-misuse-covers.sh LIBLATMC_SO MISUSE_TEST.c...
set -u
lib=$1
shift
command -v nm >/dev/null 2>&1 || { echo "nm (binutils) not installed: check skipped"; exit 77; }
missing=0
for f in $(nm -D --defined-only "$lib" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort -u); do
    if ! grep -q "\b$f(" "$@"; then
        echo "not in the misuse suite: $f"
        missing=$((missing + 1))
    fi
done
[ "$missing" -eq 0 ] || exit 1
echo "every exported function is called by the misuse suites ($*)"
