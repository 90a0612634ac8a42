"""The simulation: one lattice, one model and its state, on one device (C ``latmc_sim``)."""
from __future__ import annotations

import ctypes
import os
from typing import TYPE_CHECKING, Any, Optional, Sequence, Tuple, Union

import numpy as np

from . import _ints, _lib
from .devices import Context, DEVICES, default_context, device_code
from .errors import ClosedError, InvalidArgument, check, error_for, last_error
from .params import (ALGORITHMS, COUPLINGS, INITS, MODELS, OBSERVABLES, PRECISIONS, Params,
                     enum_code, enum_name, observable_key)

if TYPE_CHECKING:  # pragma: no cover
    from .timeseries import Series

_L = _lib.lib
_SWEEP = _L.latmc_sim_sweep
_OBSERVABLE = _L.latmc_sim_observable

PathLike = Union[str, bytes, "os.PathLike[str]"]
_U64 = {i: ctypes.c_uint64(i) for i in range(1025)}
_OBS_KEYS = {name: ctypes.c_int(key) for name, key in OBSERVABLES.items()}



def spin_dtype_of(desc: "_lib.SimDesc") -> np.dtype:
    """The numpy type of one site's value for a desc (a sim's or an ensemble member's)."""
    m = desc.model
    if m == _lib.MODEL_ISING:
        return np.dtype(np.int8)
    if m == _lib.MODEL_POTTS:
        return np.dtype(np.uint8)
    if m == _lib.MODEL_PHI4:
        return np.dtype(np.float32 if desc.precision == _lib.PRECISION_FLOAT else np.float64)
    return np.dtype(np.float32)

