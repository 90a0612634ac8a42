"""What the accumulators cannot estimate reaches Python as a warning, never as a confident
number (the rule of the program latmc, doc/cli.md), and a new Sim says where in its phase
diagram it runs (the temperature rule)."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import latmc


def test_beta_zero_metropolis_gives_no_confident_zero():
    # Ising Metropolis at beta = 0 flips every spin every sweep: energy, |m|, m^2, m^4 never
    # change, so the binning error is exactly 0 and tau_int undefined
    with latmc.Sim("ising", 16, beta=0.0, algorithm="metropolis", device="cpu",
                   seed=1) as sim:
        ser = sim.series(512)
    with pytest.warns(latmc.DegenerateWarning, match="exactly 0"):
        err = ser.error("energy")
    assert math.isnan(err)
    with pytest.warns(latmc.DegenerateWarning, match="undefined"):
        assert math.isnan(ser.tau_int("energy"))
    with pytest.warns(latmc.DegenerateWarning, match="Binder"):
        u, du = ser.binder()
    assert math.isnan(du) and u == pytest.approx(2.0 / 3.0)


def test_warning_category_is_the_library_s():
    assert issubclass(latmc.DegenerateWarning, latmc.LatmcWarning)
    assert issubclass(latmc.ShortSeriesWarning, latmc.LatmcWarning)
    assert issubclass(latmc.LatmcWarning, UserWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error", latmc.LatmcWarning)
        with pytest.raises(latmc.DegenerateWarning):
            latmc.error(np.ones(100))


def test_period_two_series_is_flagged_anticorrelated():
    x = np.tile([1.0, -1.0], 500)
    with pytest.warns(latmc.DegenerateWarning, match="below 1/2"):
        assert latmc.tau_int(x) == 0.5


def test_short_series_is_flagged():
    # a ramp: its autocorrelation never decays within the 64 rows
    x = np.arange(64.0)
    with pytest.warns(latmc.ShortSeriesWarning, match="window"):
        latmc.tau_int(x)


def test_healthy_series_warns_nothing():
    x = np.random.default_rng(1).normal(size=4096)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert latmc.error(x) > 0
        assert 0.3 < latmc.tau_int(x) < 0.7


def test_warnings_bits_of_a_column():
    with latmc.Accumulator(["c", "n"]) as acc:
        acc.extend(np.stack([np.ones(64), np.arange(64.0) % 7], axis=1))
        assert acc.warnings("c") & 1 and acc.warnings("c") & 2
        assert acc.warnings("n") == 0


@pytest.mark.parametrize("model", ["ising", "potts", "heisenberg"])
def test_sim_without_beta_is_refused(model):
    with pytest.raises(latmc.InvalidArgument, match="needs beta"):
        latmc.Sim(model, (4, 4, 4) if model == "heisenberg" else (8, 8), device="cpu")


def test_phi4_needs_mu2_and_g():
    with pytest.raises(latmc.InvalidArgument, match="missing: mu2 and g"):
        latmc.Sim("phi4", (8, 8), device="cpu")
    with pytest.raises(latmc.InvalidArgument, match="missing: g"):
        latmc.Sim("phi4", (8, 8), mu2=-1.0, device="cpu")
    with pytest.raises(latmc.InvalidArgument, match="normalisable"):
        latmc.Sim("phi4", (8, 8), mu2=0.0, g=0.0, device="cpu")
    with latmc.Sim("phi4", (8, 8), mu2=1.0, g=0.0, device="cpu") as sim:  # the free field
        assert sim.params["mu2"] == 1.0


def test_loaded_sim_keeps_its_parameters(tmp_path):
    with latmc.Sim("ising", 8, beta=0.3, device="cpu") as sim:
        sim.save(tmp_path / "a.ckpt")
    with latmc.load(tmp_path / "a.ckpt") as sim:
        assert sim.params["beta"] == 0.3
