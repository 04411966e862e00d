"""Centrality and link analysis through NetworkX's functions: PageRank (power iteration with
NetworkX's stopping rule; Page et al., *The PageRank Citation Ranking*, 1999) and betweenness
(Brandes, *A Faster Algorithm for Betweenness Centrality*, 2001, level-synchronous as in
Sariyüce et al., 2013) from :mod:`algorithms`; eigenvector centrality (power iteration on
``A + I``, Bonacich, *Power and Centrality*, 1987, as NetworkX's ``eigenvector_centrality``) and
Katz centrality (Katz, *A New Status Index Derived from Sociometric Analysis*, 1953, §2, by
NetworkX's fixed-point iteration ``x = alpha A^T x + beta``), whose products ``A^T x`` are one
:func:`operators.neighbor_reduce` over in-edges per iteration.

HITS (Kleinberg, *Authoritative Sources in a Hyperlinked Environment*, 1999) is NetworkX's own
method, scipy's sparse SVD, on the adjacency matrix built from the conversion.

Arguments NetworkX accepts but the library cannot honour exactly (values NetworkX computes
something for that the library refuses, such as a damping factor outside [0, 1] or negative
personalization) are declined, so NetworkX runs those calls itself.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any

import networkx as nx

from frontier_nx import registry
from frontier_nx.lazy import LazyModule
from frontier_nx.registry import callable_weight, implements

if TYPE_CHECKING:
    from frontier_nx.convert import FrontierGraph

np = LazyModule("numpy")
_linalg = LazyModule("scipy.sparse.linalg")
_betweenness = LazyModule("algorithms.betweenness")
_pagerank = LazyModule("algorithms.pagerank")
_targets = LazyModule("frontier.target")
_operators = LazyModule("operators")


# argument rules -----------------------------------------------------------------------------
def _real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _integer(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _nodes(graph: Any) -> Any:
    """What ``in`` tests membership of the graph's nodes with (a NetworkX or converted graph)."""
    return graph if isinstance(graph, nx.Graph) else graph.index


