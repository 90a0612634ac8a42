"""One version: the package, its metadata and the loaded library all report meson.build's
project version (pyproject.toml's version is dynamic; python/meson.build writes
latmc/_version.py from it)."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import latmc

REPO = Path(__file__).resolve().parents[2]


def meson_version() -> str:
    text = (REPO / "meson.build").read_text()
    m = re.search(r"project\([^)]*?version:\s*'([^']+)'", text, re.S)
    assert m, "no project version in meson.build"
    return m.group(1)


def test_package_and_library_agree_with_meson():
    v = meson_version()
    assert latmc.__version__ == v
    assert latmc.library_version() == v


def test_installed_metadata_agrees():
    if not os.environ.get("LATMC_EXPECT_INSTALLED"):
        pytest.skip("the sources in place have no distribution metadata")
    from importlib.metadata import version
    assert version("latmc") == meson_version()
    from latmc import _version  # written at build time
    assert _version.__version__ == meson_version()
