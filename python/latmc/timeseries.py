"""Time series: sweep and measure into numpy arrays, fast.

``sim.series(100_000, every=1)`` runs 100000 x (``every`` sweeps, then one measurement of
each observable) and returns a :class:`Series` (one float64 column per observable) with the
analyses of :mod:`latmc.acc` attached.

The loop runs in blocks, one C call per block: ``latmc_py_series`` (python/latmc_series.c,
a small C helper built into the package beside liblatmc and loaded with ctypes) makes the
public-API calls of the block, one ``latmc_sim_sweep`` and one ``latmc_sim_observable`` per
observable per measurement, writing straight into the result array. Between blocks the
progress bar advances and Ctrl-C is seen. Without the helper (a build tree without it) the
same calls are made from Python through pre-built ctypes pointers: the same numbers, about
1 us per call slower.
"""
from __future__ import annotations

import ctypes
import sys
import time
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _ints, _lib
from .acc import DEFAULT_BLOCKS, Accumulator
from .errors import InvalidArgument, Unsupported
from .params import observable_key
from .sim import Sim

_L = _lib.lib
_DPTR = ctypes.POINTER(ctypes.c_double)
DEFAULT_OBSERVABLES = ("energy", "abs_magnetization", "m2", "m4")
_FILE_NAMES = {"abs_magnetization": "absm", "magnetization": "m"}


class Series:
    """Measurements of a sim: ``data`` (n x k float64), one column per name in ``names``.

    ``s["energy"]`` is a column; ``s.mean("m2")``, ``s.error("m2")``, ``s.tau_int("m2")``,
    ``s.binder()``, ``s.susceptibility()``, ``s.specific_heat()``, ``s.corr_length(L)`` analyse it through the C
    accumulators; ``beta`` and ``volume`` (from the sim) give the physical prefactors
    (phi^4 has no beta: its prefactors use 1).
    """

    def __init__(self, data: np.ndarray, names: Sequence[str], beta: Optional[float],
                 volume: int, every: int = 1, first_sweep: int = 0) -> None:
        self.data = data
        self.names = list(names)
        self.beta = beta
        self.volume = volume
        self.every = every
        self.first_sweep = first_sweep
        self._acc: Optional[Accumulator] = None

    def _name(self, name: str) -> str:
        """A column's name in this series: the program latmc's CSV and HDF5 files name
        abs_magnetization "absm" and magnetization "m" (latmc.read_csv)."""
        if name not in self.names and _FILE_NAMES.get(name) in self.names:
            return _FILE_NAMES[name]
        return name

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self.data[:, self.names.index(self._name(name))]
        except ValueError:
            raise KeyError(name) from None

    def __len__(self) -> int:
        return self.data.shape[0]

    def __repr__(self) -> str:
        return "<latmc.Series %d x (%s)>" % (len(self), ", ".join(self.names))

    def accumulator(self) -> Accumulator:
        """A new Accumulator holding the series (close it, or use ``with``)."""
        return Accumulator.from_array(self.data, self.names)

    def _with(self, method: str, *args):
        # one accumulator for all the statistics of this series (filled on first use;
        # data is treated as read-only from then on)
        if self._acc is None:
            self._acc = self.accumulator()
        args = tuple(self._name(a) if isinstance(a, str) else a for a in args)
        return getattr(self._acc, method)(*args)

    def mean(self, name: str) -> float:
        return self._with("mean", name)

    def error(self, name: str) -> float:
        return self._with("error", name)

    def tau_int(self, name: str) -> float:
        return self._with("tau_int", name)

    def binder(self, nblocks: int = DEFAULT_BLOCKS) -> Tuple[float, float]:
        """(U4, error) from the columns m2 and m4."""
        return self._with("binder", "m2", "m4", nblocks)

    def corr_length(self, L: int, nblocks: int = DEFAULT_BLOCKS) -> Tuple[float, float]:
        """(xi, error): the second-moment correlation length from the columns m2_k0 and
        m2_kmin (measure them: ``observables=(..., "m2_k0", "m2_kmin")``) on a lattice of
        extent L; xi / L is the finite-size-scaling ratio. Without an m2_k0 column, m2
        (the same value for Ising, phi^4 and Heisenberg: the program latmc records m2
        only for them)."""
        k0 = "m2_k0" if "m2_k0" in self.names else "m2"
        return self._with("corr_length", L, k0, "m2_kmin", nblocks)

    def susceptibility(self, nblocks: int = DEFAULT_BLOCKS) -> Tuple[float, float]:
        """(chi, error), chi = beta N (<m^2> - <|m|>^2), from abs_magnetization and m2."""
        return self._with("susceptibility", "abs_magnetization", "m2",
                          (self.beta if self.beta is not None else 1.0) * self.volume,
                          nblocks)

    def specific_heat(self, nblocks: int = DEFAULT_BLOCKS) -> Tuple[float, float]:
        """(C, error), C = beta^2 N (<e^2> - <e>^2), from the energy column."""
        b = self.beta if self.beta is not None else 1.0
        return self._with("specific_heat", "energy", b * b * self.volume, nblocks)

    def summary(self) -> Dict[str, Dict[str, float]]:
        """mean, error and tau_int of every column."""
        return {n: self._with("summary", n) for n in self.names}


