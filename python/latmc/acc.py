"""Accumulators (C ``latmc_acc``): means, binning errors, autocorrelation times and
jackknife estimates of time series, on numpy arrays.

:class:`Accumulator` holds rows of measurements (one column per observable). The
module-level functions take numpy series directly::

    latmc.error(e)                      # logarithmic-binning error of the mean of e
    latmc.tau_int(e)                    # integrated autocorrelation time
    latmc.binder(m2, m4)                # (U4, error) by jackknife
    latmc.corr_length(m2_k0, m2_kmin, L)  # (xi, error): second-moment correlation length
    latmc.susceptibility(absm, m2, beta * N)
    latmc.specific_heat(e, beta**2 * N)
    latmc.jackknife(lambda mean, sq: mean[1] / mean[0] ** 2, (a, b))

Every statistic is computed by the C library, so Python and C analyses of one series agree
exactly.

What the library cannot estimate is never returned as a confident number (the rule of the
program ``latmc``, doc/cli.md): an error of exactly 0 (a frozen or periodic chain) comes
back as NaN with a :class:`latmc.DegenerateWarning`; an undefined tau_int (no variance) as
NaN, an anticorrelated one at its floor 1/2, both with that warning; a tau_int whose window
did not close with a :class:`latmc.ShortSeriesWarning`. Filter them with :mod:`warnings`
(``warnings.simplefilter("error", latmc.LatmcWarning)`` makes them exceptions).
"""
from __future__ import annotations

import ctypes
import math
import os
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _ints, _lib
from .errors import (ClosedError, DegenerateWarning, InvalidArgument, ShortSeriesWarning,
                     Unsupported, check_global, error_for, last_error, warn)

_L = _lib.lib
Column = Union[int, str]
DEFAULT_BLOCKS = 32


