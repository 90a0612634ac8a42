"""Ensembles: many small lattices of one model, swept together, with parallel tempering and
spin-glass overlaps (C ``latmc_ens``, ``latmc/ens.h``; doc/ensembles.md).

An :class:`Ensemble` holds ``samples x temperatures x replicas`` members. Member arrays
come back as numpy arrays of shape ``(samples, temperatures, replicas)``, overlaps as
``(samples, temperatures)``; :func:`binder_g` gives the sample-averaged Binder ratio with its
jackknife error over samples::

    T = np.geomspace(2.0, 0.9, 6)
    with latmc.Ensemble("ising", (4, 4, 4), samples=8, betas=1 / T, replicas=2,
                        couplings="bimodal", algorithm="metropolis", seed=1,
                        coupling_seed=2, exchange_every=1) as ens:
        ens.sweep(400)                                   # thermalise
        m = ens.measure(200, every=2, overlaps=["q2"])   # m["q2"]: (200, samples, T)
        g, dg = latmc.binder_g(m["q2"].mean(0), (m["q2"] ** 2).mean(0))

Every number is the C library's: the same seeds give the same chains, exchanges and
overlaps as a C program (python/examples/spinglass_pt.py reproduces examples/spinglass_pt).
"""
from __future__ import annotations

import ctypes
import os
from ctypes import POINTER, c_double, c_int, c_size_t, c_uint64, c_void_p
from typing import Dict, Optional, Sequence, Tuple, Union

import numpy as np

from . import _ints, _lib
from .devices import Context, default_context, device_code
from .errors import ClosedError, InvalidArgument, Unsupported, error_for, last_error
from .params import (ALGORITHMS, COUPLINGS, INITS, MODELS, PRECISIONS, enum_code, enum_name,
                     observable_key, param_key)
from .sim import check_phase_point, _shape_tuple, spin_dtype_of

PathLike = Union[str, bytes, "os.PathLike[str]"]

# enum latmc_ens_order, latmc_ens_overlap (ens.h)
_BY_MEMBER, _BY_TEMPERATURE = 0, 1
OVERLAPS: Dict[str, int] = {"q": 1, "q2": 2, "q4": 3, "ql": 4, "qkmin2": 5}


class EnsLayout(ctypes.Structure):
    """struct latmc_ens_layout (ens.h, 0.2); struct_size tells the library its size."""

    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("n_samples", c_int),
        ("n_temperatures", c_int),
        ("n_replicas", c_int),
        ("seed", c_uint64),
        ("coupling_seed", c_uint64),
        ("n_threads", c_int),
    ]