class _Progress:
    """A one-line progress bar on stderr (tqdm's when installed)."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.bar = None
        self.enabled = enabled
        self.total = total
        self.done = 0
        self.t0 = time.perf_counter()
        if enabled:
            try:
                from tqdm.auto import tqdm  # optional
                self.bar = tqdm(total=total, unit="meas")
            except ImportError:
                pass

    def update(self, n: int) -> None:
        self.done += n
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.update(n)
            return
        frac = self.done / max(self.total, 1)
        dt = time.perf_counter() - self.t0
        eta = dt * (1 - frac) / frac if frac > 0 else 0.0
        sys.stderr.write("\r[%-30s] %5.1f%%  %d/%d  %.1fs left "
                         % ("#" * int(30 * frac), 100 * frac, self.done, self.total, eta))
        sys.stderr.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.enabled:
            sys.stderr.write("\n")


def series(sim: Sim, n: int, every: int = 1,
           observables: Sequence[Union[str, int]] = DEFAULT_OBSERVABLES,
           therm: int = 0, progress: bool = False, block: int = 4096) -> Series:
    """Thermalise ``therm`` sweeps, then measure ``n`` times, ``every`` sweeps apart.

    Returns a :class:`Series` with one column per observable. ``progress=True`` shows a
    progress bar (tqdm's when installed). The result is the same chain as calling
    ``sim.sweep(every)`` and ``sim.observable(name)`` by hand: the same numbers, bit for
    bit. Errors raise as from those calls; the measurements made before are lost.
    """
    # every and therm are uint64_t sweep counts; n and block size arrays (bounded by 2^63)
    n = _ints.in_range(n, "n", 0, _ints.INT64_MAX)
    every = _ints.in_range(every, "every", 1, _ints.UINT64_MAX)
    therm = _ints.u64(therm, "therm")
    block = _ints.in_range(block, "block", 1, _ints.INT64_MAX)
    keys = [observable_key(o) for o in observables]
    names = [o if isinstance(o, str) else _lib.text(_L.latmc_observable_name(o))
             for o in observables]
    if not keys:
        raise InvalidArgument("series needs at least one observable")
    h = sim._live()
    if therm:
        sim.sweep(therm)
    try:
        beta: Optional[float] = sim.params["beta"]
    except Unsupported:
        beta = None
    first = sim.sweep_count
    k = len(keys)
    out = np.empty((n, k), np.float64)
    block = min(block, max(n, 1))
    buf = np.empty((block, k), np.float64)
    base = buf.ctypes.data
    # one ctypes pointer per slot of the block buffer, made once: the loop below then
    # creates no Python object per measurement
    slots: List[Tuple[int, "ctypes._Pointer"]] = [
        (keys[j], ctypes.cast(base + 8 * (i * k + j), _DPTR))
        for i in range(block) for j in range(k)]
    sweep, observable = _L.latmc_sim_sweep, _L.latmc_sim_observable
    bar = _Progress(n, progress)
    try:
        if _lib.series_helper is not None and use_helper:
            _series_in_c(sim, h, every, keys, out, block, bar)
            return Series(out, names, beta, sim.volume, every, first)
        done = 0
        while done < n:
            m = min(block, n - done)
            s = 0
            for _ in range(m):
                st = sweep(h, every)
                if st:
                    sim._fail(st)
                for key, ptr in slots[s:s + k]:
                    st = observable(h, key, ptr)
                    if st:
                        sim._fail(st)
                s += k
            out[done:done + m] = buf[:m]
            done += m
            bar.update(m)
    finally:
        bar.close()
    return Series(out, names, beta, sim.volume, every, first)


#: False makes series() loop in Python even where the C helper exists (for tests).
use_helper = True


def _series_in_c(sim: Sim, h, every: int, keys: List[int], out: np.ndarray, block: int,
                 bar: "_Progress") -> None:
    """The measurement loop as one call of latmc_py_series (python/latmc_series.c) per
    block: the same public-API calls in the same order as the Python loop."""
    n, k = out.shape
    assert _lib.series_helper is not None
    fn = _lib.series_helper.latmc_py_series
    sweep_addr = ctypes.cast(_L.latmc_sim_sweep, ctypes.c_void_p)
    obs_addr = ctypes.cast(_L.latmc_sim_observable, ctypes.c_void_p)
    key_arr = (ctypes.c_int * k)(*keys)
    done = ctypes.c_uint64()
    base, row = out.ctypes.data, out.strides[0]
    at = 0
    while at < n:
        m = min(block, n - at)
        st = fn(sweep_addr, obs_addr, h, every, m, key_arr, k, base + at * row,
                ctypes.byref(done))
        if st:
            sim._fail(st)
        at += m
        bar.update(m)
