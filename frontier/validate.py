"""Argument checks shared by every public entry point, in the style of scipy.sparse.csgraph: each
argument is checked before any work is done (no allocation, no compilation, no launch), and a bad
one raises at once with what was given, where, and what was expected.

An algorithm's entry point calls them first, in this order: the graph (:func:`graph`), its
source or sources (:func:`source`, :func:`sources`), its own options (the helpers below), the
weights it needs (:func:`non_negative_weights`, :func:`path_sums`), then resolves the balancer
(``operators.get_balancer``: the registry of balancers lives in the operator layer, above this
module) once, and passes the resolved object to every operator it calls.

The helpers, for algorithms and operators to reuse (each returns the checked value, converted):

* :func:`graph` — a :class:`frontier.Graph` (anything else: ``TypeError`` naming where it was
  passed): the one graph check of the library, for algorithms, operators, frontiers and I/O;
* :func:`source` — a vertex id of the graph (``source``): an integer in ``0 .. |V|-1``, any
  integer dtype (``np.uint64`` included) when the value fits;
* :func:`sources` — one vertex id or a list of them (``sources``), as an int64 array in the
  order given (a device array is copied to the host);
* :func:`non_negative_weights` — refuse a graph with a negative edge weight where the algorithm
  needs none;

* :func:`count` — a non-negative integer (``num_vertices``, ``max_steps``, ``capacity``):
  Python and NumPy integers are accepted, ``3.7``, ``3.0``, ``True`` and strings are not;
* :func:`positive` — a finite number > 0 (thresholds such as ``alpha``, ``beta``, a tolerance,
  a damping factor's complement);
* :func:`fraction` — a finite number in an interval (``damping=0.85``: ``0 < x < 1``);
* :func:`flag` — a ``bool`` or NumPy bool (``fused``, ``unique``, ``directed``; not ``"yes"``,
  ``"no"`` nor ``1``: any string is truthy, so ``directed="no"`` would silently mean True), or
  None where the argument also takes None (``normalized``);
* :func:`one_of` — a name among the valid ones, listed in the message (``direction``,
  ``frontier`` kind, ``method``, ``op``); registries pass their own names (balancers come from
  ``operators.available_balancers()``);
* :func:`vertex` — a vertex id ``0 .. num_vertices-1`` (what :func:`source` checks, for a
  caller without a graph);
* :func:`vertices` — an array of vertex ids, converted to int64 losslessly;
* :func:`path_sums` — refuse weights whose path sums could overflow the dtype the distances
  are summed in (``1e308 + 1e308`` is ``inf``, which reads as "unreachable"); :func:`forest_sums`
  the same for the total weight of a spanning forest;
* :func:`file_path` — a file name: ``str``, ``bytes`` (decoded as the file system does, as
  ``open`` takes it) or ``os.PathLike``, as a ``str``;
* :func:`unused` — refuse arguments the chosen mode would ignore (``alpha`` with
  ``direction="push"``): an argument that is accepted and then ignored hides a mistake, so it
  raises instead.

Every check raises ``TypeError`` for a value of the wrong kind and ``ValueError`` for a value of
the right kind out of range (the scipy convention), with the argument's name in the message.
Numbers are Python or NumPy numbers alike (``np.float32(0.85)``, ``np.int64(3)``); a bool is not
a number.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from functools import cache
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

import numpy as np

from frontier import messages
from frontier.runtime.device_arrays import is_device_array, to_host

if TYPE_CHECKING:
    from frontier.graph import Graph

_INT64_MAX = int(np.iinfo(np.int64).max)

__all__ = ["graph", "source", "sources", "non_negative_weights", "count", "positive",
           "fraction", "flag", "one_of", "vertex", "vertices", "bounds", "integer", "path_sums",
           "forest_sums", "file_path", "unused"]


def graph(value: Any, where: str = "graph") -> Graph:
    """``value`` if it is a :class:`frontier.Graph`; else ``TypeError`` saying ``where`` it was
    passed (``"graph"``, the argument of most calls; ``"save(graph, ...)"``), what it is, and
    what was expected."""
    if not isinstance(value, _graph_class()):
        raise TypeError(f"{where}: expected a frontier.Graph, got {type(value).__name__}")
    return value


@cache
def _graph_class() -> type:
    from frontier.graph import Graph  # frontier.graph imports this module

    return Graph


def source(of: Graph, value: Any, name: str = "source") -> int:
    """``value`` as a vertex id of the graph ``of`` (checked first: :func:`graph`)."""
    return vertex(name, value, graph(of).num_vertices)


def sources(of: Graph, values: Any, name: str = "sources") -> np.ndarray:
    """``values``, one vertex id of the graph ``of`` or an iterable of them, as a 1-D int64
    array in the order given (repeats kept: each caller says whether it takes them). A device
    array (:mod:`frontier.runtime.device_arrays`) is copied to the host: sources seed a frontier,
    which is built from host ids."""
    n = graph(of).num_vertices
    if integer(values):  # one vertex id, the common case, without the checks below
        return np.asarray([vertex(name, values, n)], np.int64)
    if is_device_array(values):
        values = to_host(values)
    if isinstance(values, Iterable) and not isinstance(values, (str, bytes, np.ndarray)):
        values = list(values)
    if np.ndim(values) == 0:
        one = values.item() if isinstance(values, np.ndarray) else values
        return np.asarray([vertex(name, one, n)], np.int64)
    return vertices(name, values, n)


def non_negative_weights(what: str, of: Graph, fix: str,
                         error: type[ValueError] = ValueError) -> None:
    """Raise ``error`` (a ValueError) if the graph ``of`` has a negative edge weight: ``what``
    needs none; ``fix`` says what to do instead."""
    w = of.weights
    if w is not None and w.size and w.min() < 0:
        raise error(f"{what} needs non-negative edge weights; this graph has a weight of "
                    f"{w.min()}: {fix}")


def integer(value: Any) -> bool:
    """Whether ``value`` is an integer of any integer type, bools excluded (a plain int
    first: the common case, without the ABC check)."""
    return type(value) is int or (isinstance(value, Integral)
                                  and not isinstance(value, (bool, np.bool_)))


def count(name: str, value: Any, low: int = 0, high: int | None = None) -> int:
    """``value`` as an int with ``low <= value <= high`` (``high`` None: up to 2**63 - 1, the
    most a kernel's int64 can hold)."""
    top = _INT64_MAX if high is None else high
    if integer(value) and low <= value <= top:
        return int(value)
    bounds = f"{low} <= {name}" + ("" if high is None else f" <= {high}")
    if not integer(value):
        raise TypeError(f"{name}={value!r}; expected an integer, {bounds}")
    v = int(value)
    if high is None and v > _INT64_MAX:
        bounds += f" <= {_INT64_MAX} (2**63 - 1)"
    raise ValueError(f"{name}={v}; expected {bounds}")


def positive(name: str, value: Any) -> float:
    """``value`` as a float, finite and > 0."""
    return fraction(name, value, 0.0, math.inf, closed=False)


def fraction(name: str, value: Any, low: float, high: float, *, closed: bool = False) -> float:
    """``value`` as a finite float with ``low < value < high`` (``<=`` on both sides when
    ``closed``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise TypeError(f"{name}={value!r}; expected a number")
    v = float(value)
    inside = low <= v <= high if closed else low < v < high
    if not math.isfinite(v) or not inside:
        rel = "<=" if closed else "<"
        expected = (f"a finite number > {low:g}" if high == math.inf
                    else f"a finite number with {low:g} {rel} {name} {rel} {high:g}")
        raise ValueError(f"{name}={value!r}; expected {expected}")
    return v


def flag(name: str, value: Any, *, none: bool = False) -> Any:
    """``value`` as a bool if it is one (NumPy's included); None passes too when ``none``."""
    if none and value is None:
        return None
    if not isinstance(value, (bool, np.bool_)):
        choices = "True, False or None" if none else "True or False"
        raise TypeError(f"{name}={value!r}; expected {choices}")
    return bool(value)


def one_of(name: str, value: Any, valid: Iterable[str], what: str | None = None) -> str:
    """``value`` if it is one of the names ``valid``, as the member where ``valid`` is an
    :class:`frontier.options.Option` (found by its value, without going over the members);
    the message lists them."""
    if isinstance(valid, type):
        member = valid._value2member_map_.get(value) if isinstance(value, str) else None
        if member is not None:
            return member
        names = tuple(member.value for member in valid)
    else:
        names = tuple(valid)
        if isinstance(value, str) and value in names:
            return value
    raise ValueError(f"unknown {what or name} {value!r}; expected one of "
                     f"{', '.join(repr(n) for n in names)}")


def vertex(name: str, value: Any, num_vertices: int) -> int:
    """``value`` as a vertex id ``0 <= value < num_vertices`` (any integer type)."""
    if not integer(value):
        raise TypeError(f"{name}={value!r}; expected a vertex id (an integer)")
    v = int(value)
    if not 0 <= v < num_vertices:
        ids = f"ids 0..{num_vertices - 1}" if num_vertices else "no vertex ids"
        raise ValueError(f"{name} {v} is out of range; the graph has {num_vertices} "
                         f"vertices ({ids})")
    return v


def vertices(name: str, values: Any, num_vertices: int) -> np.ndarray:
    """``values`` as a 1-D int64 array of vertex ids in ``0 .. num_vertices-1``; integer dtypes
    are converted when every value fits (uint64 included), anything else raises."""
    a = np.asarray(values)
    if a.ndim > 1:
        raise ValueError(f"{name} has {a.ndim} dimensions; expected a 1-D list of vertex ids")
    a = a.reshape(-1)
    if a.size == 0:
        return a.astype(np.int64)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{name} has dtype {a.dtype}; expected integer vertex ids")
    low, high = bounds(a)
    if low < 0 or high >= num_vertices:
        bad = low if low < 0 else high
        raise ValueError(f"{name} holds {bad}, out of range; expected 0 <= id < {num_vertices}")
    return a.astype(np.int64)


def bounds(ids: np.ndarray) -> tuple[int, int]:
    """The least and the largest of a non-empty integer array, as ints (a short array read
    as a list: cheaper than two reductions)."""
    if ids.size <= _SHORT:
        listed = ids.tolist()
        return min(listed), max(listed)
    return int(ids.min()), int(ids.max())


#: Arrays of at most this many elements are bounded by :func:`bounds` as lists.
_SHORT = 64


def path_sums(what: str, bound: float, dtype: Any) -> None:
    """Raise ValueError if a path sum of up to ``bound`` in absolute value (from
    :func:`frontier.graph.path_bound`) could leave the range of ``dtype``, the dtype the
    distances are summed in. A float sum rounds at each addition, so a float bound must stay a
    little below the largest finite value (2^-20 of it: a path of 2^31 additions rounds by less
    than that)."""
    dt = np.dtype(dtype)
    fits, top = _sum_fits(bound, dt)
    if not fits:
        reach = (f"{float(bound):.4g}" if math.isfinite(bound)
                 else f"more than {float(top):.4g}")
        raise ValueError(f"{what}: a simple path's total weight can reach {reach} (largest "
                         "|weight| x (|V| - 1), or the sum of all |weights| if smaller), past "
                         f"what {dt.name} distances hold ({float(top):.4g}), so a distance could "
                         "overflow to inf and read as unreachable; expected weights whose path "
                         "sums fit: scale them down")


def forest_sums(what: str, bound: float, dtype: Any) -> None:
    """Raise ValueError if a forest's total weight, up to ``bound`` in absolute value (as for a
    simple path: :func:`frontier.graph.path_bound`), could leave the range of ``dtype``."""
    dt = np.dtype(dtype)
    fits, top = _sum_fits(bound, dt)
    if not fits:
        reach = (f"{float(bound):.4g}" if math.isfinite(bound)
                 else f"more than {float(top):.4g}")
        raise ValueError(f"{what}: a forest's total weight can reach {reach} (largest |weight| "
                         "x (|V| - 1), or the sum of all |weights| if smaller), past what "
                         f"{dt.name} holds ({float(top):.4g}), so the total could overflow to "
                         "inf; expected weights whose sums fit: scale them down")


def _sum_fits(bound: float, dt: np.dtype) -> tuple[bool, float]:
    """Whether sums of up to ``bound`` fit ``dt`` (a float sum rounds at each addition, so a
    float bound stays a little below the largest finite value), and that largest value."""
    top = _largest(dt)
    if dt.kind == "f":
        return math.isfinite(bound) and bound <= top * (1 - 2.0 ** -20), top
    return bound <= top, top


@cache
def _largest(dt: np.dtype) -> float | int:
    """The largest value of ``dt`` (looked up once per dtype: a call checks its sums)."""
    return float(np.finfo(dt).max) if dt.kind == "f" else int(np.iinfo(dt).max)


def file_path(name: str, value: Any) -> str:
    """``value`` as a ``str`` file name: a str, bytes (``os.fsdecode``) or os.PathLike;
    ``TypeError`` naming what it is else."""
    try:
        return os.fsdecode(os.fspath(value))
    except TypeError:
        raise TypeError(f"{name}={messages.text(value)} ({type(value).__name__}); expected a "
                        "file name (str, bytes or os.PathLike)") from None


def unused(mode: str, given: Mapping[str, Any]) -> None:
    """Raise if any argument of ``given`` (name -> value, None meaning "not given") was passed
    although ``mode`` ignores it."""
    passed = [n for n, v in given.items() if v is not None]
    if passed:
        names = " and ".join(passed)
        raise ValueError(f"{names} {'has' if len(passed) == 1 else 'have'} no effect with "
                         f"{mode}; leave {'it' if len(passed) == 1 else 'them'} out")
