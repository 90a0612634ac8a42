"""sim.device_array() without a GPU: a CPU sim has no device view, and the refusal is a
latmc.Unsupported carrying the library's reason (runs everywhere; the GPU side is in
test_gpu.py)."""
from __future__ import annotations

import pytest

import latmc
from latmc import _lib


def test_cpu_sim_refuses_a_device_view_with_the_reason():
    if not hasattr(_lib.lib, "latmc_sim_device_view"):
        pytest.skip("the loaded liblatmc has no latmc_sim_device_view")
    with latmc.Sim("ising", (8, 8), device="cpu", beta=0.4, seed=1) as sim:
        with pytest.raises(latmc.Unsupported, match="host memory") as e:
            sim.device_array()
        assert e.value.code == _lib.EUNSUPPORTED
        assert "latmc_sim_get_spins" in str(e.value)
        assert "host memory" in latmc.gpu.view_unavailable(sim)


def test_device_view_struct_matches_the_header():
    # struct latmc_device_view on LP64: uint32, int, int, 4 bytes of padding, uint64 at 16,
    # int, int, int64[5] at 32, int64[5] at 72, int at 112, padded to 120
    assert _lib.DeviceView.data.offset == 16
    assert _lib.DeviceView.shape.offset == 32
    assert _lib.DeviceView.readonly.offset == 112
    assert _lib.ctypes.sizeof(_lib.DeviceView) == 120
