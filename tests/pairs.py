"""Covering designs for the test matrices: instead of the cross product of several factors
(target x method x balancer x direction ...), a few rows in which every PAIR of levels of every
two factors occurs at least once (an all-pairs covering array, built greedily in the manner of
IPOG). A bug that needs two options together is caught as surely as by the cross product, at
about the product of the two largest factors in rows instead of the product of all of them.

Levels come from the registries (``available_balancers()``, the catalog, the ``TARGETS`` of
tests/conftest.py, an option enum), never from hand-written lists. A level may be a
``pytest.param``: its marks (the ``simulator`` marker of the cuda target) go with every row
holding it, and its id names it in the row's id.

Use :func:`pairwise` as a parametrize decorator; a factor named ``target`` is passed to the
``target`` fixture (indirect), which resolves it::

    @pairwise(target=TARGETS, method=METHODS, balancer=available_balancers())
    def test_every_pair_equals_the_reference(target, method, balancer): ...
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, product
from typing import Any

import pytest
from _pytest.mark import ParameterSet

from tests.tiers import SIMULATED

#: What a row on a level marked ``simulator`` costs against one on any other level.
SIMULATOR_COST = 8.0

#: Factors passed to a fixture of the same name rather than to the test directly.
INDIRECT = ("target", "race_target")


def covering_rows(levels: Sequence[Sequence[Any]],
                  costs: Sequence[Sequence[float]] | None = None) -> list[tuple[int, ...]]:
    """Rows of level indices, one entry per factor, covering every pair of levels of every two
    factors. ``costs`` (one per level, default 1) steer the choices: a costly level goes into
    a row only where it covers more pairs for its cost than a cheap one. Deterministic: the
    same factors give the same rows."""
    sizes = [len(f) for f in levels]
    cost = [list(c) for c in costs] if costs is not None else [[1.0] * s for s in sizes]
    if any(s == 0 for s in sizes):
        raise ValueError(f"a factor has no level: sizes {sizes}")
    if len(sizes) == 1:
        return [(i,) for i in range(sizes[0])]
    # the largest factors first (their cross product is the least any covering needs), of
    # equal sizes the one with costly levels last (the rows choose its levels)
    order = sorted(range(len(sizes)), key=lambda f: (-sizes[f], max(cost[f]) > 1))
    rows: list[list[int | None]] = [list(r) for r in product(range(sizes[order[0]]),
                                                               range(sizes[order[1]]))]
    for k in range(2, len(order)):
        missing = {(j, a, b) for j in range(k) for a in range(sizes[order[j]])
                   for b in range(sizes[order[k]])}
        # horizontal growth: each row takes the level of the new factor covering most pairs
        for row in rows:
            gains = [sum((j, row[j], b) in missing for j in range(k))
                     for b in range(sizes[order[k]])]
            price = cost[order[k]]
            best = max(range(len(gains)), key=lambda b: (gains[b] / price[b], -price[b], -b))
            row.append(best)
            missing -= {(j, row[j], best) for j in range(k)}
        # vertical growth: rows for the pairs still missing, filling free slots first
        extra: list[list[int | None]] = []
        for j, a, b in sorted(missing):
            for row in extra:
                if row[k] == b and row[j] in (None, a):
                    row[j] = a
                    break
            else:
                row = [None] * (k + 1)
                row[j], row[k] = a, b
                extra.append(row)
        rows += extra
    # free slots take the level used least so far, spreading the work
    for f in range(len(order)):
        for row in rows:
            if row[f] is None:
                used = [sum(r[f] == v for r in rows) for v in range(sizes[order[f]])]
                price = cost[order[f]]
                row[f] = min(range(sizes[order[f]]), key=lambda v: (price[v], used[v], v))
    back = {f: i for i, f in enumerate(order)}
    return [tuple(row[back[f]] for f in range(len(sizes))) for row in rows]


def covering(**factors: Sequence[Any]) -> list[ParameterSet]:
    """``pytest.param`` rows of ``factors`` (name -> levels) covering every pair of levels. In
    the simulator tier a level marked ``simulator`` (the cuda target) costs
    :data:`SIMULATOR_COST` rows of any other: it is paired in as few rows as the covering
    allows."""
    names = list(factors)
    params = [[p if isinstance(p, ParameterSet) else pytest.param(p) for p in factors[n]]
              for n in names]
    costs = [[SIMULATOR_COST if SIMULATED and _simulator(p) else 1.0 for p in levels]
             for levels in params]
    rows = []
    for row in covering_rows(params, costs):
        chosen = [params[f][i] for f, i in enumerate(row)]
        values = tuple(v for p in chosen for v in p.values)
        marks = [m for p in chosen for m in p.marks]
        ids = "-".join(p.id if p.id is not None else str(p.values[0]) for p in chosen)
        rows.append(pytest.param(*values, marks=marks, id=ids))
    return rows


def pairwise(**factors: Sequence[Any]) -> pytest.MarkDecorator:
    """A ``parametrize`` decorator over a covering of ``factors``: every pair of levels of every
    two factors in some row. Factors named in :data:`INDIRECT` go to their fixture."""
    indirect = [n for n in factors if n in INDIRECT]
    return pytest.mark.parametrize(list(factors), covering(**factors), indirect=indirect)


def pairs_of(rows: Sequence[Sequence[Any]]) -> set[tuple[int, int, Any, Any]]:
    """Every ``(i, j, level_i, level_j)`` pair that ``rows`` hold (for checking a covering)."""
    return {(i, j, row[i], row[j]) for row in rows
            for i, j in combinations(range(len(row)), 2)}


def simulated_rows(rows: Sequence[ParameterSet], simulated: bool) -> list[ParameterSet]:
    """In the simulator tier, the rows of a covering that run in the simulator (``simulated``:
    those holding a level marked ``simulator``) or the others; in other tiers no row is
    simulated. Two tests of one body can so run the two with example counts and graph sizes
    of their own, the union still covering every pair."""
    return [r for r in rows if SIMULATED and _simulator(r) == simulated or
            not SIMULATED and not simulated]


def _simulator(param: ParameterSet) -> bool:
    return any(m.name == "simulator" for m in param.marks)
