"""The finite-size-scaling observables through the package (doc/observables.md): the Fourier
modes at k = 0 and k_min of a sim against numpy's FFT of its own configuration, and the
correlation lengths of the accumulators and the ensembles against the formula written out
here."""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess

import numpy as np
import pytest

import latmc


def kmin_power(v: np.ndarray, lattice_axes: int) -> float:
    """sum over the components of |sum_x v(x) e^{i k_min x_mu}|^2, averaged over the
    lattice's directions mu; v has the lattice's axes first, then component axes."""
    total = 0.0
    for a in range(lattice_axes):
        others = tuple(i for i in range(lattice_axes) if i != a)
        proj = v.sum(axis=others) if others else v  # axis a first, then the components
        total += float((np.abs(np.fft.fft(proj, axis=0)[1]) ** 2).sum())
    return total / lattice_axes


def simplex(q: int) -> np.ndarray:
    """q vectors with e_a . e_b = (q delta_ab - 1) / (q - 1) (centred, rescaled basis)."""
    e = np.eye(q) - 1.0 / q
    return e * math.sqrt(q / (q - 1))


CASES = {
    "ising-2d": ("ising", (12, 12), dict(beta=0.3)),
    "ising-3d": ("ising", (6, 6, 6), dict(beta=0.2)),
    "potts3-2d": ("potts", (9, 9), dict(q=3, beta=0.9)),
    "potts5-3d": ("potts", (4, 4, 4), dict(q=5, beta=0.5)),
    "phi4-2d": ("phi4", (10, 10), dict(mu2=-0.5, g=1.0, precision="double")),
    "heisenberg-3d": ("heisenberg", (4, 4, 4), dict(beta=0.5, couplings="gaussian")),
    "heisenberg-3d-x2": ("heisenberg", (4, 4, 4), dict(beta=0.5, couplings="gaussian",
                                                 replicas=2)),
}


def fixed_point(v, bits=25):
    """The site values as the modes at k_min take them: rint(v 2^S) 2^-S, S = 25 for
    Heisenberg's spins, 20 for phi^4's field."""
    return np.rint(v * 2.0 ** bits) * 2.0 ** -bits


@pytest.mark.parametrize("name", sorted(CASES))
def test_modes_equal_numpy_fft(name):
    model, shape, kw = CASES[name]
    with latmc.Sim(model, shape, seed=3, device="cpu", **kw) as sim:
        sim.sweep(3)
        s = sim.spins
        n, d = s.size if model != "heisenberg" else sim.volume, len(shape)
        if model == "potts":
            v = simplex(kw["q"])[s]                  # lattice axes, then q components
        elif model == "heisenberg":
            v = s[0] if kw.get("replicas") == 2 else s
        else:
            v = s.astype(np.float64)
        v = v.astype(np.float64)
        m0 = v.sum(axis=tuple(range(d)))
        assert sim.m2_k0 == pytest.approx(float((m0 ** 2).sum()) / n ** 2, rel=1e-12)
        if model == "heisenberg":  # the modes at k_min take the values in fixed point
            v = fixed_point(v)
        elif model == "phi4":
            v = fixed_point(v, 20)
        assert sim.m2_kmin == pytest.approx(kmin_power(v, d) / n ** 2, rel=1e-12, abs=1e-15)
        assert sim.observable("m2_kmin") == sim.m2_kmin
        if kw.get("replicas") == 2:
            a, b = s[0].astype(np.float64), s[1].astype(np.float64)
            # q_{mu nu}(x), lattice axes first, in fixed point
            qt = fixed_point(a[..., :, None] * b[..., None, :])
            assert sim.overlap2_kmin == pytest.approx(kmin_power(qt, d) / n ** 2, rel=1e-12)
        else:
            with pytest.raises(latmc.Unsupported):
                sim.overlap2_kmin


def test_kmin_needs_equal_extents():
    with latmc.Sim("ising", (4, 8), beta=0.3, seed=1, device="cpu") as sim:
        assert sim.m2_k0 >= 0
        with pytest.raises(latmc.Unsupported):
            sim.m2_kmin


def test_corr_length_of_an_accumulator_is_its_formula():
    rng = np.random.default_rng(11)
    k0 = rng.normal(2.0, 0.3, size=4096) ** 2
    kmin = rng.normal(1.0, 0.2, size=4096) ** 2
    L = 16

    def xi(mean, _sq):
        return math.sqrt(mean[0] / mean[1] - 1) / (2 * math.sin(math.pi / L))

    want, dwant = latmc.jackknife(xi, (k0, kmin), nblocks=32)
    got, dgot = latmc.corr_length(k0, kmin, L, nblocks=32)
    assert got == pytest.approx(want, rel=1e-12) and dgot == pytest.approx(dwant, rel=1e-12)
    # close to the formula of the means (the jackknife's bias correction is small)
    assert got == pytest.approx(xi([k0.mean(), kmin.mean()], None), abs=3 * dgot)
    with latmc.Accumulator(["m2_k0", "m2_kmin"]) as acc:
        acc.extend(np.stack([k0, kmin], axis=1))
        assert acc.corr_length(L) == (got, dgot)
        ser = latmc.Series(np.stack([k0, kmin], axis=1), ["m2_k0", "m2_kmin"], 0.4, L * L)
        assert ser.corr_length(L) == (got, dgot)
        with pytest.raises(latmc.InvalidArgument):
            acc.corr_length(L, "m2_kmin", "m2_k0")   # <|m(0)|^2> below: no real xi
        with pytest.raises(latmc.InvalidArgument):
            acc.corr_length(1)                       # L < 2
        with pytest.raises(latmc.InvalidArgument):
            acc.corr_length(L, "m2_k0", "nope")


