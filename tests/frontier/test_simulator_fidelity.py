"""The simulator computes what compiled code computes (issue 20, items 7 and 10).

Functors get their integers with the type compiled code gives them (64-bit), on every target:
``cpu`` (Numba), ``cuda`` on a GPU, and the simulator (``NUMBA_ENABLE_CUDASIM=1``), which used
to hand them ``numpy.int32`` ids. The threads of a simulated block share one shared array even
when a thread switch falls inside its allocation (the cause of ``two_phase``'s flaky test).
A thread that exits without reaching a barrier that the rest of its block waits at is an error,
as the hardware leaves it undefined (issue 47). Simulated launches hand the GIL between threads
quickly.
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import pytest
from numba import cuda, int64

from frontier import Frontier, generators, resolve_target
from frontier.target import cuda_usable
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
    from frontier.simulator import BarrierError

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
    from frontier.simulator import SWITCH_SECONDS

    gpu = resolve_target("cuda")
    before = sys.getswitchinterval()
    out = gpu.zeros(32, np.float64)
    gpu.launch(cuda.jit(record_switch_interval), 1, 32, (out,))
    assert (gpu.to_host(out) <= SWITCH_SECONDS).all() and SWITCH_SECONDS < before
    assert sys.getswitchinterval() == before
