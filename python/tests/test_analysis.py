"""Accumulators on numpy series: the C statistics against formulas evaluated here."""
from __future__ import annotations

import numpy as np
import pytest

import latmc


def ar1(n, rho, seed=0):
    """An AR(1) series x_t = rho x_{t-1} + noise: tau_int = (1 + rho) / (2 (1 - rho))."""
    rng = np.random.default_rng(seed)
    x = np.empty(n)
    x[0] = rng.normal()
    noise = rng.normal(size=n)
    for t in range(1, n):
        x[t] = rho * x[t - 1] + noise[t]
    return x


def test_mean_and_level0_error():
    x = np.random.default_rng(1).normal(2.0, 1.0, size=4096)
    with latmc.Accumulator(["x"]) as acc:
        acc.extend(x)
        assert len(acc) == x.size
        assert acc.mean("x") == pytest.approx(x.mean(), rel=1e-12)
        # level 0: sigma = sqrt(var / (n - 1)), var with 1/n
        assert acc.binning_error("x", 0) == pytest.approx(np.sqrt(x.var() / (x.size - 1)))
        # level 3: bins of 8
        b = x.reshape(-1, 8).mean(axis=1)
        assert acc.binning_error(0, 3) == pytest.approx(np.sqrt(b.var() / (b.size - 1)))
        np.testing.assert_array_equal(acc.rows[:, 0], x)
    assert latmc.mean(x) == pytest.approx(x.mean(), rel=1e-12)


def test_tau_int_of_correlated_series():
    rho = 0.8
    x = ar1(200000, rho)
    assert latmc.tau_int(x) == pytest.approx((1 + rho) / (2 * (1 - rho)), rel=0.1)
    white = np.random.default_rng(3).normal(size=100000)
    assert latmc.tau_int(white) == pytest.approx(0.5, abs=0.05)
    # the binning error sees the correlation: sqrt(2 tau var / n)
    expected = np.sqrt(2 * 4.5 * x.var() / x.size)
    assert latmc.error(x) == pytest.approx(expected, rel=0.25)


def test_jackknife_derived_quantities():
    rng = np.random.default_rng(5)
    m = rng.normal(0.5, 0.2, size=8192)
    m2, m4 = m ** 2, m ** 4
    u, du = latmc.binder(m2, m4, nblocks=64)
    assert u == pytest.approx(1 - m4.mean() / (3 * m2.mean() ** 2), abs=3 * du)
    assert 0 < du < 0.05
    absm = np.abs(m)
    chi, dchi = latmc.susceptibility(absm, m2, factor=100.0)
    assert chi == pytest.approx(100.0 * (m2.mean() - absm.mean() ** 2), abs=3 * dchi)
    c, dc = latmc.specific_heat(m, factor=2.0)
    assert c == pytest.approx(2.0 * m.var(), abs=3 * dc)
    # a Python derived function through latmc_acc_jackknife gives the C Binder exactly
    u2, du2 = latmc.jackknife(lambda mean, sq: 1 - mean[1] / (3 * mean[0] ** 2), (m2, m4),
                              nblocks=64)
    assert u2 == pytest.approx(u, rel=1e-12) and du2 == pytest.approx(du, rel=1e-12)
    # sq_means are the means of the squares
    v, _ = latmc.jackknife(lambda mean, sq: sq[0] - mean[0] ** 2, [m], nblocks=16)
    assert v == pytest.approx(m.var() * m.size / (m.size - 1), rel=1e-3)


def test_jackknife_propagates_python_errors():
    with pytest.raises(ZeroDivisionError):
        latmc.jackknife(lambda mean, sq: 1 / 0, [np.arange(10.0)], nblocks=2)


def test_accumulator_errors_are_library_errors(tmp_path):
    with latmc.Accumulator(["a", "b"]) as acc:
        with pytest.raises(latmc.StateError) as e:
            acc.mean("a")                      # no rows yet
        assert e.value.code == -9
        with pytest.raises(latmc.InvalidArgument):
            acc.push([1.0, float("nan")])
        with pytest.raises(latmc.InvalidArgument):
            acc.push([1.0])
        with pytest.raises(latmc.InvalidArgument):
            acc.mean(5)
        with pytest.raises(latmc.InvalidArgument):
            acc.mean("c")
        acc.extend(np.arange(20.0).reshape(10, 2))
        with pytest.raises(latmc.StateError):
            acc.binder("a", "b", nblocks=11)   # more blocks than rows
        acc.write_csv(tmp_path / "s.csv")
    lines = (tmp_path / "s.csv").read_text().splitlines()
    assert lines[0] == "index,a,b" and len(lines) == 11
    with pytest.raises(latmc.InvalidArgument):
        latmc.Accumulator(0)
    with pytest.raises(latmc.InvalidArgument):
        latmc.binder([1.0, 2.0], [1.0])


def test_series_analysis_and_progress(capsys):
    with latmc.Sim("ising", (8, 8), beta=0.44, seed=9, device="cpu") as sim:
        ser = sim.series(2000, therm=200, progress=True, block=128)
    err = capsys.readouterr().err
    assert "2000/2000" in err or "2000" in err     # the progress bar reached the end
    assert len(ser) == 2000 and ser.data.shape == (2000, 4) and ser.beta == 0.44
    assert ser.volume == 64
    s = ser.summary()
    assert s["m2"]["tau_int"] >= 0.5 and s["energy"]["error"] > 0
    u, du = ser.binder()
    assert 0 < u < 2 / 3 + 3 * du
    chi, _ = ser.susceptibility()
    with ser.accumulator() as acc:
        assert chi == acc.susceptibility("abs_magnetization", "m2", 0.44 * 64)[0]
    c, _ = ser.specific_heat()
    assert c > 0
    np.testing.assert_array_equal(ser["m2"], ser.data[:, 2])
    with pytest.raises(KeyError):
        ser["phi2"]
    with pytest.raises(latmc.InvalidArgument):
        sim_n = latmc.Sim("ising", (4, 4), beta=0.4, device="cpu")
        try:
            sim_n.series(10, every=0)
        finally:
            sim_n.close()
