#!/bin/sh
# CI job: short real runs of the checkpoint and ensemble-file fuzzers (tests/fuzz/README.md).
#
# Builds only what the fuzzers need -- the library's core and CPU backend sources, without
# OpenMP and without the SIMD levels (the loaders do not depend on them), with
# AddressSanitizer + UndefinedBehaviorSanitizer and libFuzzer's coverage -- then runs
# tests/fuzz/fuzz_checkpoint.c (structure-aware mutator) for FUZZ_SECONDS seconds (default
# 25) on a copy of the committed checkpoint corpus, and tests/fuzz/fuzz_ensemble.c for
# ENS_FUZZ_SECONDS (default 20) on a copy of the ensemble corpus (the two side by side on 2
# cores or more), with memory limits: any crash, sanitizer report, leak, allocation over
# -malloc_limit_mb or broken invariant fails the job and leaves the input in build-fuzz-ci/.
# About 60 s on 2 cores, build included.
#
#   sh tools/ci-fuzz.sh          (needs clang with libFuzzer: tools/install-deps.sh)
set -eu
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-25}
ens_seconds=${ENS_FUZZ_SECONDS:-20}
out=build-fuzz-ci
cc=""
for c in ${FUZZ_CC:-} clang-14 clang; do
    if command -v "$c" >/dev/null 2>&1; then cc=$c; break; fi
done
if [ -z "$cc" ]; then
    echo "ci-fuzz: FAIL: no clang (Debian: clang-14 libclang-rt-14-dev, tools/install-deps.sh)" >&2
    exit 1
fi
start=$(date +%s)
rm -rf "$out"
mkdir -p "$out/obj" "$out/include/latmc" "$out/work" "$out/ens-work"

# latmc/version.h, as Meson would configure it.
version=$(sed -n "s/^  version: '\([0-9.]*\)',$/\1/p" meson.build | head -n 1)
abi=$(sed -n 's/^latmc_abi_major = \([0-9]*\)$/\1/p' meson.build)
major=${version%%.*}
rest=${version#*.}
minor=${rest%%.*}
patch=${rest#*.}
sed -e "s/@LATMC_VERSION@/$version/" -e "s/@LATMC_VERSION_MAJOR@/$major/" \
    -e "s/@LATMC_VERSION_MINOR@/$minor/" -e "s/@LATMC_VERSION_PATCH@/$patch/" \
    -e "s/@LATMC_ABI_MAJOR@/$abi/" include/latmc/version.h.in >"$out/include/latmc/version.h"

# The CPU backend's model folders, one per line of lib/model_list.h (backends/cpu/meson.build).
models="$(sed -n 's/^LATMC_MODEL(\([a-z0-9_]*\)).*/\1/p' lib/model_list.h)"
model_dirs=""
for m in $models; do model_dirs="$model_dirs backends/cpu/$m"; done
# The flags in a response file: they pass through xargs and sh -c unharmed.
cat >"$out/cflags.rsp" <<EOF
-std=c11 -O1 -g -D_POSIX_C_SOURCE=200809L -ffp-contract=off -fno-strict-aliasing
-DLATMC_BUILDING_LIBRARY -DLATMC_MODULEDIR=\"/nonexistent\"
-Iinclude -I$out/include -Ilib -Ibackends/cpu $(for d in $model_dirs; do printf ' -I%s' "$d"; done)
-fsanitize=address,undefined -fno-sanitize-recover=undefined
EOF
cflags="@$out/cflags.rsp"
if ! echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }' |
        "$cc" -x c - -fsanitize=fuzzer -o "$out/probe" 2>/dev/null; then
    echo "ci-fuzz: FAIL: $cc cannot link -fsanitize=fuzzer (Debian: libclang-rt-14-dev)" >&2
    exit 1
fi
# The CPU backend's SIMD levels are left out: their dispatch tables are empty without
# LATMC_HAVE_*. lib/'s x86 files (lib/cluster_sw_rows_avx2.c) stay: they carry their own
# target attributes and are chosen at run time.
# shellcheck disable=SC2086
sources="$(ls lib/*.c) $(ls backends/cpu/*.c $(for d in $model_dirs; do echo "$d"/*.c; done) |
           grep -v -e '_avx2\.c$' -e '_avx512\.c$')"
jobs=$(nproc 2>/dev/null || echo 2)
# shellcheck disable=SC2086
printf '%s\n' $sources | xargs -P "$jobs" -I{} sh -c \
    "$cc $cflags -fsanitize=fuzzer-no-link -c {} -o $out/obj/\$(echo {} | tr / _).o"
# shellcheck disable=SC2086
"$cc" $cflags -fsanitize=fuzzer tests/fuzz/fuzz_checkpoint.c "$out"/obj/*.o \
    -o "$out/fuzz_checkpoint" -lm -ldl -lpthread
# shellcheck disable=SC2086
"$cc" $cflags -fsanitize=fuzzer tests/fuzz/fuzz_ensemble.c "$out"/obj/*.o \
    -o "$out/fuzz_ensemble" -lm -ldl -lpthread
built=$(date +%s)
echo "ci-fuzz: built with $cc in $((built - start)) s; fuzzing for $seconds + $ens_seconds s"

cp tests/fuzz/corpus/* "$out/work/"
cp tests/fuzz/ens-corpus/* "$out/ens-work/"
# malloc_limit: no input may make a loader allocate more than 256 MiB (the largest corpus
# file is a few kB; a loader that trusts a desc asks for gigabytes).
# fuzz NAME SECONDS CORPUS: one fuzzer's run, its exit status in $out/NAME.status.
fuzz() {
    st=0
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        "$out/$1" -max_total_time="$2" -max_len=8192 -timeout=10 \
        -rss_limit_mb=2048 -malloc_limit_mb=256 -print_final_stats=1 \
        -artifact_prefix="$out/" "$3" >"$out/$1.log" 2>&1 || st=$?
    echo "$st" >"$out/$1.status"
}
# report NAME SECONDS: its log's end and verdict; exit status 1 on a finding.
report() {
    tail -n 25 "$out/$1.log"
    st=$(cat "$out/$1.status")
    if [ "$st" -ne 0 ]; then
        echo "ci-fuzz: FAIL: $1 (exit $st): the input is in $out/ (crash-*, leak-*, oom-*, timeout-*);"
        echo "ci-fuzz: reproduce with $out/$1 $out/<file>"
        return 1
    fi
    echo "ci-fuzz: $1: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/$1.log" |
        awk '{print $2}') inputs in $2 s, no finding"
}
# The two fuzzers side by side (each is one process on one core: the same seconds of
# fuzzing each, in the time of the longer where there are 2 cores).
if [ "$jobs" -ge 2 ]; then
    fuzz fuzz_checkpoint "$seconds" "$out/work" &
    fuzz fuzz_ensemble "$ens_seconds" "$out/ens-work"
    wait
else
    fuzz fuzz_checkpoint "$seconds" "$out/work"
    fuzz fuzz_ensemble "$ens_seconds" "$out/ens-work"
fi
found=0
report fuzz_checkpoint "$seconds" || found=1
report fuzz_ensemble "$ens_seconds" || found=1
[ "$found" -eq 0 ] || exit 1
echo "ci-fuzz: ok: $(($(date +%s) - start)) s in all"