def test_corr_length_sg_is_its_formula():
    rng = np.random.default_rng(4)
    q2 = rng.uniform(0.3, 0.5, size=(7, 3))
    qk2 = rng.uniform(0.05, 0.1, size=(7, 3))
    L = 8
    scale = 0.5 / math.sin(math.pi / L)

    def xi(a, b):
        return math.sqrt(a.mean() / b.mean() - 1) * scale

    xs, es = latmc.corr_length_sg(q2, qk2, L)
    assert xs.shape == es.shape == (3,)
    for t in range(3):
        assert xs[t] == pytest.approx(xi(q2[:, t], qk2[:, t]), rel=1e-13)
        loo = np.array([xi(np.delete(q2[:, t], s), np.delete(qk2[:, t], s)) for s in range(7)])
        assert es[t] == pytest.approx(math.sqrt(6 / 7 * ((loo - loo.mean()) ** 2).sum()),
                                      rel=1e-10)
    x0, e0 = latmc.corr_length_sg(q2[:, 0], qk2[:, 0], L)
    assert (x0, e0) == (xs[0], es[0])
    with pytest.raises(latmc.InvalidArgument):
        latmc.corr_length_sg(qk2, q2, L)             # [<q^2>] below [<|q(k_min)|^2>]
    with pytest.raises(latmc.InvalidArgument):
        latmc.corr_length_sg(q2[:1], qk2[:1], L)     # one sample: no jackknife
    with pytest.raises(latmc.InvalidArgument):
        latmc.corr_length_sg(q2, qk2[:, :2], L)


@pytest.mark.parametrize("model", ["ising", "heisenberg"])
def test_ensemble_qkmin2_of_its_members(model):
    kw = dict(couplings="bimodal", algorithm="metropolis") if model == "ising" else \
        dict(couplings="gaussian")
    with latmc.Ensemble(model, (4, 4, 4), samples=2, betas=[0.5, 0.8], replicas=2,
                        device="cpu", seed=2, coupling_seed=3, exchange_every=0, **kw) as e:
        e.sweep(4)
        got = e.overlaps("qkmin2")
        q2 = e.overlaps("q2")
        spins = e.spins.astype(np.float64)           # (samples, T, replicas) + spin_shape
        for s in range(2):
            for t in range(2):
                a, b = spins[s, t, 0], spins[s, t, 1]
                qx = a * b if model == "ising" else a[..., :, None] * b[..., None, :]
                want = kmin_power(qx, 3) / 64 ** 2
                assert got[s, t] == pytest.approx(want, rel=1e-12)
        assert q2.shape == got.shape == (2, 2)
        # the ensemble's own extent (a 4^3 lattice: L = 4), on per-sample means of a study
        syn2, synk = np.array([[0.4, 0.5], [0.3, 0.6]]), np.array([[0.1, 0.2], [0.1, 0.3]])
        assert e.corr_length_sg(syn2, synk)[0].tolist() == \
            latmc.corr_length_sg(syn2, synk, 4)[0].tolist()


def test_program_output_gives_the_programs_xi(tmp_path):
    """The program latmc's CSV read back (latmc.read_csv) gives the xi/L its JSON reports
    (the same C accumulators, 32 blocks); skipped where the program is not at hand."""
    prog = os.environ.get("LATMC_PROGRAM") or shutil.which("latmc")
    if not prog:
        pytest.skip("the program latmc is not at hand (LATMC_PROGRAM)")
    subprocess.run([prog, "-L", "8", "--beta", "0.4", "--therm", "20", "--sweeps", "400",
                    "--seed", "3", "--quiet", "--csv", str(tmp_path / "r.csv"), "--json",
                    str(tmp_path / "r.json")], check=True, capture_output=True)
    f = latmc.read_csv(tmp_path / "r.csv")
    assert "m2_kmin" in f.series.names
    xi, err = f.series.corr_length(8)
    want = json.loads((tmp_path / "r.json").read_text())["derived"]["xi_over_L"]
    assert xi / 8 == pytest.approx(want["value"], rel=1e-12)
    assert err / 8 == pytest.approx(want["error"], rel=1e-12)
