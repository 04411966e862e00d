"""operators.iterate's Gather on hubs: a vertex of more than HUB_DEGREE edges is folded in chunks
of CHUNK edges, each over 32 lanes (a warp on a GPU, a loop on the cpu target) whose values
combine in a fixed tree, then its chunks' values the same way, so every target computes the same
sums; every other vertex is folded in order, as neighbor_reduce does."""

from __future__ import annotations

import numpy as np
import pytest

from frontier import Graph
from frontier.runtime.cuda_support import cuda_usable
from frontier.target import resolve_target
from operators.iterate import CHUNK, HUB_DEGREE, LANES, Gather, Total, iterate
from tests.pairs import pairwise
from tests.tiers import TARGETS as TIER_TARGETS

TARGETS = ["cpu"] + (["cuda"] if cuda_usable() else [])


def simulated() -> bool:
    return cuda_usable() and resolve_target("cuda").simulated


def pulled(src, dst, eid, weight, x, out, totals):
    return x[src]


def nothing(v, x, out, totals):
    return 0.0


def lanes_and_tree(values: np.ndarray) -> float:
    """The hub's sum as the lanes fold it: lane l the values l, l + 32, ... in order, then lane
    l takes in lane l + d for d = 16, 8, 4, 2, 1."""
    lanes = np.zeros(LANES)
    for lane in range(LANES):
        acc = 0.0
        for value in values[lane::LANES]:
            acc += value
        lanes[lane] = acc
    for d in (16, 8, 4, 2, 1):
        for low in range(d):
            lanes[low] += lanes[low + d]
    return float(lanes[0])


def chunked(values: np.ndarray) -> float:
    """The hub's sum as a Gather folds it: each chunk of CHUNK values over the lanes and the
    tree, then the chunks' sums over the lanes and the tree."""
    partials = [lanes_and_tree(values[j:j + CHUNK]) for j in range(0, values.size, CHUNK)]
    return lanes_and_tree(np.array(partials))


def in_order(values: np.ndarray) -> float:
    acc = 0.0
    for value in values:
        acc += value
    return acc


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("extra", [1, 77, 3 * CHUNK + 5])
def test_a_hub_is_gathered_in_chunks_over_lanes_and_a_fixed_tree_on_every_target(target, extra):
    leaves = HUB_DEGREE + extra
    tails = np.concatenate([np.arange(1, leaves + 1), np.zeros(3, np.int64)])
    heads = np.concatenate([np.zeros(leaves, np.int64), [1, 2, 3]])
    graph = Graph.from_edges(tails, heads, num_vertices=leaves + 1, directed=True)
    tgt = resolve_target(target)
    x = np.random.default_rng(extra).random(leaves + 1) * 1e3
    out = tgt.zeros(leaves + 1, np.float64)
    ran = iterate(graph, (Gather(pulled, into=1), Total(nothing)), tgt.to_device(x), out,
                  stop_below=1.0, max_iter=1, target=tgt)
    assert ran.iterations == 1
    gathered = tgt.to_host(out)
    csc = graph.csc()
    into_hub = x[csc.row_indices[csc.col_offsets[0]:csc.col_offsets[1]]]
    assert gathered[0] == chunked(into_hub)
    assert chunked(into_hub) != in_order(into_hub) or extra == 1  # the order shows
    for v in (1, 2, 3, leaves):
        tails_of_v = csc.row_indices[csc.col_offsets[v]:csc.col_offsets[v + 1]]
        assert gathered[v] == in_order(x[tails_of_v])


def reached(src, dst, eid, weight, x, out, totals):
    return x[dst]


def hubs_both_ways(big: int, small: int) -> Graph:
    """Vertex 0 takes ``big`` in-edges and vertex 1 sends ``small`` out-edges, to leaves 2..;
    leaf 2 also sends one edge to 1."""
    leaves = np.arange(2, 2 + max(big, small))
    tails = np.concatenate([leaves[:big], np.ones(small, np.int64), [2]])
    heads = np.concatenate([np.zeros(big, np.int64), leaves[:small], [1]])
    return Graph.from_edges(tails, heads, num_vertices=2 + leaves.size, directed=True)


