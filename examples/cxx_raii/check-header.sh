#!/bin/sh
# <latmc/latmc.hpp> compiles alone as C++11 with -Wall -Wextra -pedantic, warnings as
# errors: a translation unit that includes only it, and one that also instantiates every
# template, so that nothing in the header is left unchecked by laziness.
# Usage: check-header.sh SRC_INCLUDE BUILD_INCLUDE CXX [CXX ARGS...]
set -eu
src_inc=$1
build_inc=$2
shift 2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
printf '#include <latmc/latmc.hpp>\n' >"$scratch/alone.cpp"
cat >"$scratch/use.cpp" <<'CPP'
#include <latmc/latmc.hpp>
#include <cstdint>
double f(latmc::simulation &s, latmc::accumulator &a);
double f(latmc::simulation &s, latmc::accumulator &a)
{
    std::vector<std::int8_t> v = s.spins<std::int8_t>();
    s.set_spins(v);
    latmc::estimate e = a.jackknife(2, [](const double *m, const double *) { return m[0]; });
    return e.value;
}
CPP
for tu in alone use; do
    "$@" -std=c++11 -Wall -Wextra -pedantic -Werror -I"$src_inc" -I"$build_inc" \
        -c "$scratch/$tu.cpp" -o "$scratch/$tu.o"
done
echo "latmc.hpp: compiles alone as C++11 (-Wall -Wextra -pedantic -Werror)"
