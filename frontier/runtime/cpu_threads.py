"""The threads the cpu target runs a kernel on: how many, and the team that runs them.

How many: ``FRONTIER_NUM_THREADS`` where set (a positive integer up to :data:`MAX_THREADS`;
anything else is a :class:`~frontier.environ.SettingError` naming the variable; the cores this
process may run on, its CPU affinity, are :func:`usable_cores`). :func:`requested` reads it
(None where unset); the process's cpu target (``target="cpu"``) takes :func:`configured`, one
where unset, once, when it is made (:func:`frontier.runtime.target.named`); a default call
(``target="auto"``) with the variable unset takes the count the measured rule gives it
(:func:`frontier.placement.cpu_threads`: every usable core for a large graph).

A kernel of the parallel cpu target is a function ``kernel(tid, nthreads, team, *args)``
compiled without the GIL (``nogil``): thread ``tid`` of ``nthreads`` does its share of the
kernel's grid-stride loops (:func:`chunked`: the generated text is the GPU's, each thread a
block of one), and ``team`` is the team's state array: its barrier, which :func:`team_barrier`
(the kernel's grid barrier) waits on, its doorbell, the count of finished parts and the loops'
claim counters. :class:`Team` runs the ``nthreads`` parts: the calling thread and ``nthreads -
1`` worker threads of the process (started on first use, kept from launch to launch). The
parts of a kernel with grid barriers (a cooperative launch) run at once, a thread each; the
parts of any other kernel are taken by whichever thread is running, and their loops' chunks
are claimed by whichever thread asks, so a launch never waits for a worker the system has not
woken beyond the chunk it holds.

No oversubscription: a process runs one team launch at a time. A launch that finds the team
busy (another Python thread's launch is running) runs all of its kernel on the calling thread
(``nthreads`` 1) instead of waiting; so the threads running kernels are the callers' own threads
plus the team's workers, and a kernel's result never depends on which of the two ways ran it,
where its algorithm is deterministic.

Every wait (a worker's for the next launch, the caller's for the parts, a barrier's) spins
(with the processor's pause hint) for a while measured in µs, then sleeps (a futex on Linux,
else yielding the core), so a machine with more runnable threads than cores still makes
progress and an idle process does not spin. A part that raises marks the team aborted: every
other part leaves at its next barrier (:class:`TeamAborted`), the launch waits for them all and
raises the first part's exception. After ``fork`` the child makes its own workers and state
(the parent's workers are not in it).
"""

from __future__ import annotations

import itertools
import os
import platform
import re
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.extending import intrinsic

from frontier import environ
from frontier.environ import SettingError
from frontier.runtime import cpu_atomics
from frontier.runtime.cache_dir import cached_njit

__all__ = ["VARIABLE", "configured", "requested", "usable_cores", "Team", "run",
           "team_barrier", "team_begin", "team_end", "bracket", "TeamAborted", "TEAM_FIELDS",
           "MAX_THREADS", "chunked", "chunk_slot", "claim_chunk", "claimed_size",
           "counted_apart", "owned_words", "owned_or", "buffered_pushes", "flush_pushes",
           "PUSH_BUFFER", "GRAIN", "PART", "THREAD_PARAMS"]

#: The environment variable of the thread count.
VARIABLE = "FRONTIER_NUM_THREADS"

#: The parameters a parallel kernel takes before its own: its thread, the launch's threads and
#: the launch's ``team`` (:meth:`Team.run` passes them).
THREAD_PARAMS = ("tid", "nthreads", "team")

#: Entries of the team's state array (``team`` in a kernel), each group on a cache line of its own
#: (8 int64s): the barrier's arrivals, its generation and the threads asleep at it (written by
#: the threads of a launch at each barrier); the launch's settings (the abort flag, the grain of
#: its grid-stride loops (:func:`chunked`), whether its parts run together (:meth:`Team.run`),
#: and the spins of a waiting thread, at a barrier and between launches, before it sleeps); the
#: doorbell the workers wait on (the number of the launch rung, and of the launch to ring), the
#: workers asleep on it, and the parts finished with the caller asleep waiting for them. Where
#: the claim counters of the loops begin (:data:`_HOMES_AT`) is a setting too.
TEAM_FIELDS = 128
_ARRIVED, _GENERATION, _SLEEPERS = 0, 8, 16
_ABORTED, _GRAIN, _TOGETHER, _BARRIER_SPINS, _IDLE_SPINS, _HOMES_AT = 24, 25, 26, 27, 28, 29
_DOORBELL, _PENDING, _IDLE = 32, 33, 40
_FINISHED, _WAITER = 48, 56

#: The most threads a launch runs on. The team's state holds, after its fields, one flag per
#: part of a launch: 1 where a worker runs the part (:func:`team_end`); then, from
#: ``team[_HOMES_AT]``, a cache line per part: the claim counters of the part's home blocks in
#: the launch's loops whose threads claim their chunks (:func:`claim_chunk`), at most
#: :data:`_CLAIM_LOOPS` of them, each counting the elements of the block claimed so far (reset
#: by every launch).
MAX_THREADS = 4096
_PARTS = TEAM_FIELDS
_CLAIM_LOOPS = 8

#: Consecutive elements a thread takes at once in a grid-stride loop (:func:`chunked`): a
#: thread writes whole cache lines of its own, so threads do not share lines they write.
GRAIN = 64

