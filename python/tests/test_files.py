"""latmc.read_csv / latmc.read_hdf5: the program latmc's output files into a RunFile (inputs,
a Series, the program's results). The files here follow doc/cli.md's layout; where the
program itself is at hand (LATMC_PROGRAM=path, or `latmc` on PATH) a real run is read too."""
from __future__ import annotations

import math
import os
import shutil
import subprocess

import numpy as np
import pytest

import latmc

CSV = """index,sweep,energy,m,absm,m2,m4
# latmc time series: one line per measurement; sweep = the sim's sweep count at the measurement
# program = latmc
# version = 0.2.0
# model = ising
# ndim = 2
# extent = 8x4
# algorithm = metropolis
# param.beta = 0.25
# param.J = 1
# seed = 7
# start = hot
# therm = 10
# every = 2
# resumed_from = /tmp/a b.ckp
"""


def _csv(tmp_path, n=64):
    rng = np.random.default_rng(5)
    rows = rng.normal(size=(n, 5))
    text = CSV + "".join("%d,%d,%s\n" % (i, 10 + 2 * (i + 1), ",".join("%.17g" % v for v in r))
                         for i, r in enumerate(rows))
    path = tmp_path / "run.csv"
    path.write_text(text)
    return path, rows


def test_read_csv(tmp_path):
    path, rows = _csv(tmp_path)
    f = latmc.read_csv(path)
    assert f.inputs["model"] == "ising" and f.inputs["extent"] == (8, 4)
    assert f.inputs["seed"] == 7 and f.inputs["start"] == "hot"
    assert f.inputs["parameters"] == {"beta": 0.25, "J": 1}
    assert f.inputs["resumed_from"] == "/tmp/a b.ckp"
    assert f.series.names == ["energy", "m", "absm", "m2", "m4"]
    np.testing.assert_array_equal(f.series.data, rows)  # 17 digits: exact
    np.testing.assert_array_equal(f.index, np.arange(64))
    np.testing.assert_array_equal(f.sweep, 10 + 2 * (np.arange(64) + 1))
    assert f.series.beta == 0.25 and f.series.volume == 32 and f.series.every == 2
    assert f.series.first_sweep == 10
    # the program's names of |m| and m serve the Series' analyses
    np.testing.assert_array_equal(f.series["abs_magnetization"], rows[:, 2])
    chi, dchi = f.series.susceptibility()
    assert math.isfinite(chi) and dchi > 0


def test_numpy_reads_the_csv_as_it_is(tmp_path):
    # doc/cli.md's promise: one named header line, the inputs as '#' comments
    path, rows = _csv(tmp_path)
    t = np.genfromtxt(path, delimiter=",", names=True, comments="#")
    assert t.dtype.names == ("index", "sweep", "energy", "m", "absm", "m2", "m4")
    np.testing.assert_array_equal(t["m2"], rows[:, 3])
    a = np.loadtxt(path, delimiter=",", comments="#", skiprows=1)
    assert a.shape == (64, 7)


def test_read_csv_of_an_accumulator(tmp_path):
    x = np.random.default_rng(2).normal(size=(40, 2))
    with latmc.Accumulator(["e", "q"]) as acc:
        acc.extend(x)
        acc.write_csv(tmp_path / "a.csv")
    f = latmc.read_csv(tmp_path / "a.csv")
    assert f.inputs == {} and f.series.names == ["e", "q"]
    np.testing.assert_array_equal(f.series.data, x)


def test_read_csv_errors(tmp_path):
    with pytest.raises(latmc.FileError):
        latmc.read_csv(tmp_path / "missing.csv")
    (tmp_path / "bad.csv").write_text("index,energy\n0,1,2\n")
    with pytest.raises(latmc.CorruptFile):
        latmc.read_csv(tmp_path / "bad.csv")


def _program():
    p = os.environ.get("LATMC_PROGRAM") or shutil.which("latmc")
    if not p:
        pytest.skip("the program latmc is not at hand (LATMC_PROGRAM)")
    return p


