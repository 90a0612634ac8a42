#!/bin/sh
# One device call for the Potts q = 8 multiset table: build with CUDA, the CUDA conformance
# suite and the host test, then the Potts benchmarks. Logs in $OUT.
set -u
src=$(pwd); B=/tmp/pq8; O=${OUT:-/tmp/out}
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
root=$B/cmocka; mkdir -p $root $B/pc
for d in ../../.deps/cmocka/*.deb; do dpkg -x $d $root; done
lib=$(dirname "$(find $root -name 'libcmocka.so*' | head -n1)")
printf 'Name: cmocka\nDescription: x\nVersion: 1.1.5\nLibs: -L%s -lcmocka\nCflags: -I%s/usr/include\n' $lib $root > $B/pc/cmocka.pc
export PKG_CONFIG_PATH=$B/pc LD_LIBRARY_PATH=$lib
el setup; meson setup $B/b "$src" -Dcuda=enabled > $O/setup.log 2>&1 || { tail -20 $O/setup.log; exit 1; }
el build; ninja -C $B/b > $O/ninja.log 2>&1 || { tail -40 $O/ninja.log; exit 1; }
grep -i 'warning' $O/ninja.log | head; el built
export LATMC_MODULE_PATH=$B/b/backends/cuda
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
bench() { timeout 40 $B/b/bench/latmc-bench --device cuda --repeat 3 "$@" 2>&1 | grep -v '^B:' ; }
{
bench --model potts --q 8 -L 32768 --algo heatbath --sweeps 50
bench --model potts --q 3 -L 32768 --algo heatbath --sweeps 50
bench --model potts --q 8 -L 32768 --algo metropolis --sweeps 50
bench --model potts --q 5 -L 32768 --algo heatbath --sweeps 50
bench --model potts --q 8 -L 32768 --algo heatbath --sweeps 50 --beta 1.3425
} > $O/bench.log 2>&1; cat $O/bench.log; el benched
timeout 150 meson test -C $B/b --print-errorlogs --no-rebuild 'conformance cuda' 'potts rows on the host' > $O/test.log 2>&1; echo "tests rc=$?"
grep -E '^ *[0-9]+/[0-9]+ ' $O/test.log; el tested