_P = c_void_p
_PP = POINTER(c_void_p)
_PROTOTYPES = {
    "latmc_ens_layout_init_size": (c_int, [POINTER(EnsLayout), c_size_t]),
    "latmc_ens_create": (c_int, [_P, POINTER(_lib.SimDesc), POINTER(EnsLayout), _PP]),
    "latmc_ens_destroy": (None, [_PP]),
    "latmc_ens_get_layout": (c_int, [_P, POINTER(EnsLayout)]),
    "latmc_ens_member_index": (c_int, [_P, c_int, c_int, c_int, POINTER(c_int)]),
    "latmc_ens_member_desc": (c_int, [_P, c_int, POINTER(_lib.SimDesc)]),
    "latmc_ens_set_temperatures": (c_int, [_P, POINTER(c_double), c_int]),
    "latmc_ens_get_temperatures": (c_int, [_P, POINTER(c_double), c_int]),
    "latmc_ens_set_ladder": (c_int, [_P, c_int, POINTER(c_double), c_int]),
    "latmc_ens_get_ladder": (c_int, [_P, POINTER(c_int), POINTER(c_double), c_int]),
    "latmc_ens_set_param": (c_int, [_P, c_int, c_double]),
    "latmc_ens_set_exchange": (c_int, [_P, c_uint64]),
    "latmc_ens_get_exchange": (c_int, [_P, POINTER(c_uint64)]),
    "latmc_ens_init_spins": (c_int, [_P, c_int]),
    "latmc_ens_sweep": (c_int, [_P, c_uint64]),
    "latmc_ens_sweep_count": (c_int, [_P, POINTER(c_uint64)]),
    "latmc_ens_observables": (c_int, [_P, c_int, c_int, POINTER(c_double), c_size_t]),
    "latmc_ens_overlaps": (c_int, [_P, c_int, POINTER(c_double), c_size_t]),
    "latmc_ens_spins_size": (c_int, [_P, POINTER(c_size_t)]),
    "latmc_ens_get_spins": (c_int, [_P, c_int, c_void_p, c_size_t]),
    "latmc_ens_set_spins": (c_int, [_P, c_int, c_void_p, c_size_t]),
    "latmc_ens_member_at": (c_int, [_P, c_int, c_int, c_int, POINTER(c_int)]),
    "latmc_ens_temperature_of": (c_int, [_P, c_int, POINTER(c_int)]),
    "latmc_ens_exchange_counts": (c_int, [_P, POINTER(c_uint64), POINTER(c_uint64), c_int]),
    "latmc_ens_round_trips": (c_int, [_P, POINTER(c_uint64), POINTER(c_double)]),
    "latmc_ens_save": (c_int, [_P, ctypes.c_char_p]),
    "latmc_ens_load": (c_int, [_P, ctypes.c_char_p, _PP]),
    "latmc_ens_binder_g": (c_int, [POINTER(c_double), POINTER(c_double), c_int, c_int,
                                   POINTER(c_double), POINTER(c_double)]),
    "latmc_ens_last_error": (ctypes.c_char_p, [_P]),
}
# Bound where the library has them (the finite-size-scaling additions of 0.2).
_OPTIONAL = {
    "latmc_ens_corr_length": (c_int, [POINTER(c_double), POINTER(c_double), c_int,
                                      ctypes.c_int64, POINTER(c_double), POINTER(c_double)]),
}


def _bind() -> Optional[ctypes.CDLL]:
    lib = _lib.lib
    if not all(hasattr(lib, name) for name in _PROTOTYPES):
        return None  # a liblatmc older than 0.2
    for name, (res, args) in list(_PROTOTYPES.items()) + list(_OPTIONAL.items()):
        if hasattr(lib, name):
            f = getattr(lib, name)
            f.restype = res
            f.argtypes = args
    return lib


_E = _bind()


def _need() -> ctypes.CDLL:
    if _E is None:
        raise Unsupported("this liblatmc (%s) has no ensembles (latmc/ens.h, 0.2)"
                          % _lib.text(_lib.lib.latmc_version_string()))
    return _E


def _doubles(values, what: str) -> np.ndarray:
    try:
        arr = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as e:
        raise InvalidArgument("%s: not an array of numbers (%s)" % (what, e)) from None
    return arr


def _dptr(arr: np.ndarray):
    return arr.ctypes.data_as(POINTER(c_double))


