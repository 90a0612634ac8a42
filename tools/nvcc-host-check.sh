#!/bin/bash
# The body of the nvcc host checks (tools/*-host-check.sh): compiles SOURCE with nvcc into a
# host program (the kernels' rules under test are host-callable; no device code runs), with
# the caller's flags, then the repository's and the build's lib/ and include/, and runs it:
# its exit status is the check's. Needs nvcc, no GPU.
# Usage: tools/nvcc-host-check.sh BUILD_DIR SOURCE [--link] [NVCC_FLAG]...
#   (from the repository root; --link: link BUILD_DIR's liblatmc, for checks that run the
#   library's CPU chain beside the rules)
set -e
b=$1
src=$2
shift 2
flags=()
link=()
for a in "$@"; do
    if [ "$a" = --link ]; then
        link=(-L"$b" -llatmc -Xlinker -rpath -Xlinker "$(cd "$b" && pwd)")
    else
        flags+=("$a")
    fi
done
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
nvcc -arch=sm_90 "${flags[@]}" -Ilib -I"$b/lib" -Iinclude -I"$b/include" -O2 "$src" \
    -o "$t/check" "${link[@]}" 2>&1 | grep -v "pragma unroll" | grep -i error && exit 1
"$t/check"
