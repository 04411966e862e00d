"""The frontier layer: kernel compilation, the ring protocol, edge frontiers, the frontier's own
device kernels (fill, conversions, copy, union) and the lifetime rule."""

from __future__ import annotations

import linecache

import numpy as np
import pytest

from frontier import ring
from frontier.frontier import Frontier
from frontier.graph import Graph


def small_graph() -> Graph:
    """Eight vertices, thirteen edges (edge ids 0..12)."""
    src = np.array([0, 0, 1, 1, 2, 3, 3, 4, 5, 5, 6, 7, 7])
    dst = np.array([1, 2, 2, 3, 4, 4, 5, 6, 6, 7, 0, 1, 6])
    return Graph.from_edges(src, dst, num_vertices=8)


# Target.compile_source --------------------------------------------------------------------------
def test_compile_source_registers_the_text_for_tracebacks(target):
    text = "def add_one(xs):\n" + "    " + target.prologue.replace("\n", "\n    ") + (
        "for i in range(tid, xs.shape[0], nthreads):\n        xs[i] += one\n")
    kernel = target.compile_source("add_one", text, {"one": 1})
    filename = "<frontier-generated add_one>"
    assert linecache.getline(filename, 1) == "def add_one(xs):\n"
    xs = target.to_device(np.arange(5, dtype=np.int64))
    target.launch(kernel, 1, 8, (xs,))
    np.testing.assert_array_equal(target.to_host(xs), np.arange(1, 6))


def test_compile_source_does_not_change_the_callers_namespace(target):
    namespace = {"one": 1}
    target.compile_source("noop", "def noop(xs):\n    pass\n", namespace)
    assert namespace == {"one": 1}


# FrontierPool.ring_arguments ---------------------------------------------------------------------
def test_ring_arguments_are_what_an_operator_launch_passes(target):
    graph = small_graph()
    f = Frontier.from_vertices(graph, [1, 3], kind="dense", target=target)
    pool = f.pool
    step = pool.begin_step(f.slot, "sparse")
    args = pool.ring_arguments(f, step, "sparse")
    assert tuple(args) == ring.RING_PARAMS
    expected = (graph.num_vertices, pool.placeholder_ids, pool.words(f.slot), pool.lengths,
                step.in_slot, step.out_slot, step.clear_slot, pool.ids(step.out_slot),
                pool.placeholder, step.clear_words, step.clear_num_words)
    for name, got, want in zip(ring.RING_PARAMS, args.values(), expected, strict=True):
        assert got is want or (isinstance(want, int) and got == want), name


def test_a_kernel_written_from_the_ring_snippets_is_a_ring_step(target):
    graph = small_graph()
    f = Frontier.from_vertices(graph, [5, 1, 5, 7], target=target)
    body = (ring.clear_next_slot()
            + "for i in range(tid, lens[in_slot], nthreads):\n    v = in_ids[i]\n"
            + "    " + ring.push("dense", "v").replace("\n", "\n    "))
    text = (f"def to_bits({', '.join(ring.RING_PARAMS)}):\n"
            + "".join(f"    {line}\n" for line in (target.prologue + body).splitlines()))
    kernel = target.compile_source("to_bits", text, ring.namespace())
    pool = f.pool
    step = pool.begin_step(f.slot, "dense")
    target.launch(kernel, 1, 8, tuple(pool.ring_arguments(f, step, "dense").values()))
    out = Frontier(pool, step.out_slot, "dense", pool.end_step(step, "dense"))
    assert out.to_numpy().tolist() == [1, 5, 7]
    assert len(out) == 3


def test_ring_arguments_refuse_a_frontier_of_another_pool(target):
    graph = small_graph()
    f = Frontier.from_vertices(graph, [1], target=target)
    g = Frontier.from_vertices(graph, [2], target=target)
    step = g.pool.begin_step(g.slot, "sparse")
    with pytest.raises(ValueError, match="another pool"):
        g.pool.ring_arguments(f, step, "sparse")
