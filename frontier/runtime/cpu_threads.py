"""The threads the cpu target runs a kernel on: how many, and the team that runs them.

How many: ``FRONTIER_NUM_THREADS`` where set (a positive integer; anything else is a
:class:`~frontier.environ.SettingError` naming the variable; the cores this process may run on,
its CPU affinity, are :func:`usable_cores`), else one: the kernels whose functors are
dominated by locked atomics (a BFS's visit, Afforest's link) run slower on two threads than on
one, so several threads are asked for, until a measured rule chooses them (docs/cpu.md).
:func:`configured` reads it; the process's cpu target reads it once, when it is made
(:func:`frontier.runtime.target.named`).

A kernel of the parallel cpu target is a function ``kernel(tid, nthreads, team, *args)``
compiled without the GIL (``nogil``): thread ``tid`` of ``nthreads`` does its share of the
kernel's grid-stride loops (the generated text is the GPU's, each thread a block of one), and
``team`` is the launch's barrier state, which :func:`team_barrier` (the kernel's grid barrier)
waits on. :class:`Team` runs the ``nthreads`` parts: the calling thread and ``nthreads - 1``
worker threads of the process (started on first use). The parts of a kernel with grid barriers
(a cooperative launch) run at once, a thread each; the parts of any other kernel are taken by
whichever thread is running, so a launch never waits for a worker the system has not woken.

No oversubscription: a process runs one team launch at a time. A launch that finds the team
busy (another Python thread's launch is running) runs all of its kernel on the calling thread
(``nthreads`` 1) instead of waiting; so the threads running kernels are the callers' own threads
plus at most ``FRONTIER_NUM_THREADS - 1`` workers, and a kernel's result never depends on which
of the two ways ran it, where its algorithm is deterministic.

The barrier spins (with the processor's pause hint) and then sleeps (a futex on Linux, else
yielding the core), so a machine with more runnable threads than cores still makes progress. A
part that raises marks the team aborted: every other part leaves at its next barrier
(:class:`TeamAborted`), the launch waits for them all and raises the first part's exception.
After ``fork`` the child makes its own workers (the parent's are not in it).
"""

from __future__ import annotations

import itertools
import os
import platform
import queue
import re
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.extending import intrinsic

from frontier import environ
from frontier.environ import SettingError
from frontier.runtime import cpu_atomics

__all__ = ["VARIABLE", "configured", "usable_cores", "Team", "run", "team_barrier",
           "TeamAborted", "TEAM_FIELDS", "chunked", "counted_apart", "GRAIN", "THREAD_PARAMS"]

#: The environment variable of the thread count.
VARIABLE = "FRONTIER_NUM_THREADS"

#: The parameters a parallel kernel takes before its own: its thread, the launch's threads and
#: the launch's ``team`` (:meth:`Team.run` passes them).
THREAD_PARAMS = ("tid", "nthreads", "team")

#: Entries of a launch's ``team`` array: threads arrived at the barrier, the barrier's
#: generation, the abort flag, the grain of the launch's grid-stride loops (:func:`chunked`),
#: whether its parts run together (:meth:`Team.run`), and the threads asleep at its barrier.
TEAM_FIELDS = 6
_ARRIVED, _GENERATION, _ABORTED, _GRAIN, _TOGETHER, _SLEEPERS = range(TEAM_FIELDS)

#: Consecutive elements a thread takes at once in a grid-stride loop (:func:`chunked`): a
#: thread writes whole cache lines of its own, so threads do not share lines they write.
GRAIN = 64

#: Spins of a thread waiting at a barrier before it sleeps (each a pause of the processor).
_SPINS = 500

#: The longest sleep of a thread waiting at a barrier (ns) before it looks again: what a lost
#: wake-up could cost, and how soon a sleeper sees that another part raised.
_SLEEP_NS = 1_000_000

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
    raw = environ.get(VARIABLE)
    if raw is None or not raw.strip():
        return 1
    try:
        count = int(raw.strip())
    except ValueError:
        count = 0
    if count < 1:
        raise SettingError(f"{VARIABLE}={raw!r}: expected a positive integer, the number of "
                           "threads the cpu target runs kernels on (unset: one; the cores this "
                           f"process may use: {usable_cores()})")
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
def _sleep_while(typingctx: Any, team: Any, value: Any) -> Any:
    """Sleep while ``team[GENERATION]``'s low 32 bits equal ``value``'s, for at most
    :data:`_SLEEP_NS` (``FUTEX_WAIT``; where there is no futex, yield the core once)."""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        word = ir.IntType(64)
        if _FUTEX is None:
            if os.name == "posix":
                fn = cgutils.get_or_insert_function(
                    builder.module, ir.FunctionType(ir.IntType(32), ()), "sched_yield")
                builder.call(fn, ())
            return context.get_dummy_value()
        array = context.make_array(sig.args[0])(context, builder, args[0])
        address = builder.gep(array.data, [context.get_constant(types.intp, _GENERATION)])
        expected = builder.trunc(args[1], ir.IntType(32))
        timeout = cgutils.alloca_once(builder, ir.LiteralStructType([word, word]))
        builder.store(ir.Constant(ir.LiteralStructType([word, word]), [0, _SLEEP_NS]), timeout)
        _syscall(builder, ir.Constant(word, _FUTEX), builder.ptrtoint(address, word),
                 ir.Constant(word, _FUTEX_WAIT), builder.zext(expected, word),
                 builder.ptrtoint(timeout, word))
        return context.get_dummy_value()

    return types.none(team, value), codegen


