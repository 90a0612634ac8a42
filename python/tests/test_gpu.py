"""The CUDA backend from Python (the lead runs this on a GPU machine; skipped without one):
a CUDA Ising chain is bit-identical to the CPU chain; sim.device_array() is a zero-copy view
of the sim's device memory equal to sim.spins bit for bit for every model; to_cupy() uses
it, and copies where there is no view."""
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
        arr = sim.to_cupy(copy=True)
        assert isinstance(arr, cupy.ndarray) and arr.dtype == np.int8
        np.testing.assert_array_equal(cupy.asnumpy(arr), sim.spins)
        before = cupy.asnumpy(arr)
        sim.sweep(1)  # a copy: the sim moves on, the array does not
        np.testing.assert_array_equal(cupy.asnumpy(arr), before)
        assert not np.array_equal(before, sim.spins)


# Each model and layout with a device view: Ising on a lattice the multi-spin coded
# kernels take (the view unpacks on the device) and on one they do not; Potts; phi^4 in
# both precisions; Heisenberg in 2D and in 3D with two replicas (one array per component
# and replica on the GPU: strides that are not C order).
_VIEW_CASES = [
    ("ising", (64, 64), dict(beta=0.44)),
    ("ising", (8, 8, 8), dict(beta=0.22)),
    ("potts", (24, 24), dict(q=3, beta=1.0)),
    ("phi4", (16, 16), dict(mu2=-1.0, g=6.0, precision="float")),
    ("phi4", (8, 16, 16), dict(mu2=-1.0, g=6.0)),
    ("heisenberg", (8, 8), dict(beta=1.0)),
    ("heisenberg", (4, 8, 8), dict(beta=1.0, replicas=2, couplings="gaussian")),
]


@pytest.mark.parametrize("model, shape, kw", _VIEW_CASES)
def test_device_array_is_the_configuration(model, shape, kw):
    cupy = pytest.importorskip("cupy")
    with latmc.Sim(model, shape, device="cuda", seed=3, **kw) as sim:
        for sweeps in (0, 7, 1):
            sim.sweep(sweeps)
            view = sim.device_array()
            cai = view.__cuda_array_interface__
            assert cai["version"] == 3 and cai["data"][1] is True
            assert cai["shape"] == sim.spin_shape
            assert np.dtype(cai["typestr"]) == sim.spin_dtype
            arr = cupy.asarray(view)  # zero copy
            assert arr.data.ptr == view.ptr
            host = sim.spins
            got = cupy.asnumpy(arr)
            assert got.dtype == host.dtype and got.shape == host.shape
            # bit for bit, NaN-safe: compare the bytes
            assert np.ascontiguousarray(got).tobytes() == host.tobytes()


def test_to_cupy_is_zero_copy_and_follows_the_view_rule():
    cupy = pytest.importorskip("cupy")
    with latmc.Sim("potts", (32, 32), q=4, beta=1.0, device="cuda", seed=4) as sim:
        arr = sim.to_cupy()
        assert arr.data.ptr == sim.device_array().ptr  # the sim's memory, not a copy
        np.testing.assert_array_equal(cupy.asnumpy(arr), sim.spins)
        sim.sweep(3)  # Potts sweeps in place: the alias shows the new configuration
        np.testing.assert_array_equal(cupy.asnumpy(arr), sim.spins)


def test_torch_wraps_the_view():
    torch = pytest.importorskip("torch")
    with latmc.Sim("phi4", (16, 16), device="cuda", mu2=-1.0, g=6.0, seed=2) as sim:
        sim.sweep(5)
        with pytest.raises(TypeError):  # torch refuses the read-only flag ...
            torch.as_tensor(sim.device_array(), device="cuda")
        t = torch.as_tensor(sim.device_array(flag_readonly=False), device="cuda")  # ... so
        assert t.data_ptr() == sim.device_array().ptr
        np.testing.assert_array_equal(t.cpu().numpy(), sim.spins)


def test_cpu_sim_has_no_view_and_to_cupy_copies():
    with latmc.Sim("ising", (16, 16), device="cpu", beta=0.4, seed=1) as sim:
        with pytest.raises(latmc.Unsupported, match="host memory"):
            sim.device_array()
        assert "host memory" in latmc.gpu.view_unavailable(sim)
        cupy = pytest.importorskip("cupy")
        arr = sim.to_cupy()
        np.testing.assert_array_equal(cupy.asnumpy(arr), sim.spins)


def test_to_torch_copy():
    torch = pytest.importorskip("torch")
    with latmc.Sim("phi4", (16, 16), device="cuda", mu2=-1.0, g=6.0, seed=2) as sim:
        sim.sweep(5)
        t = sim.to_torch()
        assert t.is_cuda
        np.testing.assert_array_equal(t.cpu().numpy(), sim.spins)