def test_real_run_csv_and_resume(tmp_path):
    latmc_prog = _program()
    args = [latmc_prog, "-L", "8", "--beta", "0.4", "--therm", "20", "--every", "2",
            "--seed", "3", "--start", "cold", "--quiet"]
    subprocess.run(args + ["--sweeps", "100", "--checkpoint", str(tmp_path / "c.ckp"),
                           "--csv", str(tmp_path / "a.csv")], check=True)
    subprocess.run(args + ["--sweeps", "200", "--resume", str(tmp_path / "c.ckp"),
                           "--csv", str(tmp_path / "b.csv")], check=True)
    a, b = latmc.read_csv(tmp_path / "a.csv"), latmc.read_csv(tmp_path / "b.csv")
    assert a.inputs["start"] == "cold"
    # the resumed file keeps the original inputs (how the chain started) and says so
    assert b.inputs["start"] == "cold" and b.inputs["resumed_from"].endswith("c.ckp")
    assert len(b.series) == 100 and len(a.series) == 50
    np.testing.assert_array_equal(b.series.data[:50], a.series.data)
    t = np.genfromtxt(tmp_path / "b.csv", delimiter=",", names=True, comments="#")
    np.testing.assert_array_equal(t["energy"], b.series["energy"])


def test_read_hdf5(tmp_path):
    h5py = pytest.importorskip("h5py")
    path = tmp_path / "r.h5"
    n = 32
    e = np.linspace(-1.0, -1.5, n)
    with h5py.File(path, "w") as f:  # the layout of doc/cli.md, strings as latmc writes them
        f.attrs["format"] = "latmc-results 1"
        inp = f.create_group("inputs")
        inp.attrs["model"] = "ising"
        inp.attrs["extent"] = np.array([8, 8], np.int64)
        inp.attrs["seed"] = np.uint64(4)
        inp.attrs["every"] = np.uint64(1)
        inp.create_group("parameters").attrs["beta"] = 0.4
        f.create_group("run").attrs["measurements"] = np.uint64(n)
        s = f.create_group("series")
        s["index"] = np.arange(n, dtype=np.uint64)
        s["sweep"] = np.arange(1, n + 1, dtype=np.uint64)
        s["energy"] = e
        s["absm"] = np.abs(e)
        r = f.create_group("results").create_dataset("energy", data=e.mean())
        r.attrs["error"] = 0.01
        r.attrs["label"] = "energy"
    h = latmc.read_hdf5(path)
    assert h.inputs["model"] == "ising" and h.inputs["extent"] == (8, 8)
    assert h.inputs["parameters"]["beta"] == 0.4 and h.run["measurements"] == n
    assert sorted(h.series.names) == ["absm", "energy"]
    np.testing.assert_array_equal(h.series["energy"], e)
    assert h.results["energy"]["mean"] == e.mean() and h.results["energy"]["label"] == "energy"
    assert h.series.volume == 64 and h.series.beta == 0.4


def test_real_run_hdf5_strings_are_str(tmp_path):
    h5py = pytest.importorskip("h5py")
    latmc_prog = _program()
    r = subprocess.run([latmc_prog, "-L", "8", "--beta", "0.4", "--therm", "10", "--sweeps",
                        "64", "--quiet", "--hdf5", str(tmp_path / "r.h5")],
                       capture_output=True, text=True)
    if r.returncode == 2 and "hdf5" in r.stderr.lower():
        pytest.skip("this latmc was built without HDF5")
    assert r.returncode == 0, r.stderr
    with h5py.File(tmp_path / "r.h5", "r") as f:
        assert isinstance(f.attrs["format"], str)
        assert isinstance(f["inputs"].attrs["model"], str)
    h = latmc.read_hdf5(tmp_path / "r.h5")
    assert h.inputs["model"] == "ising" and h.inputs["start"] == "hot"
    assert len(h.series) == 64 and h.series.names[0] == "energy"