#: The fewest elements (threads of the GPU's grid) a launch gives each thread of the cpu target
#: (:class:`frontier.runtime.target.CpuTarget`): a launch of fewer runs on fewer threads. The
#: team's hand-over costs about 10 µs a launch (two threads against one on a 2-core machine:
#: a per-element launch of 3,000 elements 16 µs against 9, of 100,000 the same 21 µs).
PART = 4096

#: How long a thread waits at a barrier by spinning (µs), before it sleeps: the imbalance of a
#: fused kernel's steps is short, and a sleeper costs its waker a system call and itself a
#: wake-up of tens of µs.
_BARRIER_SPIN_US = 50

#: How long a worker waits for the next launch by spinning (µs), and the caller for the other
#: parts of its launch, before they sleep: a call's launches follow each other within tens of
#: µs (the host's work between them), and a worker that spins starts its part at once.
_IDLE_SPIN_US = 1000

#: The longest sleep of a thread waiting at a barrier or for the parts of its launch (ns)
#: before it looks again: what a lost wake-up could cost, and how soon a sleeper sees that
#: another part raised.
_SLEEP_NS = 1_000_000

#: The longest sleep of an idle worker (ns) before it looks at the doorbell again (a ring wakes
#: it; this only bounds what a lost wake-up could cost, and keeps an idle process quiet).
_IDLE_SLEEP_NS = 1_000_000_000

#: Sleeps of the caller waiting for its launch's parts between looks at Python's signals (a
#: Ctrl-C then interrupts the wait).
_WAIT_ROUNDS = 20

#: Seconds a launch interrupted by Ctrl-C waits for its other parts to leave.
_SETTLE_SECONDS = 30.0


class TeamAborted(RuntimeError):
    """Raised in a kernel's part at a barrier after another part of its launch raised."""


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity; the CPU count where the platform
    has no affinity)."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        return max(1, len(affinity(0)))
    return max(1, os.cpu_count() or 1)


def configured() -> int:
    """The thread count of the cpu target: ``FRONTIER_NUM_THREADS``, else one."""
    return requested() or 1


def requested() -> int | None:
    """``FRONTIER_NUM_THREADS``'s thread count; None where it is unset (a default call then
    takes the count :func:`frontier.placement.cpu_threads` measures for it)."""
    raw = environ.get(VARIABLE)
    if raw is None or not raw.strip():
        return None
    try:
        count = int(raw.strip())
    except ValueError:
        count = 0
    if not 1 <= count <= MAX_THREADS:
        raise SettingError(f"{VARIABLE}={raw!r}: expected a positive integer (at most "
                           f"{MAX_THREADS}), the number of threads the cpu target runs kernels "
                           f"on (unset: one; the cores this process may use: {usable_cores()})")
    return count


#: Linux's ``futex`` system call number per machine (no futex elsewhere: the waiting thread
#: yields its core instead).
_FUTEX = {"x86_64": 202, "aarch64": 98}.get(platform.machine()) if sys.platform == "linux" \
    else None
_FUTEX_WAIT, _FUTEX_WAKE = 128, 129  # the _PRIVATE forms: threads of this process only


def _syscall(builder: Any, *args: Any) -> None:
    """``syscall(*args)``, each argument an i64 (libc's variadic entry)."""
    word = ir.IntType(64)
    fn = cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(word, [word], var_arg=True), "syscall")
    builder.call(fn, list(args))


@intrinsic
def _sleep_while(typingctx: Any, team: Any, field: Any, value: Any, ns: Any) -> Any:
    """Sleep while ``team[field]``'s low 32 bits equal ``value``'s, for at most ``ns``
    nanoseconds (``FUTEX_WAIT``; where there is no futex, yield the core once)."""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        word = ir.IntType(64)
        if _FUTEX is None:
            if os.name == "posix":
                fn = cgutils.get_or_insert_function(
                    builder.module, ir.FunctionType(ir.IntType(32), ()), "sched_yield")
                builder.call(fn, ())
            return context.get_dummy_value()
        array = context.make_array(sig.args[0])(context, builder, args[0])
        address = builder.gep(array.data, [context.cast(builder, args[1], sig.args[1],
                                                        types.intp)])
        expected = builder.trunc(context.cast(builder, args[2], sig.args[2], types.int64),
                                 ir.IntType(32))
        nanoseconds = context.cast(builder, args[3], sig.args[3], types.int64)
        timeout = cgutils.alloca_once(builder, ir.LiteralStructType([word, word]))
        seconds = builder.sdiv(nanoseconds, ir.Constant(word, 1_000_000_000))
        rest = builder.srem(nanoseconds, ir.Constant(word, 1_000_000_000))
        spec = builder.insert_value(ir.Constant(ir.LiteralStructType([word, word]), None),
                                    seconds, 0)
        builder.store(builder.insert_value(spec, rest, 1), timeout)
        _syscall(builder, ir.Constant(word, _FUTEX), builder.ptrtoint(address, word),
                 ir.Constant(word, _FUTEX_WAIT), builder.zext(expected, word),
                 builder.ptrtoint(timeout, word))
        return context.get_dummy_value()

    return types.none(team, field, value, ns), codegen


@intrinsic
def _wake_all(typingctx: Any, team: Any, field: Any) -> Any:
    """Wake every thread sleeping on ``team[field]`` (``FUTEX_WAKE``; nothing where there is
    no futex)."""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        if _FUTEX is not None:
            word = ir.IntType(64)
            array = context.make_array(sig.args[0])(context, builder, args[0])
            address = builder.gep(array.data, [context.cast(builder, args[1], sig.args[1],
                                                            types.intp)])
            _syscall(builder, ir.Constant(word, _FUTEX), builder.ptrtoint(address, word),
                     ir.Constant(word, _FUTEX_WAKE), ir.Constant(word, 2**31 - 1))
        return context.get_dummy_value()

    return types.none(team, field), codegen


