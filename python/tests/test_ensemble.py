"""latmc.Ensemble over the C ensemble API: shapes and addressing, each member the sim of its
desc, overlaps against the members' spins, the Binder ratio against its formula,
checkpoints, errors, and python/examples/spinglass_pt.py against the C example
examples/spinglass_pt (compiled here against the package's library): the same numbers for
the same seed."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import latmc

REPO = Path(__file__).resolve().parents[2]
T = np.geomspace(2.0, 0.9, 4)


def _ens(**kw):
    args = dict(samples=3, betas=1 / T, replicas=2, couplings="bimodal",
                algorithm="metropolis", device="cpu", seed=5, coupling_seed=9, threads=2)
    args.update(kw)
    return latmc.Ensemble("ising", (4, 4, 4), **args)


def test_layout_and_shapes():
    with _ens(exchange_every=1) as e:
        assert (e.samples, e.temperatures, e.replicas, e.members) == (3, 4, 2, 24)
        assert e.layout["seed"] == 5 and e.shape == (4, 4, 4) and e.volume == 64
        np.testing.assert_array_equal(e.betas, 1 / T)
        assert e.ladder[0] == "beta"
        e.sweep(20)
        assert e.sweep_count == 20
        assert e.observable("energy").shape == (3, 4, 2)
        assert e.overlaps("q2").shape == (3, 4)
        assert e.spins.shape == (3, 4, 2, 4, 4, 4) and e.spins.dtype == np.int8
        m = e.measure(5, every=2, overlaps=["q2", "ql"], observables=["energy"])
        assert m["q2"].shape == (5, 3, 4) and m["energy"].shape == (5, 3, 4, 2)
        assert e.sweep_count == 30
        acc, att = e.exchange_counts
        assert acc.shape == (3,) and (att > 0).all() and (acc <= att).all()
        # the temperature map is a permutation per (sample, replica), read both ways
        tm = e.temperature_map
        for s in range(3):
            for r in range(2):
                assert sorted(e.temperature_of(int(m_)) for m_ in tm[s, :, r]) == [0, 1, 2, 3]
        assert e.member_index(1, 2, 1) == (1 * 4 + 2) * 2 + 1


def test_members_are_the_sims_of_their_descs():
    # with exchanges off, member m is bit for bit the Sim of latmc_ens_member_desc(m)
    with _ens(exchange_every=0) as e:
        e.sweep(15)
        for m in (0, 7, 23):
            d = e.member_desc(m)
            slot = (m // 2) % 4
            with latmc.Sim("ising", d["shape"], beta=float(1 / T[slot]),
                           algorithm="metropolis", couplings="bimodal", seed=d["seed"],
                           coupling_seed=d["coupling_seed"], threads=1, device="cpu") as sim:
                sim.sweep(15)
                np.testing.assert_array_equal(sim.spins, e.get_spins(m))
                assert sim.energy == e.observable("energy", by="member").ravel()[m]


def test_overlaps_from_the_spins():
    with _ens(exchange_every=1) as e:
        e.sweep(12)
        q = e.overlaps("q")
        q2 = e.overlaps("q2")
        for s in range(3):
            for t in range(4):
                a = e.get_spins(e.member_at(s, t, 0)).astype(float)
                b = e.get_spins(e.member_at(s, t, 1)).astype(float)
                assert q[s, t] == pytest.approx((a * b).mean(), abs=1e-15)
                assert q2[s, t] == pytest.approx((a * b).mean() ** 2, abs=1e-15)


def test_binder_g_is_the_formula_with_a_jackknife_over_samples():
    rng = np.random.default_rng(4)
    q2 = rng.uniform(0.1, 0.5, size=(10, 3))
    q4 = q2 ** 2 * rng.uniform(1.0, 2.5, size=(10, 3))
    g, err = latmc.binder_g(q2, q4)
    r = q4.mean(0) / q2.mean(0) ** 2
    np.testing.assert_allclose(g, (3 - r) / 2, rtol=1e-12)
    n = 10
    loo = np.array([(3 - np.delete(q4, i, 0).mean(0) / np.delete(q2, i, 0).mean(0) ** 2) / 2
                    for i in range(n)])
    jk = np.sqrt((n - 1) / n * ((loo - loo.mean(0)) ** 2).sum(0))
    np.testing.assert_allclose(err, jk, rtol=1e-9)
    g1, e1 = latmc.binder_g(q2[:, 0], q4[:, 0], components=1)
    assert g1 == g[0] and e1 == err[0]
    g3, _ = latmc.binder_g(q2, q4, components=3)
    np.testing.assert_allclose(g3, (11 - 9 * r) / 2, rtol=1e-12)
    with pytest.raises(latmc.InvalidArgument):
        latmc.binder_g(q2[:1], q4[:1])          # one sample: no jackknife


def test_checkpoint_continues_bit_identically(tmp_path):
    with _ens(exchange_every=1) as e:
        e.sweep(10)
        e.save(tmp_path / "run.ens")
        e.sweep(10)
        want = (e.observable("energy"), e.overlaps("q2"), e.exchange_counts, e.spins)
    with latmc.load_ensemble(tmp_path / "run.ens") as f:
        assert f.sweep_count == 10 and f.exchange_every == 1  # the file's interval
        f.sweep(10)
        got = (f.observable("energy"), f.overlaps("q2"), f.exchange_counts, f.spins)
    for a, b in zip(want, got):
        if isinstance(a, tuple):
            for x, y in zip(a, b):
                np.testing.assert_array_equal(x, y)
        else:
            np.testing.assert_array_equal(a, b)


def test_errors():
    with pytest.raises(latmc.InvalidArgument, match="needs beta"):
        latmc.Ensemble("ising", (4, 4), samples=2)
    with pytest.raises(latmc.InvalidArgument):
        latmc.Ensemble("ising", (4, 4), betas=[0.2, 0.5, 0.3])     # not ordered
    with pytest.raises(latmc.InvalidArgument):
        latmc.Ensemble("ising", (4, 4), samples=2**32 + 1, betas=[0.4])
    with pytest.raises(latmc.InvalidArgument):
        latmc.Ensemble("ising", (4, 4), betas=[0.4], seed=2**64)
    e = _ens()
    with pytest.raises(latmc.InvalidArgument, match="overlap"):
        e.overlaps("q3")
    with pytest.raises(latmc.InvalidArgument):
        e.get_spins(24)                         # one past the last member
    with pytest.raises(latmc.InvalidArgument):
        e.set_param("beta", 0.3)                # beta is the ladder's
    with pytest.raises(latmc.InvalidArgument):
        e.set_spins(0, np.zeros((4, 4, 4), np.int8))    # not +-1
    e.close()
    e.close()
    with pytest.raises(latmc.ClosedError):
        e.sweep(1)


def test_phi4_mu2_ladder():
    with latmc.Ensemble("phi4", (8, 8), samples=1, mu2s=[-1.5, -1.0, -0.5], g=6.0,
                        exchange_every=1, seed=3) as e:
        name, values = e.ladder
        assert name == "mu2" and list(values) == [-1.5, -1.0, -0.5]
        e.sweep(5)
        assert e.observable("phi2").shape == (1, 3, 1)
    with pytest.raises(latmc.InvalidArgument, match="missing: g"):
        latmc.Ensemble("phi4", (8, 8), mu2s=[-1.0, -0.5])


@pytest.fixture(scope="module")
def spinglass_c(c_compiler, libdir, tmp_path_factory):
    out = tmp_path_factory.mktemp("sg")
    exe = out / "spinglass_pt"
    common = REPO / "examples" / "common"
    # latmc/latmc.h includes the generated version.h: written here from its template
    major, minor, patch = latmc.library_version().split(".")
    text = (REPO / "include" / "latmc" / "version.h.in").read_text()
    for k, v in {"LATMC_VERSION": latmc.library_version(), "LATMC_VERSION_MAJOR": major,
                 "LATMC_VERSION_MINOR": minor, "LATMC_VERSION_PATCH": patch,
                 "LATMC_ABI_MAJOR": "1"}.items():
        text = text.replace("@%s@" % k, v)
    (out / "latmc").mkdir()
    (out / "latmc" / "version.h").write_text(text)
    srcs = [REPO / "examples" / "spinglass_pt" / "main.c"] + sorted(common.glob("*.c"))
    subprocess.run([c_compiler, "-std=c11", "-O2", "-ffp-contract=off",
                    "-D_POSIX_C_SOURCE=200809L", "-I", str(out), "-I", str(REPO / "include"), "-I",
                    str(common)] + [str(s) for s in srcs] +
                   ["-o", str(exe), "-L", str(libdir), "-llatmc", "-Wl,-rpath," + str(libdir),
                    "-pthread", "-lm"], check=True)
    return exe


def _table(text: str):
    """The study's numbers: the table rows (T, g, its error, e/N, swap acceptance, xi_SG/L,
    its error), the round trips and the crossings of g and of xi_SG/L (no times)."""
    keep = []
    for line in text.splitlines():
        if line.startswith("L = "):
            keep.append(line.split(";", 1)[1])     # "795 round trips, mean 67 sweeps)"
        elif line.startswith("  ") and "swap acc." not in line:
            keep.append(" ".join(line.split()))
        elif line.startswith("crossing"):
            keep.append(line)
    return keep


def test_spinglass_example_matches_the_c_example(spinglass_c, tmp_path):
    c = subprocess.run([str(spinglass_c), "--quick", "--threads", "2", "--out",
                        str(tmp_path / "c")], capture_output=True, text=True, check=True)
    py = subprocess.run([sys.executable, str(REPO / "python" / "examples" / "spinglass_pt.py"),
                         "--quick", "--threads", "1"], capture_output=True, text=True,
                        check=True)
    want, got = _table(c.stdout), _table(py.stdout)
    # 2 sizes x 6 temperatures, 1 crossing of g and 1 line for xi_SG/L's
    assert len(want) == 2 + 2 * 6 + 2, c.stdout
    assert sum("nan" not in row for row in want[1:7]) >= 3, c.stdout  # xi_SG/L measured
    assert got == want
