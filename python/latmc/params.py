"""Names of models, algorithms, parameters and observables, and the ``sim.params`` view."""
from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Dict, Iterator, List, Tuple

from . import _ints, _lib
from .errors import InvalidArgument, Unsupported, check, check_global

if TYPE_CHECKING:  # pragma: no cover
    from .sim import Sim


def _models() -> Dict[str, int]:
    """name -> number of every model of the loaded library: latmc_model_name for 1, 2, ...
    until NULL (numbered without gaps), so a model the library gains needs no change here."""
    f = getattr(_lib.lib, "latmc_model_name", None)
    if f is None:  # a liblatmc before 0.3, which has no latmc_model_name: its four models
        return {"ising": _lib.MODEL_ISING, "potts": _lib.MODEL_POTTS,
                "phi4": _lib.MODEL_PHI4, "heisenberg": _lib.MODEL_HEISENBERG}
    out: Dict[str, int] = {}
    model = 1
    while True:
        name = f(model)
        if not name:
            return out
        out[name.decode()] = model
        model += 1


#: model name -> enum latmc_model value, as the library names them (latmc_model_name)
MODELS: Dict[str, int] = _models()

ALGORITHMS: Dict[str, int] = {"default": _lib.ALGO_DEFAULT, "metropolis": _lib.ALGO_METROPOLIS,
                              "heatbath": _lib.ALGO_HEATBATH, "overrelax": _lib.ALGO_OVERRELAX,
                              "sw": _lib.ALGO_SWENDSEN_WANG, "wolff": _lib.ALGO_WOLFF}
PRECISIONS: Dict[str, int] = {"float": _lib.PRECISION_FLOAT, "double": _lib.PRECISION_DOUBLE}
COUPLINGS: Dict[str, int] = {"uniform": _lib.COUPLINGS_UNIFORM,
                             "gaussian": _lib.COUPLINGS_GAUSSIAN,
                             "bimodal": _lib.COUPLINGS_BIMODAL}
INITS: Dict[str, int] = {"cold": _lib.INIT_COLD, "hot": _lib.INIT_HOT}


def enum_code(table: Dict[str, int], value, what: str) -> int:
    """A name of ``table`` (or one of its values) -> the C enum value; InvalidArgument else."""
    if isinstance(value, int) and not isinstance(value, bool):
        return _ints.c_int(value, what)  # the library checks the number itself
    try:
        return table[str(value).lower()]
    except KeyError:
        raise InvalidArgument("unknown %s %r (one of: %s)"
                              % (what, value, ", ".join(table))) from None


def enum_name(table: Dict[str, int], code: int) -> str:
    for k, v in table.items():
        if v == code:
            return k
    return str(code)


def _names(fn) -> Dict[str, int]:
    out = {}
    for key in range(1, 64):
        name = fn(key)
        if name:
            out[name.decode()] = key
    return out


#: observable name -> key, as the library names them (latmc_observable_name)
OBSERVABLES: Dict[str, int] = _names(_lib.lib.latmc_observable_name)
#: parameter name -> key (latmc_param_name)
PARAMETERS: Dict[str, int] = _names(_lib.lib.latmc_param_name)


def param_key(name) -> int:
    """A parameter name ("beta", "mu2", ...) -> its key, through latmc_param_by_name."""
    if isinstance(name, int) and not isinstance(name, bool):
        return _ints.c_int(name, "parameter key")
    key = ctypes.c_int()
    check_global(_lib.lib.latmc_param_by_name(str(name).encode(), ctypes.byref(key)))
    return key.value


def observable_key(name) -> int:
    """An observable name ("energy", "m2", ...) -> its key."""
    if isinstance(name, int) and not isinstance(name, bool):
        return _ints.c_int(name, "observable key")
    try:
        return OBSERVABLES[name]
    except KeyError:
        raise InvalidArgument("unknown observable %r (one of: %s)"
                              % (name, ", ".join(OBSERVABLES))) from None


def param_bounds(model, name) -> Tuple[float, float]:
    """(lo, hi) of a parameter for a model, from latmc_param_bounds when the loaded library
    has it (a later version); else NotImplementedError."""
    f = getattr(_lib.lib, "latmc_param_bounds", None)
    if f is None:
        raise NotImplementedError("this liblatmc has no latmc_param_bounds")
    lo, hi = ctypes.c_double(), ctypes.c_double()
    check_global(f(enum_code(MODELS, model, "model"), param_key(name), ctypes.byref(lo),
                   ctypes.byref(hi)))
    return lo.value, hi.value


class Params:
    """``sim.params``: the model's parameters by name, read and written through the library
    (``sim.params["beta"] = 0.44``; ``dict(sim.params)``). Bad names or values raise the
    library's InvalidArgument; a parameter of another model raises Unsupported."""

    def __init__(self, sim: "Sim") -> None:
        self._sim = sim

    def __getitem__(self, name) -> float:
        sim = self._sim
        v = ctypes.c_double()
        check(_lib.lib.latmc_sim_get_param(sim._live(), param_key(name), ctypes.byref(v)),
              sim._message)
        return v.value

    def __setitem__(self, name, value: float) -> None:
        sim = self._sim
        check(_lib.lib.latmc_sim_set_param(sim._live(), param_key(name), float(value)),
              sim._message)

    def update(self, values=(), **kw) -> None:
        """Set several parameters, in order (like dict.update)."""
        for k, v in dict(values, **kw).items():
            self[k] = v

    def keys(self) -> List[str]:
        """The parameters of this sim's model."""
        out = []
        for name in PARAMETERS:
            try:
                self[name]
            except Unsupported:
                continue
            out.append(name)
        return out

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self.keys())

    def __contains__(self, name) -> bool:
        return name in self.keys()

    def items(self) -> List[Tuple[str, float]]:
        return [(k, self[k]) for k in self.keys()]

    def values(self) -> List[float]:
        return [self[k] for k in self.keys()]

    def get(self, name, default=None):
        try:
            return self[name]
        except (InvalidArgument, Unsupported):
            return default

    def __repr__(self) -> str:
        return "Params(%s)" % dict(self.items())
