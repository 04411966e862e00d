"""NetworkX graphs as Frontier graphs: one conversion per graph and edge attribute, read from
NetworkX's adjacency with iterators (no Python loop per edge), kept by NetworkX in
``G.__networkx_cache__`` (``networkx.config.cache_converted_graphs``).

A view (``G.subgraph(...)``, ``nx.subgraph_view``, ``nx.restricted_view``, ``G.reverse(copy=
False)``, ``G.to_directed(as_view=True)``, ...) shows the data of the graph it was made from,
whose changes clear that graph's cache and not the view's: NetworkX would hand the backend a
conversion of what the view showed before. A view is therefore never cached
(:func:`uncache_view`): each call converts what it shows now.

A :class:`FrontierGraph` keeps one arc per (node, neighbour) pair in NetworkX's adjacency order
(an undirected edge as two arcs, a self-loop once), the values of the edge attributes NetworkX
asked for (every parallel edge's value in a multigraph), and builds the
:class:`frontier.graph.Graph` each call needs on demand: weighted by the attribute the call
names or unweighted (``weight=None`` is honoured even where the conversion holds weights), with
parallel edges combined the way the NetworkX function combines them (``min`` for shortest
paths, ``sum`` for link analysis), reversed or made undirected.

The nodes and arrays are read when a call first needs them, not when NetworkX asks for the
conversion: the ordered searches of :mod:`frontier_nx.traversal` start on NetworkX's adjacency
(:meth:`FrontierGraph.adjacency`) and read the arrays only where a level grows large enough
that it pays, so a reader that stops after a few levels never pays for them. They are read as
the graph is then (as NetworkX's own generators read the graph as it is when they go on); a
node that a search met and that left the graph since raises RuntimeError.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain, repeat
from operator import itemgetter, methodcaller
from typing import TYPE_CHECKING, Any

import networkx as nx

from frontier_nx import bulk
from frontier_nx.lazy import LazyModule

if TYPE_CHECKING:
    from frontier.graph import Graph

np = LazyModule("numpy")
_graph = LazyModule("frontier.graph")
_sparse = LazyModule("scipy.sparse")

__all__ = ["FrontierGraph", "from_networkx", "is_view", "uncache_view"]

#: the key of a graph's arrays among what it builds once (``FrontierGraph._built``)
_ARRAYS = ("arrays",)
#: ... and of the arcs searches have scanned on NetworkX's adjacency before the arrays were read
_SEARCHED = ("searched",)


class _Values(dict):
    """attribute -> one value per parallel edge, in arc order. An attribute the conversion
    does not hold reads as NetworkX's default of 1 on every edge (``in`` still says it is not
    held): NetworkX reuses a conversion that kept every attribute some edge has for a call
    that reads another, which no edge has then."""

    def __init__(self, values: dict[str, list], edges: int) -> None:
        super().__init__(values)
        self.edges = edges

    def __missing__(self, attribute: str) -> list:
        return [1] * self.edges


@dataclass(frozen=True)
class _Arrays:
    """What the conversion reads from NetworkX's adjacency (see :class:`FrontierGraph`)."""

    nodes: list
    identity: bool
    #: node -> vertex id, where the nodes are not their own ids (``identity``)
    index: dict | None
    offsets: np.ndarray
    heads: np.ndarray
    multiplicity: np.ndarray | None
    values: dict[str, list]
    in_arcs: tuple[np.ndarray, np.ndarray] | None


