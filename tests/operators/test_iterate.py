"""operators.iterate's Gather on hubs: a vertex of more than HUB_DEGREE edges is folded over 32
lanes (a warp on a GPU, a loop on the cpu target) whose values combine in a fixed tree, so every
target computes the same sums; every other vertex is folded in order, as neighbor_reduce does."""

from __future__ import annotations

import numpy as np
import pytest

from frontier import Graph
from frontier.target import cuda_usable, resolve_target
from operators.iterate import HUB_DEGREE, LANES, Gather, Total, iterate

TARGETS = ["cpu"] + (["cuda"] if cuda_usable() else [])


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


def in_order(values: np.ndarray) -> float:
    acc = 0.0
    for value in values:
        acc += value
    return acc


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("extra", [1, 77])
def test_a_hub_is_gathered_over_lanes_and_a_fixed_tree_on_every_target(target, extra):
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
    assert gathered[0] == lanes_and_tree(into_hub)
    assert lanes_and_tree(into_hub) != in_order(into_hub) or extra == 1  # the order shows
    for v in (1, 2, 3, leaves):
        tails_of_v = csc.row_indices[csc.col_offsets[v]:csc.col_offsets[v + 1]]
        assert gathered[v] == in_order(x[tails_of_v])
