#!/bin/sh
# README's first command: install what is missing, build liblatmc (build/), and run the
# main job: `latmc` with no arguments, a 2D Ising simulation near T_c (about a minute).
set -eu
cd "$(dirname "$0")/.."
sh tools/install-deps.sh
[ -f build/build.ninja ] || meson setup build
ninja -C build
exec build/examples/latmc "$@"