class Sim:
    """A Monte Carlo simulation of one lattice model (wraps ``latmc_sim``).

    ``Sim("ising", shape=(128, 128), beta=0.4407, algorithm="metropolis", device="cpu",
    seed=1)`` creates the lattice, sets the parameters given as keywords and draws a hot
    start (``init="hot"``; ``"cold"`` for the ordered one, ``None`` for none: then set
    ``spins`` before sweeping).

    Args:
        model: "ising", "potts", "phi4" or "heisenberg".
        shape: the lattice in numpy order, ``(L_y, L_x)`` or ``(L_z, L_y, L_x)`` (the shape
            of ``spins``), or an int L for an L x L lattice. Periodic boundaries.
        algorithm: "default" (the model's), "metropolis", "heatbath" or "overrelax".
        device: "auto" (CUDA when usable, else the CPU), "cpu" or "cuda".
        device_index: which device of that kind.
        seed: the Monte Carlo seed; the chain is a function of it alone (bit for bit).
        q: Potts states (2..255).
        precision: phi^4 field, "double" or "float".
        couplings: "uniform", "gaussian" (Heisenberg) or "bimodal" (Heisenberg, Ising +-J).
        coupling_seed: the disorder realisation, independent of ``seed``.
        replicas: 1, or 2 (Heisenberg overlap).
        threads: CPU threads, 0 for the runtime's default.
        init: "hot", "cold" or None.
        context: a :class:`Context` (default: the process-wide one).
        **params: model parameters by name: beta, J, h, mu2, g, lambda (``lambda_`` works
            too, lambda being a Python keyword), epsilon, nhit, nloc, nover, decisions
            (Ising: 1 for the bit-sliced decisions, doc/models/ising-decisions.md).

    Errors of the library raise :class:`latmc.Error` subclasses carrying its code and
    message. A closed sim raises :class:`latmc.ClosedError` on every use; closing twice
    and garbage collection after close are safe.
    """

    def __init__(self, model: Union[str, int], shape: Union[int, Sequence[int]], *,
                 algorithm: Union[str, int] = "default", device: Union[str, int] = "auto",
                 device_index: int = 0, seed: int = 0, q: int = 2,
                 precision: Union[str, int] = "double",
                 couplings: Union[str, int] = "uniform", coupling_seed: int = 0,
                 replicas: int = 1, threads: int = 0, init: Optional[str] = "hot",
                 context: Optional[Context] = None, **params: float) -> None:
        self._h: Optional[ctypes.c_void_p] = None  # set last: __del__ may see a half object
        ctx = context if context is not None else default_context()
        d = _lib.SimDesc()
        st = _L.latmc_sim_desc_init_size(ctypes.byref(d), ctypes.sizeof(d))
        if st != _lib.OK:
            raise error_for(st, last_error())
        if isinstance(model, str) and model.lower() not in MODELS:
            raise InvalidArgument("unknown model %r (one of: %s)" % (model, ", ".join(MODELS)))
        d.model = enum_code(MODELS, model, "model")
        check_phase_point(d.model, {k.rstrip("_"): v for k, v in params.items()})
        dims = _shape_tuple(shape)
        d.ndim = len(dims)
        for axis, extent in enumerate(reversed(dims)):  # extent[0] is L_x, the last axis
            d.extent[axis] = extent
        d.q = _ints.c_int(q, "q")
        d.algorithm = enum_code(ALGORITHMS, algorithm, "algorithm")
        d.precision = enum_code(PRECISIONS, precision, "precision")
        d.couplings = enum_code(COUPLINGS, couplings, "couplings")
        d.coupling_seed = _ints.u64(coupling_seed, "coupling_seed")
        d.replicas = _ints.c_int(replicas, "replicas")
        d.device = device_code(device)
        d.device_index = _ints.c_int(device_index, "device_index")
        d.n_threads = _ints.c_int(threads, "threads")
        d.seed = _ints.u64(seed, "seed")
        h = ctypes.c_void_p()
        st = _L.latmc_sim_create(ctx.handle, ctypes.byref(d), ctypes.byref(h))
        if st != _lib.OK:
            raise error_for(st, last_error())
        self._adopt(h, ctx)
        try:
            for name, value in params.items():
                self.params[name.rstrip("_")] = value
            if init is not None:
                self.init_spins(init)
        except BaseException:
            self.close()
            raise

    # -- construction from a handle (load, deserialize) --------------------------------
    def _adopt(self, h: ctypes.c_void_p, ctx: Context) -> None:
        self._ctx = ctx  # keeps a Python log callback of ctx alive as long as this sim
        self._params = Params(self)
        self._value = ctypes.c_double()
        self._value_ref = ctypes.byref(self._value)
        d = _lib.SimDesc()
        d.struct_size = ctypes.sizeof(d)
        st = _L.latmc_sim_get_desc(h, ctypes.byref(d))
        if st != _lib.OK:
            _L.latmc_sim_destroy(ctypes.byref(h))
            raise error_for(st, last_error())
        self._desc = d
        self._shape = tuple(int(d.extent[a]) for a in reversed(range(d.ndim)))
        self._h = h

    @classmethod
    def _from_handle(cls, h: ctypes.c_void_p, ctx: Context) -> "Sim":
        self = cls.__new__(cls)
        self._h = None
        self._adopt(h, ctx)
        return self

    # -- life cycle --------------------------------------------------------------------
    def _live(self) -> ctypes.c_void_p:
        h = self._h
        if h is None:
            raise ClosedError("the sim is closed")
        return h

    def _message(self) -> str:
        # The calling thread's message: every failing call sets it (const calls, which may
        # run concurrently on one sim, set only it, never the sim's own message).
        if self._h is None:
            return "the sim is closed"
        return last_error() or _lib.text(_L.latmc_sim_last_error(self._h))

    def _fail(self, status: int):
        if self._h is None:
            raise ClosedError("the sim is closed")
        raise error_for(status, self._message())

    def close(self) -> None:
        """Free the C sim now. Idempotent; any later use raises ClosedError."""
        h, self._h = getattr(self, "_h", None), None
        if h is not None and _L is not None:
            _L.latmc_sim_destroy(ctypes.byref(h))

    @property
    def closed(self) -> bool:
        """True after close()."""
        return self._h is None

    def __enter__(self) -> "Sim":
        self._live()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    def __repr__(self) -> str:
        if self._h is None:
            return "<latmc.Sim closed>"
        return "<latmc.Sim %s %s on %s, %d sweeps>" % (
            self.model, "x".join(map(str, self._shape)), self.backend, self.sweep_count)

    # -- description -------------------------------------------------------------------
    @property
    def model(self) -> str:
        """The model's name."""
        return enum_name(MODELS, self._desc.model)

    @property
    def shape(self) -> Tuple[int, ...]:
        """The lattice in numpy order: (L_y, L_x) or (L_z, L_y, L_x)."""
        return self._shape

    @property
    def ndim(self) -> int:
        """2 or 3."""
        return len(self._shape)

    @property
    def volume(self) -> int:
        """Number of sites N."""
        return int(np.prod(self._shape))

    @property
    def desc(self) -> dict:
        """The sim's description as the library resolved it (latmc_sim_get_desc)."""
        d = _lib.SimDesc()
        d.struct_size = ctypes.sizeof(d)
        st = _L.latmc_sim_get_desc(self._live(), ctypes.byref(d))
        if st:
            self._fail(st)
        return {
            "model": enum_name(MODELS, d.model), "shape": self._shape, "q": d.q,
            "algorithm": enum_name(ALGORITHMS, d.algorithm),
            "precision": enum_name(PRECISIONS, d.precision),
            "couplings": enum_name(COUPLINGS, d.couplings),
            "coupling_seed": d.coupling_seed, "replicas": d.replicas,
            "device": enum_name(DEVICES, d.device), "device_index": d.device_index,
            "threads": d.n_threads, "seed": d.seed,
        }

    @property
    def backend(self) -> str:
        """The backend the sim runs on ("cpu", "cuda")."""
        return _lib.text(_L.latmc_sim_backend_name(self._live()))

    @property
    def params(self) -> Params:
        """The model's parameters by name: ``sim.params["beta"] = 0.44``."""
        return self._params

    @property
    def last_error(self) -> str:
        """The library's message of this sim's last failure ("" if none)."""
        return _lib.text(_L.latmc_sim_last_error(self._live()))

    # -- running -----------------------------------------------------------------------
    def init_spins(self, how: str = "hot") -> None:
        """A new configuration: "hot" (random, from the seed) or "cold" (ordered)."""
        st = _L.latmc_sim_init_spins(self._live(), enum_code(INITS, how, "init"))
        if st:
            self._fail(st)

    def sweep(self, n: int = 1) -> None:
        """Perform ``n`` sweeps (every site offered one update per sweep)."""
        # ctypes converts a Python int to uint64_t slowly (about 0.4 us): small counts use
        # ready-made c_uint64 objects.
        u = _U64.get(n) if type(n) is int else None
        if u is None:
            u = ctypes.c_uint64(_ints.u64(n, "number of sweeps"))
        # A closed sim passes NULL, which the library refuses: no extra check on this path.
        st = _SWEEP(self._h, u)
        if st:
            self._fail(st)

    @property
    def sweep_count(self) -> int:
        """Sweeps performed since creation (a loaded sim continues its checkpoint's count)."""
        c = ctypes.c_uint64()
        st = _L.latmc_sim_sweep_count(self._live(), ctypes.byref(c))
        if st:
            self._fail(st)
        return c.value

    def tune_epsilon(self, target: float, sweeps: int) -> None:
        """phi^4: run ``sweeps`` sweeps scaling epsilon toward acceptance ``target``."""
        st = _L.latmc_sim_tune_epsilon(self._live(), float(target), _ints.u64(sweeps, "sweeps"))
        if st:
            self._fail(st)

    # -- measuring ---------------------------------------------------------------------
    def observable(self, name: Union[str, int]) -> float:
        """One observable of the current configuration, per site: "energy",
        "magnetization", "abs_magnetization", "m2", "m4", "phi2", "acceptance",
        "overlap2" (latmc.OBSERVABLES)."""
        key: Any = _OBS_KEYS.get(name) if isinstance(name, str) else None  # a ready c_int
        if key is None:
            key = observable_key(name)
        st = _OBSERVABLE(self._h, key, self._value_ref)
        if st:
            self._fail(st)
        return self._value.value

    def measure(self, names: Sequence[Union[str, int]]) -> np.ndarray:
        """Several observables at once, as a float64 array in the order of ``names``."""
        return np.array([self.observable(n) for n in names], dtype=np.float64)

    energy = property(lambda self: self.observable("energy"), doc="H/N")
    magnetization = property(lambda self: self.observable("magnetization"),
                             doc="signed M/N (Potts, Heisenberg: as abs_magnetization)")
    abs_magnetization = property(lambda self: self.observable("abs_magnetization"),
                                 doc="|M|/N")
    m2 = property(lambda self: self.observable("m2"), doc="m^2")
    m4 = property(lambda self: self.observable("m4"), doc="m^4")
    phi2 = property(lambda self: self.observable("phi2"), doc="phi^4: sum phi^2 / N")
    acceptance = property(lambda self: self.observable("acceptance"),
                          doc="accepted / attempted since the last reset")
    overlap2 = property(lambda self: self.observable("overlap2"),
                        doc="Heisenberg, two replicas: sum q_{mu nu}^2")
    m2_k0 = property(lambda self: self.observable("m2_k0"),
                     doc="|m(0)|^2 (Potts: of the simplex order parameter)")
    m2_kmin = property(lambda self: self.observable("m2_kmin"),
                       doc="|m(k_min)|^2 averaged over the directions (equal extents)")
    overlap2_kmin = property(lambda self: self.observable("overlap2_kmin"),
                             doc="Heisenberg, two replicas: the tensor overlap's "
                                 "|q(k_min)|^2 averaged over the directions")

    @property
    def acceptance_counts(self) -> Tuple[int, int]:
        """(accepted, attempted) updates since the last reset, exact."""
        a, t = ctypes.c_uint64(), ctypes.c_uint64()
        st = _L.latmc_sim_acceptance_counts(self._live(), ctypes.byref(a), ctypes.byref(t))
        if st:
            self._fail(st)
        return a.value, t.value

    def reset_acceptance(self) -> None:
        """Zero the acceptance counters."""
        st = _L.latmc_sim_reset_acceptance(self._live())
        if st:
            self._fail(st)

    # -- configuration -----------------------------------------------------------------
    @property
    def spin_dtype(self) -> np.dtype:
        """int8 (Ising, +-1), uint8 (Potts, 0..q-1), float64/float32 (phi^4), float32
        (Heisenberg)."""
        return spin_dtype_of(self._desc)

    @property
    def spin_shape(self) -> Tuple[int, ...]:
        """Shape of ``spins``: (replicas,)? + lattice shape + (3,) for Heisenberg; the
        replica axis only with two replicas."""
        shape = self._shape
        if self._desc.model == _lib.MODEL_HEISENBERG:
            shape = shape + (3,)
        if self._desc.replicas > 1:
            shape = (self._desc.replicas,) + shape
        return shape

    @property
    def spins(self) -> np.ndarray:
        """A copy of the configuration as a numpy array (``spin_shape``, ``spin_dtype``):
        ``spins[z, y, x]`` (``[y, x]`` in 2D) is site x + L_x*(y + L_y*z). Assigning an
        array of exactly that shape and dtype sets the configuration (the library checks
        every value; nothing changes on error)."""
        buf = np.empty(self.spin_shape, self.spin_dtype)
        st = _L.latmc_sim_get_spins(self._live(), buf.ctypes.data, buf.nbytes)
        if st:
            self._fail(st)
        return buf

    @spins.setter
    def spins(self, value) -> None:
        arr = _checked_array(value, self.spin_shape, self.spin_dtype, "spins", self.model)
        st = _L.latmc_sim_set_spins(self._live(), arr.ctypes.data, arr.nbytes)
        if st:
            self._fail(st)

    @property
    def coupling_shape(self) -> Tuple[int, ...]:
        """Shape of ``couplings``: lattice shape + (ndim,); ``[..., mu]`` is the bond from
        a site to its neighbour in direction mu (0 = x, 1 = y, 2 = z)."""
        return self._shape + (self.ndim,)

    @property
    def couplings(self) -> np.ndarray:
        """A copy of the couplings (float32, ``coupling_shape``) of a sim that has them
        (Heisenberg; Ising with couplings="bimodal"); Unsupported otherwise. Assigning sets
        them (validated by the library)."""
        n = ctypes.c_size_t()
        st = _L.latmc_sim_couplings_size(self._live(), ctypes.byref(n))
        if st:
            self._fail(st)
        buf = np.empty(self.coupling_shape, np.float32)
        st = _L.latmc_sim_get_couplings(self._h, buf.ctypes.data, buf.size)
        if st:
            self._fail(st)
        return buf

    @couplings.setter
    def couplings(self, value) -> None:
        arr = _checked_array(value, self.coupling_shape, np.dtype(np.float32), "couplings",
                             self.model)
        st = _L.latmc_sim_set_couplings(self._live(), arr.ctypes.data, arr.size)
        if st:
            self._fail(st)

    # -- checkpoints -------------------------------------------------------------------
    def save(self, path: PathLike) -> None:
        """Write a checkpoint (atomic: path.tmp, flushed, renamed); load() continues the
        chain bit-identically."""
        st = _L.latmc_sim_save(self._live(), os.fsencode(path))
        if st:
            self._fail(st)

    def serialize(self) -> bytes:
        """The checkpoint as bytes (the same content save() writes)."""
        size = ctypes.c_size_t()
        st = _L.latmc_sim_serialize(self._live(), None, 0, ctypes.byref(size))
        if st:
            self._fail(st)
        buf = ctypes.create_string_buffer(size.value)
        st = _L.latmc_sim_serialize(self._h, buf, size.value, ctypes.byref(size))
        if st:
            self._fail(st)
        return buf.raw[:size.value]

    def copy(self) -> "Sim":
        """An independent sim in the same state (through serialize/deserialize)."""
        return deserialize(self.serialize(), context=self._ctx)

    def __reduce__(self):
        # pickling (multiprocessing) goes through the checkpoint bytes
        return (deserialize, (self.serialize(),))

    # -- time series and GPU arrays (timeseries.py, gpu.py) ----------------------------
    def series(self, n: int, every: int = 1,
               observables: Sequence[Union[str, int]] = ("energy", "abs_magnetization",
                                                         "m2", "m4"),
               therm: int = 0, progress: bool = False, block: int = 4096) -> "Series":
        """Thermalise ``therm`` sweeps, then measure ``n`` times, ``every`` sweeps apart,
        into a :class:`latmc.Series` (see :func:`latmc.series`)."""
        from .timeseries import series
        return series(self, n, every, observables, therm, progress, block)

    def device_array(self, flag_readonly: bool = True) -> Any:
        """A zero-copy, read-only view of the configuration in the sim's GPU memory, with
        ``__cuda_array_interface__`` (``cupy.asarray(sim.device_array())``); valid until
        the sim changes (see :func:`latmc.gpu.device_array`). Raises
        :class:`latmc.Unsupported` with the reason where there is none (a CPU sim).
        ``flag_readonly=False`` for torch, which refuses an interface flagged read only."""
        from .gpu import device_array
        return device_array(self, flag_readonly)

    def to_cupy(self, copy: bool = False) -> Any:
        """The configuration as a cupy array on the sim's GPU: zero copy (read only, valid
        until the sim changes) where the sim has a device view, else a copy
        (see :func:`latmc.gpu.to_cupy`)."""
        from .gpu import to_cupy
        return to_cupy(self, copy)

    def to_torch(self, device: Any = None) -> Any:
        """The configuration as a new torch tensor: a copy (see :func:`latmc.gpu.to_torch`)."""
        from .gpu import to_torch
        return to_torch(self, device)


