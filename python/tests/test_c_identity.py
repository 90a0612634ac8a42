"""The same chain driven from Python and from C (a program compiled here with the system
cc against the library the package loaded) is bit-identical: the configuration after n
sweeps, the checkpoint bytes, and a C checkpoint continued in Python."""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

import latmc

# (model, q, precision, replicas, couplings, seed, (Lx, Ly, Lz), params)
CHAINS = {
    "ising2d": ("ising", 2, "double", 1, "uniform", 7, (16, 8, 0), {"beta": 0.4}),
    "ising3d-bimodal": ("ising", 2, "double", 1, "bimodal", 11, (6, 4, 4), {"beta": 0.8}),
    "potts3": ("potts", 3, "double", 1, "uniform", 5, (12, 6, 0), {"beta": 1.0}),
    "phi4-float": ("phi4", 2, "float", 1, "uniform", 3, (8, 8, 0),
                   {"mu2": -0.5, "g": 3.0, "lambda": 4.0}),
    "phi4-3d": ("phi4", 2, "double", 1, "uniform", 9, (8, 8, 8), {"mu2": -1.0, "g": 6.0}),
    "heisenberg-2rep": ("heisenberg", 2, "double", 2, "gaussian", 13, (4, 4, 4),
                        {"beta": 2.0, "nover": 2}),
}
MODEL_CODES = {"ising": 1, "potts": 2, "phi4": 3, "heisenberg": 4}
PRECISION_CODES = {"float": 0, "double": 1}
COUPLING_CODES = {"uniform": 0, "gaussian": 1, "bimodal": 2}
N1, N2 = 20, 15


def run_c(build_c, tmp_path, chain):
    model, q, prec, rep, coup, seed, ext, params = chain
    exe = build_c("chain.c")
    args = [str(exe), str(MODEL_CODES[model]), str(q), str(PRECISION_CODES[prec]), str(rep),
            str(COUPLING_CODES[coup]), str(seed), *map(str, ext), str(N1), str(N2),
            str(tmp_path / "c.ckpt"), str(tmp_path / "c.spins")]
    args += ["%s=%r" % kv for kv in params.items()]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return float(out), (tmp_path / "c.ckpt").read_bytes(), (tmp_path / "c.spins").read_bytes()


def py_sim(chain) -> latmc.Sim:
    model, q, prec, rep, coup, seed, ext, params = chain
    shape = tuple(reversed([e for e in ext if e > 0]))
    return latmc.Sim(model, shape, q=q, precision=prec, replicas=rep, couplings=coup,
                     seed=seed, device="cpu", **params)


@pytest.mark.parametrize("name", sorted(CHAINS))
def test_chain_and_checkpoint_bit_identical_to_c(name, build_c, tmp_path):
    chain = CHAINS[name]
    c_energy, c_ckpt, c_spins = run_c(build_c, tmp_path, chain)
    with py_sim(chain) as sim:
        sim.sweep(N1)
        sim.save(tmp_path / "py.ckpt")
        sim.sweep(N2)
        spins = sim.spins
        assert spins.tobytes() == c_spins
        assert sim.energy == c_energy  # the printed %.17g round-trips exactly
        assert sim.sweep_count == N1 + N2
    # checkpoints of the same state: the same bytes
    assert (tmp_path / "py.ckpt").read_bytes() == c_ckpt
    # a C checkpoint continued in Python ends where the C program ended
    with latmc.load(tmp_path / "c.ckpt") as resumed:
        assert resumed.sweep_count == N1
        resumed.sweep(N2)
        assert resumed.spins.tobytes() == c_spins
    # and serialize() gives the checkpoint's bytes too
    with latmc.load(tmp_path / "py.ckpt") as again:
        assert again.serialize() == c_ckpt


@pytest.mark.parametrize("in_c", [True, False])
def test_series_is_the_hand_driven_chain(in_c, monkeypatch):
    """sim.series() measures exactly what sweep(every) + observable() by hand would, through
    the C helper (python/latmc_series.c) and through the Python loop alike."""
    import latmc.timeseries
    if in_c and latmc._lib.series_helper is None:
        pytest.skip("no series helper next to this liblatmc (a build tree without it)")
    monkeypatch.setattr(latmc.timeseries, "use_helper", in_c)
    kw = dict(beta=0.42, seed=21, device="cpu")
    with latmc.Sim("ising", (8, 8), **kw) as a, latmc.Sim("ising", (8, 8), **kw) as b:
        names = ["energy", "m2", "abs_magnetization"]
        ser = a.series(300, every=3, observables=names, therm=10, block=64)
        b.sweep(10)
        manual = []
        for _ in range(300):
            b.sweep(3)
            manual.append([b.observable(n) for n in names])
        np.testing.assert_array_equal(ser.data, np.array(manual))
        assert np.array_equal(a.spins, b.spins)
        assert ser.first_sweep == 10
