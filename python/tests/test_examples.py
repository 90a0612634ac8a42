"""The examples run in their quick mode: binder_crossing.py, and the phi^4 notebook's code
cells executed in order with plain exec (no Jupyter needed)."""
from __future__ import annotations

import json
import math
import runpy
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_binder_crossing_quick(tmp_path, capsys):
    mod = runpy.run_path(str(EXAMPLES / "binder_crossing.py"), run_name="binder_crossing")
    res = mod["main"](["--quick", "--out", str(tmp_path / "u4.png")])
    out = capsys.readouterr().out
    assert "L =   4" in out and "L =   8" in out
    for L, (u, du) in res["curves"].items():
        assert ((u > 0) & (u < 2 / 3 + 4 * du)).all()
    # U4 falls with T on both sizes, faster on the larger one: they cross in the window,
    # within a loose band around Onsager's T_c for lattices this small
    assert len(res["crossings"]) == 1
    tc, dtc = res["crossings"][0]
    assert abs(tc - mod["T_C"]) < 0.25 and dtc > 0
    # xi/L falls with T, faster on the larger lattice: one crossing, in the same band
    assert "xi/L(2.300)" in out
    assert len(res["xi_crossings"]) == 1
    tx, dtx = res["xi_crossings"][0]
    assert abs(tx - mod["T_C"]) < 0.25 and dtx > 0
    for L, (x, dx) in res["xi_curves"].items():
        fin = np.isfinite(x)
        assert fin.sum() >= 3 and (np.diff(x[fin]) < 0).all() and (dx[fin] > 0).all()
    assert res["plotted"] == (tmp_path / "u4.png").exists()


def test_phi4_notebook_cells_quick():
    nb = json.loads((EXAMPLES / "phi4_scan.ipynb").read_text())
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert len(code) >= 3
    ns = {"QUICK": True, "__name__": "__notebook__"}
    for i, cell in enumerate(code):
        exec(compile("".join(cell["source"]), "phi4_scan.ipynb cell %d" % i, "exec"), ns)
    rows = ns["results"][8]
    assert rows.shape[0] == len(ns["mu2s"])
    assert all(math.isfinite(v) for v in rows.ravel())
    # deeper in the broken phase the magnetisation is larger
    assert rows[-1, 3] > rows[0, 3]