def load(path: PathLike, context: Optional[Context] = None) -> Sim:
    """A Sim from a checkpoint file written by Sim.save() or by the C library."""
    ctx = context if context is not None else default_context()
    h = ctypes.c_void_p()
    st = _L.latmc_sim_load(ctx.handle, os.fsencode(path), ctypes.byref(h))
    if st != _lib.OK:
        raise error_for(st, last_error())
    return Sim._from_handle(h, ctx)


def deserialize(data: bytes, context: Optional[Context] = None) -> Sim:
    """A Sim from Sim.serialize() bytes."""
    ctx = context if context is not None else default_context()
    data = bytes(data)
    h = ctypes.c_void_p()
    st = _L.latmc_sim_deserialize(ctx.handle, data, len(data), ctypes.byref(h))
    if st != _lib.OK:
        raise error_for(st, last_error())
    return Sim._from_handle(h, ctx)


# -- argument helpers ------------------------------------------------------------------
def check_phase_point(model: int, params: dict) -> None:
    """The temperature rule of the program latmc (doc/cli.md): a new sim must say where in
    its phase diagram it runs, since the library's defaults are no physics choice (beta = 0
    is infinite temperature, where Ising Metropolis flips every spin every sweep: a
    periodic chain whose "errors" are exactly 0). Ising, Potts and Heisenberg need beta;
    phi^4 (weight exp(-H)) needs mu2 and g, and refuses g = 0 with mu2 <= 0 (the free
    field, whose zero mode is not normalisable). load() and deserialize() take the
    parameters from the checkpoint."""
    if model != _lib.MODEL_PHI4:
        if "beta" not in params and model in MODELS.values():
            raise InvalidArgument(
                "the %s model needs beta=B, the inverse temperature (no default: beta = 0 "
                "is infinite temperature, where Metropolis is degenerate)"
                % enum_name(MODELS, model))
        return
    missing = [p for p in ("mu2", "g") if p not in params]
    if missing:
        raise InvalidArgument(
            "the phi4 model needs mu2=M and g=G (they place it in its phase diagram, as "
            "beta does for the other models; missing: %s)" % " and ".join(missing))
    try:
        mu2, g = float(params["mu2"]), float(params["g"])
    except (TypeError, ValueError):
        return  # not numbers: the library's set_param refuses them with its message
    if g == 0.0 and mu2 <= 0.0:
        raise InvalidArgument("phi4 with g = 0 and mu2 = %g <= 0 has no normalisable weight "
                              "(the zero mode is free): give g > 0 or mu2 > 0" % mu2)


