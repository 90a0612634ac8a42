#!/bin/sh
# The program's own output files (cli suite):
#   check_outputs.sh LATMC PYTHON3
# - --json FILE parses, holds every input and result, and its means agree with the
#   --csv series (recomputed here from the CSV);
# - --csv - and --json - write to stdout (the report then goes to stderr);
# - a symlink is followed: the target gets the file, the link stays a link;
# - a FIFO or a directory is refused with exit status 2 and left as it was; a dangling
#   symlink too; no temporary file is left behind;
# - a degenerate run (Ising Metropolis at beta = 0) prints no error of 0: "n/a !" in the
#   table, null and a warning in the JSON, a warning on stderr, exit 0 (3 with --strict);
# - no progress bar when stderr is not a terminal.
if [ $# -lt 2 ]; then
    echo "usage: check_outputs.sh LATMC PYTHON3" >&2
    exit 99
fi
latmc=$1
py=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/latmc-outputs.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/check_lib.sh"


args="-L 8 --beta 0.35 --therm 50 --sweeps 400 --every 2 --seed 9 --threads 1"

# ---- JSON and CSV agree ----
mkdir "$tmp/real"
ln -s real/r.json "$tmp/link.json"
ln -s real/r.csv "$tmp/link.csv"
# shellcheck disable=SC2086
run files 0 $args --csv "$tmp/link.csv" --json "$tmp/link.json"
[ -L "$tmp/link.json" ] && [ -L "$tmp/link.csv" ] || fail "a symlink was replaced"
[ -f "$tmp/real/r.json" ] && [ -f "$tmp/real/r.csv" ] || fail "the symlinks' targets were not written"
"$py" -m json.tool "$tmp/real/r.json" >/dev/null || fail "the JSON does not parse"
"$py" - "$tmp/real/r.json" "$tmp/real/r.csv" <<'PYEOF' || fail "JSON content"
import json, sys
j = json.load(open(sys.argv[1]))
inp = j["inputs"]
assert inp["model"] == "ising" and inp["extent"] == [8, 8] and inp["ndim"] == 2, inp
assert inp["parameters"]["beta"] == 0.35 and inp["seed"] == 9 and inp["threads"] == 1, inp
assert inp["therm"] == 50 and inp["sweeps"] == 400 and inp["every"] == 2, inp
for k in ("version", "algorithm", "backend", "device", "start"):
    assert isinstance(inp[k], str) and inp[k], k
run = j["run"]
assert run["measurements"] == 200 and run["last_sweep"] == 450 and not run["interrupted"]
assert run["wall_s"] >= run["sweep_s"] >= 0 and run["exit_status"] == 0
rows = [l.rstrip("\n").split(",") for l in open(sys.argv[2]) if not l.startswith("#")]
head, data = rows[0], rows[1:]
assert len(data) == 200
for name, o in j["observables"].items():
    col = head.index(name)
    mean = sum(float(r[col]) for r in data) / len(data)
    assert abs(o["mean"] - mean) <= 1e-12 * max(1.0, abs(mean)), (name, o["mean"], mean)
    assert o["error"] is None or o["error"] > 0, (name, o)
    assert o["tau_int"] >= 0.5, (name, o)
d = j["derived"]
for k in ("binder_u4", "chi", "specific_heat"):
    assert d[k]["error"] > 0 and d[k]["jackknife_blocks"] == 32, (k, d[k])
acc = j["acceptance"]
assert 0 < acc["value"] < 1 and acc["attempted"] == 64 * 400
PYEOF
ls "$tmp" "$tmp/real" | grep -q 'XXXXXX\|\.[A-Za-z0-9]\{6\}$' && fail "a temporary file was left behind"

# ---- stdout ----
# shellcheck disable=SC2086
run csv_stdout 0 $args --csv -
head -n 1 "$tmp/csv_stdout.out" | grep -q '^index,sweep,energy' || fail "--csv -: no column line first"
grep -q '^# latmc time series' "$tmp/csv_stdout.out" || fail "--csv -: no CSV on stdout"
[ "$(grep -c '^[0-9]' "$tmp/csv_stdout.out")" -eq 200 ] || fail "--csv -: not 200 rows"
grep -q '^  energy' "$tmp/csv_stdout.err" || fail "--csv -: the report is not on stderr"
# shellcheck disable=SC2086
run json_stdout 0 $args --json - --quiet
"$py" -m json.tool "$tmp/json_stdout.out" >/dev/null || fail "--json -: stdout is not JSON"
[ ! -s "$tmp/json_stdout.err" ] || fail "--json - --quiet: output on stderr"

# ---- what is never replaced ----
mkfifo "$tmp/fifo" || fail "mkfifo"
for opt in --csv --json --checkpoint; do
    # shellcheck disable=SC2086
    run fifo 2 $args $opt "$tmp/fifo"
    grep -q 'is a FIFO' "$tmp/fifo.err" || fail "$opt FIFO: no message"
    [ -p "$tmp/fifo" ] || fail "$opt: the FIFO was replaced"
done
mkdir "$tmp/dir.csv"
# shellcheck disable=SC2086
run dir 2 $args --csv "$tmp/dir.csv"
[ -d "$tmp/dir.csv" ] || fail "the directory was replaced"
ln -s nowhere/x.json "$tmp/dangling.json"
# shellcheck disable=SC2086
run dangling 2 $args --json "$tmp/dangling.json"
[ -L "$tmp/dangling.json" ] || fail "the dangling symlink was replaced"

# ---- a degenerate chain: no confident error of 0 ----
run beta0 0 -L 16 --beta 0 --therm 0 --sweeps 2000 --json "$tmp/b0.json"
# every result's error: "n/a !", none a confident 0
for row in 'energy' 'm' '|m|' 'm^2' 'm^4' 'Binder U4' 'chi' 'C'; do
    grep -F "  $row " "$tmp/beta0.out" | grep -q '^  [^ ].*[0-9]  *n/a !' ||
        fail "beta 0: the error of $row is not 'n/a !'"
done
grep -q '^latmc: warning: no error estimate for energy' "$tmp/beta0.err" ||
    fail "beta 0: no warning on stderr"
grep -q 'Metropolis at beta = 0' "$tmp/beta0.err" || fail "beta 0: no note on the degenerate chain"
"$py" - "$tmp/b0.json" <<'PYEOF' || fail "beta 0: JSON"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["degenerate"] is True
e = j["observables"]["energy"]
assert e["error"] is None and "zero_error" in e["warnings"], e
m = j["observables"]["m"]
assert m["tau_int"] == 0.5 and "anticorrelated" in m["warnings"], m
assert j["derived"]["binder_u4"]["error"] is None
PYEOF
run strict 3 -L 16 --beta 0 --therm 0 --sweeps 2000 --quiet --strict
grep -q '^latmc: warning: no error estimate' "$tmp/strict.err" || fail "strict: no warning"
# a healthy run passes --strict
# shellcheck disable=SC2086
run healthy 0 $args --quiet --strict

# ---- progress only on a terminal ----
# shellcheck disable=SC2086
run noprogress 0 $args
tr '\r' '@' <"$tmp/noprogress.err" | grep -q '@' && fail "a progress bar on a non-terminal stderr"
echo "outputs: ok"
exit 0