class Accumulator:
    """A time series of rows of ``ncols`` doubles, with its statistics.

    ``Accumulator(["e", "absm", "m2", "m4"])`` names the columns (or give their number);
    statistics take a column's index or name. ``push(row)`` appends one row,
    ``extend(array)`` many; ``rows`` gives the whole series back as an array.
    """

    def __init__(self, columns: Union[int, Sequence[str]]) -> None:
        self._h: Optional[ctypes.c_void_p] = None
        if isinstance(columns, (int, np.integer)) and not isinstance(columns, bool):
            names = ["c%d" % i for i in range(_ints.in_range(columns, "columns", 1, 2**31 - 1))]
        else:
            names = [str(c) for c in columns]
        self.names: List[str] = names
        self._index: Dict[str, int] = {n: i for i, n in enumerate(names)}
        h = ctypes.c_void_p()
        st = _L.latmc_acc_create(ctypes.byref(h), len(names))
        if st != _lib.OK:
            raise error_for(st, last_error())
        self._h = h

    @classmethod
    def from_array(cls, data, names: Optional[Sequence[str]] = None) -> "Accumulator":
        """An accumulator holding the rows of a 2D array (or one column from a 1D one)."""
        arr = np.asarray(data, dtype=np.float64)
        if arr.ndim == 1:
            arr = arr[:, None]
        if arr.ndim != 2:
            raise InvalidArgument("a series must be 1D or 2D (rows x columns), got shape %s"
                                  % (arr.shape,))
        acc = cls(list(names) if names is not None else arr.shape[1])
        acc.extend(arr)
        return acc

    # -- life cycle --------------------------------------------------------------------
    def _live(self) -> ctypes.c_void_p:
        if self._h is None:
            raise ClosedError("the accumulator is closed")
        return self._h

    def close(self) -> None:
        """Free the C accumulator. Idempotent; later use raises ClosedError."""
        h, self._h = getattr(self, "_h", None), None
        if h is not None and _L is not None:
            _L.latmc_acc_destroy(ctypes.byref(h))

    def __enter__(self) -> "Accumulator":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __len__(self) -> int:
        return int(_L.latmc_acc_count(self._live()))

    def __repr__(self) -> str:
        if self._h is None:
            return "<latmc.Accumulator closed>"
        return "<latmc.Accumulator %d rows of %s>" % (len(self), ", ".join(self.names))

    @property
    def ncols(self) -> int:
        return len(self.names)

    def col(self, c: Column) -> int:
        """Index of a column given by index or name."""
        if isinstance(c, str):
            try:
                return self._index[c]
            except KeyError:
                raise InvalidArgument("no column %r (columns: %s)"
                                      % (c, ", ".join(self.names))) from None
        return _ints.c_int(c, "column")

    # -- filling -----------------------------------------------------------------------
    def push(self, row: Sequence[float]) -> None:
        """Append one row of ncols finite values."""
        arr = np.ascontiguousarray(row, dtype=np.float64).reshape(-1)
        check_global(_L.latmc_acc_push(self._live(), arr.ctypes.data, arr.size))

    def extend(self, rows) -> None:
        """Append every row of a 2D array (rows x ncols); 1D for one column. On a bad row
        (NaN, inf) the rows before it stay appended."""
        arr = np.ascontiguousarray(rows, dtype=np.float64)
        if arr.ndim == 1 and self.ncols == 1:
            arr = arr[:, None]
        if arr.ndim != 2 or arr.shape[1] != self.ncols:
            raise InvalidArgument("rows must have shape (n, %d), got %s"
                                  % (self.ncols, arr.shape))
        h = self._live()
        push, n, p, stride = _L.latmc_acc_push, self.ncols, arr.ctypes.data, arr.strides[0]
        for i in range(arr.shape[0]):
            st = push(h, p + i * stride, n)
            if st:
                raise error_for(st, last_error())

    def clear(self) -> None:
        """Drop all rows."""
        _L.latmc_acc_clear(self._live())

    @property
    def rows(self) -> np.ndarray:
        """The whole series, shape (count, ncols)."""
        h = self._live()
        n = len(self)
        out = np.empty((n, self.ncols), np.float64)
        p, stride = out.ctypes.data, out.strides[0]
        for i in range(n):
            check_global(_L.latmc_acc_row(h, i, p + i * stride, self.ncols))
        return out

    def write_csv(self, path) -> None:
        """Write the series as CSV ("index,<names>" header; 17 significant digits)."""
        names = (ctypes.c_char_p * self.ncols)(*[n.encode() for n in self.names])
        check_global(_L.latmc_acc_write_csv(self._live(), os.fsencode(path), names))

    # -- statistics --------------------------------------------------------------------
    def _one(self, fn, *args) -> float:
        v = ctypes.c_double()
        check_global(fn(self._live(), *args, ctypes.byref(v)))
        return v.value

    def _two(self, fn, what: str, *args) -> Tuple[float, float]:
        v, e = ctypes.c_double(), ctypes.c_double()
        check_global(fn(self._live(), *args, ctypes.byref(v), ctypes.byref(e)))
        return v.value, self._zero_error(e.value, "jackknife error of " + what)

    def _label(self, c: Column) -> str:
        i = self.col(c)
        return self.names[i] if 0 <= i < self.ncols else str(c)

    def warnings(self, c: Column) -> int:
        """The library's LATMC_ACC_WARN_* bits for a column (latmc_acc_warnings; 0: none).
        0 with a library older than 0.2, which has no such call."""
        f = getattr(_L, "latmc_acc_warnings", None)
        if f is None:
            return 0
        flags = ctypes.c_uint32()
        check_global(f(self._live(), self.col(c), ctypes.byref(flags)))
        return flags.value

    def _zero_error(self, err: float, what: str) -> float:
        """The rule for an error of exactly 0: NaN and a warning, never a confident 0."""
        if err == 0.0:
            warn("%s: the error is exactly 0 (the series does not fluctuate: a "
                          "frozen or periodic chain, e.g. Ising Metropolis at beta = 0); no "
                          "error can be estimated from it, NaN returned" % what, DegenerateWarning)
            return math.nan
        return err

    def mean(self, c: Column) -> float:
        """Mean of a column."""
        return self._one(_L.latmc_acc_mean, self.col(c))

    def error(self, c: Column) -> float:
        """Logarithmic-binning error of the mean (the highest level with >= 32 bins).
        NaN with a :class:`latmc.DegenerateWarning` where it is exactly 0."""
        err = self._one(_L.latmc_acc_error, self.col(c))
        return self._zero_error(err, "error of %r" % self._label(c))

    def binning_error(self, c: Column, level: int) -> float:
        """Error of the mean from bins of 2**level rows (NaN with a warning where it is
        exactly 0)."""
        err = self._one(_L.latmc_acc_binning_error, self.col(c), _ints.c_int(level, "level"))
        return self._zero_error(err, "binning error of %r at level %s" % (self._label(c), level))

    def tau_int(self, c: Column) -> float:
        """Integrated autocorrelation time (1/2 for uncorrelated data; Madras-Sokal window).
        NaN with a :class:`latmc.DegenerateWarning` where it is undefined (no variance);
        its floor 1/2 with that warning for an anticorrelated series; a
        :class:`latmc.ShortSeriesWarning` where the window did not close."""
        tau = self._one(_L.latmc_acc_tau_int, self.col(c))
        flags = self.warnings(c)
        name = self._label(c)
        if flags & _lib.ACC_WARN_TAU_UNDEFINED:
            warn("tau_int of %r is undefined: the series has no variance; NaN "
                          "returned" % name, DegenerateWarning)
            return math.nan
        if flags & _lib.ACC_WARN_ANTICORRELATED:
            warn("tau_int of %r: the autocorrelation sum is significantly below 1/2 "
                          "(an anticorrelated or periodic chain); returned at its floor 1/2, "
                          "which makes the naive error an upper bound" % name, DegenerateWarning)
        if flags & _lib.ACC_WARN_NO_WINDOW:
            warn("tau_int of %r: the self-consistent window did not close, the "
                          "series is too short for its autocorrelation (tau_int is an "
                          "underestimate)" % name, ShortSeriesWarning)
        return tau

    def binder(self, m2: Column = "m2", m4: Column = "m4",
               nblocks: int = DEFAULT_BLOCKS) -> Tuple[float, float]:
        """Binder cumulant U4 = 1 - <m^4>/(3<m^2>^2) and its jackknife error."""
        return self._two(_L.latmc_acc_binder, "the Binder cumulant", self.col(m2),
                         self.col(m4), _ints.c_int(nblocks, "nblocks"))

    def corr_length(self, L: int, k0: Column = "m2_k0", kmin: Column = "m2_kmin",
                    nblocks: int = DEFAULT_BLOCKS) -> Tuple[float, float]:
        """Second-moment correlation length xi = sqrt(<|m(0)|^2> / <|m(k_min)|^2> - 1) /
        (2 sin(pi / L)) and its jackknife error (``latmc_acc_corr_length``), from the
        columns of |m(0)|^2 and |m(k_min)|^2 (the observables "m2_k0" and "m2_kmin", or
        "overlap2" and "overlap2_kmin" for one sample's xi_SG); L is the lattice's extent.
        Divide both by L for xi/L. Raises InvalidArgument where xi is not real
        (<|m(0)|^2> <= <|m(k_min)|^2>, deep in the disordered phase), Unsupported with a
        library older than 0.2."""
        f = getattr(_L, "latmc_acc_corr_length", None)
        if f is None:
            raise Unsupported("this liblatmc has no latmc_acc_corr_length (0.2)")
        return self._two(f, "the correlation length", self.col(k0), self.col(kmin),
                         _ints.i64(L, "L"),
                         _ints.c_int(nblocks, "nblocks"))

    def susceptibility(self, absm: Column = "abs_magnetization", m2: Column = "m2",
                       factor: float = 1.0,
                       nblocks: int = DEFAULT_BLOCKS) -> Tuple[float, float]:
        """factor * (<m^2> - <|m|>^2) and its jackknife error (factor = beta * N for the
        per-site susceptibility)."""
        return self._two(_L.latmc_acc_susceptibility, "the susceptibility", self.col(absm),
                         self.col(m2),
                         float(factor), _ints.c_int(nblocks, "nblocks"))

    def specific_heat(self, e: Column = "energy", factor: float = 1.0,
                      nblocks: int = DEFAULT_BLOCKS) -> Tuple[float, float]:
        """factor * (<e^2> - <e>^2) and its jackknife error (factor = beta^2 * N)."""
        return self._two(_L.latmc_acc_specific_heat, "the specific heat", self.col(e),
                         float(factor),
                         _ints.c_int(nblocks, "nblocks"))

    def jackknife(self, fn: Callable[[np.ndarray, np.ndarray], float],
                  nblocks: int = DEFAULT_BLOCKS) -> Tuple[float, float]:
        """Bias-corrected jackknife estimate and error of ``fn(means, sq_means)``, where
        ``means`` and ``sq_means`` are arrays of the column means and the means of the
        squares over the rows in use. An exception in fn is re-raised here."""
        n = self.ncols
        raised: List[BaseException] = []

        def trampoline(means, sq, _user):
            if raised:
                return float("nan")
            try:
                m = np.ctypeslib.as_array(means, (n,)).copy()
                s = np.ctypeslib.as_array(sq, (n,)).copy()
                return float(fn(m, s))
            except BaseException as e:  # must not cross the C frames
                raised.append(e)
                return float("nan")

        cb = _lib.DERIVED_FN(trampoline)
        v, e = ctypes.c_double(), ctypes.c_double()
        st = _L.latmc_acc_jackknife(self._live(), _ints.c_int(nblocks, "nblocks"), cb, None, ctypes.byref(v),
                                    ctypes.byref(e))
        if raised:
            raise raised[0]
        if st != _lib.OK:
            raise error_for(st, last_error())
        return v.value, self._zero_error(e.value, "jackknife error of fn")

    def summary(self, c: Column) -> Dict[str, float]:
        """mean, error and tau_int of a column."""
        return {"mean": self.mean(c), "error": self.error(c), "tau_int": self.tau_int(c)}