@intrinsic
def _wake_all(typingctx: Any, team: Any) -> Any:
    """Wake every thread sleeping on ``team[GENERATION]`` (``FUTEX_WAKE``; nothing where there
    is no futex)."""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        if _FUTEX is not None:
            word = ir.IntType(64)
            array = context.make_array(sig.args[0])(context, builder, args[0])
            address = builder.gep(array.data, [context.get_constant(types.intp, _GENERATION)])
            _syscall(builder, ir.Constant(word, _FUTEX), builder.ptrtoint(address, word),
                     ir.Constant(word, _FUTEX_WAKE), ir.Constant(word, 2**31 - 1))
        return context.get_dummy_value()

    return types.none(team), codegen


@numba.njit(nogil=True, cache=False)
def team_barrier(team: np.ndarray, nthreads: int) -> None:  # pragma: no cover - compiled
    """Wait until every thread of the launch arrived (a kernel's grid barrier); raise
    :class:`TeamAborted` where another part raised. Arrivals and the release are sequentially
    consistent read-modify-writes, and a waiter reads the generation once more by one after
    its relaxed spin saw it change, so what a thread wrote before the barrier is seen after it
    by all; the spin itself only reads, leaving the cache line to the arriving threads.

    A waiter spins :data:`_SPINS` times, then sleeps (a futex on the generation, at most
    :data:`_SLEEP_NS` at a time, counted in ``team[SLEEPERS]`` so that the last thread to arrive
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
            _wake_all(team)
        return
    spins = 0
    while cpu_atomics.load(team, _GENERATION) == generation:
        if cpu_atomics.load(team, _ABORTED) != 0:
            raise TeamAborted("another thread of this kernel's launch raised")
        spins += 1
        if spins < _SPINS:
            cpu_atomics.pause()
        else:
            cpu_atomics.fetch_add(team, _SLEEPERS, 1)
            if cpu_atomics.fetch_add(team, _GENERATION, 0) == generation:
                _sleep_while(team, generation)
            cpu_atomics.fetch_add(team, _SLEEPERS, -1)
    cpu_atomics.fetch_add(team, _GENERATION, 0)


class Team:
    """Worker threads that run the parts of a kernel beside the calling thread (module
    docstring): the process has one (:func:`run`)."""

    def __init__(self) -> None:
        self._busy = threading.Lock()
        self._workers: list[_Worker] = []
        self._pid = os.getpid()

    def run(self, kernel: Callable, nthreads: int, args: tuple, grain: int = GRAIN,
            together: bool = True) -> None:
        """``kernel(tid, nthreads, team, *args)`` for every ``tid`` below ``nthreads``, its
        grid-stride loops taking ``grain`` elements at a time; on the calling thread alone
        (``nthreads`` 1) where ``nthreads`` is 1 or the team runs another launch.

        ``together``: the parts run at once, each on a thread of its own (a kernel with grid
        barriers). Otherwise each thread, the caller first, takes the next part nobody took
        yet until none is left: a worker the system has not woken yet leaves its part to a
        thread that is running (on a machine with more runnable threads than cores a launch
        does not wait for a descheduled worker), and a grid barrier in such a kernel raises
        :class:`TeamAborted` instead of waiting for ever."""
        state = np.zeros(TEAM_FIELDS, np.int64)
        state[_GRAIN] = grain
        state[_TOGETHER] = together
        if nthreads <= 1 or not self._busy.acquire(blocking=False):
            kernel(0, 1, state, *args)
            return
        try:
            launch = _Launch(kernel, nthreads, state, args)
            for tid, worker in enumerate(self._ready(nthreads - 1), start=1):
                worker.give(launch, tid if together else None)
            launch.work(0 if together else None)
            launch.wait()
        finally:
            self._busy.release()

    def _ready(self, count: int) -> list[_Worker]:
        """``count`` started workers (made on first use; made anew in a forked child)."""
        if self._pid != os.getpid():
            self._workers, self._pid = [], os.getpid()
        while len(self._workers) < count:
            self._workers.append(_Worker(len(self._workers) + 1))
        return self._workers[:count]


class _Launch:
    """One launch's parts: which are taken, which finished, what they raised."""

    def __init__(self, kernel: Callable, nthreads: int, state: np.ndarray, args: tuple) -> None:
        self.kernel, self.nthreads, self.state, self.args = kernel, nthreads, state, args
        self._next = itertools.count()  # next() is atomic: the parts' claims
        self._lock = threading.Lock()
        self._left = nthreads
        self._finished = threading.Event()
        self._errors: list[BaseException] = []

    def work(self, tid: int | None) -> None:
        """Run part ``tid``; None: take parts nobody took until none is left."""
        try:
            self._work(tid)
        except BaseException as err:  # noqa: BLE001 - an interrupt between parts: raised by
            self.state[_ABORTED] = 1  # the launching thread once the others stopped
            with self._lock:
                self._errors.append(err)

    def _work(self, tid: int | None) -> None:
        while True:
            part = next(self._next) if tid is None else tid
            if part >= self.nthreads:
                return
            try:
                self.kernel(part, self.nthreads, self.state, *self.args)
            except BaseException as err:  # noqa: BLE001 - raised by the launching thread
                self.state[_ABORTED] = 1
                with self._lock:
                    self._errors.append(err)
            finally:
                with self._lock:
                    self._left -= 1
                    if not self._left:
                        self._finished.set()
            if tid is not None:
                return

    def wait(self) -> None:
        """Wait until every part finished, then raise the first part's exception (not one of a
        part that left at a barrier after it). An interrupt meanwhile (Ctrl-C) aborts the
        launch (its parts leave at their next barrier) and is raised once they all finished,
        so the team is never free while a part of its launch still runs."""
        interrupt: BaseException | None = None
        deadline = None
        while not self._finished.is_set():
            try:
                if deadline is None:
                    self._finished.wait()
                elif not self._finished.wait(max(0.0, deadline - time.monotonic())):
                    break  # a part lost to the interrupt itself: give up waiting for it
            except BaseException as err:  # noqa: BLE001 - raised below
                self.state[_ABORTED] = 1
                interrupt = interrupt or err
                deadline = deadline or time.monotonic() + _SETTLE_SECONDS
        errors = self._errors + ([interrupt] if interrupt is not None else [])
        if errors:
            raise next((e for e in errors if not isinstance(e, TeamAborted)), errors[0])


