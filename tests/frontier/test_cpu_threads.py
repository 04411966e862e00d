"""The threads of the cpu target (frontier/runtime/cpu_threads.py, CpuTarget): how many
(``FRONTIER_NUM_THREADS``, else the CPU affinity), the team that runs a kernel's parts at once
with a grid barrier between its steps, a part's exception reaching the caller without a hang,
one launch at a time in the process (another thread's launch meanwhile runs alone), the
grid-stride loops dealt in chunks, and parallel and sequential kernels kept apart in every
cache."""

from __future__ import annotations

import _thread
import multiprocessing
import os
import textwrap
import threading
import time

import numba
import numpy as np
import pytest

from frontier import generators, ring
from frontier.distributed.cluster import worker_threads
from frontier.environ import SettingError
from frontier.errors import TargetError
from frontier.runtime import cpu_threads
from frontier.runtime.atomics import atomic_add, atomic_load
from frontier.runtime.cpu_threads import chunked, team_barrier
from frontier.runtime.indices import as_index, index_after
from frontier.runtime.target import CpuTarget
from operators.shape import per_element

# The kernels below are written as the parallel cpu target compiles generated ones:
# ``kernel(tid, nthreads, team, *args)`` compiled without the GIL.


def kernel(fn):
    return numba.njit(nogil=True)(fn)


@kernel
def _phases(tid, nthreads, team, marks, seen):
    # phase 1: each thread marks its own slot; phase 2 (after the barrier): each reads all
    marks[tid] = tid + 1
    team_barrier(team, nthreads)
    total = 0
    for t in range(nthreads):
        total += marks[t]
    seen[tid] = total


@kernel
def _many_phases(tid, nthreads, team, counter, wrong):
    for phase in range(PHASES):
        atomic_add(counter, 0, 1)
        team_barrier(team, nthreads)
        if atomic_load(counter, 0) != nthreads * (phase + 1):
            atomic_add(wrong, 0, 1)
        team_barrier(team, nthreads)


#: Barrier steps of the stress test (more threads than the machine has cores: the waiters
#: sleep and are woken).
PHASES = 3000


@kernel
def _raise_in_one(tid, nthreads, team, out):
    if tid == nthreads - 1:
        raise ValueError("part failed")
    team_barrier(team, nthreads)  # the others wait here: they must leave
    out[tid] = 1


@kernel
def _count_threads(tid, nthreads, team, out):
    out[0] = nthreads


@kernel
def _hold(tid, nthreads, team, flag, inside):
    atomic_add(inside, 0, 1)
    while atomic_load(flag, 0) == 0:
        pass


def test_unset_the_thread_count_is_one_and_the_usable_cores_are_the_affinity(monkeypatch):
    monkeypatch.delenv(cpu_threads.VARIABLE, raising=False)
    assert cpu_threads.configured() == 1
    assert cpu_threads.usable_cores() == len(os.sched_getaffinity(0))


def test_the_variable_sets_the_thread_count(monkeypatch):
    monkeypatch.setenv(cpu_threads.VARIABLE, " 3 ")
    assert cpu_threads.configured() == 3
    assert CpuTarget().threads == 3


@pytest.mark.parametrize("value", ["0", "-2", "two", "1.5", "1e3"])
def test_a_bad_thread_count_is_refused_naming_the_variable(monkeypatch, value):
    monkeypatch.setenv(cpu_threads.VARIABLE, value)
    with pytest.raises(SettingError, match=f"FRONTIER_NUM_THREADS={value!r}: expected a "
                                           "positive integer"):
        cpu_threads.configured()


@pytest.mark.parametrize("threads", [0, -1, 2.0, True, "2"])
def test_a_cpu_target_of_a_bad_thread_count_is_refused(threads):
    with pytest.raises(TargetError, match="threads=.*expected a positive integer"):
        CpuTarget(threads)