@cached_njit(nogil=True)
def _wait_while(team: np.ndarray, field: int, value: int, spins: int, ns: int,
                sleepers: int) -> None:  # pragma: no cover - compiled
    """Wait while ``team[field]`` holds ``value``, or until the launch is aborted (a barrier's
    waiter): ``spins`` pauses of the processor, then one sleep of at most ``ns`` (a futex on
    the field, counted in ``team[sleepers]`` so that the writer wakes sleepers only where there
    are some). The field is read by relaxed loads while spinning, leaving its cache line to
    the writers, and once more by a sequentially consistent read-modify-write before the
    sleep (no wake-up is lost: the writer changes the field, then reads the sleepers)."""
    for _ in range(spins):
        if cpu_atomics.load(team, field) != value or cpu_atomics.load(team, _ABORTED) != 0:
            return
        cpu_atomics.pause()
    cpu_atomics.fetch_add(team, sleepers, 1)
    if cpu_atomics.fetch_add(team, field, 0) == value:
        _sleep_while(team, field, value, ns)
    cpu_atomics.fetch_add(team, sleepers, -1)


@cached_njit(nogil=True)
def team_barrier(team: np.ndarray, nthreads: int) -> None:  # pragma: no cover - compiled
    """Wait until every thread of the launch arrived (a kernel's grid barrier); raise
    :class:`TeamAborted` where another part raised. Arrivals and the release are sequentially
    consistent read-modify-writes, and a waiter reads the generation once more by one after
    it saw it change, so what a thread wrote before the barrier is seen after it by all.

    A waiter spins ``team[BARRIER_SPINS]`` times (:data:`_BARRIER_SPIN_US`), then sleeps (a
    futex on the generation, at most :data:`_SLEEP_NS` at a time; the last thread to arrive
    wakes the sleepers only where there are some): on a machine with fewer free cores than
    threads the waiter leaves its core to the thread it waits for."""
    if nthreads == 1:
        return
    if team[_TOGETHER] == 0:
        raise TeamAborted("a grid barrier in a kernel whose parts do not run together "
                          "(launch it cooperatively)")
    generation = cpu_atomics.fetch_add(team, _GENERATION, 0)
    if cpu_atomics.fetch_add(team, _ARRIVED, 1) == nthreads - 1:
        cpu_atomics.exchange(team, _ARRIVED, 0)
        cpu_atomics.fetch_add(team, _GENERATION, 1)
        if cpu_atomics.fetch_add(team, _SLEEPERS, 0) > 0:
            _wake_all(team, _GENERATION)
        return
    spins = team[_BARRIER_SPINS]
    while cpu_atomics.load(team, _GENERATION) == generation:
        if cpu_atomics.load(team, _ABORTED) != 0:
            raise TeamAborted("another thread of this kernel's launch raised")
        _wait_while(team, _GENERATION, generation, spins, _SLEEP_NS, _SLEEPERS)
        spins = 0
    cpu_atomics.fetch_add(team, _GENERATION, 0)


@cached_njit(nogil=True)
def team_begin(team: np.ndarray, tid: int, nthreads: int) -> None:  # pragma: no cover
    """The first statement of a parallel kernel: its part 0 rings the doorbell of its launch
    (the workers take their parts; the calling thread has let the GIL go by then, so a worker
    that wakes takes it at once). Nothing where the doorbell rang already or the launch runs
    on one thread."""
    if tid == 0 and nthreads > 1:
        _ring(team)


@cached_njit(nogil=True)
def team_end(team: np.ndarray, tid: int, nthreads: int) -> None:  # pragma: no cover
    """The last statement of a parallel kernel (and the one before each ``return``): count the
    part finished (:func:`_part_done`), in compiled code, so that the caller waiting for it does
    not wait for the part's thread to take the GIL back first. A worker's part then waits, still
    without the GIL, for the next launch to ring (spinning ``team[IDLE_SPINS]`` times at most):
    it takes the GIL back while the caller runs that launch's part without it, never while the
    caller runs Python between launches (two threads handing the GIL to each other each wait
    for the other to be woken). Nothing on one thread."""
    if nthreads > 1:
        _part_done(team)
        if team[_PARTS + tid] != 0:
            bell = cpu_atomics.load(team, _DOORBELL)
            for _ in range(team[_IDLE_SPINS]):
                if cpu_atomics.load(team, _DOORBELL) != bell:
                    return
                cpu_atomics.pause()


@cached_njit(nogil=True)
def _ring(team: np.ndarray) -> None:  # pragma: no cover - compiled
    """Ring the doorbell for launch ``team[PENDING]`` (a sequentially consistent exchange,
    after the launch's settings were written), waking the workers asleep on it."""
    bell = team[_PENDING]
    if cpu_atomics.load(team, _DOORBELL) != bell:
        cpu_atomics.exchange(team, _DOORBELL, bell)
        if cpu_atomics.fetch_add(team, _IDLE, 0) > 0:
            _wake_all(team, _DOORBELL)


