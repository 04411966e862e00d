"""List ranking written with the operators (Dehne & Yogaratnam, *Exploring the Limits of GPUs
With Parallel Graph Algorithms*, §3 and the pseudocode of their §5).

A linked list is a successor array: ``succ[v]`` is the node after ``v``, and the tail points to
itself. The rank of a node is its number of links to the tail (the tail's rank is 0).

* ``method="wylie"`` — Wylie's pointer jumping (§3.1, Algorithm 2): every node holds a rank and
  a link; each round, every node adds its link's rank to its own and jumps its link to its
  link's link, ``ceil(log2(n - 1))`` rounds. One ``compute`` over all nodes per round, double
  buffered; rank and link packed into one 64-bit word, as in §3.1, so a round reads a node's
  own word and its link's word and writes one. O(n log n) work.
* ``method="random_splitter"`` — Reid-Miller's random splitter algorithm as Dehne & Yogaratnam
  run it on a GPU (§3.2, Algorithm 3, kernels RS1–RS5): RS1 clears every node's owner; RS2
  picks one random splitter in each of ``splitters`` equal slices of the node ids (the slice
  holding the head takes the head, so every node follows some splitter); RS3 walks each
  splitter's sub-list, giving each node its owner and its offset in the sub-list, and links
  the splitters into a short list weighted by sub-list lengths; RS4 ranks that list by pointer
  jumping; RS5 gives every node its splitter's rank minus its offset. O(n + r log r) work for
  r splitters. ``packed=True`` (the default) keeps owner and offset in one 64-bit word (the
  paper's "64 bit version"), so RS3 writes and RS5 reads one word per node; ``packed=False``
  keeps two 32-bit arrays (their "48 bit version", with 32-bit owners).

Default number of splitters: ``n // 64`` (at least 1), i.e. sub-lists of 64 nodes on average.
Dehne & Yogaratnam choose r so that r log r <= n (linear work) and large enough to give the GPU
far more walkers than it has cores; n // 64 gives a 64M-node list a million walkers (several
per H100 thread slot) and a splitter list that pointer jumping ranks in 20 short rounds.

The input is checked on the target before any ranking (integer ids in range, exactly one tail,
every node but the head with exactly one predecessor); a cycle apart from the list, the one
defect those counts cannot see, leaves the list from the head shorter than n, which the ranking
finds (the largest rank is then below n - 1) and reports the same way. Nothing the caller
passes in is modified.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from algorithms.entry import Entry, Option, testing
from algorithms.output import check_out, deliver, on_host
from frontier import Graph, atomic_add, options, validate
from frontier.runtime.device_arrays import cast, extremes, is_device_array, to_host, view
from frontier.runtime.target import Target
from frontier.target import resolve_target
from operators import compute, reduce

__all__ = ["list_ranking", "ListRankingResult", "ListError", "ListRankingMethod",
           "default_splitters", "successors", "ENTRIES"]


class ListRankingMethod(options.Option):
    """``method=``: Wylie's pointer jumping, or Reid-Miller's random splitters."""

    WYLIE = "wylie"
    RANDOM_SPLITTER = "random_splitter"
_LOW = (1 << 32) - 1  # the low 32 bits of a packed word


class ListError(ValueError):
    """The successor array does not describe one linked list."""


@dataclass(frozen=True)
class ListRankingResult:
    """``ranks`` (int64: links to the tail), the pointer-jumping rounds run (``iterations``;
    for random_splitter those of the splitter list), host wall time of the ranking on the
    target (``seconds``: from its first launch until its last kernel has finished; the upload,
    the input checks and copying the ranks back are not included), and the number of
    splitters (0 for wylie). ``stats`` is empty: the rounds run without a read back.
    ``target``: the target that ran it. With ``out="device"`` ``ranks`` stay on the target
    (:mod:`algorithms.output`)."""

    ranks: Any
    iterations: int
    seconds: float
    splitters: int = 0
    stats: tuple[Any, ...] = ()
    target: Target | None = field(repr=False, default=None)

    @property
    def edges_traversed(self) -> int:
        """Links followed once each by a sequential ranker: n - 1 (the tail's self-link is not
        one)."""
        return max(len(self.ranks) - 1, 0)


def default_splitters(n: int) -> int:
    """The default number of splitters for an ``n``-node list: ``n // 64``, at least 1."""
    return max(1, n // 64)


# the input checks -----------------------------------------------------------------------------

def _out_of_range(v: int, succ: Any, n: int) -> bool:
    return succ[v] < 0 or succ[v] >= n


def _is_tail(v: int, succ: Any) -> bool:
    return succ[v] == v


def _tail_id(v: int, succ: Any) -> int:
    return v if succ[v] == v else -1


def _count_predecessor(v: int, succ: Any, preds: Any) -> None:
    if succ[v] != v:
        atomic_add(preds, succ[v], 1)


def _head_id(v: int, preds: Any) -> int:
    return v if preds[v] == 0 else -1


def _shared(v: int, preds: Any) -> bool:
    return preds[v] > 1


def _as_successors(succ: Any) -> np.ndarray:
    a = np.asarray(succ)
    if a.ndim != 1:
        raise ListError(f"succ has {a.ndim} dimensions; expected a 1-D array of successor ids")
    if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
        raise ListError(f"succ has dtype {a.dtype}; expected integer node ids")
    if a.size > np.iinfo(np.int32).max:
        raise ListError(f"succ has {a.size} nodes; at most {np.iinfo(np.int32).max} fit the "
                        "32-bit halves of the packed words")
    if a.dtype.kind == "u":
        if a.size and int(a.max()) >= a.size:
            bad = int(np.argmax(a >= a.size))
            raise ListError(f"succ[{bad}] = {int(a[bad])} is out of range; expected "
                            f"0 <= id < {a.size}")
        a = a.astype(np.int64)
    return a


def _on_device(succ: Any) -> Any:
    """A device ``succ``, checked as :func:`_as_successors` checks a host one, as a device array
    the kernels read: the caller's own (no copy) for signed ids, an int64 copy made on the
    device for unsigned ones (after a check on the device that they are in range)."""
    a = view(succ)
    if a.ndim != 1 or a.dtype.kind not in "iu" or a.shape[0] > np.iinfo(np.int32).max:
        _as_successors(to_host(a))  # raises the host input's error
    if a.dtype.kind == "u":
        if a.shape[0] and extremes(a)[1] >= a.shape[0]:
            _as_successors(to_host(a))
        a = cast(a, np.int64)
    return a


def _placed(succ: Any, target: str | Target | None
            ) -> tuple[Target, Any, Callable[[], np.ndarray]]:
    """The target that ranks ``succ`` (:func:`frontier.target.resolve_target`, weighing the
    list's length; a list given on the GPU is an input there), the ids checked as
    :func:`_as_successors` checks them, and how to get them on the host (for the messages of
    failed checks). The ids are a device array on the target when ``succ`` is one and the
    target the cuda one (read in place); else a host array, which the caller uploads (a device
    ``succ`` is copied to the host for the cpu target)."""
    if is_device_array(succ):
        tgt = resolve_target(target, elements=view(succ).size, deep=False, inputs=(succ,))
        if tgt.name == "cuda":
            device = _on_device(succ)
            return tgt, device, partial(to_host, device)
        array = _as_successors(to_host(succ))
    else:
        array = _as_successors(succ)
        tgt = resolve_target(target, elements=array.size, deep=False)
    return tgt, array, partial(np.asarray, array)


def _check_list(host: Callable[[], np.ndarray], succ: Any, tgt: Target) -> tuple[int, int]:
    """Check ``succ`` (on ``tgt``) describes one list, but for cycles apart from it; return its
    head and tail. The counts run on the target; the message's details are found on the host
    (``host()``: the ids there), once something is wrong."""
    n = succ.shape[0]
    if reduce(None, n, _out_of_range, succ, n, op="count", target=tgt):
        host = host()
        bad = int(np.argmax((host < 0) | (host >= n)))
        raise ListError(f"succ[{bad}] = {int(host[bad])} is out of range; expected "
                        f"0 <= id < {n}")
    tails = reduce(None, n, _is_tail, succ, op="count", target=tgt)
    if tails != 1:
        host = host()
        found = np.flatnonzero(host == np.arange(n))[:5].tolist()
        raise ListError(f"succ has {tails} tails (nodes v with succ[v] == v"
                        f"{': ' + ', '.join(map(str, found)) if found else ''}); expected "
                        "exactly one, the last node, pointing to itself")
    preds = tgt.zeros(n, np.int32)
    compute(None, n, _count_predecessor, succ, preds, target=tgt)
    if reduce(None, n, _shared, preds, op="count", target=tgt):
        host = host()
        counts = np.bincount(host[host != np.arange(n)], minlength=n)
        bad = int(np.argmax(counts > 1))
        before = np.flatnonzero((host == bad) & (np.arange(n) != bad))[:3].tolist()
        raise ListError(f"node {bad} follows {int(counts[bad])} nodes "
                        f"({', '.join(map(str, before))}); in a list every node follows at "
                        "most one")
    head = reduce(None, n, _head_id, preds, op="max", target=tgt)
    return head, reduce(None, n, _tail_id, succ, op="max", target=tgt)


def _astray(v: int, links: Any, end: int) -> bool:
    """After pointer jumping: ``v``'s link does not end the list (it lies on a cycle)."""
    return (links[v] & _LOW) != end


def _unranked(v: int, ranks: Any) -> bool:
    return ranks[v] < 0


# pointer jumping (Wylie; RS4) -----------------------------------------------------------------

def _start_links(v: int, succ: Any, links: Any) -> None:
    """PJ1: rank 1 and the successor as link (rank 0 at the tail), packed in one word."""
    s = np.int64(succ[v])
    links[v] = ((0 if s == v else 1) << 32) | s


def _jump(v: int, links: Any, out: Any) -> None:
    """PJ2, one round: add the link's rank, jump to the link's link."""
    x = links[v]
    y = links[x & _LOW]
    out[v] = (((x >> 32) + (y >> 32)) << 32) | (y & _LOW)


def _unpack_rank(v: int, links: Any, ranks: Any) -> None:
    ranks[v] = links[v] >> 32


def _pointer_jump(count: int, links: Any, spare: Any, tgt: Target) -> tuple[Any, int]:
    """Rank a list of ``count`` packed (rank, link) words whose tail links to itself with rank
    0: ``ceil(log2(count - 1))`` rounds, double buffered. Returns the buffer holding the result
    and the rounds run."""
    rounds = max(count - 2, 0).bit_length()
    for _ in range(rounds):
        compute(None, count, _jump, links, spare, target=tgt)
        links, spare = spare, links
    return links, rounds


def _wylie(succ: Any, n: int, ends: tuple[int, int], tgt: Target, options: dict[str, Any]
           ) -> tuple[Any, int, int, int]:
    links = tgt.empty(n, np.int64)
    compute(None, n, _start_links, succ, links, target=tgt)
    links, rounds = _pointer_jump(n, links, tgt.empty(n, np.int64), tgt)
    ranks = tgt.empty(n, np.int64)
    compute(None, n, _unpack_rank, links, ranks, target=tgt)
    return ranks, rounds, 0, reduce(None, n, _astray, links, ends[1], op="count", target=tgt)


# random splitter (Reid-Miller; Dehne & Yogaratnam's RS1-RS5) ------------------------------------

def _clear(v: int, owner: Any) -> None:
    """RS1: no node has an owner yet."""
    owner[v] = -1


def _choose(i: int, splitters: Any, n: int, r: int, head: int, seed: int) -> None:
    """RS2: splitter ``i`` is a random node of slice ``i`` of ``r`` equal slices of the ids
    ``0 .. n-1`` (a stateless integer hash of (seed, i)); the slice holding the head takes the
    head."""
    low = i * n // r
    high = (i + 1) * n // r
    x = (i * 2654435761 + seed * 40503 + 12345) & 0x7FFFFFFF
    x ^= x >> 15
    x = (x * 2246822519) & 0x7FFFFFFF
    x ^= x >> 13
    x = (x * 3266489917) & 0x7FFFFFFF
    x ^= x >> 16
    splitters[i] = head if low <= head < high else low + x % (high - low)


def _own(i: int, splitters: Any, owner: Any, local: Any) -> None:
    """RS2: each splitter owns itself, at offset 0."""
    s = splitters[i]
    owner[s] = i
    local[s] = 0


def _own_packed(i: int, splitters: Any, mark: Any) -> None:
    mark[splitters[i]] = i << 32


def _walk(i: int, succ: Any, splitters: Any, owner: Any, local: Any, sublists: Any,
          r: int) -> None:
    """RS3: walk splitter ``i``'s sub-list until a node another splitter owns (or the tail),
    marking owner and offset; link the splitter to the next one with its sub-list's length
    (to the sentinel ``r`` with length - 1 when the sub-list holds the tail)."""
    prev = splitters[i]
    j = succ[prev]
    dist = 1
    while j != prev and owner[j] == -1:
        owner[j] = i
        local[j] = dist
        prev = j
        j = succ[j]
        dist += 1
    if j == prev:
        sublists[i] = ((dist - 1) << 32) | r
    else:
        sublists[i] = (dist << 32) | np.int64(owner[j])


def _walk_packed(i: int, succ: Any, splitters: Any, mark: Any, sublists: Any, r: int) -> None:
    prev = splitters[i]
    j = succ[prev]
    dist = 1
    while j != prev and mark[j] == -1:
        mark[j] = (i << 32) | dist
        prev = j
        j = succ[j]
        dist += 1
    if j == prev:
        sublists[i] = ((dist - 1) << 32) | r
    else:
        sublists[i] = (dist << 32) | (mark[j] >> 32)


def _sentinel(i: int, sublists: Any, r: int) -> None:
    sublists[r] = r  # rank 0, links to itself: the end of the splitter list


def _aggregate(v: int, owner: Any, local: Any, sublists: Any, ranks: Any) -> None:
    """RS5: a node's rank is its splitter's rank minus its offset (-1 where no splitter reached
    it: a cycle apart from the list)."""
    o = owner[v]
    ranks[v] = (sublists[o] >> 32) - local[v] if o >= 0 else -1


def _aggregate_packed(v: int, mark: Any, sublists: Any) -> None:
    m = mark[v]
    mark[v] = (sublists[m >> 32] >> 32) - (m & _LOW) if m >= 0 else -1


def _random_splitter(succ: Any, n: int, ends: tuple[int, int], tgt: Target,
                     options: dict[str, Any]) -> tuple[Any, int, int, int]:
    r, packed, seed = options["splitters"], options["packed"], options["seed"]
    head = ends[0]
    chosen = tgt.empty(r, np.int64)
    sublists = tgt.empty(r + 1, np.int64)
    compute(None, r, _choose, chosen, n, r, head, seed, target=tgt)                     # RS2
    if packed:
        mark = tgt.empty(n, np.int64)
        compute(None, n, _clear, mark, target=tgt)                                      # RS1
        compute(None, r, _own_packed, chosen, mark, target=tgt)                         # RS2
        compute(None, r, _walk_packed, succ, chosen, mark, sublists, r, target=tgt)     # RS3
    else:
        owner, local = tgt.empty(n, np.int32), tgt.empty(n, np.int32)
        compute(None, n, _clear, owner, target=tgt)
        compute(None, r, _own, chosen, owner, local, target=tgt)
        compute(None, r, _walk, succ, chosen, owner, local, sublists, r, target=tgt)
    compute(None, 1, _sentinel, sublists, r, target=tgt)
    sublists, rounds = _pointer_jump(r + 1, sublists, tgt.empty(r + 1, np.int64), tgt)  # RS4
    astray = reduce(None, r + 1, _astray, sublists, r, op="count", target=tgt)
    if packed:
        compute(None, n, _aggregate_packed, mark, sublists, target=tgt)                 # RS5
        ranks = mark
    else:
        ranks = tgt.empty(n, np.int64)
        compute(None, n, _aggregate, owner, local, sublists, ranks, target=tgt)
    astray += reduce(None, n, _unranked, ranks, op="count", target=tgt)
    return ranks, rounds, r, astray


_METHODS = {"wylie": _wylie, "random_splitter": _random_splitter}
_OPTIONS = ("splitters", "packed", "seed")


def _options(method: str, options: dict[str, Any], n: int) -> dict[str, Any]:
    """random_splitter's options, checked, with their defaults; none for wylie."""
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise TypeError(f"list_ranking takes no {', '.join(unknown)}; the options are "
                        f"{', '.join(_OPTIONS)} (method 'random_splitter')")
    if method == "wylie":
        validate.unused("method='wylie' (it picks no splitters)", options)
        return {}
    splitters = options.get("splitters")
    return {"splitters": default_splitters(n) if splitters is None or n == 0
            else validate.count("splitters", splitters, 1, n),
            "packed": validate.flag("packed", options.get("packed", True)),
            "seed": validate.count("seed", options.get("seed", 0), 0, 2**32 - 1)}


def list_ranking(succ: Any, *, method: str = "random_splitter",
                 target: str | Target | None = None, out: str = "host", **options: Any
                 ) -> ListRankingResult:
    """Rank the linked list ``succ`` (``succ[v]``: the node after ``v``; the tail points to
    itself): each node's number of links to the tail.

    ``method`` is ``"random_splitter"`` (Reid-Miller, the default: O(n) work) or ``"wylie"``
    (pointer jumping). random_splitter takes ``splitters`` (default :func:`default_splitters`),
    ``packed`` (default True: owner and offset in one 64-bit word) and ``seed`` (default 0;
    an integer ``0 .. 2**32 - 1``). ``target`` and ``out`` as :func:`algorithms.bfs`'s
    (``"auto"`` weighs the list's length only: the rounds do not follow it).
    :class:`ListError` when ``succ`` is not one list (see the module docstring); ``succ`` is
    not modified. An empty array is the empty list.

    ``succ`` may be a device array (CuPy, PyTorch CUDA tensor, Numba device array:
    :mod:`frontier.runtime.device_arrays`): ``"auto"`` then runs on the GPU, whatever the length
    (:func:`frontier.placement.choose`); on the cuda target it is checked and read where it is,
    with no copy (unsigned ids are converted to int64 on the device); on the cpu target it is
    copied to the host first."""
    method = validate.one_of("method", method, ListRankingMethod)
    check_out(out)
    tgt, ids, host = _placed(succ, target)
    n = ids.shape[0]
    checked = _options(method, options, n)
    if n == 0:
        return ListRankingResult(deliver(tgt, tgt.empty(0, np.int64), out), 0, 0.0, target=tgt)
    device = ids if is_device_array(ids) else tgt.to_device(ids)
    ends = _check_list(host, device, tgt)
    start = time.perf_counter()
    ranks, rounds, splitters, astray = _METHODS[method](device, n, ends, tgt, checked)
    seconds = time.perf_counter() - start  # the count read last waited for every kernel
    if astray:
        raise ListError(f"the list from head {ends[0]} does not reach every node: the rest lie "
                        "on a cycle apart from it (no node can follow two, so such a cycle is "
                        "the only way)")
    return ListRankingResult(deliver(tgt, ranks, out), rounds, seconds, splitters, target=tgt)


# the catalog entry: a graph holding a linked list -------------------------------------------
def successors(graph: Graph) -> np.ndarray:
    """The successor array of a graph holding a linked list (one out-arc per vertex, to its
    successor; the tail's a self-loop, as :func:`frontier.generators.list_graph` builds)."""
    degrees = validate.graph(graph).out_degrees()
    if graph.num_vertices and (degrees != 1).any():
        v = int(np.argmax(degrees != 1))
        raise ListError(f"listrank takes a linked list: a graph whose every vertex has one "
                        f"out-arc, to its successor (the tail's a self-loop), as list:N builds; "
                        f"vertex {v} has {int(degrees[v])}")
    return graph.col_indices


def _run(graph: Graph, *, target: str | Target | None = None, method: str = "random_splitter",
         out: str = "host") -> ListRankingResult:
    return list_ranking(successors(graph), method=method, target=target, out=out)


def _reference(graph: Graph, source: None) -> np.ndarray:
    return testing.reference_list_ranks(successors(graph))


def _check(graph: Graph, source: None, result: ListRankingResult) -> None:
    testing.check_list_ranks(successors(graph), on_host(result.ranks))


def _report(result: ListRankingResult) -> list[tuple[str, str]]:
    ranks = on_host(result.ranks)
    head = f"{int(ranks.max()) if ranks.size else 0:,} links to the tail"
    shown = [("head rank", head)]
    if result.splitters:
        shown.append(("splitters", f"{result.splitters:,}"))
    return shown


ENTRIES = (
    Entry(name="listrank", description="list ranking: each node's links to the tail of a linked "
          "list (Dehne & Yogaratnam §3)", run=_run, reference=_reference, check=_check,
          checks="ranks equal a sequential walk of the list", report=_report,
          options=(Option("method", ListRankingMethod, ListRankingMethod.RANDOM_SPLITTER,
                          "wylie: pointer jumping; random_splitter: Reid-Miller"),),
          source=False, balanced=False, example="list:42", suite=False),
)
