"""The context (logging, backend registry, devices) and the names of devices.

One process-wide :class:`Context` is created on first use and shared by every Sim that is
not given its own. The C library counts references: each sim holds the ctx alive, so the
order in which Python frees them never matters.
"""
from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass
from typing import Any, Callable, List, Optional

from . import _ints, _lib
from .errors import ClosedError, check_global

DEVICES = {"auto": _lib.DEVICE_AUTO, "cpu": _lib.DEVICE_CPU, "cuda": _lib.DEVICE_CUDA}
LOG_LEVELS = {"debug": _lib.LOG_DEBUG, "info": _lib.LOG_INFO, "warn": _lib.LOG_WARN,
              "error": _lib.LOG_ERROR, "none": _lib.LOG_NONE}


def device_code(device) -> int:
    """'auto' | 'cpu' | 'cuda' (or the enum value) -> enum latmc_device."""
    from .errors import InvalidArgument
    if isinstance(device, int) and device in DEVICES.values():
        return device
    try:
        return DEVICES[str(device).lower()]
    except KeyError:
        raise InvalidArgument("unknown device %r (one of %s)" % (device, ", ".join(DEVICES))) from None


@dataclass(frozen=True)
class DeviceInfo:
    """One device as its backend reports it (struct latmc_device_info)."""
    device: str            #: "cpu" or "cuda"
    index: int             #: index within its kind
    name: str              #: e.g. "NVIDIA H200" or the CPU's model name
    memory_bytes: int      #: device memory (CUDA); 0 for the CPU
    compute_capability: tuple  #: (major, minor) for CUDA; (0, 0) for the CPU
    multiprocessors: int   #: CUDA SMs; CPU: logical processors


class Context:
    """A liblatmc context: its log callback and its view of backends and devices.

    Most code never makes one: :func:`default_context` is used when none is given.
    ``with Context() as ctx:`` releases the caller's reference at the end; sims made on it
    keep the C context alive as long as they live.
    """

    def __init__(self) -> None:
        h = ctypes.c_void_p()
        check_global(_lib.lib.latmc_ctx_create(ctypes.byref(h)))
        self._h: Optional[ctypes.c_void_p] = h
        self._log_fn: Any = None  # keeps the ctypes callback alive while installed

    @property
    def handle(self) -> ctypes.c_void_p:
        """The C handle (latmc_ctx *); ClosedError after close()."""
        if self._h is None:
            raise ClosedError("the context is closed")
        return self._h

    def close(self) -> None:
        """Release this reference (sims made on it keep the C context alive). Idempotent."""
        h, self._h = self._h, None
        if h is not None and _lib is not None and _lib.lib is not None:
            if self._log_fn is not None:
                # sims may keep the C ctx alive after this: they must not call a freed
                # Python callback
                _lib.lib.latmc_ctx_set_log(h, _lib.LOG_FN(), None, _lib.LOG_NONE)
                self._log_fn = None
            _lib.lib.latmc_ctx_destroy(ctypes.byref(h))

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: nothing left to release into
            pass

    def set_log(self, fn: Optional[Callable[[str, str], None]], level: str = "info") -> None:
        """Call ``fn(level_name, message)`` for each library message at ``level`` or above
        ("debug", "info", "warn", "error"); ``fn=None`` silences the context again.
        The callback may run on any thread that calls the library; exceptions it raises
        are printed by ctypes and otherwise ignored."""
        names = {v: k for k, v in LOG_LEVELS.items()}
        if fn is None:
            _lib.lib.latmc_ctx_set_log(self.handle, _lib.LOG_FN(), None, _lib.LOG_NONE)
            self._log_fn = None
            return

        def trampoline(_user, lvl, msg):
            fn(names.get(lvl, str(lvl)), _lib.text(msg))

        cb = _lib.LOG_FN(trampoline)
        _lib.lib.latmc_ctx_set_log(self.handle, cb, None, LOG_LEVELS[level])
        self._log_fn = cb  # installed before the old one is dropped

    def device_count(self, device: str) -> int:
        """Number of devices of a kind ("cpu": 1; "cuda": the GPUs the module sees).
        Raises BackendError when the CUDA module is not usable (backend_status says why)."""
        n = ctypes.c_int()
        check_global(_lib.lib.latmc_ctx_device_count(self.handle, device_code(device),
                                                     ctypes.byref(n)))
        return n.value

    def device_info(self, device: str, index: int = 0) -> DeviceInfo:
        """Describe device ``index`` of a kind."""
        info = _lib.DeviceInfo()
        info.struct_size = ctypes.sizeof(info)
        check_global(_lib.lib.latmc_ctx_device_info(self.handle, device_code(device),
                                                    _ints.c_int(index, "index"),
                                                    ctypes.byref(info)))
        kind = {_lib.DEVICE_CPU: "cpu", _lib.DEVICE_CUDA: "cuda"}.get(info.device, "?")
        return DeviceInfo(kind, info.index, _lib.text(info.name), info.memory_bytes,
                          (info.compute_major, info.compute_minor), info.multiprocessors)

    def backend_status(self, device: str) -> str:
        """Where the backend for ``device`` comes from and, when unusable, why."""
        return _lib.text(_lib.lib.latmc_ctx_backend_status(self.handle, device_code(device)))

    def devices(self) -> List[DeviceInfo]:
        """Every usable device: the CPU, then each GPU (none when CUDA is unusable)."""
        out: List[DeviceInfo] = []
        for kind in ("cpu", "cuda"):
            try:
                n = self.device_count(kind)
            except Exception:
                continue
            out.extend(self.device_info(kind, i) for i in range(n))
        return out


_default: Optional[Context] = None
_default_lock = threading.Lock()


def default_context() -> Context:
    """The process-wide Context, created on first use."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Context()
        return _default


def devices() -> List[DeviceInfo]:
    """Every usable device of the default context (the CPU first)."""
    return default_context().devices()


def device_count(device: str) -> int:
    """Number of devices of a kind in the default context (see Context.device_count)."""
    return default_context().device_count(device)


def backend_status(device: str = "cuda") -> str:
    """The backend's status line: "built in", "loaded /path/latmc-cuda.so", or why not."""
    return default_context().backend_status(device)


def set_log(fn: Optional[Callable[[str, str], None]], level: str = "info") -> None:
    """Install a log callback on the default context (see Context.set_log)."""
    default_context().set_log(fn, level)
