#!/bin/sh
# --hdf5 FILE (cli suite, built with HDF5 only): the file written by a run is read back
# with an independent reader (hdf5_read, on the HDF5 library) and compared with the
# --json of the same run: inputs, the series (length, means), results and derived values.
#   check_hdf5.sh LATMC HDF5_READ PYTHON3
if [ $# -lt 3 ]; then
    echo "usage: check_hdf5.sh LATMC HDF5_READ PYTHON3" >&2
    exit 99
fi
latmc=$1
reader=$2
py=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/latmc-hdf5.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail_also="$tmp/h5.txt"
. "$(dirname "$0")/check_lib.sh"
"$latmc" -L 8 --beta 0.4 --therm 20 --sweeps 300 --seed 4 --quiet --hdf5 "$tmp/r.h5" \
    --json "$tmp/r.json" >"$tmp/run.out" 2>"$tmp/run.err" </dev/null || fail "latmc: exit status $?"
"$reader" "$tmp/r.h5" >"$tmp/h5.txt" 2>"$tmp/read.err" || fail "the reader failed on the file"
"$py" - "$tmp/h5.txt" "$tmp/r.json" <<'PYEOF' || fail "HDF5 and JSON disagree"
import json, sys
h = dict(l.rstrip("\n").split(" = ", 1) for l in open(sys.argv[1]))
j = json.load(open(sys.argv[2]))
inp, obs = j["inputs"], j["observables"]
assert h["format"] == "latmc-results 1", h
assert h["model"] == inp["model"] and h["backend"] == inp["backend"], h
assert [int(x) for x in h["extent"].split()] == inp["extent"], h
assert int(h["seed"]) == inp["seed"] and float(h["beta"]) == inp["parameters"]["beta"]
n = j["run"]["measurements"]
assert int(h["measurements"]) == n == 300
for name in ("energy", "m2"):
    assert int(h["series.%s.n" % name]) == n
    assert abs(float(h["series.%s.mean" % name]) - obs[name]["mean"]) <= 1e-12 * abs(obs[name]["mean"])
for name in ("energy", "m"):
    assert float(h["results." + name]) == obs[name]["mean"], name
    assert float(h["results.%s.error" % name]) == obs[name]["error"], name
assert float(h["derived.chi"]) == j["derived"]["chi"]["value"]
assert float(h["derived.chi.error"]) == j["derived"]["chi"]["error"]
PYEOF
echo "hdf5: ok"
exit 0
