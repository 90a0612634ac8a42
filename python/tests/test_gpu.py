"""The CUDA backend from Python (the lead runs this on a GPU machine; skipped without one):
a CUDA Ising chain is bit-identical to the CPU chain, and to_cupy() copies the
configuration to the GPU in the documented layout."""
from __future__ import annotations

import numpy as np
import pytest

import latmc


def _cuda_count() -> int:
    try:
        return latmc.device_count("cuda")
    except latmc.Error:
        return 0


pytestmark = pytest.mark.skipif(_cuda_count() == 0,
                                reason="no usable CUDA device: %s" % latmc.backend_status("cuda"))


def test_module_found_next_to_the_packaged_library():
    status = latmc.backend_status("cuda")
    assert "latmc-cuda" in status
    info = latmc.devices()
    assert any(d.device == "cuda" and d.memory_bytes > 0 for d in info)


@pytest.mark.parametrize("model, kw", [("ising", dict(beta=0.44)),
                                       ("potts", dict(q=3, beta=1.0))])
def test_cuda_chain_is_the_cpu_chain(model, kw):
    with latmc.Sim(model, (64, 64), device="cuda", seed=5, **kw) as g, \
            latmc.Sim(model, (64, 64), device="cpu", seed=5, **kw) as c:
        assert g.backend == "cuda"
        g.sweep(50)
        c.sweep(50)
        np.testing.assert_array_equal(g.spins, c.spins)
        assert g.energy == c.energy
        ser = g.series(100, observables=["energy", "m2"])
        assert np.isfinite(ser.data).all()


def test_to_cupy_copy():
    cupy = pytest.importorskip("cupy")
    with latmc.Sim("ising", (32, 32), device="cuda", beta=0.4, seed=2) as sim:
        sim.sweep(10)
        arr = sim.to_cupy()
        assert isinstance(arr, cupy.ndarray) and arr.dtype == np.int8
        np.testing.assert_array_equal(cupy.asnumpy(arr), sim.spins)
        sim.sweep(1)  # a copy: the sim moves on, the array does not
        assert arr.shape == (32, 32)


def test_to_torch_copy():
    torch = pytest.importorskip("torch")
    with latmc.Sim("phi4", (16, 16), device="cuda", mu2=-1.0, g=6.0, seed=2) as sim:
        sim.sweep(5)
        t = sim.to_torch()
        assert t.is_cuda
        np.testing.assert_array_equal(t.cpu().numpy(), sim.spins)
