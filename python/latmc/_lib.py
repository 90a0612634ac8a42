"""Loading liblatmc and declaring its C functions for ctypes (the binding's only C contact).

The package binds the public C ABI (``include/latmc/*.h``) with :mod:`ctypes`: no compiled
extension, so one wheel works with any CPython 3 and the library's stable ABI is the only
contract (doc/python.md says why). This module finds the shared library, declares the
argument and result types of every function used, and holds the numeric constants of the
headers (they are part of the ABI: never renumbered).

Where the library is looked for, first match wins:

1. the environment variable ``LATMC_LIBRARY`` (a path to ``liblatmc.so.1``), for
   developers running the package from a build tree;
2. ``latmc/_native/liblatmc.so.1*`` inside the installed package (``pip install .`` puts
   it there, the CUDA module beside it in ``latmc-1/``);
3. the system's ``liblatmc.so.1`` (a ``meson install``), through the dynamic loader.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
from ctypes import (CFUNCTYPE, POINTER, c_char, c_char_p, c_double, c_int, c_int64,
                    c_size_t, c_uint32, c_uint64, c_void_p)
from typing import Optional

ABI_MAJOR = 1
_SONAME = "liblatmc.so.%d" % ABI_MAJOR

# enum latmc_status (include/latmc/defs.h)
OK = 0
EINVAL = -1
EUNSUPPORTED = -2
EBACKEND = -3
ENODEV = -4
EDEVICE = -5
ENOMEM = -6
EIO = -7
ECORRUPT = -8
ESTATE = -9
ECANCELLED = -10

# enum latmc_device (ctx.h)
DEVICE_AUTO, DEVICE_CPU, DEVICE_CUDA = 0, 1, 2
# enum latmc_model, latmc_algorithm, latmc_precision, latmc_couplings, latmc_init (sim.h).
# The models' names come from the library (params.MODELS, latmc_model_name); these
# constants stay for the code that names the four by number (a new model needs none).
MODEL_ISING, MODEL_POTTS, MODEL_PHI4, MODEL_HEISENBERG = 1, 2, 3, 4
ALGO_DEFAULT, ALGO_METROPOLIS, ALGO_HEATBATH, ALGO_OVERRELAX = 0, 1, 2, 3
ALGO_SWENDSEN_WANG, ALGO_WOLFF = 4, 5
PRECISION_FLOAT, PRECISION_DOUBLE = 0, 1
COUPLINGS_UNIFORM, COUPLINGS_GAUSSIAN, COUPLINGS_BIMODAL = 0, 1, 2
INIT_COLD, INIT_HOT = 0, 1
# LATMC_ACC_WARN_* bits of latmc_acc_warnings (acc.h, 0.2)
ACC_WARN_ZERO_ERROR, ACC_WARN_TAU_UNDEFINED = 1 << 0, 1 << 1
ACC_WARN_ANTICORRELATED, ACC_WARN_NO_WINDOW = 1 << 2, 1 << 3
# enum latmc_log_level (defs.h)
LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR, LOG_NONE = 0, 1, 2, 3, 4


class SimDesc(ctypes.Structure):
    """struct latmc_sim_desc (sim.h), this version's fields; struct_size tells the library."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("model", c_int),
        ("ndim", c_int),
        ("extent", c_int64 * 4),
        ("q", c_int),
        ("algorithm", c_int),
        ("precision", c_int),
        ("couplings", c_int),
        ("coupling_seed", c_uint64),
        ("replicas", c_int),
        ("device", c_int),
        ("device_index", c_int),
        ("n_threads", c_int),
        ("seed", c_uint64),
        ("n_parts", c_int),
        ("n_devices", c_int),
        ("device_list", ctypes.c_void_p),
    ]


