#!/bin/sh
# README's second command: install what is missing, build and run every test suite, then
# again with AddressSanitizer + UndefinedBehaviorSanitizer (build-asan/), then the extra CI
# jobs (tools/ci-<job>.sh). Shows each test as it finishes, a per-suite table after each
# build, and ends with one line "tests: N passed, N failed, N skipped" over everything.
set -eu
cd "$(dirname "$0")/.."
sh tools/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
passed=0
failed=0
skipped=0
status=0
start=$(date +%s)

elapsed() { echo "$(( $(date +%s) - start )) s"; }

# run_tests DIR [meson test options]: run with each result shown as it comes, then the
# per-suite table; add meson's summary counts to the totals.
run_tests() {
    dir=$1
    shift
    log="$dir/meson-logs/ci-test-output.txt"
    rc="$dir/meson-logs/ci-test-status"
    { meson test -C "$dir" --num-processes "$jobs" --print-errorlogs "$@" 2>&1 &&
      echo 0 >"$rc" || echo $? >"$rc"; } | tee "$log"
    st=$(cat "$rc")
    count() { awk -v k="$1:" 'index($0, k) == 1 { n += $NF } END { print n + 0 }' "$log"; }
    passed=$((passed + $(count Ok) + $(count "Expected Fail")))
    failed=$((failed + $(count Fail) + $(count "Unexpected Pass") + $(count Timeout)))
    skipped=$((skipped + $(count Skipped)))
    [ "$st" -eq 0 ] || status=$st
    suite_table "$dir/meson-logs/testlog.json"
}

# suite_table TESTLOG_JSON: tests, results and summed test time per suite.
suite_table() {
    python3 - "$1" <<'PY' || true
import json, sys
rows = {}
for line in open(sys.argv[1]):
    t = json.loads(line)
    # "project:suite1+suite2 / test name"
    head = t["name"].split(" / ")[0]
    for s in head.split(":", 1)[-1].split("+"):
        r = rows.setdefault(s, {"n": 0, "ok": 0, "fail": 0, "skip": 0, "time": 0.0})
        r["n"] += 1
        r["time"] += t.get("duration", 0.0)
        res = t.get("result", "")
        key = "ok" if res in ("OK", "EXPECTEDFAIL") else "skip" if res == "SKIP" else "fail"
        r[key] += 1
print("  %-10s %5s %5s %5s %5s %9s" % ("suite", "tests", "ok", "fail", "skip", "test time"))
for s in sorted(rows):
    r = rows[s]
    print("  %-10s %5d %5d %5d %5d %8.0fs" % (s, r["n"], r["ok"], r["fail"], r["skip"], r["time"]))
PY
}

# run_job NAME: one extra CI job, tools/ci-NAME.sh (one line per job below). Its exit
# status counts as one test (0 passed, 77 skipped, else failed), unless its output ends
# with its own line "tests: N passed, N failed, N skipped", which is added as it stands.
run_job() {
    name=$1
    echo "== job $name: tools/ci-$name.sh ($(elapsed) so far) =="
    log=$(mktemp)
    { bash "tools/ci-$name.sh" 2>&1 && echo 0 >"$log.rc" || echo $? >"$log.rc"; } | tee "$log"
    st=$(cat "$log.rc")
    last=$(grep '^tests: [0-9]* passed, [0-9]* failed, [0-9]* skipped$' "$log" | tail -n 1 || true)
    rm -f "$log" "$log.rc"
    if [ -n "$last" ]; then
        set -- $last
        passed=$((passed + $2))
        failed=$((failed + $4))
        skipped=$((skipped + $6))
    elif [ "$st" -eq 0 ]; then
        passed=$((passed + 1))
    elif [ "$st" -eq 77 ]; then
        skipped=$((skipped + 1))
    else
        failed=$((failed + 1))
    fi
    [ "$st" -eq 0 ] || [ "$st" -eq 77 ] || status=$st
}

echo "== build/ (debugoptimized): build ($(elapsed) so far) =="
# Without a GPU the CUDA module's device code runs nowhere: build/ compiles it as PTX only
# (-Dgpu_arch=compute_90: nvcc's front end and code generator check every kernel, ptxas,
# about a third of nvcc's time, does not run). With a GPU (nvidia-smi -L lists one) the
# default machine code is built, and the cuda tests run it.
if [ ! -f build/build.ninja ]; then
    if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
        meson setup build
    else
        meson setup build -Dgpu_arch=compute_90
    fi
fi
ninja -C build
echo "== build/: meson test, $jobs at a time ($(elapsed) so far) =="
run_tests build

# The sanitizer build leaves out the CUDA module: without a GPU its code never runs, and
# nvcc would only spend minutes compiling it again (the normal build compiles it, and its
# host tests run there).
echo "== build-asan/ (ASan + UBSan, no CUDA module): build ($(elapsed) so far) =="
if [ -f build-asan/build.ninja ]; then
    meson configure build-asan -Dcuda=disabled  # a build-asan/ from before this rule
else
    meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dcuda=disabled
fi
ninja -C build-asan
echo "== build-asan/: meson test ($(elapsed) so far) =="
# Any UBSan report fails the run; leak checking is on (ASan's default on Linux).
# The sanitizers look for memory errors and undefined behaviour, which the code paths show,
# not the statistics: here the statistical physics tests run about one parameter point in
# three (LATMC_TEST_POINT_STRIDE, tests/support/sim_helpers.h; every algorithm and lattice
# kind still runs), each with its seed and full statistics, so each passes or fails exactly
# as in build/, where every point runs.
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
LATMC_TEST_POINT_STRIDE=3 \
    run_tests build-asan --timeout-multiplier 4

# Extra CI jobs, one line each: run_job NAME runs tools/ci-NAME.sh.
run_job tsan
run_job python
run_job fuzz    # 25 s + 20 s of the two fuzzers, side by side (about 60 s in all, build included)

echo "== done in $(elapsed) =="
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit "$status"
