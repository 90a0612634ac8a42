"""Reading the output files of the program ``latmc`` (and ``Accumulator.write_csv``).

``latmc.read_csv(path)`` and ``latmc.read_hdf5(path)`` return a :class:`RunFile`: the run's
inputs as a dict, the measurements as a :class:`latmc.Series` (so the same analyses apply:
``f.series.error("energy")``, ``f.series.binder()``) and, from HDF5, the run's record and
the program's own results. doc/cli.md describes the files.

The CSV is plain numpy fare too: its first line names the columns and the inputs follow as
``# key = value`` comments, so ``np.genfromtxt(path, delimiter=",", names=True,
comments="#")`` reads it. The HDF5 file's strings are variable-length UTF-8 (h5py gives
str); reading it needs h5py (``pip install h5py``), imported only by read_hdf5.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Union

import numpy as np

from .errors import CorruptFile, FileError
from .timeseries import Series

PathLike = Union[str, "os.PathLike[str]"]
_SERIES_COLUMNS = ("index", "sweep")


@dataclass
class RunFile:
    """One output file of a run.

    Attributes:
        path: the file.
        inputs: every input of the run ("program", "version", "model", "extent" (a tuple,
            x first, as written), "algorithm", "seed", "start", "therm", "every", ...; the
            model's parameters in ``inputs["parameters"]``). A resumed run's file states
            the original start and adds "resumed_from". Empty for an Accumulator CSV.
        series: the measurements, one column per observable as the file names them
            ("energy", "m", "absm", "m2", "m4", ...), with beta and the volume from the
            inputs (so ``series.susceptibility()`` has its prefactors).
        index: the measurement index of each row (0, 1, ...).
        sweep: the sim's sweep count at each measurement (empty if the file has none).
        run: the run's record (HDF5 only: sweeps, measurements, interrupted, ...).
        results: per observable the program's ``mean``, ``error``, ``tau_int``, ``label``,
            ``warnings`` (HDF5 only; NaN where the program had none).
        derived: the derived quantities likewise (HDF5 only).
    """

    path: str
    inputs: Dict[str, Any]
    series: Series
    index: np.ndarray
    sweep: np.ndarray
    run: Dict[str, Any] = field(default_factory=dict)
    results: Dict[str, Dict[str, Any]] = field(default_factory=dict)
    derived: Dict[str, Dict[str, Any]] = field(default_factory=dict)


def _value(text: str) -> Any:
    """A header value as the program wrote it: int, float, an extent "16x8" (a tuple), or
    the string."""
    t = text.strip()
    for conv in (int, float):
        try:
            return conv(t)
        except ValueError:
            pass
    parts = t.split("x")
    if len(parts) > 1 and all(p.isdigit() for p in parts):
        return tuple(int(p) for p in parts)
    return t


def _series_of(inputs: Dict[str, Any], names: List[str], data: np.ndarray,
               sweep: np.ndarray) -> Series:
    extent = inputs.get("extent")
    if isinstance(extent, int):
        extent = (extent,)
    volume = int(np.prod(extent)) if extent else 1
    beta = inputs.get("parameters", {}).get("beta")
    every = inputs.get("every", 1)
    first = int(sweep[0]) - every if sweep.size else inputs.get("therm", 0)
    return Series(data, names, float(beta) if beta is not None else None, volume,
                  int(every) if isinstance(every, int) else 1, int(first))


def read_csv(path: PathLike) -> RunFile:
    """Read a ``latmc --csv`` file (or an ``Accumulator.write_csv`` one) into a
    :class:`RunFile`. Files of earlier versions, whose comments came before the column
    line, are read too."""
    p = os.fspath(path)
    try:
        with open(p, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise FileError("read_csv: cannot read %r (%s)" % (p, e.strerror)) from None
    inputs: Dict[str, Any] = {}
    params: Dict[str, Any] = {}
    names: List[str] = []
    rows: List[str] = []
    for line in lines:
        if line.startswith("#"):
            key, eq, value = line[1:].partition("=")
            if eq and " " not in key.strip():
                key = key.strip()
                if key.startswith("param."):
                    params[key[len("param."):]] = _value(value)
                else:
                    inputs[key] = _value(value)
        elif not names:
            names = [n.strip() for n in line.split(",")]
        elif line.strip():
            rows.append(line)
    if not names:
        raise CorruptFile("read_csv: %r has no column line" % p)
    if params:
        inputs["parameters"] = params
    try:
        table = np.loadtxt(rows, delimiter=",", ndmin=2) if rows else np.empty((0, len(names)))
    except ValueError as e:
        raise CorruptFile("read_csv: %r: %s" % (p, e)) from None
    if table.shape[1] != len(names):
        raise CorruptFile("read_csv: %r: %d columns named, %d in the rows"
                          % (p, len(names), table.shape[1]))
    col = {n: i for i, n in enumerate(names)}
    index = table[:, col["index"]].astype(np.int64) if "index" in col \
        else np.arange(len(table), dtype=np.int64)
    sweep = table[:, col["sweep"]].astype(np.uint64) if "sweep" in col \
        else np.empty(0, np.uint64)
    keep = [i for i, n in enumerate(names) if n not in _SERIES_COLUMNS]
    data = np.ascontiguousarray(table[:, keep])
    series = _series_of(inputs, [names[i] for i in keep], data, sweep)
    return RunFile(p, inputs, series, index, sweep)


def _attrs(obj) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for k, v in obj.attrs.items():
        if isinstance(v, bytes):  # files of latmc before 0.2.0 (fixed-length ASCII)
            v = v.decode("utf-8", "replace")
        elif isinstance(v, np.ndarray):
            v = tuple(v.tolist())
        elif isinstance(v, np.generic):
            v = v.item()
        out[k] = v
    return out


def read_hdf5(path: PathLike) -> RunFile:
    """Read a ``latmc --hdf5`` file into a :class:`RunFile` (needs h5py)."""
    try:
        import h5py  # optional: pip install h5py
    except ImportError:
        raise ImportError("latmc.read_hdf5 needs h5py (pip install h5py)") from None
    p = os.fspath(path)
    try:
        f = h5py.File(p, "r")
    except OSError as e:
        raise FileError("read_hdf5: cannot read %r (%s)" % (p, e)) from None
    with f:
        fmt = f.attrs.get("format")
        if isinstance(fmt, bytes):
            fmt = fmt.decode()
        if fmt != "latmc-results 1":
            raise CorruptFile("read_hdf5: %r is not a latmc results file (format %r)"
                              % (p, fmt))
        inputs = _attrs(f["inputs"])
        inputs["parameters"] = _attrs(f["inputs/parameters"])
        run = _attrs(f["run"]) if "run" in f else {}
        g = f["series"]
        index = np.asarray(g["index"][()], dtype=np.int64)
        sweep = np.asarray(g["sweep"][()], dtype=np.uint64)
        # the observables in the order the program wrote them (HDF5 lists names sorted)
        order = sorted((k for k in g.keys() if k not in _SERIES_COLUMNS),
                       key=lambda k: g[k].id.get_offset() or 0)
        data = np.stack([np.asarray(g[k][()], dtype=np.float64) for k in order], axis=1) \
            if order else np.empty((len(index), 0))
        results: Dict[str, Dict[str, Any]] = {}
        derived: Dict[str, Dict[str, Any]] = {}
        for group, out in (("results", results), ("derived", derived)):
            if group in f:
                for name, d in f[group].items():
                    entry = _attrs(d)
                    value = float(d[()])
                    entry["mean" if group == "results" else "value"] = value
                    out[name] = entry
    series = _series_of(inputs, list(order), np.ascontiguousarray(data), sweep)
    return RunFile(p, inputs, series, index, sweep, run, results, derived)


__all__ = ["RunFile", "read_csv", "read_hdf5"]
