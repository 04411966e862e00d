"""The checked mode (issue 20, item 6): ``FRONTIER_BOUNDSCHECK=1`` compiles functors with bounds
checks on the cpu target, so an index past a state array raises ``IndexError`` naming the
functor instead of reading garbage or crashing the process (exit 139); the helpers a functor
calls (``device_function`` helpers, the graph view's ``out_degree``, ``intersection_count``,
``neighbors``, ...) are checked too (issue 47, item 5). The simulator checks indices anyway;
Numba compiles no bounds checks for CUDA, so a GPU is not tested here."""

from __future__ import annotations

from inspect import signature

import numpy as np
import pytest

from frontier import Frontier, Graph, device_function, generators, graphview, resolve_target
from operators import FunctorError, advance, compute
from tests.tiers import TARGETS

BOUNDSCHECK_VARIABLE = "FRONTIER_BOUNDSCHECK"
#: The targets that check indices: the cpu target (on one thread and on several), and the cuda
#: target in the simulator (a GPU compiles no checks).
CHECKED_TARGETS = [p for p in TARGETS if p.values[0] != "cuda" or resolve_target("cuda").simulated]


@pytest.fixture
def checked(monkeypatch):
    monkeypatch.setenv(BOUNDSCHECK_VARIABLE, "1")


def read_far_past_the_end(v, small, out):
    out[v] = small[v + 1_000_000]


def write_past_the_end(src, dst, eid, weight, small):
    small[eid + 1_000] = 1
    return False


def shifted_copy(v, small, shift, out):
    out[v] = small[v + shift]


def _all(G, target):
    return Frontier.from_vertices(G, np.arange(G.num_vertices), target=target)


@pytest.mark.parametrize("name", CHECKED_TARGETS)
def test_a_functor_reading_past_a_state_array_raises_index_error_naming_it(checked, name):
    T = resolve_target(name)
    G = generators.path(5)
    small, out = T.zeros(5, np.int64), T.zeros(5, np.int64)
    with pytest.raises(IndexError, match="read_far_past_the_end") as info:
        compute(G, _all(G, T), read_far_past_the_end, small, out)
    assert isinstance(info.value, FunctorError)


@pytest.mark.parametrize("name", CHECKED_TARGETS)
def test_an_advance_functor_writing_past_a_state_array_raises_index_error(checked, name):
    T = resolve_target(name)
    G = generators.path(5)
    small = T.zeros(5, np.int64)
    with pytest.raises(IndexError, match="write_past_the_end"):
        advance(G, _all(G, T), write_past_the_end, small, output="none")
    assert T.to_host(small).tolist() == [0] * 5


def test_switching_the_mode_on_compiles_again_instead_of_reusing_unchecked_code(monkeypatch):
    monkeypatch.delenv(BOUNDSCHECK_VARIABLE, raising=False)
    cpu = resolve_target("cpu")
    G = generators.path(5)
    small, out = np.arange(10, dtype=np.int64), np.zeros(5, np.int64)
    compute(G, _all(G, cpu), shifted_copy, small, 5, out)  # in range: compiled unchecked
    assert out.tolist() == [5, 6, 7, 8, 9]
    monkeypatch.setenv(BOUNDSCHECK_VARIABLE, "1")
    with pytest.raises(IndexError, match="shifted_copy"):
        compute(G, _all(G, cpu), shifted_copy, small, 1_000_000, out)


def test_the_mode_is_part_of_the_compile_key(monkeypatch):
    cpu = resolve_target("cpu")
    monkeypatch.setenv(BOUNDSCHECK_VARIABLE, "0")
    unchecked = cpu.compile_key
    monkeypatch.setenv(BOUNDSCHECK_VARIABLE, "1")
    assert cpu.compile_key != unchecked and cpu.checks_bounds


#: The graph view functions that take vertex ids (the functions of frontier.graphview).
VERTEX_VIEW_FUNCTIONS = sorted(
    name for name in graphview.__all__ if callable(getattr(graphview, name))
    and "v" in signature(getattr(graphview, name)).parameters)


def _calling(view_function, shift):
    """A functor that calls ``view_function`` with its vertex ids shifted by ``shift`` (and,
    for ``common_neighbors``, ``out`` as its three buffers: no common neighbour on a path; for
    ``tally_common_neighbors``, a tally of an entry per arc, :func:`_extra_state`)."""
    parameters = len(signature(view_function).parameters)
    if parameters == 2:
        def calls_the_view(v, out, graph):
            view_function(graph, v + shift)
            out[v] = 1
    elif parameters == 3:
        def calls_the_view(v, out, graph):
            view_function(graph, v, v + shift)
            out[v] = 1
    elif parameters == 4:
        def calls_the_view(v, out, tally, graph):
            view_function(graph, v, v + shift, tally)
            out[v] = 1
    else:
        def calls_the_view(v, out, graph):
            view_function(graph, v, v + shift, out, out, out)
            out[v] = 1
    return calls_the_view