@dataclass(frozen=True, eq=False)
class FrontierGraph:
    """A converted NetworkX graph: vertex ``i`` is ``nodes[i]``; arcs ``offsets``/``heads`` in
    NetworkX's adjacency order (``multiplicity[a]`` parallel edges behind arc ``a`` of a
    multigraph); ``values[attribute]`` one value per parallel edge, in arc order; ``in_arcs``,
    a directed graph's arcs in NetworkX's predecessor order (``G._pred``) as ``(offsets,
    tails)``, None for an undirected graph (its adjacency serves both ways). The nodes and the
    arrays are read together from NetworkX's adjacency on first use (``_pending`` holds it
    until then: the adjacency, a directed graph's ``_pred``, the edge attributes to read with
    their defaults); the NetworkX graph it came from is held weakly (:meth:`original`)."""

    directed: bool
    multigraph: bool
    _pending: dict = field(repr=False)
    _source: weakref.ref | None = field(default=None, repr=False)
    _built: dict = field(default_factory=dict, repr=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    __networkx_backend__ = "frontier"

    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def __len__(self) -> int:
        adjacency = self.adjacency()
        return len(self.nodes) if adjacency is None else len(adjacency)

    @property
    def nodes(self) -> list:
        return self._arrays().nodes

    @property
    def identity(self) -> bool:
        """Whether the nodes are the ints ``0 .. n-1`` in order: each node is its own vertex
        id (no lookup)."""
        return self._arrays().identity

    @property
    def offsets(self) -> np.ndarray:
        return self._arrays().offsets

    @property
    def heads(self) -> np.ndarray:
        return self._arrays().heads

    @property
    def multiplicity(self) -> np.ndarray | None:
        return self._arrays().multiplicity

    @property
    def values(self) -> dict[str, list]:
        return self._arrays().values

    @property
    def in_arcs(self) -> tuple[np.ndarray, np.ndarray] | None:
        return self._arrays().in_arcs

    @property
    def read(self) -> bool:
        """Whether the nodes and arrays have been read from NetworkX's adjacency."""
        return _ARRAYS in self._built

    @property
    def searched(self) -> int:
        """The arcs the ordered searches have scanned on NetworkX's adjacency so far
        (:meth:`count_search`)."""
        return self._built.get(_SEARCHED, 0)

    def count_search(self, arcs: int) -> None:
        """Counts ``arcs`` more arcs scanned by a search on NetworkX's adjacency."""
        with self._lock:
            self._built[_SEARCHED] = self._built.get(_SEARCHED, 0) + arcs

    def adjacency(self, backward: bool = False) -> dict | None:
        """NetworkX's adjacency (a directed graph's ``_pred`` where ``backward``) while the
        arrays are not read yet, for a search that starts on it; None once they are."""
        pending = self._pending
        if not pending:
            return None
        return pending["pred"] if backward and self.directed else pending["adjacency"]

    @property
    def num_arcs(self) -> int:
        """The arcs (adjacency entries), counted without reading the arrays where they are not
        read yet."""
        adjacency = self.adjacency()
        if adjacency is None:
            return int(self.heads.size)
        return self._once(("arcs",), lambda: sum(map(len, adjacency.values())))

    @property
    def index(self) -> dict:
        """node -> vertex id (built once)."""
        index = self._arrays().index
        if index is not None:
            return index
        return self._once(("index",), lambda: {node: i for i, node in enumerate(self.nodes)})

    def has(self, node: Any) -> bool:
        """Whether the hashable ``node`` is a node, asked of NetworkX's adjacency while the
        arrays are not read yet."""
        adjacency = self.adjacency()
        if adjacency is not None:
            return node in adjacency
        try:
            self.find(node)
        except KeyError:
            return False
        return True

    def find(self, node: Any) -> int:
        """The vertex of ``node``; KeyError (TypeError if unhashable) where it is not a node.
        A node of a graph of the ints ``0 .. n-1`` needs no index."""
        if type(node) is int and self.identity:
            if 0 <= node < len(self.nodes):
                return node
            raise KeyError(node)
        return self.index[node]

    def ids(self, nodes: Collection) -> np.ndarray:
        """The vertices of ``nodes``, int64, in their order; RuntimeError where one is not a
        node (any more: the graph changed while a call on it was under way)."""
        if self.identity:
            try:  # a node equal to i (1.0 for 1) is i
                ids = np.fromiter(nodes, np.int64, len(nodes))
            except (TypeError, ValueError, OverflowError):
                pass
            else:
                if not ids.size or (ids.min() >= 0 and ids.max() < len(self.nodes)):
                    return ids
        try:
            return np.fromiter(map(self.index.__getitem__, nodes), np.int64, len(nodes))
        except KeyError as missing:
            raise RuntimeError(f"node {missing} left the graph while a frontier backend call "
                               "on it was under way (NetworkX's own functions do not support "
                               "that either)") from None

    def labels(self, vertices: np.ndarray) -> list:
        """The nodes of ``vertices``, in their order."""
        ids = vertices.tolist()
        return ids if self.identity else list(map(self.nodes.__getitem__, ids))

    def original(self) -> nx.Graph:
        """The NetworkX graph this one was converted from (functions that return a subgraph
        of it, with its attributes, as NetworkX does); ValueError where there is none."""
        graph = None if self._source is None else self._source()
        if graph is None:
            raise ValueError("this graph was not converted from a NetworkX graph still alive")
        return graph

    def _arrays(self) -> _Arrays:
        arrays = self._built.get(_ARRAYS)
        if arrays is None:
            with self._lock:
                arrays = self._built.get(_ARRAYS)
                if arrays is None:
                    arrays = self._built[_ARRAYS] = _read(self._pending, self.directed,
                                                          self.multigraph)
                    self._pending.clear()
        return arrays

    def degrees(self, direction: str = "both") -> np.ndarray:
        """NetworkX's degree of every vertex (int64, node order): ``"out"`` and ``"in"`` for a
        directed graph, ``"both"`` their sum, or an undirected graph's degree with a self-loop
        counted twice; parallel edges each count."""
        return self._once(("degrees", direction), lambda: self._degrees(direction))

    def number_of_edges(self) -> int:
        """NetworkX's ``G.number_of_edges()`` (parallel edges each, a self-loop once)."""
        counts = self._arc_weights()
        if self.directed:
            return int(counts.sum())
        loops = np.repeat(np.arange(len(self)), np.diff(self.offsets)) == self.heads
        return int(counts[~loops].sum()) // 2 + int(counts[loops].sum())

    def _arc_weights(self) -> np.ndarray:
        """How many edges each arc stands for (parallel edges of a multigraph)."""
        if self.multiplicity is not None:
            return self.multiplicity.astype(np.int64)
        return np.ones(self.num_arcs, np.int64)

    def _degrees(self, direction: str) -> np.ndarray:
        n = len(self)
        tails = np.repeat(np.arange(n), np.diff(self.offsets))
        counts = self._arc_weights()
        out = np.bincount(tails, weights=counts, minlength=n).astype(np.int64)
        if not self.directed:
            loops = tails == self.heads
            return out + np.bincount(tails[loops], weights=counts[loops],
                                     minlength=n).astype(np.int64)
        into = np.bincount(self.heads, weights=counts, minlength=n).astype(np.int64)
        return {"out": out, "in": into, "both": out + into}[direction]

    def to_networkx(self) -> nx.Graph:
        """The NetworkX graph this one was converted from, or, where that is gone, one of the
        same class rebuilt from the conversion (nodes in order, every edge with the attributes
        converted)."""
        try:
            return self.original()
        except ValueError:
            pass
        kind = {(False, False): nx.Graph, (True, False): nx.DiGraph,
                (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}
        H = kind[self.directed, self.multigraph]()
        H.add_nodes_from(self.nodes)
        tails = np.repeat(np.arange(len(self)), np.diff(self.offsets))
        heads = self.heads
        if self.multiplicity is not None:
            tails, heads = np.repeat(tails, self.multiplicity), np.repeat(heads, self.multiplicity)
        names = list(self.values)
        data = (dict(zip(names, row, strict=True))
                for row in zip(*self.values.values(), strict=True)) if names else repeat({})
        nodes = self.nodes
        edges = zip(tails.tolist(), heads.tolist(), data, strict=False)
        with bulk.paused():
            H.add_edges_from((nodes[u], nodes[v], d) for u, v, d in edges
                             if self.directed or u <= v)
        return H

    def vertex(self, node: Any, error: type[Exception] = nx.NodeNotFound) -> int:
        """The vertex of ``node``; ``error`` (NetworkX's message) where it is not a node."""
        try:
            return self.find(node)
        except (KeyError, TypeError):
            if error is nx.NodeNotFound:
                raise nx.NodeNotFound(f"Source {node} is not in G") from None
            raise error(f"The node {node} is not in the graph.") from None

    def labelled(self, values: Iterable) -> dict:
        """``{node: value}`` in node order (values as Python numbers)."""
        values = values.tolist() if isinstance(values, np.ndarray) else values
        return dict(zip(self.nodes, values, strict=True))

    def weights(self, weight: str | None, combine: str = "min") -> np.ndarray | None:
        """One value per arc of attribute ``weight`` (None: unweighted), parallel edges combined
        by ``combine`` ("min" or "sum"; "sum" of an unweighted multigraph counts the edges).
        int64 where every value is a Python int that fits, else float64; ValueError where the
        values are neither."""
        if weight is None:
            if combine == "sum" and self.multiplicity is not None:
                return self.multiplicity.astype(np.float64)
            return None
        return self._once(("weights", weight, combine), lambda: self._combined(weight, combine))

    def edge_values(self, attribute: str, default: Any) -> list:
        """Attribute ``attribute`` of every arc's edge as NetworkX's functions read it,
        ``data.get(attribute, default)``, in arc order, from the NetworkX graph this one was
        converted from (:meth:`original`): an edge without the attribute and one holding None
        differ there, where the conversion of every attribute (``preserve_all_attrs``) gives
        both None."""
        graph = self.original()
        return _values(_plain(graph._adj, self.multigraph), self.multigraph, attribute, default)

    def weight_kinds(self, weight: str) -> frozenset[type]:
        """The Python types of attribute ``weight``'s values (int, float, bool, ...)."""
        return self._once(("kinds", weight), lambda: frozenset(map(type, self.values[weight])))

    def graph(self, weight: str | None = None, *, combine: str = "min", reverse: bool = False,
              undirected: bool = False) -> Graph:
        """The Frontier graph of this call: weighted by ``weight`` (None: unweighted), parallel
        edges combined by ``combine``, arcs reversed (``reverse``) or every arc an undirected
        edge (``undirected``, as NetworkX's ``to_undirected`` of a directed graph)."""
        key = ("graph", weight, combine, reverse, undirected)
        return self._once(key, lambda: self._build(weight, combine, reverse, undirected))

    def rebuilt(self, weight: str | None) -> nx.Graph:
        """This conversion as a NetworkX (multi)digraph, for NetworkX's own functions: the same
        nodes, one arc per adjacency entry in NetworkX's order (an undirected edge as its two
        arcs), every parallel edge's value of ``weight`` as it was (None: no attribute)."""
        H = nx.MultiDiGraph() if self.multigraph else nx.DiGraph()
        H.add_nodes_from(self.nodes)
        tails = np.repeat(np.arange(len(self)), np.diff(self.offsets)).tolist()
        heads = self.heads.tolist()
        if self.multiplicity is not None:
            tails = np.repeat(tails, self.multiplicity).tolist()
            heads = np.repeat(heads, self.multiplicity).tolist()
        nodes = self.nodes
        with bulk.paused():
            if weight is None or weight not in self.values:
                H.add_edges_from((nodes[u], nodes[v])
                                 for u, v in zip(tails, heads, strict=True))
            else:
                H.add_edges_from((nodes[u], nodes[v], {weight: value}) for u, v, value
                                 in zip(tails, heads, self.values[weight], strict=True))
        return H

    def matrix(self, values: np.ndarray) -> Any:
        """The conversion as a scipy CSR array holding ``values`` (one per arc), repeated arcs'
        values summed, on arrays of its own: scipy's ``sum_duplicates`` sorts the indices in
        place, and the conversion's arrays are shared by every call on it."""
        n = len(self)
        matrix = _sparse.csr_array((values, self.heads, self.offsets), shape=(n, n), copy=True)
        matrix.sum_duplicates()
        return matrix

    def _once(self, key: tuple, build: Any) -> Any:
        with self._lock:
            if key not in self._built:
                self._built[key] = build()
            return self._built[key]

    def _combined(self, weight: str, combine: str) -> np.ndarray:
        raw = self.values[weight]
        kinds = self.weight_kinds(weight)
        integral = all(issubclass(kind, (int, np.integer)) for kind in kinds)
        if not raw or (integral and -2**63 <= min(raw) and max(raw) < 2**63):
            array = np.array(raw, dtype=np.int64)
        else:
            array = np.array(raw, dtype=np.float64)
        if self.multiplicity is None or array.size == 0:
            return array
        starts = np.concatenate(([0], np.cumsum(self.multiplicity)[:-1]))
        reduce = np.minimum if combine == "min" else np.add
        return reduce.reduceat(array, starts)

    def _build(self, weight: str | None, combine: str, reverse: bool, undirected: bool) -> Graph:
        n = len(self.nodes)
        weights = self.weights(weight, combine)
        if not (reverse or undirected):
            graph = _graph.Graph.from_csr(self.offsets, self.heads, weights, directed=True)
            if self.directed:
                return graph
            # NetworkX's undirected adjacency holds u -> v and v -> u with one shared attribute
            # dict: the arcs pair up with equal weights by construction, so the two sorts of
            # from_csr(directed=False)'s checks are skipped (as Graph.from_scipy does)
            return _graph.Graph._trusted(graph.row_offsets, graph.col_indices, graph.weights,
                                  directed=False, weights_checked=True)
        tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(self.offsets))
        Graph = _graph.Graph
        if undirected:
            return Graph.from_edges(tails, self.heads, weights, num_vertices=n, directed=False)
        return Graph.from_edges(self.heads, tails, weights, num_vertices=n, directed=True)


def from_networkx(G: nx.Graph, edge_attrs: dict[str, Any] | None) -> FrontierGraph:
    """``G`` converted, with the values of each attribute of ``edge_attrs`` (``{attribute:
    default}``; an edge without it takes the default): its nodes and arrays read when a call
    first needs them (a view's filtered adjacency is copied now, as it shows the graph now)."""
    multigraph = G.is_multigraph()
    pending = {"adjacency": _plain(G._adj, multigraph),
               "pred": _plain(G._pred, multigraph) if G.is_directed() else None,
               "attributes": {attribute: default for attribute, default
                              in (edge_attrs or {}).items() if not callable(attribute)}}
    return FrontierGraph(G.is_directed(), multigraph, pending, weakref.ref(G))


def _read(pending: dict, directed: bool, multigraph: bool) -> _Arrays:
    """The nodes and arrays of the adjacency ``pending`` holds (see :class:`FrontierGraph`),
    with no Python loop per edge."""
    adjacency = pending["adjacency"]
    nodes = list(adjacency)
    identity = _identity(nodes)
    index = None if identity else {node: i for i, node in enumerate(nodes)}
    offsets, heads = _csr(nodes, adjacency, index)
    m = int(offsets[-1])
    multiplicity = None
    if multigraph:
        multiplicity = np.fromiter(map(len, _per_arc(adjacency)), np.int64, m)
    values = _Values({attribute: _values(adjacency, multigraph, attribute, default)
                      for attribute, default in pending["attributes"].items()},
                     int(multiplicity.sum()) if multigraph else m)
    in_arcs = _csr(nodes, pending["pred"], index) if directed else None
    return _Arrays(nodes, identity, index, offsets, heads, multiplicity, values, in_arcs)


def is_view(G: nx.Graph) -> bool:
    """Whether ``G`` shows another graph's data: NetworkX's views name that graph ``_graph``
    (and a filtered view's adjacency is no plain dict)."""
    return getattr(G, "_graph", None) is not None or type(getattr(G, "_adj", None)) is not dict


def uncache_view(G: nx.Graph) -> None:
    """Turn NetworkX's cache of conversions off for ``G`` if it is a view (see the module
    docstring), as NetworkX documents: ``G.__networkx_cache__ = None``."""
    if is_view(G) and getattr(G, "__networkx_cache__", None) is not None:
        G.__networkx_cache__ = None


def _plain(adjacency: Any, multigraph: bool) -> dict:
    """The adjacency as dicts: NetworkX's graphs hold dicts already; a view's filtered atlases
    (``subgraph_view``, ``restricted_view``) may count in ``len`` what their filter hides, so
    they are copied."""
    if type(adjacency) is dict:
        return adjacency
    if multigraph:
        return {u: {v: dict(keys) for v, keys in nbrs.items()} for u, nbrs in adjacency.items()}
    return {u: dict(nbrs) for u, nbrs in adjacency.items()}


def _identity(nodes: list) -> bool:
    """Whether ``nodes`` are the ints ``0 .. n-1`` in order (not bools): each node its own
    vertex id, each neighbour too (no lookup per arc)."""
    return set(map(type, nodes)) <= {int} and nodes == list(range(len(nodes)))


def _csr(nodes: list, adjacency: dict, index: dict | None) -> tuple[np.ndarray, np.ndarray]:
    """Offsets and neighbour ids of a NetworkX adjacency (``_adj`` or ``_pred``), in its order."""
    offsets = np.zeros(len(nodes) + 1, np.int64)
    np.cumsum(np.fromiter(map(len, adjacency.values()), np.int64, len(nodes)), out=offsets[1:])
    return offsets, _heads(nodes, adjacency, int(offsets[-1]), index)


def _heads(nodes: list, adjacency: dict, m: int, index: dict | None) -> np.ndarray:
    """The vertex of each neighbour in adjacency order: through ``index``, or the neighbour
    itself where ``index`` is None (see :func:`_identity`)."""
    arcs = chain.from_iterable(adjacency.values())
    if index is None:
        try:  # a neighbour equal to node i (1.0 for 1) is i
            return np.fromiter(arcs, np.int64, m)
        except (TypeError, ValueError, OverflowError):
            arcs = chain.from_iterable(adjacency.values())
            index = {node: i for i, node in enumerate(nodes)}
    return np.fromiter(map(index.__getitem__, arcs), np.int64, m)


def _per_arc(adjacency: dict) -> Iterator:
    """What each arc holds, in adjacency order: its edge's attribute dict (its dict of parallel
    edges by key in a multigraph)."""
    return chain.from_iterable(nbrs.values() for nbrs in adjacency.values())


def _values(adjacency: dict, multigraph: bool, attribute: str, default: Any) -> list:
    """Attribute ``attribute`` of each edge in arc order (every parallel edge of an arc),
    ``default`` where an edge lacks it: read straight from the adjacency, ``itemgetter``
    first (a third faster per edge than ``get``, where no edge lacks it)."""
    def edges() -> Iterator[dict]:
        arcs = _per_arc(adjacency)
        return chain.from_iterable(map(methodcaller("values"), arcs)) if multigraph else arcs

    try:
        return list(map(itemgetter(attribute), edges()))
    except KeyError:
        return list(map(methodcaller("get", attribute, default), edges()))
