"""The package as a user gets it: tools/ci-python.sh installs it with `pip install .` into a
fresh venv and sets LATMC_EXPECT_INSTALLED=1; then the package must come from that venv's
site-packages, with the liblatmc inside it (no build tree, no LATMC_LIBRARY)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import latmc

installed = os.environ.get("LATMC_EXPECT_INSTALLED") == "1"


@pytest.mark.skipif(not installed, reason="run by tools/ci-python.sh on the installed package")
def test_package_and_library_come_from_the_venv():
    pkg = Path(latmc.__file__).resolve().parent
    assert Path(sys.prefix).resolve() in pkg.parents, (pkg, sys.prefix)
    assert "site-packages" in pkg.parts
    lib = Path(latmc.library_path()).resolve()
    assert lib.parent == pkg / "_native", lib
    assert "LATMC_LIBRARY" not in os.environ
    assert (pkg / "py.typed").exists()
    assert latmc._lib.series_helper is not None  # the wheel carries the series helper


def test_import_in_a_clean_interpreter():
    """`python -c "import latmc"` in a fresh process, from a directory without the sources."""
    r = subprocess.run([sys.executable, "-c", "import latmc, sys; "
                        "s = latmc.Sim('ising', 8, beta=0.4, seed=1); s.sweep(10); "
                        "print(latmc.library_path(), s.energy)"],
                       capture_output=True, text=True, cwd="/")
    assert r.returncode == 0, r.stderr