def _finite(value: Any) -> bool:
    """A number finite as a float (an int too large for a float is not)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _distribution_declined(name: str, values: Any, graph: Any) -> str | None:
    """Why ``values`` (a dict node -> weight, as pagerank's personalization, nstart, dangling)
    is not a distribution the library takes: finite non-negative numbers with a finite sum over
    ``graph``'s nodes, positive (``personalization`` may sum to 0: NetworkX's
    ZeroDivisionError)."""
    if values is None:
        return None
    if not isinstance(values, dict):
        return f"{name} is a {type(values).__name__}, not a dict"
    if not all(_real(v) and _finite(v) and v >= 0 for v in values.values()):
        return f"{name} holds values other than finite non-negative numbers"
    nodes = _nodes(graph)
    inside = np.array([v for k, v in values.items() if k in nodes], dtype=np.float64)
    with np.errstate(over="ignore"):
        total = float(inside.sum())
    if not math.isfinite(total):
        return f"{name} sums to more than a float holds"
    if name != "personalization" and total == 0:
        return f"{name} sums to 0 over the graph's nodes"
    return None


def _attribute_declined(arguments: dict[str, Any]) -> str | None:
    """A graph converted before the call (not by NetworkX for it) without the weight's values:
    whether its edges had the attribute is unknown."""
    graph, weight = arguments["G"], arguments["weight"]
    if not isinstance(graph, nx.Graph) and weight is not None and weight not in graph.values:
        return f"the converted graph holds no values of edge attribute {weight!r}"
    return None


def _pagerank_declined(arguments: dict[str, Any]) -> str | None:
    graph = arguments["G"]
    alpha, max_iter, tol = arguments["alpha"], arguments["max_iter"], arguments["tol"]
    if not (_real(alpha) and 0 <= alpha <= 1):
        return f"alpha={alpha!r}: the library takes a damping factor in [0, 1]"
    if not _integer(max_iter):
        return f"max_iter={max_iter!r} is not an integer"
    if not (_real(tol) and 0 < tol < math.inf):
        return f"tol={tol!r}: the library takes a finite tolerance > 0"
    for name in ("personalization", "nstart", "dangling"):
        reason = _distribution_declined(name, arguments[name], graph)
        if reason is not None:
            return reason
    return callable_weight(arguments) or _attribute_declined(arguments)


def _weight_declined(arguments: dict[str, Any]) -> str | None:
    """The weight of eigenvector and Katz centrality: None or an attribute name."""
    weight = arguments["weight"]
    if weight is None or (isinstance(weight, str) and weight):
        return _attribute_declined(arguments)
    return f"weight={weight!r}: only None or a non-empty attribute name"


def _start_declined(arguments: dict[str, Any]) -> str | None:
    """``nstart`` of eigenvector and Katz centrality: numbers for exactly the graph's nodes
    (NetworkX iterates over its keys)."""
    nstart = arguments["nstart"]
    if nstart is None:
        return None
    if not isinstance(nstart, dict) or not all(map(_real, nstart.values())):
        return "nstart is not a dict of numbers"
    graph = arguments["G"]
    nodes = _nodes(graph)
    if len(nstart) != len(graph) or not all(node in nodes for node in nstart):
        return "nstart does not name exactly the graph's nodes"
    return None


def _power_iteration_declined(arguments: dict[str, Any]) -> str | None:
    max_iter, tol = arguments["max_iter"], arguments["tol"]
    if not _integer(max_iter):
        return f"max_iter={max_iter!r} is not an integer"
    if not _real(tol):
        return f"tol={tol!r} is not a number"
    return _weight_declined(arguments) or _start_declined(arguments)


def _katz_declined(arguments: dict[str, Any]) -> str | None:
    alpha, beta = arguments["alpha"], arguments["beta"]
    if not _real(alpha):
        return f"alpha={alpha!r} is not a number"
    if isinstance(beta, dict):
        if not all(map(_real, beta.values())):
            return "beta is not a dict of numbers"
        if not isinstance(alpha, float | np.floating) and not all(
                isinstance(b, float | np.floating) for b in beta.values()):
            return "integer alpha and beta: NetworkX's results would mix int and float"
    elif not _real(beta):
        return f"beta={beta!r} is neither a number nor a dict"
    return _power_iteration_declined(arguments)


# PageRank and betweenness -------------------------------------------------------------------
@implements(declines=_pagerank_declined)
def pagerank(G: FrontierGraph, alpha: float = 0.85, personalization: dict | None = None,
             max_iter: int = 100, tol: float = 1e-06, nstart: dict | None = None,
             weight: str | None = "weight", dangling: dict | None = None) -> dict:
    """NetworkX's pagerank; weights of parallel edges summed, a missing weight 1. Negative,
    non-finite or non-numeric weights (which the library refuses) run NetworkX's own function
    on the graph rebuilt from the conversion."""
    if not G.nodes:
        return {}

    def per_vertex(values: dict | None) -> np.ndarray | None:
        return None if values is None else np.array(
            [values.get(node, 0) for node in G.nodes], dtype=np.float64)

    teleport = per_vertex(personalization)
    if teleport is not None and teleport.sum() == 0:
        raise ZeroDivisionError
    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    if _needs_networkx(G, weight, negative=False):
        return nx.pagerank.orig_func(G.rebuilt(weight), alpha, personalization, max_iter, tol,
                                     nstart, weight, dangling)
    graph = G.graph(weight, combine="sum")
    try:
        result = _pagerank.pagerank(graph, alpha=alpha, personalization=teleport, max_iter=max_iter,
                           tol=tol, nstart=per_vertex(nstart), dangling=per_vertex(dangling),
                           weighted=graph.weights is not None, target=registry.target())
    except _pagerank.ConvergenceError:
        raise nx.PowerIterationFailedConvergence(max_iter) from None
    return G.labelled(result.ranks)


def _needs_networkx(G: FrontierGraph, weight: str | None, negative: bool) -> bool:
    """Whether values of ``weight`` (summed over parallel edges) are ones the library refuses
    and NetworkX's own function answers for: not numbers (None, text), not finite, or negative
    unless ``negative``."""
    if weight is None or weight not in G.values:
        return False
    try:
        values = G.weights(weight, "sum")
    except (TypeError, ValueError):
        return True
    return not (np.isfinite(values).all() and (negative or (values >= 0).all()))


def _betweenness_declined(arguments: dict[str, Any]) -> str | None:
    weight, k = arguments["weight"], arguments["k"]
    if weight is not None:
        return f"weight={weight!r}: weighted betweenness is declined"
    if k is not None and not _integer(k):
        return f"k={k!r} is not an integer"
    return None


@implements(declines=_betweenness_declined)
def betweenness_centrality(G: FrontierGraph, k: int | None = None, normalized: bool = True,
                           weight: str | None = None, endpoints: bool = False,
                           seed: Any = None) -> dict:
    """NetworkX's betweenness_centrality, unweighted: parallel edges are one neighbour, as in
    NetworkX's BFS; ``k`` sources sampled by ``seed.sample(list(G), k)`` as NetworkX does."""
    n = len(G.nodes)
    sources = None
    if k is not None and (k != n or k == 0):
        sampled = seed.sample(list(G.nodes), k)
        if not sampled:  # NetworkX's rescaling divides by k where it rescales
            if registry.networkx_version() < (3, 5):
                unscaled = _old_scale(n, bool(normalized), bool(endpoints), G.directed) is None
            else:
                unscaled = (n if endpoints else n - 1) < 2
            if unscaled:
                return dict.fromkeys(G.nodes, 0.0)
            raise ZeroDivisionError("division by zero")
        sources = [G.index[node] for node in sampled]
    unsampled = sources is not None and registry.networkx_version() < (3, 5)
    result = _betweenness.betweenness_centrality(
        G.graph(), sources, normalized=None if unsampled else bool(normalized),
        endpoints=bool(endpoints), target=registry.target())
    if unsampled:
        scale = _old_scale(n, bool(normalized), bool(endpoints), G.directed)
        return G.labelled(result.values if scale is None else result.values * (scale * n / k))
    return G.labelled(result.values)


