#!/bin/sh
# CI job "python": the Python package as a user gets it. In a fresh virtual environment
# (build-python/venv, reused by later runs on the same checkout): the default wheel, built
# as `pip install .` builds it (meson-python; pyproject.toml's options) with nvcc on PATH
# (the real one where CUDA is installed, a stub otherwise) behind a wrapper that records
# every call: the build must not call it, and tools/check-wheel.py checks that the wheel is
# the CPU library only (no CUDA module, no liblatmc_mpi though this machine may have an
# MPI), carries LICENSE, and that its libraries find each other through RUNPATH. Then the
# wheel is installed, `python -m latmc` runs (the default job), and the pytest suite
# python/tests runs against the installed package (LATMC_EXPECT_INSTALLED=1: it must come
# from the venv, not from the sources).
# Needs python3 with venv and pip (tools/install-deps.sh) and PyPI for meson-python, numpy,
# pytest and h5py. Ends with pytest's summary line; exit status 0 only when everything passed.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
venv="$root/build-python/venv"
mkdir -p build-python

if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
py="$venv/bin/python"
# h5py: latmc.read_hdf5's tests (a binary wheel)
"$py" -m pip install -q --disable-pip-version-check numpy pytest h5py
# nvcc on PATH, recording its calls.
tools=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$tools" "$work"' EXIT
real_nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null || true)
printf '#!/bin/sh\necho "nvcc $*" >>"%s/nvcc.calls"\n[ -n "%s" ] && exec "%s" "$@"\nexit 1\n' \
    "$tools" "$real_nvcc" "$real_nvcc" >"$tools/nvcc"
chmod +x "$tools/nvcc"
# The user's build (with build isolation: pip fetches meson-python, meson and ninja).
rm -rf build-python/wheel
PATH="$tools:$PATH" "$py" -m pip wheel -q --disable-pip-version-check --no-deps \
    -w build-python/wheel "$root"
if [ -s "$tools/nvcc.calls" ]; then
    echo "FAIL: the default wheel's build called nvcc:"; cat "$tools/nvcc.calls"; exit 1
fi
wheel=$(ls build-python/wheel/latmc-*.whl)
"$py" tools/check-wheel.py "$wheel"
"$py" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$wheel"

# From a directory without the sources, so that only the installed package can be imported.
cd "$work"
"$py" -m latmc          # the default job, as the latmc program runs it (seconds)
LATMC_EXPECT_INSTALLED=1 "$py" -m pytest -q -p no:cacheprovider -rs "$root/python/tests"
