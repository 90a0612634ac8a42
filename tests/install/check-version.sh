#!/bin/sh
# One version: meson.build's project version is the only place it is written; every other
# place reads it at build time or must state the same. Checks the sources and the build
# (the installed files: check-install.sh; the Python package: python/tests/test_version.py).
# Usage: check-version.sh SRC_DIR BUILD_DIR VERSION ABI_MAJOR [LATMC_PROGRAM]
set -eu
src=$1
build=$2
v=$3
abi=$4
latmc=${5:-}
fail() { echo "FAIL: $*"; exit 1; }
minor=$(echo "$v" | cut -d. -f2)
patch=$(echo "$v" | cut -d. -f3)

# Python reads it at build time (meson-python: dynamic version; python/meson.build writes
# latmc/_version.py): no second literal in pyproject.toml or the package.
grep -q '^dynamic = \["version"\]' "$src/pyproject.toml" || fail "pyproject.toml: version not dynamic"
! grep -q '^version *=' "$src/pyproject.toml" || fail "pyproject.toml writes a version"
! grep -q '^__version__ *= *"' "$src/python/latmc/__init__.py" || fail "latmc/__init__.py writes a version"
# The header and the shared library's file name (liblatmc.so.ABI.MINOR.PATCH, NEWS.md).
grep -q "^#define LATMC_VERSION_STRING \"$v\"" "$build/include/latmc/version.h" ||
    fail "version.h does not say $v"
[ -e "$build/liblatmc.so.$abi.$minor.$patch" ] || fail "no $build/liblatmc.so.$abi.$minor.$patch"
# The documents that name the version: README, the guide's latmc-info output, NEWS.md's
# newest release heading (dated, or "unreleased" between releases).
grep -q "This version ($v)" "$src/README.md" || fail "README.md does not say 'This version ($v)'"
grep -q "^liblatmc $v (headers $v" "$src/doc/guide.md" || fail "doc/guide.md's latmc-info is not $v"
news=$(sed -n 's/^## \([0-9][0-9.]*\).*/\1/p' "$src/NEWS.md" | head -n 1)
[ "$news" = "$v" ] || fail "NEWS.md's newest version is $news, meson.build's $v"
# latmc --version in the build tree
if [ -n "$latmc" ]; then
    "$latmc" --version | grep -qx "latmc (liblatmc) $v" || fail "latmc --version: $("$latmc" --version)"
fi
echo "ok: version $v everywhere"