def _extra_state(view_function, graph, target) -> tuple:
    """The state :func:`_calling`'s functor takes after ``out``: a tally for a view function of
    four parameters, none otherwise."""
    if len(signature(view_function).parameters) == 4:
        return (target.zeros(graph.num_edges, np.int64),)
    return ()


# one functor compiled per view function and shift, on purpose
@pytest.mark.filterwarnings("ignore::operators.functors.RecompileWarning")
@pytest.mark.parametrize("target_name", CHECKED_TARGETS)
@pytest.mark.parametrize("shift", [1_000_000, -6])
@pytest.mark.parametrize("name", VERTEX_VIEW_FUNCTIONS)
def test_a_graph_view_function_given_a_vertex_out_of_range_raises_index_error(checked, name,
                                                                              shift, target_name):
    T = resolve_target(target_name)
    G = generators.path(5)
    ids = "|".join(str(v + shift) for v in range(5))  # the simulator's threads race to raise
    with pytest.raises(IndexError,
                       match=rf"calls_the_view.*{name}\(graph, \.\.\.\): vertex id ({ids}) "):
        compute(G, _all(G, T), _calling(getattr(graphview, name), shift), T.zeros(5, np.int64),
                *_extra_state(getattr(graphview, name), G, T))


@pytest.mark.filterwarnings("ignore::operators.functors.RecompileWarning")
@pytest.mark.parametrize("name", VERTEX_VIEW_FUNCTIONS)
def test_graph_view_functions_in_range_give_what_they_give_unchecked(checked, name):
    cpu = resolve_target("cpu")
    G = generators.path(5)
    out = np.zeros(5, np.int64)
    compute(G, Frontier.from_vertices(G, np.arange(4), target=cpu),
            _calling(getattr(graphview, name), 1), out,
            *_extra_state(getattr(graphview, name), G, cpu))
    assert out.tolist() == [1, 1, 1, 1, 0]


@device_function
def ancestor(parent, v):
    return parent[parent[v]]


def reads_through_a_helper(v, parent, out):
    out[v] = ancestor(parent, v)


def test_a_registered_helper_reading_past_an_array_raises_index_error_naming_the_functor(
        checked):
    cpu = resolve_target("cpu")
    G = generators.path(5)
    out = np.zeros(5, np.int64)
    compute(G, _all(G, cpu), reads_through_a_helper, np.array([0, 0, 1, 2, 3]), out)
    assert out.tolist() == [0, 0, 0, 1, 2]
    with pytest.raises(IndexError, match="reads_through_a_helper"):
        compute(G, _all(G, cpu), reads_through_a_helper, np.array([0, 0, 1, 2, 1_000_000]), out)


K4 = Graph.from_edges([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3], directed=False)


def triangles_at(v, out, graph):
    t = 0
    for u in graphview.neighbors(graph, v):  # an int32 neighbour beside an int64 vertex
        if u > v:
            t += graphview.intersection_count(graph, v, u)
    out[v] = t


def test_view_functions_given_ids_of_two_integer_types_compile_checked(checked):
    cpu = resolve_target("cpu")
    out = np.zeros(4, np.int64)
    compute(K4, _all(K4, cpu), triangles_at, out)
    assert out.tolist() == [6, 4, 2, 0]  # two common neighbours per pair


def common_from(v, start, out, graph):
    out[v] = graphview.common_neighbors(graph, v, (v + 1) % 4, out, out, out, start)


def tally_into(v, tally, graph):
    graphview.tally_common_neighbors(graph, v, (v + 1) % 4, tally)


@pytest.mark.parametrize("name", CHECKED_TARGETS)
def test_tally_common_neighbors_into_fewer_entries_than_arcs_raises_index_error(checked, name):
    T = resolve_target(name)
    with pytest.raises(IndexError, match=r"tally_into.*tally_common_neighbors\(graph, \.\.\.\): "
                                         r"tally has 11 entries; expected one per arc, 12"):
        compute(K4, _all(K4, T), tally_into, T.zeros(11, np.int64))


@pytest.mark.parametrize("name", CHECKED_TARGETS)
def test_common_neighbors_from_a_negative_start_raises_index_error(checked, name):
    T = resolve_target(name)
    with pytest.raises(IndexError, match=r"common_from.*common_neighbors\(graph, \.\.\.\): "
                                         r"start -1 is negative"):
        compute(K4, _all(K4, T), common_from, -1, T.zeros(4, np.int64))