# -- functions on numpy series ---------------------------------------------------------
def _series(*cols) -> Accumulator:
    arrs = [np.asarray(c, dtype=np.float64).reshape(-1) for c in cols]
    if len({a.size for a in arrs}) != 1:
        raise InvalidArgument("series of different lengths: %s" % [a.size for a in arrs])
    return Accumulator.from_array(np.stack(arrs, axis=1))


def mean(x) -> float:
    """Mean of a series (the library's)."""
    with _series(x) as a:
        return a.mean(0)


def error(x) -> float:
    """Logarithmic-binning error of the mean of a series."""
    with _series(x) as a:
        return a.error(0)


def tau_int(x) -> float:
    """Integrated autocorrelation time of a series."""
    with _series(x) as a:
        return a.tau_int(0)


def binder(m2, m4, nblocks: int = DEFAULT_BLOCKS) -> Tuple[float, float]:
    """(U4, error) from series of m^2 and m^4."""
    with _series(m2, m4) as a:
        return a.binder(0, 1, nblocks)


def corr_length(m2_k0, m2_kmin, L: int,
                nblocks: int = DEFAULT_BLOCKS) -> Tuple[float, float]:
    """(xi, error): the second-moment correlation length from series of |m(0)|^2 and
    |m(k_min)|^2 on a lattice of extent L (Accumulator.corr_length); xi / L is the
    finite-size-scaling ratio."""
    with _series(m2_k0, m2_kmin) as a:
        return a.corr_length(L, 0, 1, nblocks)


