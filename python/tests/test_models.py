"""Every model is created, swept and measured; spins and couplings round trip in the
documented layout; parameters read and write by name."""
from __future__ import annotations

import ctypes
import math

import numpy as np
import pytest

import latmc

# name: (Sim args, kwargs, observables defined for it, spin dtype, spin shape)
CASES = {
    "ising2d-metropolis": (("ising", (8, 6)), dict(beta=0.4, algorithm="metropolis"),
                           ["energy", "magnetization", "abs_magnetization", "m2", "m4",
                            "acceptance"], np.int8, (8, 6)),
    "ising3d-heatbath": (("ising", (4, 6, 8)), dict(beta=0.2, algorithm="heatbath"),
                         ["energy", "magnetization", "m2", "m4"], np.int8, (4, 6, 8)),
    "ising-bimodal": (("ising", (6, 6)), dict(beta=0.5, couplings="bimodal",
                                             coupling_seed=3),
                      ["energy", "m2"], np.int8, (6, 6)),
    "potts3": (("potts", (6, 6)), dict(q=3, beta=1.0), ["energy", "magnetization", "m2",
                                                       "m4", "acceptance"], np.uint8, (6, 6)),
    "potts4-3d": (("potts", (4, 4, 4)), dict(q=4, beta=0.5, algorithm="heatbath"),
                  ["energy", "m2"], np.uint8, (4, 4, 4)),
    "phi4-double": (("phi4", (8, 8)), dict(mu2=-0.5, g=2.0), ["energy", "magnetization",
                                                              "m2", "m4", "phi2",
                                                              "acceptance"],
                    np.float64, (8, 8)),
    "phi4-float-3d": (("phi4", (8, 8, 8)), dict(precision="float", mu2=0.3, g=1.0,
                                                lambda_=10.0, nhit=2),
                      ["energy", "phi2", "m2"], np.float32, (8, 8, 8)),
    "heisenberg": (("heisenberg", (4, 4, 4)), dict(beta=1.5, couplings="gaussian", nover=1),
                   ["energy", "abs_magnetization", "m2", "m4"], np.float32, (4, 4, 4, 3)),
    "heisenberg-2rep": (("heisenberg", (4, 4, 4)), dict(beta=1.5, replicas=2,
                                                        couplings="bimodal"),
                        ["energy", "m2", "overlap2"], np.float32, (2, 4, 4, 4, 3)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_create_sweep_measure(name):
    args, kw, obs, dtype, shape = CASES[name]
    with latmc.Sim(*args, seed=2, device="cpu", **kw) as sim:
        assert sim.model == args[0]
        assert sim.shape == args[1]
        sim.sweep(5)
        assert sim.sweep_count == 5
        for o in obs:
            v = sim.observable(o)
            assert math.isfinite(v), (o, v)
            assert sim.observable(latmc.OBSERVABLES[o]) == v  # by key too
        spins = sim.spins
        assert spins.dtype == dtype and spins.shape == shape
        assert sim.backend == "cpu"
        assert repr(sim).startswith("<latmc.Sim %s" % args[0])


@pytest.mark.parametrize("name", sorted(CASES))
def test_spins_round_trip(name):
    args, kw, _, dtype, shape = CASES[name]
    rng = np.random.default_rng(1)
    with latmc.Sim(*args, seed=4, device="cpu", **kw) as sim:
        if dtype == np.int8:
            new = rng.choice(np.array([-1, 1], np.int8), size=shape)
        elif dtype == np.uint8:
            new = rng.integers(0, kw["q"], size=shape, dtype=np.uint8)
        elif shape[-1] == 3 and args[0] == "heisenberg":
            v = rng.normal(size=shape)
            new = (v / np.linalg.norm(v, axis=-1, keepdims=True)).astype(np.float32)
        else:
            new = rng.normal(size=shape).astype(dtype)
        sim.spins = new
        back = sim.spins
        if args[0] == "heisenberg":
            # the library may renormalise unit vectors; the layout must be the same
            np.testing.assert_allclose(back, new, atol=1e-6)
        else:
            np.testing.assert_array_equal(back, new)
        sim.sweep(1)  # a set configuration can be swept


def test_spin_layout_is_x_fastest():
    """spins[y, x] is site x + L_x*y: a single flipped spin at (x=3, y=1) of a cold lattice
    changes exactly the energy of its 4 bonds, and sits where numpy says."""
    with latmc.Sim("ising", (4, 6), beta=0.0, init="cold", device="cpu") as sim:
        s = sim.spins
        assert (s == 1).all()
        s[1, 3] = -1
        sim.spins = s
        flat = sim.spins.reshape(-1)
        assert flat[3 + 6 * 1] == -1 and (np.delete(flat, 9) == 1).all()
        # H/N = -(2N - 2*4)/N for one flipped spin on a periodic 2D lattice (2 bonds/site)
        assert sim.energy == pytest.approx(-(2 * 24 - 8) / 24)


def test_couplings_round_trip_and_layout():
    with latmc.Sim("heisenberg", (4, 4, 4), beta=1.0, couplings="gaussian", coupling_seed=9,
                   device="cpu") as sim:
        j = sim.couplings
        assert j.shape == (4, 4, 4, 3) and j.dtype == np.float32
        assert np.isfinite(j).all() and j.std() > 0.5
        new = np.linspace(-1, 1, j.size, dtype=np.float32).reshape(j.shape)
        sim.couplings = new
        np.testing.assert_array_equal(sim.couplings, new)
    with latmc.Sim("ising", (4, 4), beta=1.0, couplings="bimodal", device="cpu") as sim:
        j = sim.couplings
        assert set(np.unique(j)) <= {-1.0, 1.0} and j.shape == (4, 4, 2)
        sim.couplings = -j
        np.testing.assert_array_equal(sim.couplings, -j)


def test_params_by_name():
    with latmc.Sim("phi4", (8, 8), mu2=-1.0, g=6.0, device="cpu") as sim:
        assert sim.params["mu2"] == -1.0 and sim.params["g"] == 6.0
        sim.params["epsilon"] = 0.75
        assert sim.params["epsilon"] == 0.75
        assert set(sim.params.keys()) == {"mu2", "g", "lambda", "epsilon", "nhit", "nloc"}
        assert math.isinf(dict(sim.params)["lambda"])
        sim.params.update(nhit=3, nloc=2)
        assert sim.params["nhit"] == 3
        assert "beta" not in sim.params
        sim.tune_epsilon(0.5, 40)
        assert sim.sweep_count == 40
    with latmc.Sim("ising", (4, 4), beta=0.3, J=0.5, h=0.1, device="cpu") as sim:
        assert dict(sim.params) == {"beta": 0.3, "J": 0.5, "h": 0.1, "decisions": 0.0}


def test_acceptance_counts_and_reset():
    with latmc.Sim("ising", (8, 8), beta=0.3, device="cpu", seed=1) as sim:
        sim.sweep(10)
        acc, att = sim.acceptance_counts
        assert att == 10 * 64 and 0 < acc < att
        assert sim.acceptance == acc / att
        sim.reset_acceptance()
        assert sim.acceptance_counts == (0, 0)


def test_init_cold_and_hot_from_seed():
    with latmc.Sim("ising", (6, 6), beta=0.4, init="cold", device="cpu") as sim:
        assert sim.m2 == 1.0
        sim.init_spins("hot")
        a = sim.spins
    with latmc.Sim("ising", (6, 6), beta=0.4, seed=0, device="cpu") as sim:
        np.testing.assert_array_equal(sim.spins, a)  # hot start is a function of the seed


def test_desc_devices_and_version():
    with latmc.Sim("potts", (6, 6), beta=0.4, q=3, device="cpu", seed=5, threads=1) as sim:
        d = sim.desc
        assert d["model"] == "potts" and d["q"] == 3 and d["seed"] == 5
        assert d["algorithm"] == "metropolis" and d["threads"] == 1 and d["device"] == "cpu"
    devs = latmc.devices()
    assert devs[0].device == "cpu" and devs[0].multiprocessors >= 1
    assert latmc.device_count("cpu") == 1
    assert latmc.backend_status("cpu")
    assert isinstance(latmc.backend_status("cuda"), str)
    assert latmc.library_version().count(".") == 2
    assert {"ising", "potts", "phi4", "heisenberg"} <= set(latmc.MODELS)
    assert {"energy", "m2", "m4", "overlap2"} <= set(latmc.OBSERVABLES)


def test_log_callback():
    lines = []
    with latmc.Context() as ctx:
        ctx.set_log(lambda level, msg: lines.append((level, msg)), "debug")
        with pytest.raises(latmc.InvalidArgument):
            latmc.Sim("ising", (4, 4), beta=-1.0, context=ctx)
        ctx.set_log(None)
    assert any(level == "debug" and "beta" in msg for level, msg in lines), lines


def test_bitsliced_decisions_by_name(tmp_path):
    """The Ising chain of bit-sliced decisions (doc/models/ising-decisions.md) by its
    parameter's name: set at creation and between sweeps, refused out of range and for
    another model, kept by a checkpoint (format version 3), which continues bit for bit."""
    with latmc.Sim("ising", (64, 8), beta=0.44, decisions=1, device="cpu", seed=5) as sim:
        assert sim.params["decisions"] == 1.0
        with pytest.raises(latmc.InvalidArgument):
            sim.params["decisions"] = 0.5
        sim.sweep(3)
        sim.save(tmp_path / "a.ckpt")
        assert (tmp_path / "a.ckpt").read_bytes()[8] == 3
        sim.sweep(4)
        with latmc.load(tmp_path / "a.ckpt") as back:
            assert back.params["decisions"] == 1.0
            back.sweep(4)
            np.testing.assert_array_equal(back.spins, sim.spins)
        sim.params["decisions"] = 0  # the default chain again, between sweeps
        sim.sweep(1)
    with latmc.Sim("potts", (6, 6), q=3, beta=1.0, device="cpu") as sim:
        with pytest.raises(latmc.Unsupported):
            sim.params["decisions"] = 1


def test_model_names_come_from_the_library():
    # latmc.MODELS is the library's list (latmc_model_name); the documented numbers
    # (sim.h) and the constants kept in _lib for compatibility agree with it
    # (the four documented first, numbered 1 to 4; a later model follows them)
    from latmc import _lib
    assert list(latmc.MODELS)[:4] == ["ising", "potts", "phi4", "heisenberg"]
    assert sorted(latmc.MODELS.values()) == list(range(1, len(latmc.MODELS) + 1))
    assert (latmc.MODELS["ising"], latmc.MODELS["potts"], latmc.MODELS["phi4"],
            latmc.MODELS["heisenberg"]) == (_lib.MODEL_ISING, _lib.MODEL_POTTS,
                                            _lib.MODEL_PHI4, _lib.MODEL_HEISENBERG)
    if not hasattr(_lib.lib, "latmc_model_by_name"):
        pytest.skip("this liblatmc is older than 0.3: no latmc_model_by_name")
    for name, number in latmc.MODELS.items():
        assert _lib.lib.latmc_model_name(number).decode() == name
        out = ctypes.c_int(-1)
        assert _lib.lib.latmc_model_by_name(name.encode(), ctypes.byref(out)) == _lib.OK
        assert out.value == number
    assert _lib.lib.latmc_model_name(0) is None
    assert _lib.lib.latmc_model_name(len(latmc.MODELS) + 1) is None
    out = ctypes.c_int(42)
    assert _lib.lib.latmc_model_by_name(b"Ising", ctypes.byref(out)) == _lib.EINVAL
    assert out.value == 42
    message = _lib.lib.latmc_last_error().decode()
    assert "unknown model name" in message and all(m in message for m in latmc.MODELS)
    assert _lib.lib.latmc_model_by_name(None, ctypes.byref(out)) == _lib.EINVAL
    assert _lib.lib.latmc_model_by_name(b"ising", None) == _lib.EINVAL


def test_model_names_of_a_library_before_0_3(monkeypatch):
    # a liblatmc without latmc_model_name: MODELS falls back to the four models it has
    from latmc import _lib, params
    monkeypatch.setattr(_lib, "lib", object())
    assert params._models() == {"ising": 1, "potts": 2, "phi4": 3, "heisenberg": 4}