class _Worker:
    """A daemon thread running the parts it is given, one launch after another."""

    def __init__(self, number: int) -> None:
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        thread = threading.Thread(target=self._loop, name=f"frontier-cpu-{number}", daemon=True)
        thread.start()

    def give(self, launch: _Launch, tid: int | None) -> None:
        self._jobs.put((launch, tid))

    def _loop(self) -> None:
        while True:
            launch, tid = self._jobs.get()
            launch.work(tid)


_TEAM = Team()


def run(kernel: Callable, nthreads: int, args: tuple, grain: int = GRAIN,
        together: bool = True) -> None:
    """Run a kernel's ``nthreads`` parts on the process's team (:meth:`Team.run`)."""
    _TEAM.run(kernel, nthreads, args, grain, together)


#: The first line of a grid-stride loop of the GPU's text: ``for v in range(tid, end,
#: nthreads):`` (``end`` an expression on one line).
_STRIDE = re.compile(r"^(?P<indent> *)for (?P<var>\w+) in range\(tid, (?P<end>.+), nthreads\):$")

#: The prologue of a parallel kernel: the grain its loops take (:func:`chunked`).
PROLOGUE = f"grain = team[{_GRAIN}]\n"


def chunked(source: str) -> str:
    """Kernel text whose grid-stride loops (``for v in range(tid, end, nthreads):``) take
    ``grain`` consecutive elements at a time, the chunks dealt to the threads in turn: element
    ``v`` goes to thread ``(v // grain) % nthreads`` in every loop, whatever its end (so a
    thread takes the same elements in every loop, as a GPU's grid-stride loops do). A GPU's
    loop deals the elements one by one, which on a CPU has the threads write the same cache
    lines. A loop whose body leaves it by ``break`` is kept as it is (a chunk's loop would
    leave only the chunk)."""
    lines = source.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        match = _STRIDE.match(line)
        if match is None:
            out.append(line)
            i += 1
            continue
        depth = len(match["indent"])
        end = i + 1
        while end < len(lines) and (not lines[end].strip()
                                    or len(lines[end]) - len(lines[end].lstrip()) > depth):
            end += 1
        body = lines[i + 1:end]
        if _breaks_out(body, depth):
            out.append(line)
            i += 1
            continue
        pad, var, stop = match["indent"], match["var"], match["end"]
        out.append(f"{pad}for {var}_chunk in range(tid * grain, {stop}, nthreads * grain):")
        out.append(f"{pad}    for {var} in range({var}_chunk, min({var}_chunk + grain, {stop})):")
        out.extend("    " + b if b.strip() else b for b in chunked("\n".join(body)).split("\n"))
        i = end
    return "\n".join(out)


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