def _shape_tuple(shape) -> Tuple[int, ...]:
    # Each extent is an int64_t of the C desc: range-checked here, since ctypes would
    # store 2**64 + 8 as 8 (the library checks the values that fit: positive, even, ...).
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        L = _ints.i64(shape, "shape")
        return (L, L)
    if isinstance(shape, (str, bytes)):
        raise InvalidArgument("shape must be an int or a tuple of ints, got %r" % (shape,))
    try:
        items = tuple(shape)
    except TypeError:
        raise InvalidArgument("shape must be an int or a tuple of ints, got %r" % (shape,)) from None
    dims = tuple(_ints.i64(s, "shape[%d]" % k) for k, s in enumerate(items))
    if not 1 <= len(dims) <= 4:
        # the C desc has room for 4 extents; the library itself refuses ndim outside 2..3
        raise InvalidArgument("shape %r: a lattice has 2 or 3 dimensions" % (shape,))
    return dims


def _checked_array(value, shape, dtype: np.dtype, what: str, model: str) -> np.ndarray:
    """value as a C-contiguous array of exactly ``shape`` and ``dtype``. Lists are
    converted; numpy arrays of another dtype are refused (no silent cast of values)."""
    if isinstance(value, np.ndarray):
        if value.dtype != dtype:
            raise InvalidArgument("%s of %s must have dtype %s, got %s"
                                  % (what, model, dtype, value.dtype))
        arr = np.ascontiguousarray(value)
    else:
        try:
            arr = np.ascontiguousarray(np.asarray(value, dtype=dtype))
        except (TypeError, ValueError, OverflowError) as e:
            raise InvalidArgument("%s of %s: cannot make an array of dtype %s (%s)"
                                  % (what, model, dtype, e)) from None
    if arr.shape != tuple(shape):
        raise InvalidArgument("%s of %s must have shape %s, got %s"
                              % (what, model, tuple(shape), arr.shape))
    return arr