@pytest.mark.parametrize("threads", [2, 4])
def test_every_part_runs_at_once_and_the_barrier_orders_its_steps(threads):
    marks = np.zeros(threads, np.int64)
    seen = np.zeros(threads, np.int64)
    cpu_threads.run(_phases, threads, (marks, seen))
    assert (seen == threads * (threads + 1) // 2).all()


@pytest.mark.parametrize("threads", [2, 2 * os.cpu_count() + 1])
def test_thousands_of_barriers_keep_every_step_apart(threads):
    counter, wrong = np.zeros(1, np.int64), np.zeros(1, np.int64)
    cpu_threads.run(_many_phases, threads, (counter, wrong))
    assert counter[0] == threads * PHASES and wrong[0] == 0


@pytest.mark.parametrize("threads", [2, 4])
def test_a_part_that_raises_reaches_the_caller_and_the_others_leave_the_barrier(threads):
    out = np.zeros(threads, np.int64)
    with pytest.raises(ValueError, match="part failed"):
        cpu_threads.run(_raise_in_one, threads, (out,))
    marks, seen = np.zeros(threads, np.int64), np.zeros(threads, np.int64)
    cpu_threads.run(_phases, threads, (marks, seen))  # the team is free again
    assert (seen == threads * (threads + 1) // 2).all()


@kernel
def _count_parts(tid, nthreads, team, counts):
    atomic_add(counts, tid, 1)


@pytest.mark.parametrize("together", [True, False])
def test_every_part_runs_once_whoever_takes_it(together):
    counts = np.zeros(4, np.int64)
    cpu_threads.run(_count_parts, 4, (counts,), together=together)
    assert counts.tolist() == [1, 1, 1, 1]


def test_a_worker_not_yet_running_leaves_its_part_to_the_caller(monkeypatch):
    """A launch without barriers does not wait for a worker the system has not scheduled:
    here the worker of a team of its own is held in its wait for a launch (until the launch
    returned) and the caller takes every part."""
    released = threading.Event()
    waiting = cpu_threads._await_launch

    def held(state, seen):
        released.wait(60)
        return waiting(state, seen)

    monkeypatch.setattr(cpu_threads, "_await_launch", held)
    ran_on = []

    def part(tid, nthreads, team):
        ran_on.append((tid, threading.get_ident()))

    try:
        cpu_threads.Team().run(part, 2, (), together=False)
    finally:
        released.set()
    assert sorted(ran_on) == [(0, threading.get_ident()), (1, threading.get_ident())]


@kernel
def _barrier_apart(tid, nthreads, team):
    team_barrier(team, nthreads)


def test_a_grid_barrier_in_a_launch_whose_parts_do_not_run_together_raises():
    with pytest.raises(cpu_threads.TeamAborted, match="launch it cooperatively"):
        cpu_threads.run(_barrier_apart, 2, (), together=False)


def test_a_launch_while_another_runs_runs_on_its_own_thread_alone():
    flag, inside = np.zeros(1, np.int64), np.zeros(1, np.int64)
    holder = threading.Thread(target=cpu_threads.run, args=(_hold, 2, (flag, inside)))
    holder.start()
    try:
        while inside[0] < 2:  # both parts of the first launch are running
            pass
        out = np.zeros(1, np.int64)
        cpu_threads.run(_count_threads, 2, (out,))
        assert out[0] == 1
    finally:
        flag[0] = 1
        holder.join()
    out = np.zeros(1, np.int64)
    cpu_threads.run(_count_threads, 2, (out,))
    assert out[0] == 2


def _forked_launch(queue) -> None:
    marks, seen = np.zeros(2, np.int64), np.zeros(2, np.int64)
    cpu_threads.run(_phases, 2, (marks, seen))
    queue.put(seen.tolist())


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork")
def test_a_forked_child_makes_its_own_workers():
    marks, seen = np.zeros(2, np.int64), np.zeros(2, np.int64)
    cpu_threads.run(_phases, 2, (marks, seen))  # the parent's workers exist
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_forked_launch, args=(queue,))
    child.start()
    assert queue.get(timeout=60) == [3, 3]
    child.join(60)
    assert child.exitcode == 0


def _chunked_kernel(text: str, grain: int, compiled: bool = False):
    """The Python function of ``text`` (a kernel ``k``) chunked as the parallel target does
    (``compiled``: the helpers it calls compiled, for a kernel to compile)."""
    helpers = (cpu_threads.chunk_slot, cpu_threads.claimed_size)
    space = {**{f.__name__: f if compiled else f.py_func for f in helpers},
             "as_index": as_index, "index_after": index_after,
             "claim_chunk": cpu_threads.claim_chunk,
             "team_barrier": team_barrier if compiled else lambda team, nthreads: None}
    exec(compile(f"grain = {grain}\n" + chunked(text), "<chunked>", "exec"), space)  # noqa: S102
    return space["k"]


#: A kernel of two grid-stride loops with a grid barrier between them.
_TWO_STEPS = ("def k(tid, nthreads, team, n, a, b):\n"
              "    for v in range(tid, n, nthreads):\n"
              "        a[v] = tid\n"
              "    team_barrier(team, nthreads)\n"
              "    for w in range(tid, n + 3, nthreads):\n"
              "        if w < n:\n"
              "            b[w] = tid\n")


def test_a_kernel_with_barriers_deals_its_chunks_the_same_in_every_loop():
    assert "range(0, n, nthreads * grain)" in chunked(_TWO_STEPS)
    k = _chunked_kernel(_TWO_STEPS, 3)
    n = 40
    for threads in (1, 2, 3):
        a, b = np.full(n, -1), np.full(n, -1)
        for tid in range(threads):
            k(tid, threads, None, n, a, b)
        assert a.tolist() == b.tolist() and a.min() >= 0  # every element, the same thread
        assert all(len(set(a[v:v + 3])) == 1 for v in range(0, n, 3))  # chunks of 3
        for first in range(0, n - 3 * threads + 1, 3 * threads):  # a chunk each per round
            assert sorted(a[first:first + 3 * threads:3]) == list(range(threads))


@pytest.mark.parametrize("threads", [2, 4])
def test_chunks_share_an_rmat_graphs_edges_evenly_between_the_threads(threads):
    """An R-MAT graph's degrees follow its ids' bits: chunks dealt in turn would give thread 0
    half as much again as its share of the edges (three quarters of them on two threads)."""
    degrees = np.diff(generators.rmat(16, seed=3).row_offsets)
    k = _chunked_kernel("def k(tid, nthreads, team, n, degrees, work):\n"
                        "    for v in range(tid, n, nthreads):\n"
                        "        work[tid] += degrees[v]\n"
                        "    team_barrier(team, nthreads)\n", cpu_threads.GRAIN)
    work = np.zeros(threads)
    for tid in range(threads):
        k(tid, threads, None, degrees.size, degrees, work)
    chunks = np.add.reduceat(degrees, np.arange(0, degrees.size, cpu_threads.GRAIN))
    in_turn = np.bincount(np.arange(chunks.size) % threads, weights=chunks)
    assert work.sum() == degrees.sum()
    assert work.max() / work.mean() < 1.15 and in_turn.max() / in_turn.mean() > 1.4


_CLAIMING = ("def k(tid, nthreads, team, n, counts, owners, order):\n"
             "    for v in range(tid, n, nthreads):\n"
             "        counts[v] += 1\n"
             "        owners[v] = tid\n"
             "        order[v] = order[n]\n"
             "        order[n] += 1\n")


def _team(parts: int) -> np.ndarray:
    """The state of a launch of ``parts`` parts, as the team makes it."""
    return cpu_threads._state(cpu_threads.GRAIN, False, parts=parts)


def _claimed(threads: int, n: int, grain: int, parts_in_order: list[int]):
    """Who took which element, and in which order, where the parts of one launch of
    :data:`_CLAIMING` run one after the other in ``parts_in_order``."""
    k = _chunked_kernel(_CLAIMING, grain)
    team = _team(threads)
    counts, owners, order = np.zeros(n, np.int64), np.full(n, -1), np.zeros(n + 1, np.int64)
    for tid in parts_in_order:
        k(tid, threads, team, n, counts, owners, order)
    return counts, owners, order[:n]


def test_a_kernel_without_barriers_hands_out_shrinking_chunks_to_whichever_thread_asks():
    made = chunked(_CLAIMING)
    assert "claim_chunk(team, " in made and "chunk_slot" not in made
    # a loop run again inside another (its counter would be spent) takes its chunks in rounds
    again = _CLAIMING.replace("    for v", "    for step in range(2):\n        for v").replace(
        "        counts", "            counts").replace("        owners", "            owners")
    again = again.replace("        order", "            order")
    assert "chunk_slot" in chunked(again) and "claim_chunk" not in chunked(again)
    n = 1000
    counts, owners, _ = _claimed(4, n, 4, [0, 1, 2, 3])  # the first part runs alone: it
    assert (counts == 1).all() and (owners == 0).all()  # takes every chunk, the others none
    sizes, first = [], 0  # a quarter of what is left of the home block, in grains, at least one
    while first < 248:
        sizes.append(cpu_threads.claimed_size(first, n, 4, 4))
        first += sizes[-1]
    assert sizes[0] == 60 and sizes[-1] == 4 and all(x % 4 == 0 for x in sizes)
    assert cpu_threads.claimed_size(996, 998, 4, 4) == 2  # the loop's end: a short chunk
    together = numba.njit(nogil=True)(_chunked_kernel(_CLAIMING, 4, compiled=True))
    counts, order = np.zeros(n, np.int64), np.zeros(n + 1, np.int64)
    cpu_threads.run(together, 4, (n, counts, owners, order), 4, False)
    assert (counts == 1).all()


@pytest.mark.parametrize("threads", [2, 3])
def test_each_thread_takes_its_own_block_of_a_loop_first_then_the_others(threads):
    """So a thread takes the same elements launch after launch (vertex ids: what it wrote in
    one launch is in its own cache in the next), where no other thread took them first."""
    n, grain = 1000, 4
    starts = [cpu_threads._block_start(b, n, grain, threads) for b in range(threads + 1)]
    assert starts[0] == 0 and starts[-1] == n and all(s % grain == 0 for s in starts[:-1])
    for last in range(threads):  # the part run first takes its own block before the others'
        counts, owners, order = _claimed(threads, n, grain, [last, *range(threads)])
        assert (counts == 1).all() and (owners == last).all()
        mine = order[starts[last]:starts[last + 1]]
        assert np.array_equal(mine, np.arange(mine.size))  # its block first, in order
        after = [order[starts[(last + k) % threads]] for k in range(threads)]
        assert after == sorted(after)  # then the next thread's block, and so on


def test_a_loop_left_by_break_keeps_the_gpus_striding():
    text = ("def k(tid, nthreads, team, n, a):\n"
            "    for v in range(tid, n, nthreads):\n"
            "        for e in range(3):\n"
            "            break\n"
            "        if a[v] < 0:\n"
            "            break\n")
    assert chunked(text) == text
    nested = text.replace("        if a[v] < 0:\n            break\n", "")
    assert "claim_chunk(" in chunked(nested)


def test_parallel_and_sequential_kernels_are_kept_apart_in_every_cache():
    one, two, four = CpuTarget(1), CpuTarget(2), CpuTarget(4)
    assert one.compile_key != two.compile_key == four.compile_key
    assert one.disk_key != two.disk_key
    assert one.identity != two.identity != four.identity


def test_one_thread_is_the_sequential_target_of_before():
    one = CpuTarget(1)
    assert one.sequential and not one.parallel
    assert one.prologue == "tid = 0\nnthreads = 1\n" and one.grid_barrier == "pass"
    assert one.resident_blocks(256) == 1 and repr(one) == "<target cpu>"
    two = CpuTarget(2)
    assert two.resident_blocks(256) == 2 * cpu_threads.PART // 256
    assert repr(two) == "<target cpu (2 threads)>"


def test_a_launch_takes_a_thread_per_part_of_its_elements(monkeypatch):
    """A launch of fewer elements than ``part`` per thread runs on fewer threads (the team's
    hand-over would cost more than the work), and never on more threads than blocks."""
    parts = []
    monkeypatch.setattr(cpu_threads, "run", lambda kernel, n, *rest, **kw: parts.append(n))
    target = CpuTarget(4, part=1024)  # four blocks of 256 elements
    for elements in (10, 1024, 1025, 2560, 100_000):
        blocks = per_element(target).blocks(target, elements)
        target._launch(None, blocks, per_element(target).threads_per_block, ())
    assert parts == [1, 1, 2, 3, 4]
    # a part is a block of the kernel's text: a block-level kernel of one block is one part
    CpuTarget(4, part=1)._launch_cooperative(None, 1, 1024, ())
    assert parts[-1] == 1


def test_dense_pushes_count_apart_and_add_once_at_the_end():
    text = ("def k(tid, nthreads, team, n, lens, out_slot):\n"
            "    for v in range(tid, n, nthreads):\n"
            "        if v % 2 == 0:\n"
            "            atomic_claim(lens, out_slot)\n")
    made = cpu_threads.counted_apart(text)
    assert made.count("atomic_claim") == 0 and "dense_added += 1" in made
    space = {"atomic_add": lambda a, i, x: a.__setitem__(i, a[i] + x)}
    exec(compile(made, "<counted>", "exec"), space)  # noqa: S102 - test text
    lens = np.zeros(3, np.int64)
    for tid in range(3):
        space["k"](tid, 3, None, 10, lens, 1)
    assert lens.tolist() == [0, 5, 0]
    barrier = text + "    team_barrier(team, nthreads)\n"
    early = text.replace("            atomic_claim", "            return\n            atomic_claim")
    assert cpu_threads.counted_apart(barrier) == barrier  # a later step may read the length
    assert cpu_threads.counted_apart(early) == early  # a return would skip the addition


def _pushing_kernel(kind: str, transform):
    """A kernel pushing the elements ``v`` of ``range(n)`` with ``v % 3 != 0`` into a frontier
    of ``kind`` (the ring's own push text), made as the parallel target makes its kernels."""
    head, body = _pushing_text(kind).split("\n", 1)
    text = head + "\n" + textwrap.indent(cpu_threads.PROLOGUE, "    ") + body
    made = transform(cpu_threads.counted_apart(chunked(text)))
    space = {**ring.namespace(), **CpuTarget(2).text_globals(), "np": np}
    exec(compile(made, "<pushing>", "exec"), space)  # noqa: S102 - test text
    return made, kernel(space["k"])


@pytest.mark.parametrize("grain", [64, 3])
def test_dense_pushes_of_a_chunks_own_elements_set_their_words_plainly(grain):
    made, pushing = _pushing_kernel(ring.DENSE, cpu_threads.owned_words)
    assert "owned_or(out_words, word, bit, grain)" in made and "atomic_or" not in made
    n = 1000
    lens, words = np.zeros(5, np.int64), np.zeros((n + 31) // 32, np.uint32)
    cpu_threads.run(pushing, 4, (n, lens, 1, np.zeros(1, np.int64), words), grain, False)
    bits = np.unpackbits(words.view(np.uint8), bitorder="little")[:n]
    assert np.flatnonzero(bits).tolist() == [v for v in range(n) if v % 3] and lens[1] == 666
    # a push of another element than the chunk's own (a neighbour's) keeps its atomic
    other = made.replace("word = v >> 5", "word = (v + 1) >> 5")
    source = other.replace("owned_or(out_words, word, bit, grain)",
                           "atomic_or(out_words, word, bit)")
    assert cpu_threads.owned_words(source) == source


@pytest.mark.parametrize("capacity", [700, 600])
def test_sparse_pushes_go_through_a_buffer_of_each_thread_and_all_reach_the_queue(capacity):
    made, pushing = _pushing_kernel(ring.SPARSE, cpu_threads.buffered_pushes)
    assert "atomic_claim" not in made and made.count("flush_pushes(") == 2
    n = 1000  # chunks of 500 elements: 333 pushes each, more than a buffer holds
    lens, ids = np.zeros(5, np.int64), np.full(capacity, -1, np.int64)
    cpu_threads.run(pushing, 2, (n, lens, 1, ids, np.zeros(1, np.uint32)), 500, False)
    pushed = [v for v in range(n) if v % 3]
    assert lens[1] == len(pushed) and lens[ring.OVERFLOW_FLAG] == (capacity < len(pushed))
    if capacity >= len(pushed):
        assert sorted(ids[:len(pushed)]) == pushed
    else:
        assert set(ids) <= set(pushed) and -1 not in ids
    # a loop that assigns the queue, or returns, keeps its pushes as they are
    for line in ("out_slot = 2", "return"):
        unbuffered = chunked(_pushing_text(ring.SPARSE).replace(
            "        if v % 3 != 0:", f"        {line}\n        if v % 3 != 0:"))
        assert cpu_threads.buffered_pushes(unbuffered) == unbuffered


def _pushing_text(kind: str) -> str:
    """A GPU-style kernel pushing the elements ``v`` of ``range(n)`` with ``v % 3 != 0``."""
    return ("def k(tid, nthreads, team, n, lens, out_slot, out_ids, out_words):\n"
            "    for v in range(tid, n, nthreads):\n"
            "        if v % 3 != 0:\n" + textwrap.indent(ring.push(kind, "v"), " " * 12))


def test_ctrl_c_during_a_launch_is_raised_once_every_part_stopped():
    interrupted = threading.Event()
    finished = []

    def interrupt():
        _thread.interrupt_main()
        interrupted.set()

    def part(tid, nthreads, team):
        if tid == 1:  # still running when the interrupt reaches the caller
            interrupted.wait(60)
            time.sleep(0.2)
            finished.append(tid)

    threading.Timer(0.05, interrupt).start()
    with pytest.raises(KeyboardInterrupt):
        cpu_threads.run(part, 2, (), together=True)
    assert finished == [1]  # the worker's part ended before the interrupt reached the caller
    out = np.zeros(1, np.int64)
    cpu_threads.run(_count_threads, 2, (out,))
    assert out[0] == 2  # and the team is free


def test_local_dask_workers_share_the_cores_unless_the_count_is_set(monkeypatch):
    monkeypatch.delenv(cpu_threads.VARIABLE, raising=False)
    cores = cpu_threads.usable_cores()
    assert worker_threads(2) == {cpu_threads.VARIABLE: str(max(1, cores // 2))}
    assert worker_threads(cores * 4) == {cpu_threads.VARIABLE: "1"}
    monkeypatch.setenv(cpu_threads.VARIABLE, "3")
    assert worker_threads(2) == {}  # inherited as set
