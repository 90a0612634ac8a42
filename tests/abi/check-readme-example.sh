#!/bin/sh
# The C example in README.md compiles (C99, warnings as errors) against the built library
# and runs successfully, so the README cannot drift from the API.
# Usage: check-readme-example.sh SRC_DIR BUILD_DIR [EXTRA_CFLAGS]
set -eu
src=$1
build=$2
extra=${3:-}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
awk '/^```c$/ {on = 1; next} /^```$/ {if (on) exit} on' "$src/README.md" >"$scratch/my_sim.c"
[ -s "$scratch/my_sim.c" ] || { echo "no \`\`\`c block in README.md"; exit 1; }
${CC:-cc} $extra -std=c99 -Wall -Wextra -Werror -I"$src/include" -I"$build/include" \
    "$scratch/my_sim.c" -o "$scratch/my_sim" -L"$build" -llatmc
out=$(LD_LIBRARY_PATH="$build" "$scratch/my_sim")
echo "$out"
# A 64x64 lattice at beta_c: the energy per site lies near the exact -1.41 (-1.5 .. -1.3).
echo "$out" | awk '/^<E>\/N = / { e = $3; exit !(e > -1.5 && e < -1.3) } END { if (e == "") exit 1 }'