def _old_scale(n: int, normalized: bool, endpoints: bool, directed: bool) -> float | None:
    """NetworkX's rescaling before 3.5 (``_rescale``), which the sums of ``k`` sources then
    scale up by ``n / k``; None where it leaves them as they are (and ignores ``k``)."""
    if normalized:
        if endpoints:
            return None if n < 2 else 1 / (n * (n - 1))
        return None if n <= 2 else 1 / ((n - 1) * (n - 2))
    return None if directed else 0.5


def _edge_betweenness_declined(arguments: dict[str, Any]) -> str | None:
    reason = _betweenness_declined(arguments)
    if reason is None and arguments["k"] == 0:
        return "k=0 samples no source: NetworkX's rescaling answers for it"
    return reason


@implements(declines=_edge_betweenness_declined)
def edge_betweenness_centrality(G: FrontierGraph, k: int | None = None, normalized: bool = True,
                                weight: str | None = None, seed: Any = None) -> dict:
    """NetworkX's edge_betweenness_centrality, unweighted: the arcs' shares of Brandes'
    dependencies (``edges=True``), an undirected edge's two arcs summed, keyed as
    ``G.edges()`` names the edges and in its order; parallel edges are one neighbour (NetworkX's
    BFS) and share their pair's value equally (``G.edges(keys=True)`` keys); ``k`` sources
    sampled by ``seed.sample(list(G), k)`` as NetworkX does, rescaled by the rule of the
    NetworkX running (before 3.6 it rescaled the sums from ``k`` sources as those of every
    node)."""
    sources = None
    if k is not None:
        sources = [G.index[node] for node in seed.sample(list(G.nodes), k)]
    unsampled = k is not None and registry.networkx_version() < (3, 6)
    graph = G.graph()
    values = _betweenness.betweenness_centrality(
        graph, sources, normalized=None if unsampled else bool(normalized), edges=True,
        target=registry.target()).edge_values
    if unsampled:  # NetworkX < 3.6 rescales k sources' sums as those of every node
        n = len(G)
        values = values * (1 / (n * (n - 1)) if normalized and n > 1
                           else 1.0 if normalized or G.directed else 0.5)
    tails = np.repeat(np.arange(len(G)), np.diff(G.offsets))
    heads = G.heads
    if not G.directed:  # an edge is its two arcs; G.edges() names it from its lower end
        values = values + values[graph.reverse_arcs()]
        kept = tails <= heads
        tails, heads, values = tails[kept], heads[kept], values[kept]
    nodes = G.nodes
    pairs = zip(map(nodes.__getitem__, tails.tolist()), map(nodes.__getitem__, heads.tolist()),
                strict=True)
    if not G.multigraph:
        return dict(zip(pairs, values.tolist(), strict=True))
    adjacency = G.original()._adj
    shares = {}
    for (u, v), value in zip(pairs, values.tolist(), strict=True):
        keys = adjacency[u][v]
        shares.update(dict.fromkeys(((u, v, key) for key in keys), value / len(keys)))
    return shares


# eigenvector and Katz centrality ------------------------------------------------------------
def _weighted_share(src, dst, eid, weight, x, weighted):
    return x[src] * weight if weighted else x[src]


class _Product:
    """``y = A^T x`` on the call's target: ``y[v]`` sums ``x[u] * w(u, v)`` over the edges
    ``u -> v`` (one :func:`operators.neighbor_reduce` over in-edges)."""

    def __init__(self, G: FrontierGraph, weight: str | None) -> None:
        self.graph = G.graph(weight, combine="sum")
        self.weighted = self.graph.weights is not None
        self.target = _targets.resolve_target(registry.target())
        self.out = self.target.zeros(len(G.nodes), np.float64)

    def __call__(self, x: np.ndarray) -> np.ndarray:
        _operators.neighbor_reduce(self.graph, "vertices", _weighted_share,
                                   self.target.to_device(x), self.weighted, out=self.out,
                                   edges="in")
        return self.target.to_host(self.out)


