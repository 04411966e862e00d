"""The simulator computes what compiled code computes (issue 20, items 7 and 10; issue 47).

Functors get their integers with the type compiled code gives them (64-bit), on every target:
``cpu`` (Numba), ``cuda`` on a GPU, and the simulator (``NUMBA_ENABLE_CUDASIM=1``), which used
to hand them ``numpy.int32`` ids. The numbers compiled code freezes into a functor (module
globals, default arguments, closure values that are not kernel arguments, and those of the
helpers it calls) are read as compiled code holds them in the simulator and the race detector
too, which used to read them as Python numbers. The threads of a simulated block share one
shared array even when a thread switch falls inside its allocation (the cause of ``two_phase``'s
flaky test). A thread that exits without reaching a barrier that the rest of its block waits
at is an error, as the hardware leaves it undefined. Simulated launches hand the GIL between
threads quickly.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from functools import partial

import numba
import numpy as np
import pytest
from numba import cuda, int64

from frontier import Frontier, device_function, generators, resolve_target
from frontier.runtime.cuda_support import cuda_usable
from frontier.testing import check_race_free
from operators import advance, compute

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")
BIG = 2654435761  # above 2**31


def times_two_to_the_30(v, out):
    out[v] = v * 2**30


def plus_a_constant_above_2_to_the_31(v, out):
    out[v] = v * 2**30 + 2654435761


def scaled_by_state(v, k, out):
    out[v] = k * 2**30 + v


def arc_code(src, dst, eid, weight, out):
    out[eid] = src * 2**31 + dst * 2**30 + eid * 2654435761
    return False


def _frontier(G, target, kind):
    if kind == "dense":
        return Frontier.all_vertices(G, target=target)
    return Frontier.from_vertices(G, np.arange(G.num_vertices), target=target)


@pytest.mark.parametrize("kind", ["sparse", "dense"])
@pytest.mark.parametrize("functor, expected", [
    (times_two_to_the_30, lambda v: v * 2**30),
    (plus_a_constant_above_2_to_the_31, lambda v: v * 2**30 + BIG),
])
def test_ids_reach_functors_as_64_bit_integers(target, kind, functor, expected):
    G = generators.path(5)
    out = target.zeros(5, np.int64)
    compute(G, _frontier(G, target, kind), functor, out)
    assert target.to_host(out).tolist() == [expected(v) for v in range(5)]


def test_an_int32_state_scalar_is_promoted_like_compiled_code_promotes_it(target):
    G = generators.path(5)
    out = target.zeros(5, np.int64)
    compute(G, _frontier(G, target, "sparse"), scaled_by_state, np.int32(3), out)
    assert target.to_host(out).tolist() == [3 * 2**30 + v for v in range(5)]


def test_edge_ids_and_endpoints_reach_functors_as_64_bit_integers(target):
    G = generators.path(5)
    out = target.zeros(G.num_edges, np.int64)
    advance(G, _frontier(G, target, "sparse"), arc_code, out, output="none")
    src = np.repeat(np.arange(G.num_vertices), np.diff(G.row_offsets)).tolist()
    want = [s * 2**31 + d * 2**30 + e * BIG
            for e, (s, d) in enumerate(zip(src, G.col_indices.tolist(), strict=True))]
    assert target.to_host(out).tolist() == want


# numbers compiled code freezes ---------------------------------------------------------------
#: ``(2**62 + 1) * 4 + v`` for ``v`` in 0, 1, 2, wrapped around at 64 bits as compiled code does.
WRAPPED = [(((2**62 + 1) * 4 + v + 2**63) % 2**64) - 2**63 for v in range(3)]
NEAR_2_TO_THE_62 = 2**62 + 1
NO = False
ZERO = 0.0


def from_module_globals(v, big, negated):
    big[v] = NEAR_2_TO_THE_62 * 4 + v
    negated[v] = ~NO


def from_default_arguments(v, big, negated, near=2**62 + 1, no=False):
    big[v] = near * 4 + v
    negated[v] = ~no


def from_a_closure_tuple(numbers):  # a tuple is frozen into the code, not a kernel argument
    def fn(v, big, negated):
        big[v] = numbers[0] * 4 + v
        negated[v] = ~numbers[1]
    return fn


def from_a_closure_around_a_nested_function(near, no):  # cannot be lifted: frozen
    def fn(v, big, negated):
        w = v

        def add():
            return w + near * 4
        big[v] = add()
        negated[v] = ~no
    return fn


@numba.njit
def wrapped_by_a_helper(v):
    return NEAR_2_TO_THE_62 * 4 + v


def from_an_njit_helper(v, big, negated):
    big[v] = wrapped_by_a_helper(v)
    negated[v] = ~NO


@device_function
def wrapped_by_a_device_function(v):
    return NEAR_2_TO_THE_62 * 4 + v


@device_function
def negated_by_a_device_function(v):
    return ~NO


def from_device_function_helpers(v, big, negated):
    big[v] = wrapped_by_a_device_function(v)
    negated[v] = negated_by_a_device_function(v)


FROZEN = {"module globals": from_module_globals,
          "default arguments": from_default_arguments,
          "a closure tuple": from_a_closure_tuple((2**62 + 1, False)),
          "a closure around a nested function": from_a_closure_around_a_nested_function(
              2**62 + 1, False),
          "an njit helper's module global": from_an_njit_helper,
          "device_function helpers' module globals": from_device_function_helpers}


def _runs(target):
    """The operator run plainly, and under the race detector where it runs (as Python)."""
    return [compute] + ([partial(check_race_free, compute)] if target.checks_races else [])


@pytest.mark.parametrize("where", FROZEN)
def test_frozen_numbers_wrap_and_negate_as_compiled_code_on_every_target_and_in_the_race_detector(
        target, where):
    for run in _runs(target):
        big, negated = target.zeros(3, np.int64), target.zeros(3, np.int64)
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)  # compiled code warns of nothing
            run(None, 3, FROZEN[where], big, negated, target=target)
        assert target.to_host(big).tolist() == WRAPPED == [4, 5, 6]
        assert target.to_host(negated).tolist() == [1, 1, 1]  # ~False is True, not -1


def wrapped_on_the_device(v):
    return NEAR_2_TO_THE_62 * 4 + v


DEVICE_HELPER = cuda.jit(device=True)(wrapped_on_the_device)


def from_a_device_function(v, big, negated):
    big[v] = DEVICE_HELPER(v)
    negated[v] = ~NO


@pytest.mark.simulator
@pytest.mark.skipif(not cuda_usable(), reason="calls a cuda.jit device function")
def test_a_device_function_a_functor_calls_reads_its_frozen_numbers_as_compiled_code():
    gpu = resolve_target("cuda")
    for run in _runs(gpu):
        big, negated = gpu.zeros(3, np.int64), gpu.zeros(3, np.int64)
        run(None, 3, from_a_device_function, big, negated, target=gpu)
        assert gpu.to_host(big).tolist() == WRAPPED
        assert gpu.to_host(negated).tolist() == [1, 1, 1]


FNV_PRIME = 1099511628211


def hashed_in_uint64(v, h, out):
    out[v] = (h[v] ^ np.uint64(FNV_PRIME)) * np.uint64(FNV_PRIME) >> np.uint64(3)


def test_a_frozen_int_made_uint64_mixes_with_uint64_state_alike_on_every_target(target):
    h = np.array([2**63 + 12345, 7, 2**64 - 1], np.uint64)
    for run in _runs(target):
        out = target.zeros(3, np.uint64)
        run(None, 3, hashed_in_uint64, target.to_device(h), out, target=target)
        want = [((int(x) ^ FNV_PRIME) * FNV_PRIME % 2**64) >> 3 for x in h]
        assert target.to_host(out).tolist() == want


def divided_by_a_module_global(v, out):
    out[v] = (v - 1.0) / ZERO


def divided_by_a_default_argument(v, out, zero=0.0):
    out[v] = (v - 1.0) / zero


def divided_by_a_closure_number(zero):  # lifted: a kernel argument
    def fn(v, out):
        out[v] = (v - 1.0) / zero
    return fn


def divided_by_a_state_number(v, zero, out):
    out[v] = (v - 1.0) / zero


DIVIDED = {"a module global": (divided_by_a_module_global, ()),
           "a default argument": (divided_by_a_default_argument, ()),
           "a closure number": (divided_by_a_closure_number(0.0), ()),
           "a state number": (divided_by_a_state_number, (0.0,))}


@pytest.mark.parametrize("where", DIVIDED)
def test_a_float_divided_by_zero_is_inf_or_nan_as_on_a_gpu_in_the_simulator_and_race_detector(
        target, where):
    fn, state = DIVIDED[where]
    runs = _runs(target)
    if target.name == "cpu":  # compiled for the cpu, Numba raises (its Python error model)
        runs.remove(compute)
    for run in runs:
        out = target.zeros(3, np.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            run(None, 3, fn, *state, out, target=target)
        assert str(target.to_host(out).tolist()) == "[-inf, nan, inf]"


class SlowLength:
    """A shared array's length whose conversion takes long enough for every other thread of the
    block to run meanwhile: a thread switch inside the allocation, every time."""

    def __index__(self) -> int:
        time.sleep(0.005)
        return 4


SLOW_LENGTH = SlowLength()


def write_then_read_shared(out):  # pragma: no cover - runs in the simulator
    shared = cuda.shared.array(SLOW_LENGTH, int64)
    if cuda.threadIdx.x == 0:
        shared[0] = 7
    cuda.syncthreads()
    out[cuda.threadIdx.x] = shared[0]


@pytest.mark.simulator
@pytest.mark.skipif(not (SIMULATED and cuda_usable()), reason="checks the CUDA simulator")
def test_every_thread_of_a_simulated_block_sees_one_shared_array():
    gpu = resolve_target("cuda")
    out = gpu.zeros(32, np.int64)
    gpu.launch(cuda.jit(write_then_read_shared), 1, 32, (out,))
    assert gpu.to_host(out).tolist() == [7] * 32


def exits_before_the_barrier(out):  # pragma: no cover - runs in the simulator
    t = cuda.threadIdx.x
    if t == 5:
        return
    cuda.syncthreads()
    out[t] = 1


def exits_while_the_others_wait(out):  # pragma: no cover - runs in the simulator
    t = cuda.threadIdx.x
    if t == 5:
        for _ in range(20000):  # long enough for the others to reach the barrier first
            out[t] += 1
        return
    cuda.syncthreads()
    out[t] = 1


def uneven_loops_then_the_same_barriers(out):  # pragma: no cover - runs in the simulator
    t = cuda.threadIdx.x
    for _ in range(t):
        out[t] += 1
    cuda.syncthreads()
    if t > 20:
        out[t] += 1
    cuda.syncthreads()


@pytest.mark.simulator
@pytest.mark.skipif(not (SIMULATED and cuda_usable()), reason="checks the CUDA simulator")
@pytest.mark.parametrize("kernel", [exits_before_the_barrier, exits_while_the_others_wait])
def test_a_thread_leaving_before_a_barrier_its_block_waits_at_is_an_error(kernel):
    from frontier.runtime.simulator import BarrierError

    gpu = resolve_target("cuda")
    with pytest.raises(BarrierError, match="thread 5 .* exited after 0 barrier"):
        gpu.launch(cuda.jit(kernel), 1, 32, (gpu.zeros(32, np.int64),))


@pytest.mark.simulator
@pytest.mark.skipif(not (SIMULATED and cuda_usable()), reason="checks the CUDA simulator")
def test_threads_reaching_the_same_barriers_may_loop_unevenly_between_them():
    gpu = resolve_target("cuda")
    out = gpu.zeros(32, np.int64)
    gpu.launch(cuda.jit(uneven_loops_then_the_same_barriers), 1, 32, (out,))
    assert gpu.to_host(out).tolist() == [t + (t > 20) for t in range(32)]


def record_switch_interval(out):  # pragma: no cover - runs in the simulator
    out[cuda.threadIdx.x] = sys.getswitchinterval()


@pytest.mark.simulator
@pytest.mark.skipif(not (SIMULATED and cuda_usable()), reason="checks the CUDA simulator")
def test_a_simulated_launch_switches_threads_quickly_and_restores_the_interval():
    from frontier.runtime.simulator import SWITCH_SECONDS

    gpu = resolve_target("cuda")
    before = sys.getswitchinterval()
    out = gpu.zeros(32, np.float64)
    gpu.launch(cuda.jit(record_switch_interval), 1, 32, (out,))
    assert (gpu.to_host(out) <= SWITCH_SECONDS).all() and SWITCH_SECONDS < before
    assert sys.getswitchinterval() == before
