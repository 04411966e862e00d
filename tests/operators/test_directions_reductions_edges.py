"""Direction inside advance, condition, reduce, neighbor_reduce, edge frontiers, functor identity
and errors, and explain showing exactly the kernels that run; on every target and balancer."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontier import Frontier, Graph, atomic_add, atomic_cas, out_degree
from frontier.options import Way, values
from frontier.testing import assert_same_set, graphs
from operators import (
    Direction,
    FunctorError,
    OperatorError,
    advance,
    available_balancers,
    compute,
    explain,
    filter,
    neighbor_reduce,
    reduce,
    traverse,
)
from operators import functors as functors_module
from operators.neighbors import NEIGHBOR_REDUCTIONS
from operators.reduce import FOLDS, REDUCTIONS, RENAMED, identity_of
from tests.pairs import pairwise
from tests.tiers import TARGETS

BALANCERS = available_balancers()


def accept(src, dst, eid, weight, seen):
    return True


def unseen(v, seen):
    return seen[v] == 0


def mark(src, dst, eid, weight, seen):
    atomic_add(seen, dst, 1)
    return True


def claim(src, dst, eid, weight, seen):
    return atomic_cas(seen, dst, 0, 1) == 0


def diamond():
    return Graph.from_edges([0, 0, 1, 2, 3], [1, 2, 3, 3, 4], num_vertices=6)


# direction ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("direction", values(Way))
@given(graph=graphs(max_vertices=20, max_edges=60), data=st.data())
def test_every_direction_reaches_the_same_heads(target, direction, graph, data):
    if graph.num_vertices == 0:
        return
    sources = data.draw(st.sets(st.integers(0, graph.num_vertices - 1), max_size=6))
    seen = target.zeros(graph.num_vertices, np.int32)
    f = Frontier.from_vertices(graph, sorted(sources), target=target)
    out = advance(graph, f, accept, seen, direction=direction, output="dense")
    offs, cols = graph.row_offsets, graph.col_indices
    heads = {int(cols[e]) for s in sources for e in range(offs[s], offs[s + 1])}
    assert_same_set(out.to_numpy(), sorted(heads))


def test_pull_stops_a_vertex_once_its_condition_fails(target):
    g = Graph.from_edges([0, 1, 2], [3, 3, 3], num_vertices=4)
    seen = target.zeros(4, np.int32)
    f = Frontier.from_vertices(g, [0, 1, 2], kind="dense", target=target)
    out = advance(g, f, mark, seen, condition=unseen, direction="pull")
    assert out.to_numpy().tolist() == [3]
    assert target.to_host(seen)[3] == 1  # one accepted in-edge, then the condition failed


def test_push_calls_op_only_where_the_condition_holds(target):
    g = diamond()
    seen = target.to_device(np.array([0, 0, 1, 0, 0, 0], np.int32))
    out = advance(g, Frontier.from_vertices(g, [0], target=target), mark, seen,
                  condition=unseen)
    assert out.to_numpy().tolist() == [1]
    assert target.to_host(seen).tolist() == [0, 1, 1, 0, 0, 0]


def test_auto_switches_to_pull_on_a_large_frontier_and_back_to_push():
    plan = Direction("auto", alpha=4, beta=8)
    n = 64
    assert plan.choose(1, n) == "push"
    assert plan.choose(40, n) == "pull"
    assert plan.choose(30, n) == "pull"       # still above |V| / beta
    assert plan.choose(5, n) == "push"        # small and shrinking
    assert plan.choose(40, n) == "push"       # past the peak: push to the end
    assert plan.push_limit(n) is None


@pytest.mark.parametrize("bad", [{"alpha": 0}, {"beta": -1}, {"alpha": "x"}, {"mode": "up"}])
def test_bad_direction_arguments_are_refused(bad):
    with pytest.raises((ValueError, TypeError)):
        Direction(**bad)


def test_edge_frontier_has_no_pull(target):
    g = diamond()
    with pytest.raises(OperatorError, match="pull"):
        advance(g, Frontier.all_edges(g, target=target), accept, target.zeros(6, np.int32),
                direction="pull")


@pairwise(target=TARGETS, balancer=BALANCERS, direction=values(Way), fused=[True, False])
def test_traverse_reaches_every_vertex_in_each_mode(target, balancer, direction, fused):
    g = Graph.from_edges([0, 0, 1, 2, 3, 4], [1, 2, 3, 3, 4, 5], directed=False)
    seen = target.zeros(g.num_vertices, np.int32)
    target.write_scalar(seen, 0, 1)
    run = traverse(g, Frontier.from_vertices(g, [0], target=target), claim, seen,
                   condition=unseen,
                   direction=Direction(direction, **({"alpha": 2, "beta": 4}
                                                     if direction == "auto" else {})),
                   balancer=balancer, fused=fused)
    assert target.to_host(seen).tolist() == [1] * 6
    assert run.steps == 5  # levels {0}, {1, 2}, {3}, {4}, {5}


# reduce ------------------------------------------------------------------------------------------
def degree(v, graph):
    return out_degree(graph, v)


def weight_of(e, w):
    return w[e]


def is_even(v):
    return v % 2 == 0


@given(graph=graphs(max_vertices=30, max_edges=80, weighted=True, weight_range=(-5, 9)))
def test_reduce_sum_min_max_count_over_vertices_and_edges(target, graph):
    assert reduce(graph, "vertices", degree, target=target) == graph.num_edges
    w = target.to_device(graph.weights if graph.weights is not None
                         else np.zeros(1, np.int32))
    if graph.num_edges:
        host = np.asarray(graph.weights, np.int64)
        for op, want in (("sum", host.sum()), ("min", host.min()), ("max", host.max())):
            got = reduce(graph, "edges", weight_of, w, op=op, target=target)
            assert isinstance(got, int) and got == want
    assert reduce(graph, graph.num_vertices, is_even, op="count", target=target) == \
        (graph.num_vertices + 1) // 2


def test_reduce_over_a_frontier_of_either_kind_and_floats(target):
    g = diamond()
    x = target.to_device(np.array([0.5, 1.5, 2.5, 3.5, 4.5, 5.5]))
    for kind in ("sparse", "dense"):
        f = Frontier.from_vertices(g, [1, 3, 5], kind=kind, target=target)
        got = reduce(g, f, lambda v, x: x[v], x)
        assert isinstance(got, float) and got == 1.5 + 3.5 + 5.5
        assert len(f) == 3  # a reduction is not a step: the frontier stays valid


def test_reduce_of_nothing_is_the_identity(target):
    g = Graph.from_edges([], [], num_vertices=3)
    assert reduce(g, "edges", lambda e: 1, target=target) == 0
    assert reduce(g, "edges", lambda e: 1.0, op="min", target=target) == np.inf


def test_reduce_refuses_an_unknown_op_and_a_non_numeric_function(target):
    g = diamond()
    with pytest.raises(OperatorError, match="op="):
        reduce(g, "vertices", is_even, op="product", target=target)
    with pytest.raises(FunctorError, match="returns"):
        reduce(g, "vertices", lambda v: (v, v), target=target)


def huge_unsigned(v):
    return np.uint64(2**63 + v)


def huge_signed(v, sign):
    return np.int64(sign * 2**62)


def test_an_integer_sum_beyond_64_bits_is_exact(target):
    g = Graph.from_edges([], [], num_vertices=25)
    assert reduce(g, "vertices", huge_unsigned, target=target) == 25 * 2**63 + sum(range(25))
    for sign in (1, -1):
        assert reduce(g, "vertices", huge_signed, sign, target=target) == sign * 25 * 2**62


def test_unsigned_minima_and_maxima_above_2_to_the_63_keep_their_order(target):
    g = Graph.from_edges([], [], num_vertices=25)
    assert reduce(g, "vertices", huge_unsigned, op="min", target=target) == 2**63
    assert reduce(g, "vertices", huge_unsigned, op="max", target=target) == 2**63 + 24
    empty = Graph.from_edges([], [], num_vertices=0)
    assert reduce(empty, "vertices", huge_unsigned, op="min", target=target) == 2**64 - 1


def value_or_unset(v, values, unset):
    return values[v] if v > 100 else unset


@pytest.mark.parametrize("op", ["min", "max"])
def test_one_functor_reduces_integers_then_floats_each_in_its_own_type(target, op):
    g = Graph.from_edges([], [], num_vertices=5)
    extreme = np.iinfo(np.int64).max if op == "min" else np.iinfo(np.int64).min
    ints = np.arange(5, dtype=np.int64)
    assert reduce(g, "vertices", value_or_unset, ints, extreme, op=op, target=target) == extreme
    unset = np.inf if op == "min" else -np.inf
    assert reduce(g, "vertices", value_or_unset, ints.astype(np.float64), unset, op=op,
                  target=target) == unset


def value_at(v, values):
    return values[v]


def scaled(v, values, factor):
    return values[v] * factor


def test_one_functor_sums_unsigned_signed_and_boolean_arrays_each_in_its_own_type(target):
    g = Graph.from_edges([], [], num_vertices=3)
    unsigned = target.to_device(np.array([2**63, 2**63, 1], dtype=np.uint64))
    assert reduce(g, "vertices", value_at, unsigned, target=target) == 2**64 + 1
    signed = target.to_device(np.array([-1, -2, -3], dtype=np.int64))
    assert reduce(g, "vertices", value_at, signed, target=target) == -6
    flags = target.to_device(np.array([True, False, True]))
    assert reduce(g, "vertices", value_at, flags, target=target) == 2
    halves = target.to_device(np.array([0.5, 1.5, 2.5]))
    got = reduce(g, "vertices", value_at, halves, target=target)
    assert isinstance(got, float) and got == 4.5


def test_a_scalar_state_of_another_type_retypes_the_reduction(target):
    g = Graph.from_edges([], [], num_vertices=3)
    values = target.to_device(np.array([1, 2, 3], dtype=np.int64))
    assert reduce(g, "vertices", scaled, values, 2, target=target) == 12
    got = reduce(g, "vertices", scaled, values, 0.5, target=target)
    assert isinstance(got, float) and got == 3.0
    assert reduce(g, "vertices", scaled, values, np.int32(3), target=target) == 18


# neighbor_reduce ---------------------------------------------------------------------------------
def src_id(src, dst, eid, weight):
    return src


def dst_id(src, dst, eid, weight):
    return dst


@pairwise(target=TARGETS, op=NEIGHBOR_REDUCTIONS, edges=["in", "out"])
@given(graph=graphs(max_vertices=20, max_edges=60))
def test_neighbor_reduce_folds_each_vertex_edges(target, op, edges, graph):
    n = graph.num_vertices
    out = target.zeros(max(n, 1), np.int64)
    fn = src_id if edges == "in" else dst_id
    neighbor_reduce(graph, "vertices", fn, out=out, op=op, edges=edges)
    coo = graph.coo()
    owner, other = (coo.dst, coo.src) if edges == "in" else (coo.src, coo.dst)
    folds = {"sum": (0, np.add, other), "logical_or": (0, np.logical_or, other != 0),
             "bit_or": (0, np.bitwise_or, other),
             "min": (np.iinfo(np.int64).max, np.minimum, other),
             "max": (np.iinfo(np.int64).min, np.maximum, other)}
    identity, ufunc, values = folds[op]
    want = np.full(max(n, 1), identity, np.int64)
    ufunc.at(want, owner, values)
    np.testing.assert_array_equal(target.to_host(out)[:n], want[:n])


def test_neighbor_reduce_or_is_logical_and_bit_or_ors_the_bits(target):
    g = diamond()
    logical, bits = target.zeros(6, np.int64), target.zeros(6, np.int64)
    neighbor_reduce(g, "vertices", src_id, out=logical, op="logical_or")
    neighbor_reduce(g, "vertices", src_id, out=bits, op="bit_or")
    # in-edges: 1 and 2 from 0; 3 from 1 and 2; 4 from 3
    assert target.to_host(logical).tolist() == [0, 0, 0, 1, 1, 0]
    assert target.to_host(bits).tolist() == [0, 0, 0, 1 | 2, 3, 0]


def test_neighbor_reduce_or_still_works_and_warns_to_write_logical_or(target):
    g = diamond()
    old, new = target.zeros(6, np.int64), target.zeros(6, np.int64)
    with pytest.warns(DeprecationWarning, match="write op='logical_or'") as caught:
        neighbor_reduce(g, "vertices", src_id, out=old, op="or")
    assert caught[0].filename == __file__  # the warning points at the caller
    neighbor_reduce(g, "vertices", src_id, out=new, op="logical_or")
    assert target.to_host(old).tolist() == target.to_host(new).tolist()


def test_neighbor_reduce_bit_or_refuses_a_float_out(target):
    with pytest.raises(OperatorError, match="op='bit_or' folds integers or booleans; out= has "
                                            "dtype float64"):
        neighbor_reduce(diamond(), "vertices", src_id, out=target.zeros(6, np.float64),
                        op="bit_or")


def test_reduce_and_neighbor_reduce_share_one_table_of_folds():
    assert set(REDUCTIONS) <= set(FOLDS) and set(NEIGHBOR_REDUCTIONS) <= set(FOLDS)
    assert all(new in FOLDS for new in RENAMED.values())


def test_neighbor_reduce_over_a_frontier_touches_only_its_vertices(target):
    g = diamond()
    out = target.full(6, -7, np.int64)
    neighbor_reduce(g, Frontier.from_vertices(g, [3], target=target), src_id, out=out)
    assert target.to_host(out).tolist() == [-7, -7, -7, 3, -7, -7]


def test_neighbor_reduce_refuses_a_short_output(target):
    g = diamond()
    with pytest.raises(OperatorError, match="out="):
        neighbor_reduce(g, "vertices", src_id, out=target.zeros(2, np.int64))


# edge frontiers ----------------------------------------------------------------------------------
def heavy(src, dst, eid, weight):
    return weight > 4


def even_edge(e):
    return e % 2 == 0


def count_edge(e, hits):
    atomic_add(hits, e, 1)


@pytest.mark.parametrize("kind", ["sparse", "dense"])
def test_edge_frontiers_advance_filter_and_compute_over_edge_ids(target, kind):
    g = Graph.from_edges([0, 0, 1, 2, 3], [1, 2, 3, 3, 4], weights=[1, 5, 7, 2, 9])
    f = Frontier.all_edges(g, kind=kind, target=target)
    kept = advance(g, f, heavy, output=kind)
    assert kept.domain == "edges"
    assert_same_set(kept.to_numpy(), [1, 2, 4])
    even = filter(g, kept, even_edge)
    assert_same_set(even.to_numpy(), [2, 4])
    hits = target.zeros(g.num_edges, np.int32)
    compute(g, even, count_edge, hits)
    assert target.to_host(hits).tolist() == [0, 0, 1, 0, 1]


# functors: identity, globals, errors --------------------------------------------------------------
def test_a_lambda_compiles_once_per_closure(target):
    g = diamond()
    before = len(functors_module._COMPILED)
    for _ in range(3):
        advance(g, Frontier.from_vertices(g, [0], target=target),
                lambda s, d, e, w: True, output="none")
    assert len(functors_module._COMPILED) - before <= 1
    results = []
    for limit in (1, 2):
        f = advance(g, Frontier.from_vertices(g, [0], target=target),
                    lambda s, d, e, w: d <= limit)  # noqa: B023 - called in the loop
        results.append(sorted(f.to_numpy().tolist()))
    assert results == [[1], [1, 2]]


THRESHOLD = 1


def above_threshold(v):
    return v > THRESHOLD


def test_a_functor_sees_the_current_value_of_a_module_global(target):
    global THRESHOLD
    g = diamond()
    try:
        counts = []
        for value in (1, 3):
            THRESHOLD = value
            counts.append(reduce(g, "vertices", above_threshold, op="count", target=target))
        assert counts == [4, 2]
    finally:
        THRESHOLD = 1


GLOBAL_ARRAY = np.zeros(6, np.int32)


def reads_global_array(v):
    return GLOBAL_ARRAY[v] == 0


def test_a_functor_reading_a_global_array_is_refused_naming_it(target):
    g = diamond()
    with pytest.raises(FunctorError, match="GLOBAL_ARRAY"):
        filter(g, Frontier.from_vertices(g, [0], target=target), reads_global_array)


def untypable(src, dst, eid, weight):
    return undefined_name_here  # noqa: F821


@pytest.mark.parametrize("fused", [True, False])
def test_a_functor_that_fails_to_compile_names_itself_and_keeps_numbas_message(target, fused):
    g = diamond()
    with pytest.raises(FunctorError) as info:
        traverse(g, Frontier.from_vertices(g, [0], target=target), untypable, fused=fused)
    text = str(info.value)
    assert "untypable" in text and "test_directions_reductions_edges.py" in text
    assert "undefined_name_here" in text


def test_a_numba_dispatcher_is_accepted_as_its_python_function(target):
    import numba

    g = diamond()
    f = advance(g, Frontier.from_vertices(g, [0], target=target),
                numba.njit(lambda s, d, e, w: True))
    assert sorted(f.to_numpy().tolist()) == [1, 2]


def test_a_step_whose_functor_raised_leaves_no_partial_output(target):
    if not target.reports_raises:
        pytest.skip("a GPU refuses a raising functor before any work (test_recovery.py)")
    g = Graph.from_edges([0] * 9, list(range(1, 10)))

    def fails_at_seven(s, d, e, w):
        if d == 7:
            raise ValueError("seven")
        return True

    f = Frontier.from_vertices(g, [0], target=target)
    with pytest.raises(FunctorError, match="seven"):
        advance(g, f, fails_at_seven)
    out = advance(g, f, lambda s, d, e, w: True)
    assert sorted(out.to_numpy().tolist()) == list(range(1, 10))


# explain ---------------------------------------------------------------------------------------
def test_explain_of_auto_shows_the_direction_the_step_took(target):
    g = diamond()
    seen = target.zeros(6, np.int32)
    one = Frontier.from_vertices(g, [0], target=target)
    pushed = explain(advance, g, one, mark, seen, condition=unseen,
                     direction=Direction("auto", alpha=1))  # push while |F| <= |V|
    assert "def advance_" in pushed and "col_offsets" not in pushed
    pulled = explain(advance, g, one, mark, seen, condition=unseen, direction="auto")
    assert "def gather_sparse_to_dense(" in pulled  # the queue made a bitmap, then pulled
    assert "def pull_" in pulled and "col_offsets" in pulled and "def advance_" not in pulled


@pytest.mark.parametrize("balancer", BALANCERS)
def test_explain_of_traverse_shows_the_fused_kernel_or_the_steps_it_runs(target, balancer):
    from operators import get_balancer

    g = diamond()
    f = Frontier.from_vertices(g, [0], target=target)
    text = explain(traverse, g, f, mark, target.zeros(6, np.int32), balancer=balancer)
    fusable = get_balancer(balancer).fusable or not target.runs_balancers
    assert ("def traverse_" in text and "mode fused" in text) == fusable
    if not fusable:
        assert "degree_sums" in text


def test_explain_shows_reduce_and_neighbor_reduce_kernels(target):
    g = diamond()
    assert "atomic_add(result" in explain(reduce, g, "vertices", is_even, op="count",
                                          target=target)
    out = target.zeros(6, np.int64)
    assert "out[v] = acc" in explain(neighbor_reduce, g, "vertices", src_id, out=out)


@pytest.mark.parametrize("op", sorted(FOLDS))
def test_a_folds_identity_is_worked_out_once_per_dtype_and_leaves_values_unchanged(op):
    for dtype in (np.int64, np.dtype(np.int32), np.float64, np.uint8):
        if np.dtype(dtype).kind not in FOLDS[op].kinds:
            continue
        first = identity_of(op, dtype)
        assert identity_of(op, dtype) is first  # kept: a reduction asks on every call
        assert first.dtype == np.dtype(dtype)
        value = np.dtype(dtype).type(5)
        fold = {"sum": lambda a, b: a + b, "count": lambda a, b: a + b, "min": min, "max": max,
                "logical_or": lambda a, b: bool(a) or b, "bit_or": lambda a, b: a | b}[op]
        assert fold(first, value) == value