def _per_sample_columns(name, a_name, b_name, a, b, call):
    """Runs ``call(x_a, x_b, n)`` (a C function's status, value and error) over the columns
    of two per-sample arrays of one shape, ``(samples,)`` (then floats come back) or
    ``(samples, temperatures)`` (then arrays over the temperatures)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim not in (1, 2):
        raise InvalidArgument("%s needs %s and %s of one shape, (samples,) or "
                              "(samples, temperatures); got %s and %s"
                              % (name, a_name, b_name, a.shape, b.shape))
    n = _ints.in_range(a.shape[0], "samples", 0, _ints.INT_MAX)
    ca = a.reshape(n, -1)
    cb = b.reshape(n, -1)
    val = np.empty(ca.shape[1])
    err = np.empty(ca.shape[1])
    for t in range(ca.shape[1]):
        st, val[t], err[t] = call(np.ascontiguousarray(ca[:, t]),
                                  np.ascontiguousarray(cb[:, t]), n)
        if st:
            raise error_for(st, last_error())
    if a.ndim == 1:
        return float(val[0]), float(err[0])
    return val, err


def binder_g(q2, q4, components: int = 1) -> Tuple[np.ndarray, np.ndarray]:
    """The sample-averaged Binder ratio of the overlap and its jackknife error over samples
    (``latmc_ens_binder_g``): from per-sample thermal means ``q2[s] = <q^2>_s`` and
    ``q4[s] = <q^4>_s``, r = [<q^4>] / [<q^2>]^2 and g = (3 - r) / 2 for ``components=1``
    (Ising), g = (11 - 9 r) / 2 for 3 (Heisenberg).

    ``q2`` and ``q4`` are arrays of shape ``(samples,)`` (then g and its error are floats)
    or ``(samples, temperatures)`` (then arrays over the temperatures).
    """
    f = _need().latmc_ens_binder_g
    comp = _ints.c_int(components, "components")
    gv, ev = c_double(), c_double()

    def call(x2, x4, n):
        st = f(_dptr(x2), _dptr(x4), n, comp, ctypes.byref(gv), ctypes.byref(ev))
        return st, gv.value, ev.value
    return _per_sample_columns("binder_g", "q2", "q4", q2, q4, call)  # type: ignore[return-value]


def corr_length_sg(q2, qk2, L: int) -> Tuple[np.ndarray, np.ndarray]:
    """The spin-glass second-moment correlation length xi_SG averaged over samples and its
    jackknife error over samples (``latmc_ens_corr_length``): from per-sample thermal
    means ``q2[s] = <q^2>_s`` (overlap "q2") and ``qk2[s] = <|q(k_min)|^2>_s`` (overlap
    "qkmin2"), xi_SG = sqrt([<q^2>] / [<|q(k_min)|^2>] - 1) / (2 sin(pi / L)) on a lattice
    of extent L. Divide by L for xi_SG / L.

    Shapes as for :func:`binder_g`: ``(samples,)`` gives floats, ``(samples,
    temperatures)`` arrays over the temperatures. InvalidArgument where xi_SG is not real
    (also in a jackknife sample).
    """
    f = getattr(_need(), "latmc_ens_corr_length", None)
    if f is None:
        raise Unsupported("this liblatmc has no latmc_ens_corr_length (0.2)")
    length = _ints.i64(L, "L")
    xv, ev = c_double(), c_double()

    def call(x2, xk, n):
        st = f(_dptr(x2), _dptr(xk), n, length, ctypes.byref(xv), ctypes.byref(ev))
        return st, xv.value, ev.value
    return _per_sample_columns("corr_length_sg", "q2", "qk2", q2, qk2, call)  # type: ignore[return-value]


class Ensemble:
    """``samples x temperatures x replicas`` lattices of one model and shape (wraps
    ``latmc_ens``).

    ``Ensemble("ising", (8, 8, 8), samples=64, betas=1 / T, replicas=2,
    couplings="bimodal", seed=1, coupling_seed=7, exchange_every=1)`` creates the members,
    sets one beta per temperature (``betas``, strictly increasing or decreasing), turns on
    replica exchange after every ``exchange_every``-th sweep (0: off) and draws a hot start.

    Args:
        model, shape, algorithm, device, device_index, q, precision, couplings: the
            members' description, as for :class:`latmc.Sim` (shape in numpy order).
        samples: disorder samples (each its own realisation of the couplings).
        betas: the temperatures' inverse temperatures (their number is the number of
            temperatures). Required for Ising, Potts and Heisenberg (the temperature rule of
            :class:`latmc.Sim`).
        mu2s: phi^4 only: the tempering ladder in mu2 instead (``g`` is then required).
        replicas: replicas per sample and temperature (2 for overlaps).
        seed: the ensemble's Monte Carlo seed (each member's derives from it,
            :meth:`member_desc`).
        coupling_seed: base of the samples' disorder.
        threads: CPU threads over members, 0 for OpenMP's default; results never depend on
            it.
        exchange_every: replica exchange every so many sweeps (0: off).
        init: "hot", "cold" or None (set spins member by member before sweeping).
        context: a :class:`latmc.Context`.
        **params: the other parameters, shared by every member (J, h, g, lambda, ...).

    Member ``m`` has home coordinates ``(sample, slot, replica)``,
    ``m = (sample * temperatures + slot) * replicas + replica``; tempering moves
    temperatures between members (:meth:`member_at`, :meth:`temperature_of`). Library
    failures raise :class:`latmc.Error` subclasses with the ensemble's message.
    """

    def __init__(self, model: Union[str, int], shape: Union[int, Sequence[int]], *,
                 samples: int = 1, betas: Optional[Sequence[float]] = None,
                 mu2s: Optional[Sequence[float]] = None, replicas: int = 1,
                 algorithm: Union[str, int] = "default", device: Union[str, int] = "cpu",
                 device_index: int = 0, q: int = 2, precision: Union[str, int] = "double",
                 couplings: Union[str, int] = "uniform", seed: int = 0,
                 coupling_seed: int = 0, threads: int = 0, exchange_every: int = 0,
                 init: Optional[str] = "hot", context: Optional[Context] = None,
                 **params: float) -> None:
        self._h: Optional[ctypes.c_void_p] = None
        E = _need()
        ctx = context if context is not None else default_context()
        if isinstance(model, str) and model.lower() not in MODELS:
            raise InvalidArgument("unknown model %r (one of: %s)" % (model, ", ".join(MODELS)))
        d = _lib.SimDesc()
        st = _lib.lib.latmc_sim_desc_init_size(ctypes.byref(d), ctypes.sizeof(d))
        if st:
            raise error_for(st, last_error())
        d.model = enum_code(MODELS, model, "model")
        params = {k.rstrip("_"): v for k, v in params.items()}
        if "beta" in params and betas is None:  # one temperature, given as for a Sim
            betas = [params.pop("beta")]
        given = dict(params)
        if betas is not None:
            given["beta"] = betas
        if mu2s is not None:
            given["mu2"] = mu2s
        check_phase_point(d.model, given)
        if betas is not None and mu2s is not None:
            raise InvalidArgument("give betas or mu2s (phi^4's ladder), not both")
        ladder = _doubles(betas if betas is not None else mu2s, "betas") \
            if (betas is not None or mu2s is not None) else None
        dims = _shape_tuple(shape)
        d.ndim = len(dims)
        for axis, extent in enumerate(reversed(dims)):
            d.extent[axis] = extent
        d.q = _ints.c_int(q, "q")
        d.algorithm = enum_code(ALGORITHMS, algorithm, "algorithm")
        d.precision = enum_code(PRECISIONS, precision, "precision")
        d.couplings = enum_code(COUPLINGS, couplings, "couplings")
        d.device = device_code(device)
        d.device_index = _ints.c_int(device_index, "device_index")
        n_temps = len(ladder) if ladder is not None else 1
        lay = EnsLayout()
        st = E.latmc_ens_layout_init_size(ctypes.byref(lay), ctypes.sizeof(lay))
        if st:
            raise error_for(st, last_error())
        lay.n_samples = _ints.c_int(samples, "samples")
        lay.n_temperatures = _ints.c_int(n_temps, "temperatures")
        lay.n_replicas = _ints.c_int(replicas, "replicas")
        lay.seed = _ints.u64(seed, "seed")
        lay.coupling_seed = _ints.u64(coupling_seed, "coupling_seed")
        lay.n_threads = _ints.c_int(threads, "threads")
        every = _ints.u64(exchange_every, "exchange_every")
        h = ctypes.c_void_p()
        st = E.latmc_ens_create(ctx.handle, ctypes.byref(d), ctypes.byref(lay), ctypes.byref(h))
        if st:
            raise error_for(st, last_error())
        self._adopt(h, ctx)
        try:
            for name, value in params.items():
                self.set_param(name, value)
            if ladder is not None:
                self._set_ladder("beta" if betas is not None else "mu2", ladder)
            if every:
                self.exchange_every = every
            if init is not None:
                self.init_spins(init)
        except BaseException:
            self.close()
            raise

    # -- handle --------------------------------------------------------------------------
    def _adopt(self, h: ctypes.c_void_p, ctx: Context) -> None:
        self._ctx = ctx
        lay = EnsLayout()
        lay.struct_size = ctypes.sizeof(lay)
        st = _need().latmc_ens_get_layout(h, ctypes.byref(lay))
        if st:
            _need().latmc_ens_destroy(ctypes.byref(h))
            raise error_for(st, last_error())
        d = _lib.SimDesc()
        d.struct_size = ctypes.sizeof(d)
        st = _need().latmc_ens_member_desc(h, 0, ctypes.byref(d))
        if st:
            _need().latmc_ens_destroy(ctypes.byref(h))
            raise error_for(st, last_error())
        self._layout = lay
        self._desc = d
        self._shape = tuple(int(d.extent[a]) for a in reversed(range(d.ndim)))
        self._h = h

    @classmethod
    def load(cls, path: PathLike, context: Optional[Context] = None) -> "Ensemble":
        """An ensemble from a file of :meth:`save`; it continues bit-identically, with the
        exchange interval of the file (:attr:`exchange_every`)."""
        E = _need()
        ctx = context if context is not None else default_context()
        h = ctypes.c_void_p()
        st = E.latmc_ens_load(ctx.handle, os.fsencode(path), ctypes.byref(h))
        if st:
            raise error_for(st, last_error())
        self = cls.__new__(cls)
        self._h = None
        self._adopt(h, ctx)
        return self

    def _live(self) -> ctypes.c_void_p:
        if self._h is None:
            raise ClosedError("the ensemble is closed")
        return self._h

    def _fail(self, st: int):
        raise error_for(st, _lib.text(_need().latmc_ens_last_error(self._h)))

    def _call(self, fname: str, *args) -> None:
        st = getattr(_need(), fname)(self._live(), *args)
        if st:
            self._fail(st)

    def close(self) -> None:
        """Free the C ensemble. Idempotent; later use raises :class:`latmc.ClosedError`."""
        h, self._h = getattr(self, "_h", None), None
        if h is not None and _E is not None:
            _E.latmc_ens_destroy(ctypes.byref(h))

    def __enter__(self) -> "Ensemble":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        if self._h is None:
            return "<latmc.Ensemble closed>"
        return "<latmc.Ensemble %s %s, %d samples x %d temperatures x %d replicas, sweep %d>" % (
            self.model, "x".join(map(str, self._shape)), self.samples, self.temperatures,
            self.replicas, self.sweep_count)

    # -- description -----------------------------------------------------------------------
    @property
    def model(self) -> str:
        return enum_name(MODELS, self._desc.model)

    @property
    def shape(self) -> Tuple[int, ...]:
        """Each member's lattice in numpy order."""
        return self._shape

    @property
    def volume(self) -> int:
        return int(np.prod(self._shape))

    @property
    def samples(self) -> int:
        return int(self._layout.n_samples)

    @property
    def temperatures(self) -> int:
        """Number of temperatures (rungs of the ladder)."""
        return int(self._layout.n_temperatures)

    @property
    def replicas(self) -> int:
        return int(self._layout.n_replicas)

    @property
    def members(self) -> int:
        return self.samples * self.temperatures * self.replicas

    @property
    def layout(self) -> Dict[str, int]:
        """samples, temperatures, replicas, seed, coupling_seed, threads (resolved)."""
        lay = EnsLayout()
        lay.struct_size = ctypes.sizeof(lay)
        self._call("latmc_ens_get_layout", ctypes.byref(lay))
        return {"samples": lay.n_samples, "temperatures": lay.n_temperatures,
                "replicas": lay.n_replicas, "seed": lay.seed,
                "coupling_seed": lay.coupling_seed, "threads": lay.n_threads}

    def member_index(self, sample: int, slot: int, replica: int = 0) -> int:
        """Member number of home coordinates (sample, slot, replica)."""
        m = c_int()
        self._call("latmc_ens_member_index", _ints.c_int(sample, "sample"),
                   _ints.c_int(slot, "slot"), _ints.c_int(replica, "replica"), ctypes.byref(m))
        return m.value

    def member_desc(self, member: int) -> dict:
        """Member m's exact description (its own seed and coupling_seed, 1 thread): a
        :class:`latmc.Sim` of it, at the member's beta and with the same start, runs member
        m's chain bit for bit while exchanges are off."""
        d = _lib.SimDesc()
        d.struct_size = ctypes.sizeof(d)
        self._call("latmc_ens_member_desc", _ints.c_int(member, "member"), ctypes.byref(d))
        return {"model": enum_name(MODELS, d.model), "shape": self._shape, "q": d.q,
                "algorithm": enum_name(ALGORITHMS, d.algorithm),
                "precision": enum_name(PRECISIONS, d.precision),
                "couplings": enum_name(COUPLINGS, d.couplings),
                "coupling_seed": d.coupling_seed, "seed": d.seed, "threads": d.n_threads}

    # -- parameters --------------------------------------------------------------------------
    def _set_ladder(self, name: str, values) -> None:
        arr = _doubles(values, name)
        self._call("latmc_ens_set_ladder", param_key(name), _dptr(arr),
                   _ints.c_int(arr.size, "number of values"))

    @property
    def betas(self) -> np.ndarray:
        """beta of each temperature index (the ladder's values; phi^4: its mu2 values).
        Assigning sets them (strictly ordered), resets the temperature map, the exchange
        statistics and round trips."""
        out = np.empty(self.temperatures)
        self._call("latmc_ens_get_temperatures", _dptr(out), self.temperatures)
        return out

    @betas.setter
    def betas(self, values) -> None:
        self._set_ladder("beta", values)

    @property
    def ladder(self) -> Tuple[str, np.ndarray]:
        """(parameter name, values) of the tempering ladder: ("beta", ...) or, phi^4,
        ("mu2", ...)."""
        key = c_int()
        out = np.empty(self.temperatures)
        self._call("latmc_ens_get_ladder", ctypes.byref(key), _dptr(out), self.temperatures)
        return _lib.text(_lib.lib.latmc_param_name(key.value)), out

    def set_param(self, name: Union[str, int], value: float) -> None:
        """Set a parameter other than the ladder's on every member (all or none change)."""
        self._call("latmc_ens_set_param", param_key(name), float(value))

    @property
    def exchange_every(self) -> int:
        """Replica exchange after every so many sweeps (0: off). Needs two or more
        temperatures."""
        every = c_uint64()
        self._call("latmc_ens_get_exchange", ctypes.byref(every))
        return int(every.value)

    @exchange_every.setter
    def exchange_every(self, every: int) -> None:
        n = _ints.u64(every, "exchange_every")
        self._call("latmc_ens_set_exchange", n)

    # -- running -----------------------------------------------------------------------------
    def init_spins(self, how: str = "hot") -> None:
        """A new configuration on every member, each from its own seed."""
        self._call("latmc_ens_init_spins", enum_code(INITS, how, "init"))

    def sweep(self, n: int = 1) -> None:
        """n sweeps of every member, with an exchange round after every sweep whose count
        is a multiple of ``exchange_every``."""
        self._call("latmc_ens_sweep", _ints.u64(n, "number of sweeps"))

    @property
    def sweep_count(self) -> int:
        c = c_uint64()
        self._call("latmc_ens_sweep_count", ctypes.byref(c))
        return c.value

    # -- measuring -----------------------------------------------------------------------------
    def observable(self, name: Union[str, int], by: str = "temperature") -> np.ndarray:
        """An observable of every member (per site), shape (samples, temperatures,
        replicas): ``by="temperature"`` puts at [s, t, r] the member now at temperature t
        of sample s, replica r; ``by="member"`` the member of home coordinates (s, t, r)."""
        order = {"temperature": _BY_TEMPERATURE, "member": _BY_MEMBER}.get(by)
        if order is None:
            raise InvalidArgument("by must be 'temperature' or 'member', got %r" % (by,))
        out = np.empty((self.samples, self.temperatures, self.replicas))
        self._call("latmc_ens_observables", observable_key(name), order, _dptr(out), out.size)
        return out

    def overlaps(self, kind: str = "q2") -> np.ndarray:
        """A two-replica observable of replicas 0 and 1 at every (sample, temperature),
        shape (samples, temperatures): "q" (Ising), "q2", "q4" (= q2^2), "ql" (link),
        "qkmin2" (|q(k_min)|^2 averaged over the directions; the tensor overlap for
        Heisenberg; equal extents only)."""
        key = OVERLAPS.get(kind) if isinstance(kind, str) else None
        if key is None:
            raise InvalidArgument("unknown overlap %r (one of: %s)" % (kind, ", ".join(OVERLAPS)))
        out = np.empty((self.samples, self.temperatures))
        self._call("latmc_ens_overlaps", key, _dptr(out), out.size)
        return out

    def measure(self, n: int, every: int = 1, overlaps: Sequence[str] = ("q2",),
                observables: Sequence[Union[str, int]] = ()) -> Dict[str, np.ndarray]:
        """``n`` times: ``every`` sweeps, then each overlap (shape (samples, temperatures))
        and each observable (by temperature: (samples, temperatures, replicas)). Returns
        a dict name -> array with a leading axis of the n measurements."""
        n = _ints.in_range(n, "n", 0, _ints.INT64_MAX)
        every = _ints.in_range(every, "every", 1, _ints.UINT64_MAX)
        out: Dict[str, np.ndarray] = {}
        for k in overlaps:
            out[k] = np.empty((n, self.samples, self.temperatures))
        for o in observables:
            out[str(o)] = np.empty((n, self.samples, self.temperatures, self.replicas))
        for i in range(n):
            self.sweep(every)
            for k in overlaps:
                out[k][i] = self.overlaps(k)
            for o in observables:
                out[str(o)][i] = self.observable(o)
        return out

    # -- tempering -----------------------------------------------------------------------------
    def member_at(self, sample: int, t: int, replica: int = 0) -> int:
        """The member now at temperature index t of (sample, replica)."""
        m = c_int()
        self._call("latmc_ens_member_at", _ints.c_int(sample, "sample"), _ints.c_int(t, "t"),
                   _ints.c_int(replica, "replica"), ctypes.byref(m))
        return m.value

    def temperature_of(self, member: int) -> int:
        """The temperature index member m holds now."""
        t = c_int()
        self._call("latmc_ens_temperature_of", _ints.c_int(member, "member"), ctypes.byref(t))
        return t.value

    @property
    def temperature_map(self) -> np.ndarray:
        """[s, t, r]: the member now at temperature t of sample s, replica r (int array)."""
        out = np.empty((self.samples, self.temperatures, self.replicas), np.int64)
        for s in range(self.samples):
            for t in range(self.temperatures):
                for r in range(self.replicas):
                    out[s, t, r] = self.member_at(s, t, r)
        return out

    @property
    def exchange_counts(self) -> Tuple[np.ndarray, np.ndarray]:
        """(accepted, attempted) exchanges per neighbouring pair (t, t+1), summed over
        samples and replicas since the temperatures were set (arrays of temperatures - 1)."""
        k = max(self.temperatures - 1, 0)
        acc = (c_uint64 * max(k, 1))()
        att = (c_uint64 * max(k, 1))()
        self._call("latmc_ens_exchange_counts", acc, att, k)
        return (np.array(acc[:k], dtype=np.uint64), np.array(att[:k], dtype=np.uint64))

    @property
    def exchange_acceptance(self) -> np.ndarray:
        """accepted / attempted per pair (t, t+1); NaN where none was attempted."""
        acc, att = self.exchange_counts
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(att > 0, acc / np.maximum(att, 1), np.nan)

    @property
    def round_trips(self) -> Tuple[int, float]:
        """(count, mean duration in sweeps) of trips temperature 0 -> last -> 0."""
        c, mean = c_uint64(), c_double()
        self._call("latmc_ens_round_trips", ctypes.byref(c), ctypes.byref(mean))
        return c.value, mean.value

    # -- configurations -----------------------------------------------------------------------
    @property
    def spin_dtype(self) -> np.dtype:
        return spin_dtype_of(self._desc)

    @property
    def spin_shape(self) -> Tuple[int, ...]:
        """One member's configuration: the lattice shape (+ (3,) for Heisenberg)."""
        return self._shape + ((3,) if self._desc.model == _lib.MODEL_HEISENBERG else ())

    def get_spins(self, member: int) -> np.ndarray:
        """A copy of member m's configuration (``spin_shape``, ``spin_dtype``; the layout
        of :attr:`latmc.Sim.spins`)."""
        buf = np.empty(self.spin_shape, self.spin_dtype)
        self._call("latmc_ens_get_spins", _ints.c_int(member, "member"), buf.ctypes.data,
                   buf.nbytes)
        return buf

    def set_spins(self, member: int, value) -> None:
        """Set member m's configuration (exactly ``spin_shape`` and ``spin_dtype``; the
        library checks the values)."""
        from .sim import _checked_array
        arr = _checked_array(value, self.spin_shape, self.spin_dtype, "spins", self.model)
        self._call("latmc_ens_set_spins", _ints.c_int(member, "member"), arr.ctypes.data,
                   arr.nbytes)

    @property
    def spins(self) -> np.ndarray:
        """Every member's configuration, shape (samples, slots, replicas) + spin_shape, by
        home coordinates (a copy)."""
        out = np.empty((self.samples, self.temperatures, self.replicas) + self.spin_shape,
                       self.spin_dtype)
        flat = out.reshape((self.members,) + self.spin_shape)
        for m in range(self.members):
            self._call("latmc_ens_get_spins", m, flat[m].ctypes.data, flat[m].nbytes)
        return out

    # -- checkpoints ----------------------------------------------------------------------------
    def save(self, path: PathLike) -> None:
        """Write the whole ensemble (layout, temperatures, map, statistics, every member) to
        one checksummed file, replaced atomically; :meth:`load` continues it bit for bit."""
        self._call("latmc_ens_save", os.fsencode(path))

    def binder_g(self, q2, q4) -> Tuple[np.ndarray, np.ndarray]:
        """:func:`binder_g` with the model's number of spin components (Ising 1,
        Heisenberg 3)."""
        return binder_g(q2, q4, 3 if self._desc.model == _lib.MODEL_HEISENBERG else 1)


    def corr_length_sg(self, q2, qk2) -> Tuple[np.ndarray, np.ndarray]:
        """:func:`corr_length_sg` on this ensemble's extent."""
        return corr_length_sg(q2, qk2, self.shape[0])


def load_ensemble(path: PathLike, context: Optional[Context] = None) -> Ensemble:
    """An :class:`Ensemble` from a file of :meth:`Ensemble.save`."""
    return Ensemble.load(path, context)
