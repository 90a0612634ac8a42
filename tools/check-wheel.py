#!/usr/bin/env python3
"""Check a latmc wheel's contents (tools/ci-python.sh): the default wheel is the CPU library
whatever the build machine has, carries LICENSE, and its shared libraries find each other
through RUNPATH $ORIGIN (a wheel holds no symbolic links, so each library is stored under
the name its users' NEEDED entries ask for).

Usage: check-wheel.py WHEEL [--expect-cuda] [--expect-mpi]
"""
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path


def fail(msg: str) -> None:
    print("check-wheel: FAIL: " + msg)
    sys.exit(1)


def dynamic(path: Path, tag: str) -> list:
    out = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True,
                         check=True).stdout
    return [line.split("[", 1)[1].rstrip("]") for line in out.splitlines()
            if "(%s)" % tag in line]


def main() -> None:
    wheel = Path(sys.argv[1])
    expect_cuda = "--expect-cuda" in sys.argv
    expect_mpi = "--expect-mpi" in sys.argv
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        with tempfile.TemporaryDirectory() as d:
            z.extractall(d)
            root = Path(d)
            if "latmc/LICENSE" not in names:
                fail("no latmc/LICENSE in the wheel")
            native = root / "latmc" / "_native"
            if not (native / "liblatmc.so.1").is_file():
                fail("no latmc/_native/liblatmc.so.1 (files: %s)" % sorted(names))
            has_cuda = any(n.endswith("/latmc-cuda.so") for n in names)
            has_mpi = any("liblatmc_mpi" in n for n in names)
            if has_cuda != expect_cuda:
                fail("CUDA module %s, expected %s" % (has_cuda, expect_cuda))
            if has_mpi != expect_mpi:
                fail("liblatmc_mpi %s, expected %s" % (has_mpi, expect_mpi))
            build = {}
            exec((root / "latmc" / "_version.py").read_text(), build)
            info = build["BUILD"]
            if info["cuda_module"] != expect_cuda or info["mpi"] != expect_mpi:
                fail("latmc.build_info() says %s" % info)
            # every latmc library a packaged library needs lies beside it, found via $ORIGIN
            for so in sorted(root.rglob("*.so*")):
                for need in dynamic(so, "NEEDED"):
                    if "latmc" not in need:
                        continue
                    if not (so.parent / need).is_file():
                        fail("%s needs %s, which is not beside it" % (so.name, need))
                    if "$ORIGIN" not in ":".join(dynamic(so, "RUNPATH")):
                        fail("%s needs %s but has no RUNPATH $ORIGIN" % (so.name, need))
            print("check-wheel: %s: %d files; %s" % (wheel.name, len(names), info))


if __name__ == "__main__":
    main()
