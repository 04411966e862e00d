"""Several sources in one launch (operators.sources): the copies of a graph hold each source's
traversal apart, batches cut long lists of sources, copies' ids map back to the graph's."""

from __future__ import annotations

import numpy as np
import pytest

from frontier import Graph, generators
from operators.sources import batches, in_row, sources_per_batch


def test_copies_are_disjoint_copies_of_the_graph():
    g = Graph.from_edges([0, 1, 2], [1, 2, 0], weights=[4, 5, 6], num_vertices=4)
    three = g.copies(3)
    assert (three.num_vertices, three.num_edges) == (12, 9)
    coo, one = three.coo(), g.coo()
    for i in range(3):
        arcs = slice(3 * i, 3 * i + 3)
        np.testing.assert_array_equal(coo.src[arcs], one.src + 4 * i)
        np.testing.assert_array_equal(coo.dst[arcs], one.dst + 4 * i)
    np.testing.assert_array_equal(three.weights, np.tile(g.weights, 3))
    assert g.copies(1) is g and g.copies(3) is three  # kept with the graph


def test_batches_cut_sources_by_the_cells_of_their_copies():
    g = generators.path(10)  # 10 vertices, 18 arcs: 28 cells a copy
    assert sources_per_batch(g, cells=100) == 3
    got = list(batches(g, np.array([1, 2, 3, 4, 5, 9, 9]), cells=100))
    assert [b.size for b in got] == [3, 3, 1]
    assert [b.first for b in got] == [0, 3, 6]
    np.testing.assert_array_equal(got[1].starts, [4, 15, 29])
    assert got[1].graph.num_vertices == 30


@pytest.mark.parametrize("on_device", [False, True])
def test_ids_of_the_copies_map_back_into_their_row(target, on_device):
    ids = np.array([-1, 3, 7, 12, 0], np.int32)
    given = target.to_device(ids) if on_device else ids
    back = in_row(given, 5, target)
    np.testing.assert_array_equal(target.to_host(back) if on_device else back, [-1, 3, 2, 2, 0])
