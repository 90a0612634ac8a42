"""GPU arrays of a sim's configuration: ``sim.to_cupy()`` (and ``to_torch``).

The public C API v1 has no call that hands out a sim's device memory (and the CUDA
backend's internal layout may be packed, e.g. several Ising spins per word), so these
functions make a documented **copy**: ``latmc_sim_get_spins`` into host memory in the
documented site order, then one host-to-device copy into a new cupy (or torch) array on the
sim's GPU. The result never aliases the sim: later sweeps do not change it, and writing to
it does not change the sim (set ``sim.spins`` for that). doc/python.md describes the C call
that a zero-copy view (``__cuda_array_interface__`` / DLPack) would need.
"""
from __future__ import annotations

from typing import Any

from .sim import Sim


def _device_index(sim: Sim) -> int:
    d = sim.desc
    return d["device_index"] if sim.backend == "cuda" else 0


def to_cupy(sim: Sim) -> Any:
    """The configuration as a new cupy array (shape and dtype of ``sim.spins``) on the
    sim's GPU (GPU 0 for a CPU sim). Needs cupy (ImportError otherwise)."""
    import cupy  # optional dependency; ImportError says what is missing

    host = sim.spins
    with cupy.cuda.Device(_device_index(sim)):
        return cupy.asarray(host)


def to_torch(sim: Sim, device: Any = None) -> Any:
    """The configuration as a new torch tensor (on ``device``, default the sim's GPU when
    the sim runs on CUDA, else the CPU). Needs torch."""
    import torch  # optional dependency

    if device is None:
        device = "cuda:%d" % _device_index(sim) if sim.backend == "cuda" else "cpu"
    t = torch.from_numpy(sim.spins)
    return t.to(device)