@pairwise(target=TIER_TARGETS, op=["sum", "min", "max"], edges=["in", "out"])
def test_hubs_of_either_direction_fold_as_the_chunked_model_says(target, op, edges):
    graph = hubs_both_ways(2 * CHUNK + 3, CHUNK + 10)
    n, tgt = graph.num_vertices, resolve_target(target)
    x = np.random.default_rng(7).random(n) * 1e3 - 500
    out = tgt.zeros(n, np.float64)
    fn = pulled if edges == "in" else reached
    iterate(graph, (Gather(fn, into=1, op=op, edges=edges), Total(nothing)), tgt.to_device(x),
            out, stop_below=1.0, max_iter=1, target=tgt)
    gathered = tgt.to_host(out)
    view = graph.csc() if edges == "in" else graph
    offsets = view.col_offsets if edges == "in" else view.row_offsets
    others = view.row_indices if edges == "in" else view.col_indices
    for v in range(n):
        values = x[others[offsets[v]:offsets[v + 1]]]
        if op == "sum":
            hub = values.size > HUB_DEGREE
            assert gathered[v] == (chunked(values) if hub else in_order(values)), v
        elif values.size:
            assert gathered[v] == (values.min() if op == "min" else values.max()), v
        else:
            assert gathered[v] == (np.inf if op == "min" else -np.inf), v


@pytest.mark.parametrize("target", ["cpu"] + (["cuda"] if simulated() else []))
def test_a_hub_gather_is_race_free_step_by_step(target):
    from frontier.testing import check_race_free

    graph, tgt = hubs_both_ways(CHUNK + 40, 3), resolve_target(target)
    x = np.arange(graph.num_vertices, dtype=np.float64)
    out = tgt.zeros(graph.num_vertices, np.float64)
    ran = check_race_free(iterate, graph, (Gather(pulled, into=1), Total(nothing)),
                          tgt.to_device(x), out, stop_below=1.0, max_iter=2, target=tgt)
    assert ran.iterations == 1
    assert tgt.to_host(out)[0] == chunked(x[graph.csc().row_indices[:CHUNK + 40]])


@pytest.mark.parametrize("target", TARGETS)
def test_a_small_graph_runs_on_only_the_blocks_its_vertices_and_hub_lanes_fill(target):
    """Fewer blocks make each grid barrier cheaper; one block needs no grid barrier."""
    from frontier import generators
    from frontier.runtime.recording import recording

    tgt = resolve_target(target)
    for graph in (generators.path(5), generators.path(3000), hubs_both_ways(2 * CHUNK + 3, 3)):
        n = graph.num_vertices
        x, out = tgt.to_device(np.ones(n)), tgt.zeros(n, np.float64)
        with recording() as log:
            iterate(graph, (Gather(pulled, into=1), Total(nothing)), x, out, stop_below=1.0,
                    max_iter=1, target=tgt)
        (launch,) = [k for k in log if k.name.startswith("iterate")]
        chunks = 3 if graph.csc().col_offsets[1] > HUB_DEGREE else 0
        wanted = -(-max(n, LANES * chunks) // launch.threads_per_block)
        full = min(tgt.persistent_blocks(launch.threads_per_block),
                   tgt.resident_blocks(launch.threads_per_block))
        assert launch.blocks == min(full, wanted)
        # one block: its steps wait at block barriers, not at a grid barrier
        one_block = launch.blocks == 1 and tgt.block_barrier != tgt.grid_barrier
        assert launch.name.endswith("_block") == one_block
        assert np.array_equal(tgt.to_host(out), np.asarray(
            [in_order(np.ones(int(d))) if d <= HUB_DEGREE else chunked(np.ones(int(d)))
             for d in np.diff(graph.csc().col_offsets)]))


def doubled(src, dst, eid, weight, x, out, totals):
    return 2.0 * x[src]


def summed(v, x, out, totals):
    return out[v]


@pytest.mark.parametrize("target", TARGETS)
def test_loops_that_differ_in_a_phase_never_share_a_kernel(target):
    """A loop's kernel is kept for the next loop of the same phases: one whose phase has
    another functor, fold, direction or output array gets a kernel of its own."""
    graph = Graph.from_edges([0, 0, 1, 2], [1, 2, 2, 3], num_vertices=4, directed=True)
    tgt = resolve_target(target)
    x = tgt.to_device(np.array([1.0, 2.0, 4.0, 8.0]))

    def run(gather):
        out = tgt.zeros(4, np.float64)
        for _ in range(2):  # the second call takes the kept kernel
            ran = iterate(graph, (gather, Total(summed)), x, out, stop_below=np.inf,
                          max_iter=1, target=tgt)
        return ran.totals[-1], tgt.to_host(out).tolist()

    assert run(Gather(pulled, into=1)) == (8.0, [0.0, 1.0, 3.0, 4.0])
    assert run(Gather(doubled, into=1)) == (16.0, [0.0, 2.0, 6.0, 8.0])
    assert run(Gather(pulled, into=1, op="max")) == (-np.inf, [-np.inf, 1.0, 2.0, 4.0])
    assert run(Gather(pulled, into=1, edges="out")) == (8.0, [2.0, 2.0, 4.0, 0.0])
