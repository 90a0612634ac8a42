#!/bin/sh
# Pack a build's tests for a GPU machine that has no meson or cmocka: the build tree
# without its objects, and the list of the tests of the chosen suites as meson would run
# them. tools/gpu-bundle-run.sh runs the list there, one test at a time (doc/robustness.md,
# "On GPUs"). The GPU machine needs the same source checkout (tests read files from it)
# and a CUDA driver; nothing is built there.
#
# Usage: sh tools/gpu-bundle.sh BUILD OUT [SUITE]...   (suites: cuda by default)
#   BUILD  a configured and built meson build directory (e.g. -Dbuildtype=release
#          -Dgpu_arch=sm_90)
#   OUT    a new or empty folder: OUT/build.tar.xz, OUT/tests.tsv and, where apt-get can
#          download it, OUT/cmocka/*.deb (the tests' cmocka, unpacked there; CMOCKA=no:
#          not fetched)
# tests.tsv: a line a test, tab-separated: name, timeout (s), environment (shell-quoted
# VAR=VALUE words, "-" for none), command, working directory; the build's path is
# written @BUILD@ and the source tree's @SRC@.
set -eu
build=${1:?usage: tools/gpu-bundle.sh BUILD OUT [SUITE]...}
out=${2:?usage: tools/gpu-bundle.sh BUILD OUT [SUITE]...}
shift 2
[ $# -gt 0 ] || set -- cuda
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd)
[ -f "$build/build.ninja" ] || { echo "gpu-bundle: $build is not a meson build" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ -n "$(ls -A "$out")" ]; then
    echo "gpu-bundle: $out is not empty" >&2
    exit 2
fi

# the tree: executables, libraries, the module and the files the tests read, no objects
tar -C "$build" -cJf "$out/build.tar.xz" --exclude='*.p' --exclude='*.o' --exclude='*.a' \
    --exclude='.ninja_*' --exclude='meson-private' --exclude='meson-logs' \
    --exclude='meson-info' --exclude='doc' .

meson introspect "$build" --tests > "$out/tests.json"
python3 - "$build" "$src" "$out/tests.json" "$out/tests.tsv" "$@" <<'PY'
import json, os, shlex, sys
build, src, js, dest = sys.argv[1:5]
suites = set(sys.argv[5:])
def sub(s):
    # absolute paths normalised first (meson writes BUILD/../bench/x for a source file)
    s = ":".join(os.path.normpath(p) if p.startswith("/") else p for p in s.split(":"))
    return s.replace(build, "@BUILD@").replace(src, "@SRC@")
n = 0
with open(dest, "w") as f:
    for t in json.load(open(js)):
        # meson's suites are "project:suite"
        if not suites & {s.split(":")[-1] for s in t["suite"]}:
            continue
        # "-" for none: a tab is blank to the shell's read, so no field may be empty
        env = " ".join(shlex.quote("%s=%s" % (k, sub(v))) for k, v in sorted(t["env"].items()))
        env = env or "-"
        # this machine's python3 by its name: the GPU machine's lies elsewhere
        cmd = " ".join(shlex.quote("python3" if i == 0 and os.path.basename(c).startswith(
                           "python3") else sub(c)) for i, c in enumerate(t["cmd"]))
        f.write("\t".join([t["name"], str(t["timeout"] or 0), env, cmd,
                           sub(t.get("workdir") or "@BUILD@")]) + "\n")
        n += 1
print("gpu-bundle: %d tests of suites %s" % (n, " ".join(sorted(suites))))
PY
rm -f "$out/tests.json"

if [ "${CMOCKA:-yes}" != no ] && command -v apt-get >/dev/null 2>&1; then
    mkdir -p "$out/cmocka"
    (cd "$out/cmocka" && apt-get download libcmocka0 >/dev/null 2>&1) ||
        echo "gpu-bundle: no cmocka .deb downloaded (the machine must have libcmocka.so.0)" >&2
fi
du -sh "$out"
