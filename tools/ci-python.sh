#!/bin/sh
# CI job "python": the Python package as a user gets it. In a fresh virtual environment
# (build-python/venv, reused by later runs on the same checkout): `pip install .` (meson-python
# builds liblatmc into the wheel; the CUDA module, tests and example programs off to keep it
# short), `python -m latmc` (the default job), then the pytest suite python/tests against the installed
# package (LATMC_EXPECT_INSTALLED=1: it must come from the venv, not from the sources).
# Needs python3 with venv and pip (tools/install-deps.sh) and PyPI for meson-python, numpy
# and pytest. Ends with pytest's summary line; exit status 0 only when everything passed.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
venv="$root/build-python/venv"
mkdir -p build-python

if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
py="$venv/bin/python"
"$py" -m pip install -q --disable-pip-version-check numpy pytest
# The user's command (with build isolation: pip fetches meson-python, meson and ninja).
"$py" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps \
    -Csetup-args=-Dcuda=disabled "$root"

# From a directory without the sources, so that only the installed package can be imported.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$py" -m latmc          # the default job, as the latmc program runs it (seconds)
LATMC_EXPECT_INSTALLED=1 "$py" -m pytest -q -p no:cacheprovider -rs "$root/python/tests"
