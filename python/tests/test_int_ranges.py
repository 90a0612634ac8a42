"""Every integer argument is range-checked before it reaches a C integer (ctypes truncates:
2**64 + 8 would arrive as 8)."""
from __future__ import annotations

import numpy as np
import pytest

import latmc

BIG = 2**64 + 8


@pytest.mark.parametrize("shape", [BIG, (BIG, 8), (8, 2**63), (8, -2**63 - 1),
                                   (8.0, 8), (8, True), "8"])
def test_extents_never_wrap(shape):
    with pytest.raises(latmc.InvalidArgument):
        latmc.Sim("ising", shape, beta=0.4, device="cpu")


@pytest.mark.parametrize("kw", [dict(q=2**32 + 3), dict(replicas=2**32 + 1),
                                dict(threads=2**32 + 1), dict(device_index=2**32),
                                dict(seed=2**64), dict(seed=-1), dict(coupling_seed=2**64),
                                dict(algorithm=2**32 + 1), dict(model=2**32 + 1),
                                dict(q=3.5)])
def test_sim_arguments(kw):
    args = dict(model="ising", shape=(8, 8), beta=0.4, device="cpu")
    args.update(kw)
    with pytest.raises(latmc.InvalidArgument):
        latmc.Sim(**args)


def test_sim_methods():
    with latmc.Sim("ising", (8, 8), beta=0.4, device="cpu") as sim:
        for n in (2**64, -1, 1.5, True):
            with pytest.raises(latmc.InvalidArgument):
                sim.sweep(n)
        sim.sweep(np.int64(3))
        assert sim.sweep_count == 3
        with pytest.raises(latmc.InvalidArgument):
            sim.observable(2**32 + 1)   # energy's key + 2^32
        with pytest.raises(latmc.InvalidArgument):
            sim.series(4, every=2**64)
        with pytest.raises(latmc.InvalidArgument):
            sim.series(4, therm=-1)
    with latmc.Sim("phi4", (8, 8), mu2=-1.0, g=6.0, device="cpu") as sim:
        with pytest.raises(latmc.InvalidArgument):
            sim.tune_epsilon(0.5, 2**64)


def test_accumulator_arguments():
    with latmc.Accumulator(2) as acc:
        acc.extend(np.random.default_rng(0).normal(size=(64, 2)))
        for bad in (2**32, -2**32 - 1):
            with pytest.raises(latmc.InvalidArgument):
                acc.mean(bad)
            with pytest.raises(latmc.InvalidArgument):
                acc.binning_error(0, bad)
            with pytest.raises(latmc.InvalidArgument):
                acc.binder(0, 1, nblocks=bad)
    with pytest.raises(latmc.InvalidArgument):
        latmc.Accumulator(2**32 + 2)
    with pytest.raises(latmc.InvalidArgument):
        latmc.default_context().device_info("cpu", 2**32)
