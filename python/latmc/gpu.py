"""GPU arrays of a sim's configuration: ``sim.device_array()`` (zero copy),
``sim.to_cupy()`` and ``sim.to_torch()``.

**Zero copy.** For a CUDA sim, ``sim.device_array()`` returns a :class:`DeviceArray` that
describes the sim's own device memory through ``__cuda_array_interface__`` (version 3), so
``cupy.asarray(sim.device_array())`` and ``torch.as_tensor(sim.device_array(
flag_readonly=False), device="cuda")`` (torch refuses the read-only flag) wrap it without
any copy. It comes from the C call
``latmc_sim_device_view`` (liblatmc 0.2), which first brings the device memory up to date
(the Ising sim unpacks its multi-spin coded words into bytes, on the GPU) and waits for it.
The array has the shape, dtype and index order of ``sim.spins`` (``[z, y, x]``, a trailing
component axis for Heisenberg, a leading replica axis with two replicas); its strides may
differ (the Heisenberg spins are one array per component and replica on the GPU).

Rules of the view:

- **Read only.** The memory is the sim's. The interface says ``readonly``, but cupy and
  torch make writable arrays of it anyway: never write to them (set ``sim.spins``).
- **Valid until the sim changes**: the next ``sweep``, ``init_spins``, assignment to
  ``spins``, ``couplings`` or a parameter, or ``close``. After that the array may show a
  stale or a later configuration, or (after close) freed memory. Reads of the sim
  (``spins``, observables, ``save``) keep it valid. Take a new view after each sweep, or
  ``.copy()`` what you keep.
- **Stream**: ``'stream': None``: the library has finished all its work on the memory
  when the view is made (it synchronises), so consumers need no synchronisation with it.
  The :class:`DeviceArray` keeps the sim alive (it holds a reference), not the view valid.

Where the library offers no view (a CPU sim; a library older than 0.2; a layout that is
no strided array), :func:`device_array` raises :class:`latmc.Unsupported` with the
library's reason, and :func:`to_cupy` falls back to the documented **copy**:
``latmc_sim_get_spins`` into host memory, then one host-to-device copy. ``to_torch``
always copies (a tensor that outlives the view is what most torch code expects).
"""
from __future__ import annotations

import ctypes
from typing import Any, Dict, Optional, Tuple

from . import _lib
from .errors import Unsupported
from .sim import Sim

_TYPESTR = {
    _lib.DTYPE_INT8: "|i1",
    _lib.DTYPE_UINT8: "|u1",
    _lib.DTYPE_FLOAT32: "<f4",
    _lib.DTYPE_FLOAT64: "<f8",
}


class DeviceArray:
    """A read-only view of a CUDA sim's configuration in device memory (see the module's
    rules: valid until the sim changes; never write through it).

    Attributes: ``ptr`` (device address), ``shape``, ``strides`` (bytes), ``typestr``,
    ``device_index``, and ``__cuda_array_interface__`` for cupy, torch, numba, ...
    """

    def __init__(self, sim: Sim, view: "_lib.DeviceView", flag_readonly: bool = True) -> None:
        self.flag_readonly = flag_readonly  # torch refuses an interface flagged read only
        self.sim = sim  # keeps the sim (and its memory) alive while the view is used
        self.ptr: int = int(view.data)
        self.device_index: int = int(view.index)
        self.shape: Tuple[int, ...] = tuple(int(view.shape[k]) for k in range(view.ndim))
        self.strides: Tuple[int, ...] = tuple(int(view.strides[k]) for k in range(view.ndim))
        typestr = _TYPESTR.get(int(view.dtype))
        if typestr is None:
            raise Unsupported("latmc_sim_device_view: element type %d is not one this "
                              "package knows" % view.dtype, _lib.EUNSUPPORTED)
        self.typestr: str = typestr

    @property
    def __cuda_array_interface__(self) -> Dict[str, Any]:
        return {
            "version": 3,
            "shape": self.shape,
            "strides": self.strides,
            "typestr": self.typestr,
            "data": (self.ptr, self.flag_readonly),  # read only, unless told not to say so
            "stream": None,  # the library synchronised before handing out the view
        }

    def __repr__(self) -> str:
        return "DeviceArray(ptr=0x%x, shape=%s, strides=%s, typestr=%r, device=%d)" % (
            self.ptr, self.shape, self.strides, self.typestr, self.device_index)


def device_array(sim: Sim, flag_readonly: bool = True) -> DeviceArray:
    """A zero-copy, read-only view of the configuration in the sim's GPU memory (a
    :class:`DeviceArray`). Raises :class:`latmc.Unsupported` with the reason where there is
    none (a CPU sim, a library without ``latmc_sim_device_view``, a layout no strided
    array expresses). ``flag_readonly=False`` leaves the read-only flag out of
    ``__cuda_array_interface__`` for consumers that refuse it (``torch.as_tensor``); the
    memory must still never be written."""
    lib = _lib.lib
    if not hasattr(lib, "latmc_sim_device_view"):
        raise Unsupported("the loaded liblatmc (%s) has no latmc_sim_device_view (added in "
                          "0.2)" % _lib.text(lib.latmc_version_string()), _lib.EUNSUPPORTED)
    v = _lib.DeviceView()
    v.struct_size = ctypes.sizeof(v)
    st = lib.latmc_sim_device_view(sim._live(), ctypes.byref(v))
    if st:
        sim._fail(st)
    return DeviceArray(sim, v, flag_readonly)


def _device_index(sim: Sim) -> int:
    d = sim.desc
    return d["device_index"] if sim.backend == "cuda" else 0


def view_unavailable(sim: Sim) -> Optional[str]:
    """None when :func:`device_array` works for this sim, else the reason it does not."""
    try:
        device_array(sim)
    except Unsupported as e:
        return str(e)
    return None


def to_cupy(sim: Sim, copy: bool = False) -> Any:
    """The configuration as a cupy array (shape and dtype of ``sim.spins``) on the sim's
    GPU (GPU 0 for a CPU sim). Needs cupy (ImportError otherwise).

    For a CUDA sim with a device view this is **zero copy**: the array aliases the sim's
    memory, valid until the sim changes, and must not be written to (see the module's
    rules); ``copy=True`` gives an independent array. Elsewhere it is a copy through host
    memory (``latmc_sim_get_spins``), the reason being in ``latmc.gpu.view_unavailable``.
    """
    import cupy  # optional dependency; ImportError says what is missing

    if sim.backend == "cuda":
        try:
            view = device_array(sim)
        except Unsupported:
            view = None
        if view is not None:
            with cupy.cuda.Device(view.device_index):
                arr = cupy.asarray(view)
                return arr.copy() if copy else arr
    host = sim.spins
    with cupy.cuda.Device(_device_index(sim)):
        return cupy.asarray(host)


def to_torch(sim: Sim, device: Any = None) -> Any:
    """The configuration as a new torch tensor (on ``device``, default the sim's GPU when
    the sim runs on CUDA, else the CPU): a copy. For zero copy on the GPU use
    ``torch.as_tensor(sim.device_array(flag_readonly=False), device="cuda")``. Needs torch."""
    import torch  # optional dependency

    if device is None:
        device = "cuda:%d" % _device_index(sim) if sim.backend == "cuda" else "cpu"
    t = torch.from_numpy(sim.spins)
    return t.to(device)
