"""latmc: Markov-chain Monte Carlo on lattices from Python (a binding of liblatmc).

    >>> import latmc
    >>> sim = latmc.Sim("ising", shape=(32, 32), beta=0.4407, seed=1)
    >>> sim.sweep(100)
    >>> e = sim.energy

Ising, q-state Potts, phi^4 and the Heisenberg spin glass in 2D and 3D, on the CPU or a
CUDA GPU, each chain reproducible bit for bit from its seed. doc/python.md is the guide.
"""
from __future__ import annotations

from . import _lib
from .acc import (Accumulator, binder, corr_length, error, jackknife, mean,
                  specific_heat, susceptibility, tau_int)
from .devices import (Context, DeviceInfo, backend_status, default_context, device_count,
                      devices, set_log)
from .errors import (BackendError, Cancelled, ClosedError, CorruptFile, DegenerateWarning,
                     DeviceError, Error, FileError, InvalidArgument, LatmcWarning, NoDevice,
                     OutOfMemory, ShortSeriesWarning, StateError, Unsupported)
from .params import ALGORITHMS, MODELS, OBSERVABLES, PARAMETERS, param_bounds
from .timeseries import Series, series
from .sim import Sim, deserialize, load
from .files import RunFile, read_csv, read_hdf5
from .ens import Ensemble, binder_g, corr_length_sg, load_ensemble
from . import gpu  # noqa: F401  (latmc.gpu.to_cupy, to_torch)

try:
    # python/meson.build writes _version.py from meson.build's project version at build
    # time (the one source of the version: NEWS.md)
    from ._version import __version__
except ImportError:  # the sources used in place (PYTHONPATH=python): the library's
    __version__ = _lib.text(_lib.lib.latmc_version_string())


def library_version() -> str:
    """Version of the loaded liblatmc ("MAJOR.MINOR.PATCH")."""
    return _lib.text(_lib.lib.latmc_version_string())


def build_info() -> dict:
    """What the installed package was built with: ``version``, ``openmp``, ``simd`` (the
    SIMD levels compiled in), ``cuda_module`` (whether the wheel holds latmc-cuda.so; it
    is an explicit build option, doc/python.md), ``cuda_arch``, ``mpi`` (whether it holds
    liblatmc_mpi). Empty for the sources used in place (no build)."""
    try:
        from ._version import BUILD
    except ImportError:
        return {}
    return dict(BUILD)


def library_path() -> str:
    """Path of the loaded liblatmc."""
    return str(_lib.path)


__all__ = [
    "Sim", "load", "deserialize", "Series", "series", "Accumulator", "binder", "error",
    "jackknife", "mean", "specific_heat", "susceptibility", "tau_int", "Context", "DeviceInfo",
    "backend_status", "default_context", "device_count", "devices", "set_log", "Error",
    "InvalidArgument", "Unsupported", "BackendError", "NoDevice", "DeviceError",
    "OutOfMemory", "FileError", "CorruptFile", "StateError", "Cancelled", "ClosedError",
    "LatmcWarning", "DegenerateWarning", "ShortSeriesWarning",
    "MODELS", "ALGORITHMS", "OBSERVABLES", "PARAMETERS", "param_bounds",
    "library_version", "library_path", "build_info", "__version__",
    "RunFile", "read_csv", "read_hdf5", "Ensemble", "binder_g", "load_ensemble",
    "corr_length", "corr_length_sg",
]
