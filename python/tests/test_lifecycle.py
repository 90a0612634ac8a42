"""Context managers and garbage collection: no double free, no use after close."""
from __future__ import annotations

import gc
import pickle
import weakref

import numpy as np
import pytest

import latmc


def test_close_is_idempotent_and_use_after_close_raises():
    sim = latmc.Sim("ising", (4, 4), beta=0.4, device="cpu")
    sim.close()
    sim.close()
    assert sim.closed and repr(sim) == "<latmc.Sim closed>"
    for use in (lambda: sim.sweep(1), lambda: sim.energy, lambda: sim.spins,
                lambda: sim.params["beta"], lambda: setattr(sim, "spins", np.ones((4, 4), np.int8)),
                lambda: sim.save("never-written.ckpt"), lambda: sim.series(3),
                lambda: sim.sweep_count, lambda: sim.serialize(), lambda: sim.init_spins()):
        with pytest.raises(latmc.ClosedError):
            use()
    with pytest.raises(latmc.ClosedError):
        with sim:
            pass


def test_context_manager_closes_even_on_error():
    with pytest.raises(RuntimeError):
        with latmc.Sim("ising", (4, 4), beta=0.4, device="cpu") as sim:
            sim.sweep(2)
            raise RuntimeError("boom")
    assert sim.closed


def test_garbage_collection_frees_once():
    refs = []
    for i in range(200):
        s = latmc.Sim("potts", (6, 6), beta=0.4, q=3, seed=i, device="cpu")
        s.sweep(1)
        refs.append(weakref.ref(s))
        if i % 2:
            s.close()   # half closed by hand, then collected: must not be freed again
        del s
    gc.collect()
    assert all(r() is None for r in refs)


def test_sim_outlives_its_context():
    ctx = latmc.Context()
    lines = []
    ctx.set_log(lambda lvl, msg: lines.append(msg), "debug")
    sim = latmc.Sim("ising", (4, 4), beta=0.4, context=ctx, device="cpu")
    ctx.close()           # the C sim keeps the C context; the log callback is removed first
    ctx.close()
    with pytest.raises(latmc.ClosedError):
        latmc.Sim("ising", (4, 4), beta=0.4, context=ctx)
    with pytest.raises(latmc.InvalidArgument):
        sim.params["beta"] = -1.0   # logs nothing now: no call into a dead callback
    sim.sweep(3)
    del ctx
    gc.collect()
    assert sim.sweep_count == 3
    sim.close()


def test_partial_construction_is_freed():
    # failing after the C sim exists (a bad parameter) must free it and raise
    with pytest.raises(latmc.InvalidArgument):
        latmc.Sim("ising", (4, 4), beta=-2.0, device="cpu")
    gc.collect()


def test_copy_and_pickle_continue_identically():
    with latmc.Sim("ising", (8, 8), beta=0.44, seed=3, device="cpu") as a:
        a.sweep(10)
        b = a.copy()
        c = pickle.loads(pickle.dumps(a))
        for s in (a, b, c):
            s.sweep(7)
        np.testing.assert_array_equal(a.spins, b.spins)
        np.testing.assert_array_equal(a.spins, c.spins)
        b.close()
        c.close()


def test_accumulator_life_cycle():
    acc = latmc.Accumulator(["x"])
    acc.push([1.0])
    acc.close()
    acc.close()
    with pytest.raises(latmc.ClosedError):
        acc.push([2.0])
    with pytest.raises(latmc.ClosedError):
        len(acc)
    for _ in range(100):
        a = latmc.Accumulator(3)
        a.push([1, 2, 3])
        del a
    gc.collect()
