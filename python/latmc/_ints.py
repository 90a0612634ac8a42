"""Integer arguments, checked against the C type they are passed as.

ctypes converts a Python int to a C integer by truncation: 2**64 + 8 passed as an int64_t
extent arrives as 8, 2**32 + 1 passed as an int arrives as 1. Every integer the package
hands to the library therefore goes through one of these functions first, which raise
:class:`latmc.InvalidArgument` naming the argument and the accepted range instead.
Only true integers are accepted (int, numpy integers; not bool, not float: 16.5 would
otherwise become 16 without a word).
"""
from __future__ import annotations

import operator

from .errors import InvalidArgument

INT_MIN, INT_MAX = -2**31, 2**31 - 1          # C int (LP64 and ILP32)
INT64_MIN, INT64_MAX = -2**63, 2**63 - 1
UINT64_MAX = 2**64 - 1


def integer(v, what: str) -> int:
    """``v`` as a Python int; InvalidArgument for anything that is not an integer."""
    if isinstance(v, bool):
        raise InvalidArgument("%s must be an integer, got the bool %r" % (what, v))
    try:
        return operator.index(v)
    except TypeError:
        raise InvalidArgument("%s must be an integer, got %r" % (what, v)) from None


def in_range(v, what: str, lo: int, hi: int) -> int:
    """``v`` as an int in [lo, hi]; InvalidArgument naming the range otherwise."""
    i = integer(v, what)
    if not lo <= i <= hi:
        raise InvalidArgument("%s must be in [%d, %d], got %d" % (what, lo, hi, i))
    return i


def c_int(v, what: str) -> int:
    """An argument passed as a C int."""
    return in_range(v, what, INT_MIN, INT_MAX)


def nonneg_c_int(v, what: str) -> int:
    """A C int that must not be negative (an index, a count)."""
    return in_range(v, what, 0, INT_MAX)


def i64(v, what: str) -> int:
    """An argument passed as int64_t."""
    return in_range(v, what, INT64_MIN, INT64_MAX)


def u64(v, what: str) -> int:
    """An argument passed as uint64_t (seeds, sweep counts)."""
    return in_range(v, what, 0, UINT64_MAX)
