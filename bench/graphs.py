"""The graphs of the benchmarks, by name, and the named sets the suites run by default.

A graph name is one of:

* a generated graph: ``rmat{SCALE}``, ``grid{SIDE}`` (``SIDE x SIDE``), ``star{LEAVES}`` (a hub
  and that many leaves), ``path{N}``, each optionally followed by ``_w{LO}-{HI}`` (integer
  weights drawn in ``LO..HI``) and ``_seed{S}`` (the generator's seed; 0 by default), and for
  R-MAT ``_directed`` (each generated edge one arc): ``rmat21``, ``grid2000_w1-63``,
  ``rmat13_seed1``, ``rmat21_directed``;
* a dataset of :func:`frontier.testing.dataset_dir`, by its file name up to the first dot:
  ``luxembourg_osm``, ``email-Enron`` (``facebook_combined`` is symmetrized: its file lists each
  friendship once), optionally followed by ``_w{LO}-{HI}`` (its weights replaced by integers
  drawn in ``LO..HI``, both arcs of an edge sharing one): ``luxembourg_osm_w1-100``;
* ``gnm{SCALE}_float``: 2^SCALE vertices, 2^(SCALE+3) random edges, float weights in [0, 1);
* a generator spec of :func:`frontier.generators.from_spec`: ``rmat:8``, ``grid:12x12``.

A ``--graphs`` list (:func:`expand`) holds names and the names of the sets of :data:`SETS`
(``--graphs goals,rmat22``).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from frontier import generators
from frontier.graph import Graph
from frontier.io import load
from frontier.testing import dataset_dir

_GENERATED = re.compile(
    r"(rmat|grid|star|path)(\d+)(?:_w(\d+)-(\d+))?(?:_seed(\d+))?(_directed)?")
#: Datasets whose file lists each undirected edge once.
_SYMMETRIZE = frozenset({"facebook_combined"})
_REWEIGHTED = re.compile(r"(.+)_w(\d+)-(\d+)")
_GNM_FLOAT = re.compile(r"gnm(\d+)_float")


class GraphNameError(ValueError):
    """A graph name that is neither generated, a dataset here, nor a generator spec."""


def _generated(name: str) -> Callable[[], Graph] | None:
    match = _GENERATED.fullmatch(name)
    if match is None:
        return None
    kind, size, lo, hi, seed, directed = match.groups()
    n = int(size)
    options: dict = {"seed": int(seed or 0)}
    if lo is not None:
        options["weights"] = (int(lo), int(hi))
    if kind == "rmat":
        return lambda: generators.rmat(n, directed=directed is not None, **options)
    if directed:
        return None
    if kind == "grid":
        return lambda: generators.grid2d(n, n, **options)
    if kind == "star":
        return lambda: generators.star(n + 1, **options)
    return lambda: generators.path(n, **options)


def reweighted(graph: Graph, low: float, high: float, seed: int = 0, floats: bool = False
               ) -> Graph:
    """``graph`` with new weights drawn in ``low..high`` (integers, or floats in ``[low,
    high)``), one per edge of an undirected graph (both arcs share it)."""
    coo = graph.coo()
    src, dst = coo.src, coo.dst
    if not graph.directed:
        keep = src <= dst
        src, dst = src[keep], dst[keep]
    rng = np.random.default_rng(seed)
    w = (rng.uniform(low, high, src.size) if floats
         else rng.integers(int(low), int(high), src.size, endpoint=True))
    return Graph.from_edges(src, dst, w, directed=graph.directed,
                            num_vertices=graph.num_vertices)


def datasets() -> dict[str, Path]:
    """Name -> file of every dataset here (none without a datasets folder)."""
    folder = dataset_dir()
    if folder is None:
        return {}
    return {path.name.split(".")[0]: path for path in sorted(folder.glob("*.gz"))}


def builder(name: str) -> Callable[[], Graph]:
    """How to build the graph ``name`` (nothing is built or read yet); GraphNameError for a
    name that is none of the kinds above."""
    made = _generated(name)
    if made is not None:
        return made
    files = datasets()
    if name in files:
        return lambda: load(files[name], symmetrize=name in _SYMMETRIZE)
    weighted = _REWEIGHTED.fullmatch(name)
    if weighted is not None and weighted.group(1) in files:
        base, lo, hi = weighted.group(1), int(weighted.group(2)), int(weighted.group(3))
        return lambda: reweighted(load(files[base], symmetrize=base in _SYMMETRIZE), lo, hi)
    gnm = _GNM_FLOAT.fullmatch(name)
    if gnm is not None:
        scale = int(gnm.group(1))
        return lambda: reweighted(generators.gnm(1 << scale, 1 << (scale + 3)), 0, 1,
                                  floats=True)
    if ":" in name:
        kind, _, rest = name.partition(":")
        form = generators.SPECS.get(kind)
        try:
            if form is None:
                raise generators.SpecError(f"generator spec {name!r}: expected one of "
                                           + ", ".join(f.usage for f in generators.SPECS.values()))
            form.numbers(name, rest)  # a malformed spec is refused now, not when built
        except generators.SpecError as err:
            raise GraphNameError(str(err)) from None
        return lambda: generators.from_spec(name)
    where = dataset_dir()
    raise GraphNameError(
        f"graph {name!r}: expected a generated name (rmat21, grid2000, star1000000, path1000000, "
        "optionally _w1-63 and _seed1), a generator spec (rmat:8, grid:12x12), a set "
        f"({', '.join(SETS)}) or a dataset of {where or 'the datasets folder (none here)'}"
        + (f" ({', '.join(files)})" if files else ""))


def build(name: str) -> Graph:
    """The graph ``name``, built or read."""
    return builder(name)()


def _suite(quick: bool) -> list[str]:
    scales = (16,) if quick else (20, 21, 22)
    sides = (200,) if quick else (2000, 4000)
    leaves = 10_000 if quick else 1_000_000
    return [*(f"rmat{s}" for s in scales), *(f"grid{side}" for side in sides),
            f"star{leaves}", f"path{leaves}", *datasets()]


#: Name -> the graphs of a set, in the order the suites run them (a callable: the datasets are
#: those found when it is called).
SETS: dict[str, Callable[[], list[str]]] = {
    # the catalog suite: generated graphs of several shapes, then every dataset
    "standard": lambda: _suite(quick=False),
    "quick": lambda: _suite(quick=True),
    # the adaptive runtime's goals (docs/adaptive.md)
    "goals": lambda: ["rmat21", "grid2000", "luxembourg_osm", "star1000000", "path1000000"],
    # the anchors of shared/anchors.md (Gunrock on the same H100)
    "anchors": lambda: ["rmat21", "grid2000", "luxembourg_osm", "delaunay_n16"],
    # graphs of opposite shapes, for the load balancers (docs/balancers.md)
    "shapes": lambda: ["luxembourg_osm", "email-Enron", "rmat22", "star1000000", "grid2000"],
    # many-level graphs, for the small-frontier mode
    "many_levels": lambda: ["luxembourg_osm", "grid2000", "rmat21", "path1000000"],
    # SSSP's timed graphs, and their small stand-ins
    "weighted": lambda: ["luxembourg_osm", "luxembourg_osm_w1-100", "delaunay_n16", "rome99",
                         "grid2000_w1-100", "rmat21_w1-100", "gnm20_float"],
    "weighted_quick": lambda: ["rmat16_w1-63", "grid200_w1-63"],
    # shapes and sizes for a least-squares fit of memory per vertex and per arc
    "memory": lambda: ["path20000", "path80000", "grid150", "grid300", "rmat13_seed1",
                       "rmat15_seed1"],
    # a few small graphs of each shape, for smoke tests (seconds on the cpu target)
    "tiny": lambda: ["grid:12x12", "rmat:8", "path:40"],
    "datasets": lambda: list(datasets()),
}


def expand(names: str) -> list[str]:
    """The graph names of a comma-separated list of names and set names, in order, each once;
    GraphNameError (before anything is built) for a name that is none of them. A set's
    datasets that are not here are skipped, and said so on stderr."""
    found: list[str] = []
    for name in filter(None, (n.strip() for n in names.split(","))):
        in_set = name in SETS
        for graph in SETS[name]() if in_set else [name]:
            if in_set and _GENERATED.fullmatch(graph) is None and ":" not in graph \
                    and graph not in datasets():
                print(f"graph set {name}: {graph} skipped (not among the datasets here)",
                      file=sys.stderr)
                continue
            builder(graph)  # refused here, before any graph is built
            if graph not in found:
                found.append(graph)
    return found


def source_of(graph: Graph) -> int:
    """The source every suite starts from: the vertex of largest out-degree (0 without arcs)."""
    return int(np.argmax(graph.out_degrees())) if graph.num_edges else 0
