"""Numbers in a functor's closure are kernel arguments: a functor made anew each round around a
changing number compiles once per type, every operator passes the call's value, and a functor
that keeps being compiled (a changing global) gets a RecompileWarning naming what changed."""

from __future__ import annotations

import warnings

import numba
import numpy as np
import pytest

from frontier import Frontier, atomic_add, generators
from frontier.runtime.identity import identity
from operators import (
    advance,
    available_balancers,
    compute,
    filter,
    neighbor_reduce,
    reduce,
    traverse,
)
from operators.functors import _COMPILED, FunctorError, RecompileWarning, as_functor
from operators.lifting import lift

G = generators.gnm(40, 120, seed=5)
PATH = generators.path(12)


def shifted_by(k):
    def shift(v, out):
        out[v] = v + k
    return shift


def test_a_closure_number_changing_every_round_compiles_once_per_type(target):
    out = target.zeros(G.num_vertices, np.int64)
    compute(G, "vertices", shifted_by(0), out, target=target)
    before = len(_COMPILED)
    for k in range(1, 6):
        compute(G, "vertices", shifted_by(k), out, target=target)
        assert target.to_host(out).tolist() == [v + k for v in range(G.num_vertices)]
    assert len(_COMPILED) == before
    compute(G, "vertices", shifted_by(0.5), out, target=target)  # a float: one compilation more
    assert len(_COMPILED) == before + 1


@pytest.mark.parametrize("value", [True, 7, -3, 2.5, np.int32(4), np.uint8(200), np.float32(1.5)],
                         ids=repr)
def test_every_kind_of_number_reaches_the_kernel_as_compiled_code_would_hold_it(target, value):
    def doubled(i, out):
        out[i] = value * 2

    out = target.zeros(1, np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RecompileWarning)  # one compilation per type
        compute(None, 1, doubled, out, target=target)
    frozen = numba.njit(lambda: value * 2)()  # compiled code holding the value as a constant
    assert target.to_host(out)[0] == np.float64(frozen)


def test_filter_reduce_and_neighbour_reductions_take_the_calls_value(target):
    everyone = Frontier.all_vertices(G, target=target)
    for limit in (5, 17):
        kept = filter(G, everyone, lambda v: v < limit, output="sparse")
        assert sorted(kept.to_numpy().tolist()) == list(range(limit))
        assert reduce(G, "vertices", lambda v: v < limit, op="count", target=target) == limit
        out = target.zeros(G.num_vertices, np.int64)
        neighbor_reduce(G, "vertices", lambda s, d, e, w: s + limit, out=out, op="max")  # noqa: B023 - run within the iteration
        expected = [max((s + limit for s in G.csc().row_indices[G.csc().col_offsets[v]:
                                                                 G.csc().col_offsets[v + 1]]),
                        default=np.iinfo(np.int64).min) for v in range(G.num_vertices)]
        assert target.to_host(out).tolist() == expected


@pytest.mark.parametrize("balancer", available_balancers())
def test_advance_and_its_condition_take_their_own_closure_numbers(target, balancer):
    for low, high in ((2, 30), (10, 20)):
        start = Frontier.from_vertices(G, [0, 1, 2, 3], target=target)
        count = target.zeros(1, np.int64)

        def counted(src, dst, eid, weight, count):
            atomic_add(count, 0, 1)
            return dst < high  # noqa: B023 - run within the iteration

        out = advance(G, start, counted, count, condition=lambda v, count: v >= low,  # noqa: B023 - run within the iteration
                      balancer=balancer)
        src, dst = G.coo().src, G.col_indices
        arcs = np.isin(src, [0, 1, 2, 3]) & (dst >= low)
        assert target.to_host(count)[0] == arcs.sum()
        assert sorted(set(out.to_numpy().tolist())) == sorted(set(dst[arcs & (dst < high)]))


@pytest.mark.parametrize("fused", [True, False])
def test_a_traversal_takes_the_calls_value_fused_or_not(target, fused):
    for stop in (4, 9):
        depth = target.to_device(np.r_[0, np.full(PATH.num_vertices - 1, -1)].astype(np.int64))

        def step(src, dst, eid, weight, depth):
            if depth[dst] == -1 and depth[src] < stop:  # noqa: B023 - run within the iteration
                depth[dst] = depth[src] + 1
                return True
            return False

        traverse(PATH, Frontier.from_vertices(PATH, [0], target=target), step, depth,
                 fused=fused)
        reached = target.to_host(depth)
        assert reached.max() == stop and (reached >= 0).sum() == stop + 1


K = 0


def reads_a_global(v, out):
    out[v] = K


def test_a_global_changing_every_round_recompiles_with_a_warning_naming_it():
    global K
    out = np.zeros(G.num_vertices, np.int64)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for K in range(100, 105):  # noqa: B007 - the functor reads it
            compute(G, "vertices", reads_a_global, out, target="cpu")
            assert out[0] == K
    named = [w for w in seen if issubclass(w.category, RecompileWarning)]
    assert named and "module global 'K'" in str(named[0].message)
    assert "state argument" in str(named[0].message)


def test_the_warning_and_the_functor_errors_are_importable_where_users_import_operators():
    import operators

    assert operators.RecompileWarning is RecompileWarning
    assert issubclass(operators.FunctorIndexError, operators.FunctorError)
    assert issubclass(operators.FunctorIndexError, IndexError)
    assert {"RecompileWarning", "FunctorIndexError", "FunctorError"} <= set(operators.__all__)


def test_arrays_in_a_closure_stay_refused():
    table = np.arange(3)
    with pytest.raises(FunctorError, match="closure variable 'table', an array"):
        as_functor(lambda v, out: table[v])


def test_a_closure_that_cannot_be_rewritten_is_frozen_as_before(target):
    def with_inner(k):
        def fn(v, out):
            inner = k  # noqa: F841 - k is captured by the nested function too
            out[v] = (lambda: k)()
        return fn

    functor = as_functor(with_inner(3))
    assert lift(functor.fn, ("k",)) is None and functor.lifted == ()
    assert functor.key[1] == (identity(3),)


def test_the_lifted_code_reads_parameters_and_keeps_other_closure_cells():
    helper = abs

    def make(k, f):
        def fn(v, out):
            out[v] = helper(v - k) * f
        return fn

    functor = as_functor(make(3, 2.0))
    assert functor.lifted == ("f", "k") or functor.lifted == ("k", "f")
    lifted = functor.compiled_form()
    out = np.zeros(5)
    args = dict(zip(functor.lifted, functor.scalars, strict=True))
    lifted(*[args[n] for n in functor.lifted], 1, out)
    assert out[1] == 4.0
