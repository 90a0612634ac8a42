"""Exceptions: every failure of liblatmc becomes a :class:`Error` subclass.

Each exception carries the library's status code (``code``, a negative ``LATMC_E*`` value),
its name (``status``, e.g. ``"LATMC_EINVAL"``) and the library's message (``message``, from
``latmc_sim_last_error`` or ``latmc_last_error``). The subclasses also derive from the
built-in exception a Python user would expect (``ValueError`` for invalid arguments,
``OSError`` for files, ``MemoryError``), so ``except ValueError`` works too.
Checks the Python layer makes itself (an array of the wrong dtype or shape) raise the same
classes with the code the C library gives for that mistake (``LATMC_EINVAL``).
"""
from __future__ import annotations

from typing import Dict, Type

from . import _lib


class Error(Exception):
    """Base of every latmc exception.

    Attributes:
        code: the library's status code (negative ``LATMC_E*`` value).
        status: its name, e.g. ``"LATMC_EINVAL"``.
        message: what went wrong, as the library (or the Python layer) said it.
    """

    code: int = 0
    status: str = ""

    def __init__(self, message: str, code: int | None = None) -> None:
        if code is not None:
            self.code = code
        self.status = _STATUS_NAMES.get(self.code, "LATMC_E?")
        self.message = message
        reason = _lib.text(_lib.lib.latmc_strerror(self.code))
        super().__init__("%s (%s: %s)" % (message or reason, self.status, reason))


class InvalidArgument(Error, ValueError):
    """LATMC_EINVAL: a bad value, shape, dtype, name or buffer size."""
    code = _lib.EINVAL


class Unsupported(Error, ValueError):
    """LATMC_EUNSUPPORTED: a combination of model, algorithm or option that does not exist."""
    code = _lib.EUNSUPPORTED


class BackendError(Error, RuntimeError):
    """LATMC_EBACKEND: a backend (the CUDA module) is not usable; backend_status() says why."""
    code = _lib.EBACKEND


class NoDevice(Error, LookupError):
    """LATMC_ENODEV: no device with that index."""
    code = _lib.ENODEV


class DeviceError(Error, RuntimeError):
    """LATMC_EDEVICE: the device runtime reported a failure."""
    code = _lib.EDEVICE


class OutOfMemory(Error, MemoryError):
    """LATMC_ENOMEM: host or device memory exhausted."""
    code = _lib.ENOMEM


class FileError(Error, OSError):
    """LATMC_EIO: a file cannot be opened, read, written or renamed."""
    code = _lib.EIO


class CorruptFile(Error, ValueError):
    """LATMC_ECORRUPT: a checkpoint that fails its checks (truncated, damaged, mismatched)."""
    code = _lib.ECORRUPT


class StateError(Error, RuntimeError):
    """LATMC_ESTATE: a call not valid now (e.g. measuring before any configuration,
    statistics of too few rows, or using a closed sim)."""
    code = _lib.ESTATE


class Cancelled(Error):
    """LATMC_ECANCELLED (reserved by the library)."""
    code = _lib.ECANCELLED


class ClosedError(StateError):
    """Using a Sim or Accumulator after close(): refused before any C call."""


class LatmcWarning(UserWarning):
    """Base of the warnings latmc issues (``warnings.simplefilter("error", latmc.LatmcWarning)``
    turns them all into exceptions, as ``latmc --strict`` does for the program)."""


class DegenerateWarning(LatmcWarning):
    """A statistic that cannot be estimated from the series, as the C accumulator flags it
    (``latmc_acc_warnings``): an error of exactly 0 (a frozen or periodic chain, e.g. Ising
    Metropolis at beta = 0), an undefined tau_int (no variance), or an autocorrelation sum
    significantly below 1/2 (anticorrelated or periodic). The result is NaN where the
    program ``latmc`` prints ``n/a !`` (never a confident 0); tau_int at its floor 1/2
    where it prints ``0.50 !``."""


class ShortSeriesWarning(LatmcWarning):
    """The self-consistent window of tau_int did not close: the series is too short for its
    autocorrelation, and tau_int (with the error derived from it) is an underestimate."""


def warn(message: str, category: Type[Warning]) -> None:
    """warnings.warn, attributed to the first caller outside the package (the user's line,
    whichever latmc function the call went through)."""
    import os
    import sys
    import warnings
    here = os.path.dirname(os.path.abspath(__file__))
    level, f = 2, sys._getframe(1)  # stacklevel 1 would be this function
    while f is not None and os.path.dirname(os.path.abspath(f.f_code.co_filename)) == here:
        level += 1
        f = f.f_back
    warnings.warn(message, category, stacklevel=level)


_STATUS_NAMES: Dict[int, str] = {
    _lib.EINVAL: "LATMC_EINVAL", _lib.EUNSUPPORTED: "LATMC_EUNSUPPORTED",
    _lib.EBACKEND: "LATMC_EBACKEND", _lib.ENODEV: "LATMC_ENODEV",
    _lib.EDEVICE: "LATMC_EDEVICE", _lib.ENOMEM: "LATMC_ENOMEM", _lib.EIO: "LATMC_EIO",
    _lib.ECORRUPT: "LATMC_ECORRUPT", _lib.ESTATE: "LATMC_ESTATE",
    _lib.ECANCELLED: "LATMC_ECANCELLED",
}

_BY_CODE: Dict[int, Type[Error]] = {
    cls.code: cls for cls in (InvalidArgument, Unsupported, BackendError, NoDevice,
                              DeviceError, OutOfMemory, FileError, CorruptFile, StateError,
                              Cancelled)
}


def error_for(code: int, message: str) -> Error:
    """The exception for a status code (a plain Error for codes of later versions)."""
    cls = _BY_CODE.get(code, Error)
    return cls(message, code)


def check(status: int, message_fn) -> None:
    """Raise the exception for ``status`` unless it is LATMC_OK; ``message_fn()`` gives the
    library's message (called only on failure, before any other library call)."""
    if status != _lib.OK:
        raise error_for(status, message_fn())


def last_error() -> str:
    """The calling thread's latmc_last_error()."""
    return _lib.text(_lib.lib.latmc_last_error())


def check_global(status: int) -> None:
    """check() for calls without a sim: the message is the thread's latmc_last_error()."""
    if status != _lib.OK:
        raise error_for(status, last_error())
