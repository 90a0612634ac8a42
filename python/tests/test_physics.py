"""Physics: the 2D Ising model on a 4x4 periodic lattice against exact enumeration of its
2^16 configurations, done here in numpy (bonds counted per site and positive direction,
doc/conventions.md; on L = 4 every bond is distinct)."""
from __future__ import annotations

import numpy as np
import pytest

import latmc

L = 4
N = L * L


def exact_ising_4x4(beta: float, J: float = 1.0, h: float = 0.0):
    """<E>/N, <|m|>, <m^2> by summing exp(-beta H) over all 2^16 configurations."""
    states = np.arange(2 ** N, dtype=np.uint32)
    bits = (states[:, None] >> np.arange(N, dtype=np.uint32)) & 1
    s = (2 * bits.astype(np.int64) - 1).reshape(-1, L, L)      # [config, y, x]
    bonds = (s * np.roll(s, -1, axis=2)).sum(axis=(1, 2)) + (s * np.roll(s, -1, axis=1)).sum(axis=(1, 2))
    m = s.sum(axis=(1, 2))
    H = -J * bonds - h * m
    w = np.exp(-beta * (H - H.min()))
    Z = w.sum()
    e = (w * H).sum() / Z / N
    absm = (w * np.abs(m)).sum() / Z / N
    m2 = (w * (m / N) ** 2).sum() / Z
    return e, absm, m2


@pytest.mark.parametrize("beta, algorithm, seed", [(0.3, "metropolis", 1),
                                                    (0.44, "heatbath", 2),
                                                    (0.6, "metropolis", 3)])
def test_ising_4x4_against_exact_enumeration(beta, algorithm, seed):
    e_exact, absm_exact, m2_exact = exact_ising_4x4(beta)
    with latmc.Sim("ising", (L, L), beta=beta, algorithm=algorithm, seed=seed,
                   device="cpu") as sim:
        ser = sim.series(40000, therm=1000,
                         observables=["energy", "abs_magnetization", "m2"])
    for name, exact in (("energy", e_exact), ("abs_magnetization", absm_exact),
                        ("m2", m2_exact)):
        mean, err = ser.mean(name), ser.error(name)
        assert err > 0
        assert abs(mean - exact) < 4 * err, (name, mean, err, exact)


def test_enumeration_itself():
    # beta = 0: every configuration equally likely -> <E> = 0, <m^2> = 1/N
    e, _, m2 = exact_ising_4x4(0.0)
    assert e == pytest.approx(0.0, abs=1e-12) and m2 == pytest.approx(1 / N)
    # beta -> inf: the two ground states, E/N = -2
    e, absm, _ = exact_ising_4x4(20.0)
    assert e == pytest.approx(-2.0) and absm == pytest.approx(1.0)