@cached_njit(nogil=True)
def _await_launch(team: np.ndarray, seen: int) -> int:  # pragma: no cover - compiled
    """A worker's wait for a launch other than ``seen``: the doorbell's new number (spinning
    ``team[IDLE_SPINS]`` times, then asleep)."""
    spins = team[_IDLE_SPINS]
    while True:
        bell = cpu_atomics.load(team, _DOORBELL)
        if bell != seen:
            return cpu_atomics.fetch_add(team, _DOORBELL, 0)
        _wait_while(team, _DOORBELL, seen, spins, _IDLE_SLEEP_NS, _IDLE)
        spins = 0


@cached_njit(nogil=True)
def _part_done(team: np.ndarray) -> None:  # pragma: no cover - compiled
    """Count a finished part, waking the caller where it sleeps waiting for the parts."""
    cpu_atomics.fetch_add(team, _FINISHED, 1)
    if cpu_atomics.fetch_add(team, _WAITER, 0) > 0:
        _wake_all(team, _FINISHED)


@cached_njit(nogil=True)
def _await_parts(team: np.ndarray, parts: int) -> bool:  # pragma: no cover - compiled
    """The caller's wait for ``parts`` finished parts: True once they are; False after
    :data:`_WAIT_ROUNDS` sleeps (the caller looks at Python's signals, then waits again)."""
    spins = team[_IDLE_SPINS]
    for _ in range(_WAIT_ROUNDS):
        finished = cpu_atomics.load(team, _FINISHED)
        if finished >= parts:
            cpu_atomics.fetch_add(team, _FINISHED, 0)
            return True
        _wait_while(team, _FINISHED, finished, spins, _SLEEP_NS, _WAITER)
        spins = 0
    return cpu_atomics.fetch_add(team, _FINISHED, 0) >= parts


@cached_njit(nogil=True)
def _pauses(count: int) -> None:  # pragma: no cover - compiled
    for _ in range(count):
        cpu_atomics.pause()


def _pauses_per_us() -> float:
    """How many spins (pauses of the processor) a µs holds on this machine (measured once)."""
    _pauses(1)
    count = 1 << 14
    began = time.perf_counter()
    _pauses(count)
    return count / max(1.0, 1e6 * (time.perf_counter() - began))