def _in_order(G: FrontierGraph, values: np.ndarray, order: dict | None) -> dict:
    """``{node: value}`` in the order of ``order``'s keys (NetworkX iterates over ``nstart``),
    else the graph's."""
    labelled = G.labelled(values)
    return labelled if order is None else {node: labelled[node] for node in order}


@implements(declines=_power_iteration_declined)
def eigenvector_centrality(G: FrontierGraph, max_iter: int = 100, tol: float = 1.0e-6,
                           nstart: dict | None = None, weight: str | None = None) -> dict:
    """NetworkX's eigenvector_centrality: ``x <- (x + A^T x) / ||x + A^T x||`` until the L1
    change is below ``N * tol``. Non-finite or non-numeric weights run NetworkX's own
    function on the graph rebuilt from the conversion."""
    if not G.nodes:
        raise nx.NetworkXPointlessConcept("cannot compute centrality for the null graph")
    if _needs_networkx(G, weight, negative=True):
        return nx.eigenvector_centrality.orig_func(G.rebuilt(weight), max_iter, tol, nstart,
                                                   weight)
    start = dict.fromkeys(G.nodes, 1) if nstart is None else nstart
    if all(v == 0 for v in start.values()):
        raise nx.NetworkXError("initial vector cannot have all zero values")
    total = sum(start.values())
    x = np.array([start[node] / total for node in G.nodes], dtype=np.float64)
    n = len(G.nodes)
    product = _Product(G, weight)
    for _ in range(max_iter):
        last = x
        with np.errstate(all="ignore"):
            x = last + product(last)
            x = x / (math.hypot(*x.tolist()) or 1)
            if np.abs(x - last).sum() < n * tol:
                return _in_order(G, x, nstart)
    raise nx.PowerIterationFailedConvergence(max_iter)


@implements(declines=_katz_declined)
def katz_centrality(G: FrontierGraph, alpha: float = 0.1, beta: Any = 1.0, max_iter: int = 1000,
                    tol: float = 1.0e-6, nstart: dict | None = None, normalized: bool = True,
                    weight: str | None = None) -> dict:
    """NetworkX's katz_centrality: ``x <- alpha A^T x + beta`` from ``nstart`` (default 0)
    until the L1 change is below ``N * tol``, then scaled to unit Euclidean norm if
    ``normalized``. Non-finite or non-numeric weights run NetworkX's own function on the graph
    rebuilt from the conversion."""
    if not G.nodes:
        return {}
    if _needs_networkx(G, weight, negative=True):
        return nx.katz_centrality.orig_func(G.rebuilt(weight), alpha, beta, max_iter, tol,
                                            nstart, normalized, weight)
    if isinstance(beta, dict):
        if set(beta) != set(G.nodes):
            raise nx.NetworkXError("beta dictionary must have a value for every node")
        b = np.array([beta[node] for node in G.nodes], dtype=np.float64)
    else:
        b = np.full(len(G.nodes), float(beta))
    x = np.zeros(len(G.nodes)) if nstart is None else np.array(
        [nstart[node] for node in G.nodes], dtype=np.float64)
    n = len(G.nodes)
    product = _Product(G, weight)
    for _ in range(max_iter):
        last = x
        with np.errstate(all="ignore"):
            x = alpha * product(last) + b
            if np.abs(x - last).sum() < n * tol:
                if normalized:
                    norm = math.hypot(*x.tolist())
                    x = x * (1.0 / norm if norm else 1.0)
                return _in_order(G, x, nstart)
    raise nx.PowerIterationFailedConvergence(max_iter)


@implements()
def hits(G: FrontierGraph, max_iter: int = 100, tol: float = 1.0e-8, nstart: dict | None = None,
         normalized: bool = True) -> tuple[dict, dict]:
    """NetworkX's hits: the leading singular vectors of the adjacency matrix (weights of
    parallel edges summed, a missing weight 1) by scipy's ``svds``, on the matrix built from
    the conversion rather than from NetworkX's edge dicts. Weights that are not finite numbers
    run NetworkX's own function on the graph rebuilt from the conversion."""
    if not G.nodes:
        return {}, {}
    if _needs_networkx(G, "weight", negative=True):
        return nx.hits.orig_func(G.rebuilt("weight"), max_iter, tol, nstart, normalized)
    values = G.weights("weight", "sum")
    A = G.matrix(np.ones(G.num_arcs) if values is None else values.astype(np.float64))
    start = None if nstart is None else np.array(list(nstart.values()))
    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    try:
        _, _, vt = _linalg.svds(A, k=1, v0=start, maxiter=max_iter, tol=tol)
    except _linalg.ArpackNoConvergence as exc:
        raise nx.PowerIterationFailedConvergence(max_iter) from exc
    a = vt.flatten().real
    h = A @ a
    if normalized:
        h /= h.sum()
        a /= a.sum()
    return G.labelled(h), G.labelled(a)
