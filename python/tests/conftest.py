"""Shared fixtures of the latmc Python tests.

The tests import the *installed* package (tools/ci-python.sh installs it into a fresh venv
with `pip install .`); a developer may instead point LATMC_LIBRARY at a build tree's
liblatmc.so.1 and put python/ on PYTHONPATH. C programs the tests compile use the
repository's public headers and the very library the package loaded.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import latmc

REPO = Path(__file__).resolve().parents[2]
C_DIR = Path(__file__).resolve().parent / "c"


@pytest.fixture(scope="session")
def c_compiler() -> str:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler (cc) to build the C side of the comparison")
    return cc


@pytest.fixture(scope="session")
def libdir(tmp_path_factory) -> Path:
    """A directory holding liblatmc.so.1 -> the library the package loaded (a wheel keeps
    only liblatmc.so.1.x.y, without the soname link the C programs need)."""
    d = tmp_path_factory.mktemp("libdir")
    real = Path(latmc.library_path()).resolve()
    (d / "liblatmc.so.1").symlink_to(real)
    (d / "liblatmc.so").symlink_to(real)
    return d


@pytest.fixture(scope="session")
def build_c(c_compiler, libdir, tmp_path_factory):
    """build_c("chain.c") -> path of the compiled program (cached per session)."""
    out = tmp_path_factory.mktemp("cbin")
    cache = {}

    def build(name: str) -> Path:
        if name not in cache:
            exe = out / Path(name).stem
            subprocess.run([c_compiler, "-std=c11", "-O2", "-I", str(REPO / "include"),
                            str(C_DIR / name), "-o", str(exe), "-L", str(libdir), "-llatmc",
                            "-Wl,-rpath," + str(libdir)], check=True)
            cache[name] = exe
        return cache[name]

    return build
