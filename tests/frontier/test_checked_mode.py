"""The checked mode (issue 20, item 6): ``FRONTIER_BOUNDSCHECK=1`` compiles functors with bounds
checks on the cpu target, so an index past a state array raises ``IndexError`` naming the
functor instead of reading garbage or crashing the process (exit 139). The simulator checks
indices anyway; Numba compiles no bounds checks for CUDA, so a GPU is not tested here."""

from __future__ import annotations

import numpy as np
import pytest

from frontier import Frontier, generators, resolve_target
from frontier.target import cuda_usable
from operators import FunctorError, advance, compute

BOUNDSCHECK_VARIABLE = "FRONTIER_BOUNDSCHECK"
CHECKED_TARGETS = ["cpu"] + (["cuda"] if cuda_usable() and resolve_target("cuda").simulated
                             else [])


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