def _state(grain: int, together: bool, per_us: float = 0.0, parts: int = 1) -> np.ndarray:
    """A team state array of a launch's settings (``per_us``: the spins a µs holds; room for
    the flags and the claim counters of ``parts`` parts)."""
    homes = TEAM_FIELDS + -(-parts // 8) * 8
    state = np.zeros(homes + 8 * parts, np.int64)
    state[_HOMES_AT] = homes
    state[_GRAIN] = grain
    state[_TOGETHER] = together
    state[_BARRIER_SPINS] = int(per_us * _BARRIER_SPIN_US)
    state[_IDLE_SPINS] = int(per_us * _IDLE_SPIN_US)
    return state


class Team:
    """Worker threads that run the parts of a kernel beside the calling thread (module
    docstring): the process has one (:func:`run`).

    The team keeps one state array (``team`` in its kernels) from launch to launch. Between
    launches a worker waits on the state's doorbell, spinning (:data:`_IDLE_SPIN_US`), then
    asleep; a launch writes its settings, then its part 0 rings the doorbell (the kernel's
    :func:`team_begin`, once the calling thread runs compiled code without the GIL), each
    worker takes its part, and the caller waits on the count of finished parts the same way."""

    def __init__(self) -> None:
        self._busy = threading.Lock()
        self._workers: list[_Worker] = []
        self._pid = os.getpid()
        self._state: np.ndarray | None = None
        self._per_us = 0.0
        self._launches = 0
        self.current: _Launch | None = None

    def run(self, kernel: Callable, nthreads: int, args: tuple, grain: int = GRAIN,
            together: bool = True, bracketed: bool = False) -> None:
        """``kernel(tid, nthreads, team, *args)`` for every ``tid`` below ``nthreads``, its
        grid-stride loops taking ``grain`` elements at a time; on the calling thread alone
        (``nthreads`` 1) where ``nthreads`` is 1 or the team runs another launch.

        ``together``: the parts run at once, each on a thread of its own (a kernel with grid
        barriers). Otherwise each thread, the caller first, takes the next part nobody took
        yet until none is left: a worker the system has not woken yet leaves its part to a
        thread that is running (on a machine with more runnable threads than cores a launch
        does not wait for a descheduled worker), and a grid barrier in such a kernel raises
        :class:`TeamAborted` instead of waiting for ever.

        ``bracketed``: the kernel rings the doorbell and counts its part finished itself
        (:func:`team_begin` first, :func:`team_end` last: the kernels of the cpu target);
        else the caller rings it before it runs its part, and each part's thread counts it
        once it returned."""
        if nthreads > MAX_THREADS:
            raise ValueError(f"a launch on {nthreads} threads: at most {MAX_THREADS}")
        if nthreads <= 1 or not self._busy.acquire(blocking=False):
            kernel(0, 1, _state(grain, together), *args)
            return
        try:
            state = self._ready(nthreads - 1)
            self._launches += 1
            for field in (_ARRIVED, _ABORTED, _FINISHED):
                state[field] = 0
            homes = int(state[_HOMES_AT])
            state[homes:homes + 8 * nthreads] = 0
            state[_GRAIN], state[_TOGETHER] = grain, together
            state[_PENDING] = self._launches
            launch = _Launch(kernel, nthreads, state, args, together, self._launches, bracketed)
            self.current = launch
            if not bracketed:
                _ring(state)
            launch.work(0 if together else None, worker=False)
            _ring(state)  # where part 0 raised before it rang
            if not launch.wait():
                self._workers, self._state = [], None  # a part lost to an interrupt: the
        finally:                                       # next launch makes a team anew
            self.current = None
            self._busy.release()
        launch.raise_first()

    def _ready(self, count: int) -> np.ndarray:
        """The state array, with ``count`` started workers waiting on it (made on first use;
        made anew in a forked child)."""
        if self._pid != os.getpid():
            self._workers, self._state, self._pid = [], None, os.getpid()
        if self._state is None:
            self._per_us = self._per_us or _pauses_per_us()
            self._state = _state(GRAIN, True, self._per_us, MAX_THREADS)
            self._state[_DOORBELL] = self._state[_PENDING] = self._launches
        while len(self._workers) < count:
            self._workers.append(_Worker(self, self._state, len(self._workers) + 1))
        return self._state


class _Launch:
    """One launch's parts: which are taken, and what they raised."""

    def __init__(self, kernel: Callable, nthreads: int, state: np.ndarray, args: tuple,
                 together: bool, number: int, bracketed: bool) -> None:
        self.kernel, self.nthreads, self.state, self.args = kernel, nthreads, state, args
        self.together, self.number, self.bracketed = together, number, bracketed
        self._next = itertools.count()  # next() is atomic: the parts' claims
        self._lock = threading.Lock()
        self._errors: list[BaseException] = []

    def work(self, tid: int | None, worker: bool) -> None:
        """Run part ``tid``; None: take parts nobody took until none is left (``worker``: on
        a worker thread, not the caller's)."""
        try:
            self._work(tid, worker)
        except BaseException as err:  # noqa: BLE001 - an interrupt between parts: raised by
            self.state[_ABORTED] = 1  # the launching thread once the others stopped
            with self._lock:
                self._errors.append(err)

    def _work(self, tid: int | None, worker: bool) -> None:
        while True:
            part = next(self._next) if tid is None else tid
            if part >= self.nthreads:
                return
            self.state[_PARTS + part] = worker
            try:
                self.kernel(part, self.nthreads, self.state, *self.args)
            except BaseException as err:  # noqa: BLE001 - raised by the launching thread
                self.state[_ABORTED] = 1
                with self._lock:
                    self._errors.append(err)
                _part_done(self.state)  # a part that raised did not reach its team_end
            else:
                if not self.bracketed:
                    _part_done(self.state)
            if tid is not None:
                return

    def wait(self) -> bool:
        """Wait until every part finished (False: a part was lost to an interrupt, given up
        :data:`_SETTLE_SECONDS` after it). An interrupt meanwhile (Ctrl-C) aborts the launch
        (its parts leave at their next barrier) and is raised once they all finished, so the
        team is never free while a part of its launch still runs."""
        deadline = None
        while True:
            try:
                if _await_parts(self.state, self.nthreads):
                    return True
                if deadline is not None and time.monotonic() > deadline:
                    return False
            except BaseException as err:  # noqa: BLE001 - raised by raise_first
                self.state[_ABORTED] = 1
                with self._lock:
                    self._errors.append(err)
                deadline = deadline or time.monotonic() + _SETTLE_SECONDS

    def raise_first(self) -> None:
        """Raise the first part's exception (not one of a part that left at a barrier after
        it), else an interrupt's."""
        errors = self._errors
        if errors:
            raise next((e for e in errors if not isinstance(e, (TeamAborted, KeyboardInterrupt))),
                       next((e for e in errors if not isinstance(e, TeamAborted)), errors[0]))


class _Worker:
    """A daemon thread running its part of each launch of its team (its number: the part of a
    launch whose parts run together; any part nobody took of one whose parts do not)."""

    def __init__(self, team: Team, state: np.ndarray, number: int) -> None:
        self._team, self._state, self._number = team, state, number
        thread = threading.Thread(target=self._loop, name=f"frontier-cpu-{number}", daemon=True)
        thread.start()

    def _loop(self) -> None:
        seen = self._state[_DOORBELL]
        while True:
            seen = _await_launch(self._state, seen)
            launch = self._team.current
            if launch is None or launch.state is not self._state or launch.number != seen:
                continue
            if not launch.together:
                launch.work(None, worker=True)
            elif self._number < launch.nthreads:
                launch.work(self._number, worker=True)


_TEAM = Team()


def run(kernel: Callable, nthreads: int, args: tuple, grain: int = GRAIN,
        together: bool = True, bracketed: bool = False) -> None:
    """Run a kernel's ``nthreads`` parts on the process's team (:meth:`Team.run`)."""
    _TEAM.run(kernel, nthreads, args, grain, together, bracketed)


def bracket(source: str) -> str:
    """Kernel text that counts its part finished (:func:`team_end`) at its end and before each
    ``return``; its prologue (:data:`PROLOGUE`) rang the doorbell."""
    lines = source.rstrip("\n").split("\n")
    made = []
    for line in lines:
        if line.strip() == "return":
            made.append(line[:len(line) - len(line.lstrip())] + "team_end(team, tid, nthreads)")
        made.append(line)
    return "\n".join([*made, "    team_end(team, tid, nthreads)", ""])


@cached_njit(nogil=True, forceinline=True)
def chunk_slot(first: int, tid: int, nthreads: int) -> int:  # pragma: no cover - compiled
    """Which of the ``nthreads`` chunks of a round of a grid-stride loop (:func:`chunked`)
    beginning at element ``first`` thread ``tid`` takes: its own number, turned by an offset
    the hash of ``first`` picks (the golden ratio added, then MurmurHash3's finalizer; scaled to
    the threads by a multiplication, no division)."""
    h = ((first ^ (first >> 32)) + 0x9E3779B9) & 0xFFFFFFFF
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    h ^= h >> 16
    slot = tid + ((h * nthreads) >> 32)
    return slot - nthreads if slot >= nthreads else slot


#: The first line of a grid-stride loop of the GPU's text: ``for v in range(tid, end,
#: nthreads):`` (``end`` an expression on one line).
_STRIDE = re.compile(r"^(?P<indent> *)for (?P<var>\w+) in range\(tid, (?P<end>.+), nthreads\):$")

#: The prologue of a parallel kernel: part 0 rings its launch's doorbell
#: (:func:`team_begin`), and the grain its loops take (:func:`chunked`).
PROLOGUE = f"team_begin(team, tid, nthreads)\ngrain = team[{_GRAIN}]\n"


def chunked(source: str) -> str:
    """Kernel text whose grid-stride loops (``for v in range(tid, end, nthreads):``) take
    ``grain`` consecutive elements at a time, in one of two ways. A GPU's loop deals the
    elements one by one, which on a CPU has the threads write the same cache lines.

    In a kernel with grid barriers (its parts run together, step after step), every loop runs
    in rounds of ``nthreads`` chunks, and in each round every thread takes one chunk, the one
    :func:`chunk_slot` names (its number turned by an offset hashed from the round's first
    element): element ``v`` goes to the same thread in every loop, whatever its end (so a thread
    takes the same elements in every loop, as a GPU's grid-stride loops do). Dealt in turn
    (chunk ``c`` to thread ``c % nthreads``), the chunks of a graph whose vertex ids carry its
    degrees (an R-MAT graph's: a vertex has more edges the more zero bits its id has) would give
    thread 0 three quarters of the edges of two threads; turned by a hash, each thread's chunks
    are spread evenly over the positions in a round.

    In a kernel without grid barriers, each loop not nested in another loop (at most
    :data:`_CLAIM_LOOPS` of them) hands its chunks out as the threads ask
    (:func:`claim_chunk`): the loop's elements are dealt in ``nthreads`` consecutive home
    blocks, thread ``tid`` takes chunks of its own block first (a quarter of what is left of
    it, at least ``grain`` elements), then of the others' blocks. A thread that took heavy
    chunks takes fewer, one the system has not scheduled holds up no more than its chunk, and
    a thread takes the same elements launch after launch where it can (the vertex ids of one
    graph: what it wrote in one launch is in its cache in the next, not in another core's).
    Such a kernel's loops are independent (the generated ones: a loop clearing the next slot's
    bitmap, then the loop over the elements), so which thread takes an element may differ from
    loop to loop.

    A chunk's elements are indices known not to be negative
    (:func:`~frontier.runtime.indices.index_after`): the loop's accesses need no wrap-around
    test and vectorize as one thread's loop does. A loop whose body leaves it by ``break`` is
    kept as it is (a chunk's loop would leave only the chunk)."""
    claims = iter(range(_CLAIM_LOOPS) if "team_barrier(" not in source else ())
    return _chunked(source, claims, nested=False)


def _chunked(source: str, claims: Any, nested: bool) -> str:
    """:func:`chunked`, taking the claim counters of its loops not ``nested`` in another loop
    from ``claims`` (none left: a loop in rounds)."""
    lines = source.split("\n")
    out: list[str] = []
    loops: list[int] = []  # indentation of the loops open around the line
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip():
            while loops and _indent_of(line) <= loops[-1]:
                loops.pop()
        match = _STRIDE.match(line)
        if match is None:
            if line.strip().startswith(("for ", "while ")):
                loops.append(_indent_of(line))
            out.append(line)
            i += 1
            continue
        depth = len(match["indent"])
        end = i + 1
        while end < len(lines) and (not lines[end].strip() or _indent_of(lines[end]) > depth):
            end += 1
        body = lines[i + 1:end]
        if _breaks_out(body, depth):
            loops.append(depth)
            out.append(line)
            i += 1
            continue
        pad, var, stop = match["indent"], match["var"], match["end"]
        claim = None if nested or loops else next(claims, None)
        if claim is None:
            out.append(f"{pad}for {var}_round in range(0, {stop}, nthreads * grain):")
            out.append(f"{pad}    {var}_chunk = as_index({var}_round + chunk_slot({var}_round, "
                       "tid, nthreads) * grain)")
            out.append(f"{pad}    for {var}_k in range(min(grain, {stop} - {var}_chunk)):")
            out.append(f"{pad}        {var} = index_after({var}_chunk, {var}_k)")
        else:
            out.append(f"{pad}{var}_chunk = claim_chunk(team, {claim}, {stop}, grain, tid, "
                       "nthreads)")
            out.append(f"{pad}while {var}_chunk >= 0:")
            out.append(f"{pad}    for {var}_k in range(claimed_size({var}_chunk, {stop}, grain, "
                       "nthreads)):")
            out.append(f"{pad}        {var} = index_after(as_index({var}_chunk), {var}_k)")
        inner = _chunked("\n".join(body), claims, nested=True)
        out.extend("    " + b if b.strip() else b for b in inner.split("\n"))
        if claim is not None:
            out.append(f"{pad}    {var}_chunk = claim_chunk(team, {claim}, {stop}, grain, tid, "
                       "nthreads)")
        i = end
    return "\n".join(out)


@cached_njit(nogil=True, forceinline=True)
def _block_start(block: int, stop: int, grain: int, nthreads: int) -> int:  # pragma: no cover
    """The first element of home block ``block`` of a loop of ``stop`` elements: its grains
    (of ``grain`` elements, the last one short) dealt in ``nthreads`` consecutive blocks;
    ``stop`` for block ``nthreads``."""
    grains = (stop + grain - 1) // grain
    return min(stop, block * grains // nthreads * grain)


@cached_njit(nogil=True, forceinline=True)
def claimed_size(first: int, stop: int, grain: int, nthreads: int) -> int:  # pragma: no cover
    """The elements of the chunk beginning at ``first`` of a loop of ``stop`` elements
    (:func:`claim_chunk`): a quarter of what is left of its home block from ``first`` on, a
    multiple of ``grain``, at least ``grain``, at most to the block's end."""
    grains = (stop + grain - 1) // grain
    block = ((first // grain + 1) * nthreads - 1) // grains
    end = _block_start(block + 1, stop, grain, nthreads)
    share = (end - first) // 4
    return min(end - first, max(grain, share - share % grain))


@cached_njit(nogil=True)
def claim_chunk(team: np.ndarray, loop: int, stop: int, grain: int, tid: int,
                nthreads: int) -> int:  # pragma: no cover - compiled
    """The first element of the next chunk thread ``tid`` takes of loop ``loop`` (of ``stop``
    elements) of its launch, -1 once none is left: of its home block while it has any, else of
    the next thread's, and so on (:func:`chunked`). A compare-and-swap moves the block's claim
    counter (its part's cache line, from ``team[_HOMES_AT]``) past the chunk,
    :func:`claimed_size` elements long."""
    lines = team[_HOMES_AT] + loop
    for k in range(nthreads):
        block = tid + k if tid + k < nthreads else tid + k - nthreads
        start = _block_start(block, stop, grain, nthreads)
        end = _block_start(block + 1, stop, grain, nthreads)
        counter = lines + 8 * block
        while True:
            taken = cpu_atomics.load(team, counter)
            first = start + taken
            if first >= end:
                break
            size = claimed_size(first, stop, grain, nthreads)
            if cpu_atomics.compare_exchange(team, counter, taken, taken + size) == taken:
                return first
    return -1


#: A dense push's count of a new element (:func:`frontier.ring.push`), a statement of its own.
_DENSE_COUNT = "atomic_claim(lens, out_slot)"


def counted_apart(source: str) -> str:
    """Kernel text whose dense pushes count their new elements in a local ``dense_added``,
    added to the frontier's length once, at the kernel's end: one atomic addition per thread
    instead of one per element on a length every thread increments (the cache line of which
    the threads would pass to each other at every push). Only in a kernel without grid
    barriers or ``return`` (its end is where every thread's count is added, and no step reads
    the length before); any other text as it is."""
    lines = source.split("\n")
    if (not any(line.strip() == _DENSE_COUNT for line in lines)
            or any(line.strip().startswith("return") or "team_barrier(" in line
                   for line in lines)):
        return source
    made = [lines[0], "    dense_added = 0"]
    for line in lines[1:]:
        if line.strip() == _DENSE_COUNT:
            line = line[:len(line) - len(line.lstrip())] + "dense_added += 1"
        made.append(line)
    while made and not made[-1].strip():
        made.pop()
    return "\n".join([*made, "    if dense_added:",
                       "        atomic_add(lens, out_slot, dense_added)", ""])


#: The first line of a chunked grid-stride loop (:func:`chunked`): over its rounds of chunks,
#: or over the chunks its threads claim.
_CHUNKED = re.compile(r"^(?P<indent> *)(?:for (?P<var>\w+)_round in range\(0, "
                      r"|while (?P<claimed>\w+)_chunk >= 0:)")


def _chunked_var(line: str) -> str:
    """The element variable of a chunked loop's first line (:data:`_CHUNKED`)."""
    match = _CHUNKED.match(line)
    return match["var"] or match["claimed"]

#: A dense push's claim of its bit (:func:`frontier.ring.push`), a statement of its own.
_DENSE_BIT = "if (atomic_or(out_words, word, bit) & bit) == 0:"


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip())


def _enclosing_chunk(lines: list[str], at: int) -> int | None:
    """The index of the first line of the chunked loop (:data:`_CHUNKED`) whose body holds
    line ``at`` (none: None)."""
    depth = _indent_of(lines[at])
    for i in range(at - 1, -1, -1):
        if not lines[i].strip() or _indent_of(lines[i]) >= depth:
            continue
        depth = _indent_of(lines[i])
        if _CHUNKED.match(lines[i]):
            return i
    return None


def owned_words(source: str) -> str:
    """Kernel text whose dense pushes of a chunk's own elements set their bits by a plain
    ``or`` (``owned_or``) where the grain is a multiple of 32: the 32 elements of a bitmap word
    are then all in one chunk, so one thread writes the word, and the bit costs no locked
    instruction (a filter's, a pull's output). Only where every dense push of the kernel pushes
    the element of its chunked loop (``word = v >> 5`` in the loop over ``v``); any other text
    as it is."""
    lines = source.split("\n")
    sites = [i for i, line in enumerate(lines) if line.strip() == _DENSE_BIT]
    for i in sites:
        loop = _enclosing_chunk(lines, i)
        if (loop is None or i < 3
                or lines[i - 3].strip() != f"word = {_chunked_var(lines[loop])} >> 5"):
            return source
    for i in sites:
        lines[i] = lines[i].replace("atomic_or(out_words, word, bit)",
                                    "owned_or(out_words, word, bit, grain)")
    return "\n".join(lines)


@cached_njit(nogil=True, forceinline=True)
def owned_or(words: np.ndarray, word: int, bit: Any, grain: int) -> Any:  # pragma: no cover
    """``words[word] |= bit``, returning the word held before: a plain ``or`` where ``grain``
    is a multiple of 32 (:func:`owned_words`), else the atomic one."""
    if grain % 32 == 0:
        old = words[word]
        words[word] = old | bit
        return old
    return cpu_atomics.fetch_or(words, word, bit)


#: A sparse push (:func:`frontier.ring.push`): its lines, the pushed element's in the middle.
_SPARSE_PUSH = ("pos = atomic_claim(lens, out_slot)", "if pos < out_ids.shape[0]:",
                "out_ids[pos] = ", "else:", "lens[OVERFLOW] = 1")

#: Elements a thread holds before it adds them to a queue (:func:`buffered_pushes`).
PUSH_BUFFER = 256


def buffered_pushes(source: str) -> str:
    """Kernel text whose sparse pushes inside a chunked loop go to a buffer of the thread's own
    (:data:`PUSH_BUFFER` elements), added to the queue by :func:`flush_pushes` when it is full
    and at the end of the loop: one atomic addition to the queue's length per buffer instead
    of one per element on a length every thread increments. The queue's elements are the same,
    in another order (as a GPU's order depends on its scheduling). Only in a chunked loop that
    neither assigns the queue (``lens``, ``out_slot``, ``out_ids``) nor returns."""
    lines = source.split("\n")
    flushes: dict[int, str] = {}  # chunked loop -> indentation of its flush
    i = 0
    while i < len(lines):
        text = lines[i].strip()
        loop = _enclosing_chunk(lines, i) if text == _SPARSE_PUSH[0] else None
        if loop is None or not _pushes_at(lines, i) or not _plain_chunk(lines, loop):
            i += 1
            continue
        pad = lines[i][:_indent_of(lines[i])]
        value = lines[i + 2].strip()[len(_SPARSE_PUSH[2]):]
        lines[i:i + 5] = [f"{pad}if buffered == {PUSH_BUFFER}:",
                          f"{pad}    buffered = flush_pushes(push_buffer, buffered, lens, "
                          "out_slot, out_ids, OVERFLOW)",
                          f"{pad}push_buffer[buffered] = {value}",
                          f"{pad}buffered += 1"]
        flushes[loop] = lines[loop][:_indent_of(lines[loop])]
        i += 4
    if not flushes:
        return source
    for loop in sorted(flushes, reverse=True):
        end = loop + 1
        while end < len(lines) and (not lines[end].strip()
                                    or _indent_of(lines[end]) > _indent_of(lines[loop])):
            end += 1
        pad = flushes[loop]
        lines[end:end] = [f"{pad}if buffered:",
                          f"{pad}    buffered = flush_pushes(push_buffer, buffered, lens, "
                          "out_slot, out_ids, OVERFLOW)"]
    return "\n".join([lines[0], f"    push_buffer = np.empty({PUSH_BUFFER}, np.int64)",
                      "    buffered = 0", *lines[1:]])


def _pushes_at(lines: list[str], i: int) -> bool:
    """Whether lines ``i``.. are a sparse push (:data:`_SPARSE_PUSH`) at one indentation."""
    if i + 5 > len(lines):
        return False
    pad = _indent_of(lines[i])
    shape = (pad, pad, pad + 4, pad, pad + 4)
    return (all(_indent_of(lines[i + k]) == shape[k] for k in range(5))
            and lines[i + 1].strip() == _SPARSE_PUSH[1]
            and lines[i + 2].strip().startswith(_SPARSE_PUSH[2])
            and lines[i + 3].strip() == _SPARSE_PUSH[3]
            and lines[i + 4].strip() == _SPARSE_PUSH[4])


def _plain_chunk(lines: list[str], loop: int) -> bool:
    """Whether the chunked loop at line ``loop`` neither assigns the queue nor returns."""
    depth = _indent_of(lines[loop])
    end = loop + 1
    while end < len(lines) and (not lines[end].strip() or _indent_of(lines[end]) > depth):
        text = lines[end].strip()
        if text.startswith(("return", "lens =", "out_slot =", "out_ids =")):
            return False
        end += 1
    return True


@cached_njit(nogil=True)
def flush_pushes(buffer: np.ndarray, count: int, lens: np.ndarray, slot: int, ids: np.ndarray,
                 overflow: int) -> int:  # pragma: no cover - compiled
    """Add the ``count`` elements of ``buffer`` to the queue ``ids`` whose length is
    ``lens[slot]`` (one atomic addition), setting ``lens[overflow]`` where they do not all fit
    (as a push past the queue's end does); returns 0, the buffer's count after."""
    pos = cpu_atomics.fetch_add(lens, slot, count)
    room = ids.shape[0] - pos
    for j in range(max(0, min(count, room))):
        ids[pos + j] = buffer[j]
    if count > room:
        lens[overflow] = 1
    return 0


def _breaks_out(body: list[str], depth: int) -> bool:
    """Whether a ``break`` in ``body`` (the lines of a loop at indentation ``depth``) leaves
    that loop: no loop of its own encloses it."""
    loops: list[int] = []  # indentation of the loops open in the body
    for line in body:
        text = line.strip()
        if not text:
            continue
        indent = len(line) - len(line.lstrip())
        while loops and indent <= loops[-1]:
            loops.pop()
        if text.startswith(("for ", "while ")):
            loops.append(indent)
        elif text == "break" and not loops:
            return True
    return False