def susceptibility(absm, m2, factor: float = 1.0,
                   nblocks: int = DEFAULT_BLOCKS) -> Tuple[float, float]:
    """(chi, error) = factor * (<m^2> - <|m|>^2) from series of |m| and m^2."""
    with _series(absm, m2) as a:
        return a.susceptibility(0, 1, factor, nblocks)


def specific_heat(e, factor: float = 1.0,
                  nblocks: int = DEFAULT_BLOCKS) -> Tuple[float, float]:
    """(C, error) = factor * (<e^2> - <e>^2) from a series of e."""
    with _series(e) as a:
        return a.specific_heat(0, factor, nblocks)


def jackknife(fn: Callable[[np.ndarray, np.ndarray], float], columns,
              nblocks: int = DEFAULT_BLOCKS) -> Tuple[float, float]:
    """(estimate, error) of fn(means, sq_means) over the given series (a sequence of
    equally long 1D arrays, or one 2D array rows x columns)."""
    if isinstance(columns, (list, tuple)):
        arr = np.stack([np.asarray(c, dtype=np.float64).reshape(-1) for c in columns], axis=1)
    else:
        arr = np.asarray(columns, dtype=np.float64)
    with Accumulator.from_array(arr) as a:
        return a.jackknife(fn, nblocks)
