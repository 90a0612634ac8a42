#!/bin/sh
# tools/gpu-bundle-run.sh on a made-up bundle: each outcome (OK, SKIP, FAIL, TIMEOUT),
# a test's environment and working directory with @BUILD@ and @SRC@ replaced, lines
# FIRST..COUNT, BUDGET, LOGS, the counts and the exit status; then tools/gpu-bundle.sh
# on a small meson project, its bundle run with the original build removed. No GPU.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
run="$src/tools/gpu-bundle-run.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/latmc-bundle-check.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "check-gpu-bundle-run: $*" >&2; echo "--- output:" >&2; cat "$tmp/out" >&2; exit 1; }

mkdir -p "$tmp/tree/sub" "$tmp/bundle"
echo here >"$tmp/tree/sub/marker"
tar -C "$tmp/tree" -cJf "$tmp/bundle/build.tar.xz" .
tab=$(printf '\t')
{
    # the environment's value and the working directory from the substitutions
    echo "env and dirs${tab}30${tab}'GREETING=hi @BUILD@'${tab}sh -c 'case \$GREETING in \"hi /\"*) test -f sub/marker && test -f @SRC@/tools/gpu-bundle.sh ;; *) exit 1 ;; esac'${tab}@BUILD@"
    echo "skips${tab}30${tab}-${tab}sh -c 'exit 77'${tab}@SRC@"
    echo "fails${tab}30${tab}-${tab}sh -c 'echo broken; exit 3'${tab}@SRC@"
    echo "hangs${tab}1${tab}-${tab}sleep 5${tab}@SRC@"
} >"$tmp/bundle/tests.tsv"

LOGS="$tmp/logs" sh "$run" "$tmp/bundle" >"$tmp/out" 2>&1
[ $? -eq 1 ] || fail "expected exit status 1 (a test failed)"
grep -q '^OK .* env and dirs$' "$tmp/out" || fail "env and dirs: not OK"
grep -q '^SKIP .* skips$' "$tmp/out" || fail "skips: not SKIP"
grep -q '^FAIL(3) .* fails$' "$tmp/out" || fail "fails: not FAIL(3)"
grep -q '^    broken$' "$tmp/out" || fail "fails: its output not shown"
grep -q '^TIMEOUT .* hangs$' "$tmp/out" || fail "hangs: not TIMEOUT"
grep -q '^tests: 1 passed, 2 failed, 1 skipped$' "$tmp/out" || fail "wrong counts"
[ -f "$tmp/logs/fails.log" ] && [ -f "$tmp/logs/hangs.log" ] && [ ! -f "$tmp/logs/skips.log" ] ||
    fail "LOGS: expected fails.log and hangs.log only"

# lines 1..2 only: exit status 0
sh "$run" "$tmp/bundle" 1 2 >"$tmp/out" 2>&1 || fail "lines 1-2: expected exit status 0"
grep -q '^tests: 1 passed, 0 failed, 1 skipped$' "$tmp/out" || fail "lines 1-2: wrong counts"

# BUDGET 0: nothing starts, each test named
BUDGET=0 sh "$run" "$tmp/bundle" >"$tmp/out" 2>&1 || fail "BUDGET=0: expected exit status 0"
[ "$(grep -c '^not run (BUDGET): ' "$tmp/out")" -eq 4 ] || fail "BUDGET=0: 4 tests not run"

# a bundle without its files is refused
mkdir "$tmp/empty"
sh "$run" "$tmp/empty" >"$tmp/out" 2>&1
[ $? -eq 2 ] || fail "an empty bundle: expected exit status 2"
# tools/gpu-bundle.sh on a small meson project: its test (environment, arguments, the
# build's path replaced) runs from the bundle, the other suite's is left out
mkdir -p "$tmp/proj"
cat >"$tmp/proj/meson.build" <<'MESON'
project('bundled', 'c')
exe = executable('probe', 'probe.c')
test('probe', exe, args: ['x'], env: ['PROBE_DIR=' + meson.current_build_dir()],
     suite: 'cuda')
test('other', exe, suite: 'unit')
MESON
cat >"$tmp/proj/probe.c" <<'C'
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    const char *dir = getenv("PROBE_DIR");
    char path[4096];
    if (argc != 2 || strcmp(argv[1], "x") != 0 || !dir)
        return 1;
    strcpy(path, dir);
    strcat(path, "/probe");
    return access(path, X_OK) == 0 ? 0 : 1; /* the unpacked build's, not the original's */
}
C
(cd "$tmp/proj" && meson setup b >/dev/null && ninja -C b >/dev/null) >"$tmp/out" 2>&1 ||
    fail "the small project does not build"
CMOCKA=no sh "$src/tools/gpu-bundle.sh" "$tmp/proj/b" "$tmp/pb" >"$tmp/out" 2>&1 ||
    fail "gpu-bundle.sh failed"
[ "$(wc -l <"$tmp/pb/tests.tsv")" -eq 1 ] && ! grep -q "$tmp/proj" "$tmp/pb/tests.tsv" ||
    fail "tests.tsv: expected the cuda suite's one test, the build's path replaced"
rm -rf "$tmp/proj/b"
sh "$run" "$tmp/pb" >"$tmp/out" 2>&1 || fail "the bundled test failed"
grep -q '^tests: 1 passed, 0 failed, 0 skipped$' "$tmp/out" || fail "bundled: wrong counts"
echo "check-gpu-bundle-run: ok"