class DeviceInfo(ctypes.Structure):
    """struct latmc_device_info (ctx.h)."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("device", c_int),
        ("index", c_int),
        ("name", c_char * 256),
        ("memory_bytes", c_uint64),
        ("compute_major", c_int),
        ("compute_minor", c_int),
        ("multiprocessors", c_int),
    ]


# enum latmc_dtype (sim.h, 0.2): element types of a device view
DTYPE_INT8, DTYPE_UINT8, DTYPE_FLOAT32, DTYPE_FLOAT64 = 1, 2, 3, 4
VIEW_MAX_NDIM = 5


class DeviceView(ctypes.Structure):
    """struct latmc_device_view (sim.h, 0.2): the configuration in device memory."""

    _fields_ = [
        ("struct_size", c_uint32),
        ("device", c_int),
        ("index", c_int),
        ("data", c_uint64),
        ("dtype", c_int),
        ("ndim", c_int),
        ("shape", c_int64 * VIEW_MAX_NDIM),
        ("strides", c_int64 * VIEW_MAX_NDIM),
        ("readonly", c_int),
    ]


LOG_FN = CFUNCTYPE(None, c_void_p, c_int, c_char_p)
DERIVED_FN = CFUNCTYPE(c_double, POINTER(c_double), POINTER(c_double), c_void_p)

_P = c_void_p  # every opaque handle (latmc_ctx *, latmc_sim *, latmc_acc *)
_PP = POINTER(c_void_p)

# name: (restype, argtypes). Every function of the public API v1 the package uses.
_PROTOTYPES = {
    # ctx.h
    "latmc_ctx_create": (c_int, [_PP]),
    "latmc_ctx_destroy": (None, [_PP]),
    "latmc_ctx_set_log": (None, [_P, LOG_FN, c_void_p, c_int]),
    "latmc_last_error": (c_char_p, []),
    "latmc_ctx_device_count": (c_int, [_P, c_int, POINTER(c_int)]),
    "latmc_ctx_device_info": (c_int, [_P, c_int, c_int, POINTER(DeviceInfo)]),
    "latmc_ctx_backend_status": (c_char_p, [_P, c_int]),
    "latmc_strerror": (c_char_p, [c_int]),
    "latmc_version_string": (c_char_p, []),
    # sim.h
    "latmc_sim_desc_init_size": (c_int, [POINTER(SimDesc), c_size_t]),
    "latmc_sim_create": (c_int, [_P, POINTER(SimDesc), _PP]),
    "latmc_sim_destroy": (None, [_PP]),
    "latmc_sim_get_desc": (c_int, [_P, POINTER(SimDesc)]),
    "latmc_sim_backend_name": (c_char_p, [_P]),
    "latmc_sim_set_param": (c_int, [_P, c_int, c_double]),
    "latmc_sim_get_param": (c_int, [_P, c_int, POINTER(c_double)]),
    "latmc_param_by_name": (c_int, [c_char_p, POINTER(c_int)]),
    "latmc_param_name": (c_char_p, [c_int]),
    "latmc_observable_name": (c_char_p, [c_int]),
    "latmc_sim_init_spins": (c_int, [_P, c_int]),
    "latmc_sim_sweep": (c_int, [_P, c_uint64]),
    "latmc_sim_sweep_count": (c_int, [_P, POINTER(c_uint64)]),
    "latmc_sim_observable": (c_int, [_P, c_int, POINTER(c_double)]),
    "latmc_sim_acceptance_counts": (c_int, [_P, POINTER(c_uint64), POINTER(c_uint64)]),
    "latmc_sim_reset_acceptance": (c_int, [_P]),
    "latmc_sim_spins_size": (c_int, [_P, POINTER(c_size_t)]),
    "latmc_sim_get_spins": (c_int, [_P, c_void_p, c_size_t]),
    "latmc_sim_set_spins": (c_int, [_P, c_void_p, c_size_t]),
    "latmc_sim_couplings_size": (c_int, [_P, POINTER(c_size_t)]),
    "latmc_sim_get_couplings": (c_int, [_P, c_void_p, c_size_t]),
    "latmc_sim_set_couplings": (c_int, [_P, c_void_p, c_size_t]),
    "latmc_sim_tune_epsilon": (c_int, [_P, c_double, c_uint64]),
    "latmc_sim_save": (c_int, [_P, c_char_p]),
    "latmc_sim_load": (c_int, [_P, c_char_p, _PP]),
    "latmc_sim_serialize": (c_int, [_P, c_void_p, c_size_t, POINTER(c_size_t)]),
    "latmc_sim_deserialize": (c_int, [_P, c_void_p, c_size_t, _PP]),
    "latmc_sim_last_error": (c_char_p, [_P]),
    # acc.h
    "latmc_acc_create": (c_int, [_PP, c_int]),
    "latmc_acc_destroy": (None, [_PP]),
    "latmc_acc_ncols": (c_int, [_P]),
    "latmc_acc_count": (c_uint64, [_P]),
    "latmc_acc_push": (c_int, [_P, c_void_p, c_int]),
    "latmc_acc_clear": (None, [_P]),
    "latmc_acc_row": (c_int, [_P, c_uint64, c_void_p, c_int]),
    "latmc_acc_mean": (c_int, [_P, c_int, POINTER(c_double)]),
    "latmc_acc_binning_error": (c_int, [_P, c_int, c_int, POINTER(c_double)]),
    "latmc_acc_error": (c_int, [_P, c_int, POINTER(c_double)]),
    "latmc_acc_tau_int": (c_int, [_P, c_int, POINTER(c_double)]),
    "latmc_acc_jackknife": (c_int, [_P, c_int, DERIVED_FN, c_void_p, POINTER(c_double),
                                    POINTER(c_double)]),
    "latmc_acc_binder": (c_int, [_P, c_int, c_int, c_int, POINTER(c_double),
                                 POINTER(c_double)]),
    "latmc_acc_susceptibility": (c_int, [_P, c_int, c_int, c_double, c_int,
                                         POINTER(c_double), POINTER(c_double)]),
    "latmc_acc_specific_heat": (c_int, [_P, c_int, c_double, c_int, POINTER(c_double),
                                        POINTER(c_double)]),
    "latmc_acc_write_csv": (c_int, [_P, c_char_p, POINTER(c_char_p)]),
}

# Functions of later versions, bound when the loaded library has them (hasattr(lib, name)).
_OPTIONAL_PROTOTYPES = {
    "latmc_param_bounds": (c_int, [c_int, c_int, POINTER(c_double), POINTER(c_double)]),
    "latmc_model_name": (c_char_p, [c_int]),  # 0.3
    "latmc_model_by_name": (c_int, [c_char_p, POINTER(c_int)]),  # 0.3
    "latmc_sim_device_view": (c_int, [_P, POINTER(DeviceView)]),
    "latmc_acc_warnings": (c_int, [_P, c_int, POINTER(c_uint32)]),
    "latmc_acc_corr_length": (c_int, [_P, c_int, c_int, c_int64, c_int, POINTER(c_double),
                                      POINTER(c_double)]),
}


def _candidates() -> list:
    env = os.environ.get("LATMC_LIBRARY")
    if env:
        return [env]
    # A wheel holds no symbolic links: the package stores the library under its soname,
    # liblatmc.so.1 (meson.build; liblatmc.so.1.<minor>.<patch> in wheels before 0.2.0).
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_native")
    found = sorted(glob.glob(os.path.join(here, _SONAME + "*")), key=len)
    found.append(_SONAME)  # the dynamic loader's search (a system-wide meson install)
    name = ctypes.util.find_library("latmc")
    if name:
        found.append(name)
    return found


def _load() -> ctypes.CDLL:
    errors = []
    for path in _candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append("%s: %s" % (path, e))
            continue
        for fname, (res, args) in _PROTOTYPES.items():
            f = getattr(lib, fname)
            f.restype = res
            f.argtypes = args
        for fname, (res, args) in _OPTIONAL_PROTOTYPES.items():
            if hasattr(lib, fname):
                f = getattr(lib, fname)
                f.restype = res
                f.argtypes = args
        return lib
    raise ImportError("latmc: cannot load liblatmc (%s); install the package with "
                      "`pip install .` from the repository, or set LATMC_LIBRARY to the "
                      "path of %s" % ("; ".join(errors), _SONAME))


lib = _load()
#: Path of the loaded library (for latmc.library_path()).
path: Optional[str] = getattr(lib, "_name", None)


def _load_series_helper() -> Optional[ctypes.CDLL]:
    """python/latmc_series.c, built beside liblatmc by pip install . (or in a build tree's
    python/ next to LATMC_LIBRARY); None when absent: latmc.series then loops in Python."""
    dirs = []
    env = os.environ.get("LATMC_LIBRARY")
    if env:
        d = os.path.dirname(os.path.abspath(env))
        dirs += [os.path.join(d, "python"), d]
    dirs.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "_native"))
    for d in dirs:
        p = os.path.join(d, "liblatmc_series.so")
        if os.path.exists(p):
            h = ctypes.CDLL(p)
            f = h.latmc_py_series
            f.restype = c_int
            f.argtypes = [c_void_p, c_void_p, c_void_p, c_uint64, c_uint64, c_void_p, c_int,
                          c_void_p, POINTER(c_uint64)]
            return h
    return None


series_helper = _load_series_helper()


def text(b: Optional[bytes]) -> str:
    """A C string from the library as str ('' for NULL)."""
    return b.decode("utf-8", "replace") if b else ""
