"""Synthetic graphs for tests and benchmarks, deterministic per seed.

R-MAT (:func:`rmat`), uniform random G(n, m) (:func:`gnm`), 4-neighbour grids (:func:`grid2d`),
paths, stars, binary trees and forests of random trees (:func:`forest`), Chung-Lu power-law
graphs (:func:`chung_lu`), and random linked lists (:func:`random_list`, :func:`list_graph`).
Every generator is vectorized numpy and draws from ``numpy.random.default_rng(seed)``, so the
same arguments always give the same arrays.

A *spec* names a generated graph in one string (``rmat:18``, ``grid:1000x1000``), for the command
line, the benchmarks and tests: :func:`from_spec` builds it, :func:`is_spec` tells a spec from a
file path, and :data:`SPECS` is the registry of the forms (one :class:`SpecForm` per generator).

Undirected graphs store every edge as two arcs and never hold self-loops or repeated edges.
``weights=(low, high)`` attaches integer weights drawn uniformly from ``low .. high``
(inclusive, int64): one per undirected edge, shared by its two arcs, drawn after the structure
(so the structure does not depend on whether weights are asked for).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from frontier import messages, parallel, validate
from frontier.environ import SettingError
from frontier.errors import GraphTooLargeError
from frontier.graph import OFFSET_DTYPE, VERTEX_DTYPE, Graph, from_sorted_keys
from frontier.limits import check_graph

__all__ = ["rmat", "gnm", "grid2d", "path", "star", "binary_tree", "forest", "chung_lu",
           "random_list", "list_graph",
           "SpecForm", "SPECS", "SpecError", "from_spec", "is_spec"]

WeightRange = tuple[int, int]

_MAX_VERTICES = int(np.iinfo(VERTEX_DTYPE).max)
_MAX_SCALE = 30
# R-MAT edges are generated this many at a time, all bit levels of a block while it is in cache.
_RMAT_BLOCK = 1 << 18  # even: see _rmat_edges
# R-MAT edges are drawn by several threads only above this many per thread.
_PARALLEL_EDGES = 1 << 22


# argument checks ------------------------------------------------------------------------------

def _count(name: str, value: object, low: int = 0, high: int | None = None) -> int:
    """``value`` as an int in ``low .. high``; ValueError otherwise."""
    bounds = f"{low} <= {name}" + ("" if high is None else f" <= {high}")
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ValueError(f"{name} is {value!r}; expected an integer, {bounds}")
    v = int(value)
    if v < low or (high is not None and v > high):
        raise ValueError(f"{name} is {v}; expected {bounds}")
    return v


def _number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ValueError(f"{name} is {value!r}; expected a finite number")
    return float(value)


def _weight_range(weights: object) -> WeightRange | None:
    if weights is None:
        return None
    expected = "None or a (low, high) pair of integers with low <= high"
    if not isinstance(weights, (tuple, list)) or len(weights) != 2:
        raise ValueError(f"weights is {weights!r}; expected {expected}")
    int64 = np.iinfo(np.int64)
    low, high = (_count(f"weights[{i}]", w, int(int64.min), int(int64.max))
                 for i, w in enumerate(weights))
    if low > high:
        raise ValueError(f"weights is ({low}, {high}); expected {expected}")
    return low, high


def _vertices(name: str, n: object) -> int:
    return _count(name, n, 0, _MAX_VERTICES)


def _fits(what: str, n: int, edges: int, directed: bool, weights: WeightRange | None) -> None:
    """GraphTooLargeError before anything is drawn when ``edges`` generated edges on ``n``
    vertices (two arcs each if undirected) cannot fit in memory."""
    validate.flag("directed", directed)
    check_graph(what, n, edges * (1 if directed else 2), weights is not None)


# building -------------------------------------------------------------------------------------

def _edge_keys(src: np.ndarray, dst: np.ndarray, n: int, directed: bool) -> np.ndarray:
    """``src * n + dst`` (int64; ``min * n + max`` of each pair if undirected) of the pairs with
    ``src != dst``, in input order; built piece by piece in parallel threads."""
    parts = parallel.spans(src.size)

    def count(a: int, b: int) -> int:
        return sum(int(np.count_nonzero(src[c:d] != dst[c:d])) for c, d in parallel.chunks(a, b))

    kept = parallel.each(count, parts)
    at = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum(kept, out=at[1:])
    keys = np.empty(int(at[-1]), dtype=np.int64)

    def fill(piece: int, a: int, b: int) -> None:
        out = int(at[piece])
        for c, d in parallel.chunks(a, b):
            s, t = src[c:d], dst[c:d]
            keep = s != t
            s, t = s[keep], t[keep]
            if not directed:
                s, t = np.minimum(s, t), np.maximum(s, t)
            k = keys[out:out + s.size]
            k[:] = s
            k *= n
            k += t
            out += s.size

    parallel.each(fill, [(i, a, b) for i, (a, b) in enumerate(parts)])
    return keys


def _mirrored(keys: np.ndarray, n: int) -> np.ndarray:
    """``keys`` (arcs ``u * n + v``) followed by their reverses ``v * n + u``."""
    out = np.empty(2 * keys.size, dtype=np.int64)

    def fill(a: int, b: int) -> None:
        for c, d in parallel.chunks(a, b):
            k = keys[c:d]
            out[c:d] = k
            u, v = np.divmod(k, n)
            v *= n
            v += u
            out[keys.size + c:keys.size + d] = v

    parallel.each(fill, parallel.spans(keys.size))
    return out


def _packed(keys: np.ndarray, w: np.ndarray, low: int, bits: int) -> np.ndarray:
    """``(keys << bits) | (w - low)``, arc keys and weights packed into one int64."""
    out = np.empty(keys.size, dtype=np.int64)

    def fill(a: int, b: int) -> None:
        for c, d in parallel.chunks(a, b):
            p = out[c:d]
            np.left_shift(keys[c:d], bits, out=p)
            p |= w[c:d] - low

    parallel.each(fill, parallel.spans(keys.size))
    return out


def _unpacked(packed: np.ndarray, low: int, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """The keys and weights of :func:`_packed` keys."""
    keys = np.empty_like(packed)
    w = np.empty_like(packed)

    def fill(a: int, b: int) -> None:
        for c, d in parallel.chunks(a, b):
            np.right_shift(packed[c:d], bits, out=keys[c:d])
            v = w[c:d]
            np.bitwise_and(packed[c:d], (1 << bits) - 1, out=v)
            v += low

    parallel.each(fill, parallel.spans(packed.size))
    return keys, w


def _graph(src: np.ndarray, dst: np.ndarray, n: int, directed: bool,
           weights: WeightRange | None, rng: np.random.Generator) -> Graph:
    """The graph on ``n`` vertices with edges ``src[i] - dst[i]`` (arcs ``src -> dst`` if
    directed), self-loops and repeated edges dropped, weights drawn from ``rng``."""
    return _keyed_graph(_edge_keys(src, dst, n, directed), n, directed, weights, rng)


def _keyed_graph(keys: np.ndarray, n: int, directed: bool, weights: WeightRange | None,
                 rng: np.random.Generator) -> Graph:
    """:func:`_graph` of the :func:`_edge_keys` ``keys`` (used as scratch space). The large
    passes run on every core (:mod:`frontier.parallel`); the result does not depend on how
    many there are."""
    keys = parallel.sorted_unique(keys)
    w = None
    if weights is not None:
        w = rng.integers(weights[0], weights[1], size=keys.size, dtype=np.int64, endpoint=True)
    if directed:
        return from_sorted_keys(keys, w, n, directed=True)
    keys = _mirrored(keys, max(n, 1))
    if w is None:
        return from_sorted_keys(parallel.sort(keys), None, n, directed=False)
    w = np.concatenate([w, w])
    span_bits = (weights[1] - weights[0]).bit_length()
    if max(n * n - 1, 1).bit_length() + span_bits <= 63:
        # sort (key, weight) packed into one int64: keys are distinct, so this is the arc order
        packed = _packed(keys, w, weights[0], span_bits)
        del keys, w
        keys, w = _unpacked(parallel.sort(packed), weights[0], span_bits)
    else:
        keys, w = parallel.sort_pairs(keys, w)
    return from_sorted_keys(keys, w, n, directed=False)


# generators -----------------------------------------------------------------------------------

def _rmat_blocks(rng: np.random.Generator, first: int, last: int, scale: int,
                 thresholds: tuple[int, int, int], src: np.ndarray, dst: np.ndarray) -> None:
    """Blocks ``first .. last-1`` of :func:`rmat`'s endpoints, drawn from ``rng`` (positioned
    at the start of block ``first``), into ``src`` and ``dst``."""
    t1, t2, t3 = thresholds
    for block in range(first, last):
        start = block * _RMAT_BLOCK
        s = src[start:start + _RMAT_BLOCK]
        d = dst[start:start + _RMAT_BLOCK]
        s[:] = 0
        d[:] = 0
        for _ in range(scale):
            r = rng.integers(0, 1 << 32, size=s.size, dtype=np.uint32)
            lower = r >= t2
            s <<= 1
            s |= lower
            d <<= 1
            d |= (r >= t1) ^ lower ^ (r >= t3)


def _rmat_edges(rng: np.random.Generator, m: int, scale: int,
                thresholds: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`rmat`'s ``m`` edges (int32 endpoint arrays), ``_RMAT_BLOCK`` at a time: each bit
    level of a block draws one uint32 per edge from ``rng``, the levels of a block in turn.

    Many edges are drawn by one thread per run of blocks, each from a copy of ``rng``'s PCG64
    advanced to its run's first draw; the last run draws from ``rng`` itself, which so ends
    where drawing everything in turn leaves it. A PCG64 step gives two uint32 draws and every
    run starts after an even number of them (blocks are even-sized), so the copies draw
    exactly the sequential stream."""
    src = np.empty(m, dtype=np.int32)
    dst = np.empty(m, dtype=np.int32)
    blocks = -(-m // _RMAT_BLOCK)
    runs = parallel.spans(blocks, max(1, _PARALLEL_EDGES // _RMAT_BLOCK))
    state = rng.bit_generator.state
    if state["bit_generator"] != "PCG64" or state["has_uint32"]:
        runs = [(0, blocks)]
    calls = []
    for i, (first, last) in enumerate(runs):
        gen = rng
        if i < len(runs) - 1:
            bits = np.random.PCG64(0)
            bits.state = state
            gen = np.random.Generator(bits)
        if first:
            gen.bit_generator.advance(first * _RMAT_BLOCK * scale // 2)
        calls.append((gen, first, last, scale, thresholds, src, dst))
    parallel.each(_rmat_blocks, calls)
    return src, dst


def _rmat_keys(rng: np.random.Generator, m: int, scale: int, thresholds: tuple[int, int, int],
               directed: bool) -> np.ndarray:
    """The :func:`_edge_keys` of :func:`_rmat_edges` (whose arrays are freed on return)."""
    src, dst = _rmat_edges(rng, m, scale, thresholds)
    return _edge_keys(src, dst, 1 << scale, directed)


def rmat(scale: int, edge_factor: int = 16, a: float = 0.57, b: float = 0.19, c: float = 0.19,
         seed: int = 0, directed: bool = False, weights: WeightRange | None = None) -> Graph:
    """R-MAT graph on ``2**scale`` vertices from ``edge_factor * 2**scale`` generated edges.

    Each edge picks, for every bit of its endpoints, one quadrant of the adjacency matrix with
    probabilities ``a`` (top left), ``b`` (top right), ``c`` (bottom left) and ``d = 1 - a - b -
    c``. Vertices are not permuted: low ids have the highest degrees. Self-loops and repeated
    edges are dropped. By default the edges are undirected (stored both ways), the benchmark
    convention: ``rmat(21)`` has about 63.5M arcs. ``directed=True`` keeps each generated edge
    as one arc ``src -> dst``.
    """
    scale = _count("scale", scale, 0, _MAX_SCALE)
    edge_factor = _count("edge_factor", edge_factor)
    probs = [_number(name, p) for name, p in (("a", a), ("b", b), ("c", c))]
    if min(probs) < 0 or sum(probs) > 1 + 1e-9:
        raise ValueError(f"a, b, c are {a}, {b}, {c}; expected probabilities >= 0 with "
                         "a + b + c <= 1 (d = 1 - a - b - c)")
    seed = _count("seed", seed)
    weights = _weight_range(weights)
    n = 1 << scale
    m = edge_factor * n
    _fits(f"rmat({scale}, edge_factor={edge_factor})", n, m, directed, weights)
    rng = np.random.default_rng(seed)
    # per bit: r < t1 picks quadrant a (src bit 0, dst bit 0), t1 <= r < t2 b (0, 1),
    # t2 <= r < t3 c (1, 0), r >= t3 d (1, 1)
    t1, t2, t3 = (round(sum(probs[:i]) * 2.0 ** 32) for i in (1, 2, 3))
    return _keyed_graph(_rmat_keys(rng, m, scale, (t1, t2, t3), directed), n, directed, weights,
                        rng)


def gnm(n: int, m: int, seed: int = 0, directed: bool = False,
        weights: WeightRange | None = None) -> Graph:
    """``m`` distinct edges (arcs if ``directed``) chosen uniformly among all pairs of distinct
    vertices of ``0 .. n-1``; no self-loops. ValueError if ``m`` exceeds the number of pairs."""
    n = _vertices("n", n)
    pairs = n * (n - 1) if directed else n * (n - 1) // 2
    m = _count("m", m)
    if m > pairs:
        kind = "ordered" if directed else "unordered"
        raise ValueError(f"m is {m}; expected m <= {pairs}, the number of {kind} pairs of "
                         f"{n} distinct vertices")
    seed = _count("seed", seed)
    weights = _weight_range(weights)
    _fits(f"gnm({n}, {m})", n, m, directed, weights)
    rng = np.random.default_rng(seed)
    index = rng.choice(pairs, size=m, replace=False) if m else np.zeros(0, dtype=np.int64)
    if directed:
        src, rest = np.divmod(index, n - 1) if n > 1 else (index, index)
        dst = rest + (rest >= src)
    else:
        # pair index -> {u, u + d mod n}: d = 1 .. (n-1)//2 for every u, then d = n/2 for
        # u < n/2 when n is even; every unordered pair exactly once
        span = (n - 1) // 2
        ring = index < n * span
        src = np.where(ring, index // max(span, 1), index - n * span)
        dst = np.where(ring, (src + index % max(span, 1) + 1) % max(n, 1), src + n // 2)
    return _graph(src, dst, n, directed, weights, rng)


def grid2d(rows: int, cols: int, weights: WeightRange | None = None, seed: int = 0) -> Graph:
    """A ``rows x cols`` 4-neighbour lattice, undirected (road-like): vertex ``r * cols + c``
    is joined to its right and lower neighbours. ``grid2d(2000, 2000)`` has 4,000,000 vertices
    and 15,992,000 arcs (``2 * (rows * (cols - 1) + (rows - 1) * cols)``)."""
    rows = _vertices("rows", rows)
    cols = _vertices("cols", cols)
    if rows * cols > _MAX_VERTICES:
        raise ValueError(f"rows * cols is {rows * cols}; expected at most {_MAX_VERTICES} "
                         "vertices (int32 ids)")
    weights = _weight_range(weights)
    seed = _count("seed", seed)
    _fits(f"grid2d({rows}, {cols})", rows * cols, 2 * rows * cols, False, weights)
    ids = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    return _graph(src, dst, rows * cols, False, weights, np.random.default_rng(seed))


def path(n: int, weights: WeightRange | None = None, seed: int = 0,
         directed: bool = False) -> Graph:
    """``n`` vertices, vertex ``i`` joined to ``i + 1`` (arc ``i -> i + 1`` if directed)."""
    n = _vertices("n", n)
    weights = _weight_range(weights)
    seed = _count("seed", seed)
    _fits(f"path({n})", n, max(n - 1, 0), directed, weights)
    src = np.arange(max(n - 1, 0), dtype=np.int64)
    return _graph(src, src + 1, n, directed, weights, np.random.default_rng(seed))


def star(n: int, weights: WeightRange | None = None, seed: int = 0,
         directed: bool = False) -> Graph:
    """``n`` vertices in all: hub 0 joined to the ``n - 1`` leaves ``1 .. n-1`` (arcs from the
    hub if directed), so the hub's degree is ``n - 1``."""
    n = _vertices("n", n)
    weights = _weight_range(weights)
    seed = _count("seed", seed)
    _fits(f"star({n})", n, max(n - 1, 0), directed, weights)
    leaves = np.arange(1, max(n, 1), dtype=np.int64)
    return _graph(np.zeros_like(leaves), leaves, n, directed, weights,
                  np.random.default_rng(seed))


def binary_tree(n: int, weights: WeightRange | None = None, seed: int = 0,
                directed: bool = False) -> Graph:
    """``n`` vertices in heap order: vertex ``i``'s children are ``2i + 1`` and ``2i + 2`` when
    below ``n`` (arcs parent -> child if directed); vertex 0 is the root."""
    n = _vertices("n", n)
    weights = _weight_range(weights)
    seed = _count("seed", seed)
    _fits(f"binary_tree({n})", n, max(n - 1, 0), directed, weights)
    child = np.arange(1, max(n, 1), dtype=np.int64)
    return _graph((child - 1) // 2, child, n, directed, weights, np.random.default_rng(seed))


def forest(n: int, trees: int, weights: WeightRange | None = None, seed: int = 0) -> Graph:
    """An undirected forest of ``trees`` random recursive trees over ``n`` vertices: before the
    ids are shuffled, each vertex ``i >= trees`` joins a uniformly drawn vertex below ``i``, so
    every tree grows from one of the first ``trees`` vertices (``n - trees`` edges, ``trees``
    components, each about ``e * ln(size)`` deep); a random permutation of the ids then
    scatters each tree over the whole id range. Connected components' many-component input
    (the issue "Fast calls" times it at two million vertices and 20,000 trees)."""
    n = _vertices("n", n)
    trees = _count("trees", trees, 1 if n else 0, n)
    weights = _weight_range(weights)
    seed = _count("seed", seed)
    _fits(f"forest({n}, {trees})", n, n - trees, False, weights)
    rng = np.random.default_rng(seed)
    joined = np.arange(trees, n, dtype=np.int64)
    below = (rng.random(joined.size) * joined).astype(np.int64)
    ids = rng.permutation(n).astype(np.int64)
    return _graph(ids[joined], ids[below], n, False, weights, rng)


def chung_lu(n: int, avg_degree: float, exponent: float = 2.5, seed: int = 0,
             weights: WeightRange | None = None) -> Graph:
    """Undirected Chung-Lu graph with power-law expected degrees.

    Vertex ``i`` gets weight ``(i + 1) ** (-1 / (exponent - 1))``, scaled so the weights average
    ``avg_degree`` (vertex 0 has the largest). ``n * avg_degree / 2`` edges are sampled, each
    endpoint drawn independently in proportion to weight, so an edge ``u - v`` appears with
    probability about ``w_u * w_v / sum(w)``; self-loops and repeated edges are then dropped,
    which leaves the mean degree somewhat below ``avg_degree``, most of all around the hubs.
    """
    n = _vertices("n", n)
    avg_degree = _number("avg_degree", avg_degree)
    if not 0 <= avg_degree <= max(n - 1, 0):
        raise ValueError(f"avg_degree is {avg_degree}; expected 0 <= avg_degree <= n - 1 = "
                         f"{max(n - 1, 0)}")
    exponent = _number("exponent", exponent)
    if exponent <= 2:
        raise ValueError(f"exponent is {exponent}; expected a power-law exponent > 2")
    seed = _count("seed", seed)
    weights = _weight_range(weights)
    m = round(n * avg_degree / 2)
    _fits(f"chung_lu({n}, {avg_degree})", n, m, False, weights)
    rng = np.random.default_rng(seed)
    vertex_weight = np.arange(1, n + 1, dtype=np.float64) ** (-1 / (exponent - 1))
    p = vertex_weight / vertex_weight.sum() if n else vertex_weight
    # m independent draws per endpoint: multinomial counts, then a random order for one side
    ids = np.arange(n, dtype=np.int64)
    src = np.repeat(ids, rng.multinomial(m, p)) if n else ids
    dst = np.repeat(ids, rng.multinomial(m, p)) if n else ids
    rng.shuffle(dst)
    return _graph(src, dst, n, False, weights, rng)


def random_list(n: int, seed: int = 0) -> np.ndarray:
    """A linked list of ``n`` nodes in random order, as a successor array (int32): ``succ[v]``
    is the node after ``v`` and the tail points to itself (Dehne & Yogaratnam's list ranking
    input, §3). The order is a uniform random permutation, so following the list jumps all over
    memory."""
    n = _vertices("n", n)
    seed = _count("seed", seed)
    _fits(f"random_list({n})", n, n, True, None)
    order = np.random.default_rng(seed).permutation(n).astype(VERTEX_DTYPE)
    succ = np.empty(n, dtype=VERTEX_DTYPE)
    if n:
        succ[order[:-1]] = order[1:]
        succ[order[-1]] = order[-1]
    return succ


def list_graph(n: int, seed: int = 0) -> Graph:
    """:func:`random_list` as a directed graph: vertex ``v``'s one out-arc goes to ``succ[v]``
    (the tail's is a self-loop), so the graph's ``col_indices`` is the successor array. What
    the ``list:N`` spec builds, for ``frontier run listrank``."""
    succ = random_list(n, seed)
    return Graph._trusted(np.arange(n + 1, dtype=OFFSET_DTYPE), succ, None, directed=True)


# specs ----------------------------------------------------------------------------------------

class SpecError(ValueError):
    """A malformed generator spec; the message is one line naming the spec and what was
    expected."""


@dataclass(frozen=True)
class SpecForm:
    """One form of generator spec: ``KIND:`` then ``low .. high`` whole numbers joined by
    ``separator``, handed positionally to ``build``. ``usage`` is the form as users read it,
    ``example`` a small instance of it (tests and help build it)."""

    kind: str
    usage: str
    build: Callable[..., Graph]
    low: int
    high: int
    example: str
    separator: str = ":"

    def numbers(self, spec: str, rest: str) -> list[int]:
        """The whole numbers of ``rest`` (the part of ``spec`` after ``KIND:``)."""
        parts = rest.lower().split(self.separator)
        if not self.low <= len(parts) <= self.high:
            raise SpecError(f"generator spec {messages.text(spec)}: expected {self.usage}")
        if not all(_WHOLE.fullmatch(p) for p in parts):
            raise SpecError(f"generator spec {messages.text(spec)}: expected whole numbers, as in "
                            f"{self.usage}")
        long = next((p for p in parts if len(p.lstrip("0")) > _MOST_DIGITS), None)
        if long is not None:
            raise SpecError(f"generator spec {messages.text(spec)}: a number of "
                            f"{len(long.lstrip('0')):,} digits; expected whole numbers of at "
                            f"most {_MOST_DIGITS} digits, as in {self.usage}")
        return [int(p.lstrip("0") or "0") for p in parts]


_WHOLE = re.compile(r"[0-9]+")
#: The most digits a number of a spec may have: every count a generator takes fits int64.
_MOST_DIGITS = 18

#: Kind -> form of every generator spec.
SPECS: dict[str, SpecForm] = {form.kind: form for form in (
    SpecForm("rmat", "rmat:SCALE[:EDGE_FACTOR]", rmat, 1, 2, "rmat:6:4"),
    SpecForm("grid", "grid:ROWSxCOLS", grid2d, 2, 2, "grid:4x5", separator="x"),
    SpecForm("gnm", "gnm:N:M", gnm, 2, 2, "gnm:20:40"),
    SpecForm("path", "path:N", path, 1, 1, "path:10"),
    SpecForm("star", "star:N", star, 1, 1, "star:10"),
    SpecForm("tree", "tree:N", binary_tree, 1, 1, "tree:10"),
    SpecForm("forest", "forest:N:TREES", forest, 2, 2, "forest:20:3"),
    SpecForm("chunglu", "chunglu:N:AVG_DEGREE", chung_lu, 2, 2, "chunglu:50:4"),
    SpecForm("list", "list:N", list_graph, 1, 1, "list:10"),
)}


def is_spec(text: str) -> bool:
    """Whether ``text`` is meant as a generator spec (``KIND:...`` with a registered kind),
    well-formed or not, rather than a file path."""
    kind, sep, _ = text.partition(":")
    return bool(sep) and kind in SPECS


def from_spec(spec: str) -> Graph:
    """The graph a spec names, built with the generator's defaults (seed 0, undirected):
    ``rmat:SCALE[:EDGE_FACTOR]``, ``grid:ROWSxCOLS``, ``gnm:N:M``, ``path:N``, ``star:N``,
    ``tree:N`` (binary tree), ``forest:N:TREES`` (random trees), ``chunglu:N:AVG_DEGREE``,
    ``list:N`` (a random linked list,
    :func:`list_graph`). :class:`SpecError` on a malformed spec or sizes the generator refuses;
    :class:`~frontier.errors.GraphTooLargeError` (at once, before anything is drawn) for a graph
    that cannot fit in memory, such as ``rmat:30``."""
    kind, sep, rest = spec.partition(":")
    form = SPECS.get(kind) if sep else None
    if form is None:
        forms = ", ".join(f.usage for f in SPECS.values())
        raise SpecError(f"generator spec {messages.text(spec)}: expected one of {forms}")
    numbers = form.numbers(spec, rest)
    try:
        return form.build(*numbers)
    except GraphTooLargeError as err:
        raise GraphTooLargeError(f"generator spec {messages.text(spec)}: {err.what}", err.estimate,
                                 err.limit, err.where) from None
    except SettingError:
        raise
    except ValueError as err:
        raise SpecError(f"generator spec {messages.text(spec)}: {err}") from None
