"""Where operators run: the one module that decides between the GPU and the CPU.

``cuda`` runs generated kernels on an NVIDIA GPU through Numba CUDA, or, when the environment sets
``NUMBA_ENABLE_CUDASIM=1``, the very same kernels in Numba's CUDA simulator. ``cpu`` compiles the
same operator kernels with ``numba.njit`` and runs them sequentially (one "thread" striding over
all the work) or on a team of threads (:mod:`frontier.runtime.cpu_threads`). Everything that
differs between the two (memory, compilation, launching, the thread-index prologue of a kernel)
is a method of a :class:`Target`; nothing else in Frontier branches on the target.
"""

from __future__ import annotations

import linecache
import os
import re
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from frontier import environ
from frontier.errors import GraphTooLargeError, TargetError
from frontier.options import Mode
from frontier.runtime import (
    cpu_atomics,
    cpu_threads,
    cuda_support,
    kernel_cache,
    racecheck,
    simulator,
)
from frontier.runtime.borrowed import borrowed
from frontier.runtime.cache_dir import CACHE_IMPL as _CACHE_IMPL
from frontier.runtime.device_pool import DevicePool, make_pool
from frontier.runtime.identity import exact_defaults
from frontier.runtime.indices import as_index, index_after
from frontier.runtime.interrupts import prepare_numba
from frontier.runtime.launch import Launcher, compiled_for, make_launcher
from frontier.runtime.numba_cache import harden
from frontier.runtime.pinned import MIN_BYTES, PinnedPool
from frontier.runtime.recording import RECORDER, remember

__all__ = ["Target", "CudaTarget", "CpuTarget", "named", "cpu_of", "TARGET_KINDS",
           "bounds_checked"]

#: The environment variable of the checked mode (see :func:`bounds_checked`).
BOUNDSCHECK_VARIABLE = "FRONTIER_BOUNDSCHECK"


def bounds_checked() -> bool:
    """Whether functors are compiled with bounds checks: ``FRONTIER_BOUNDSCHECK=1`` (read at
    every compilation, so it can be switched on for part of a process). On the cpu target an
    index past a state array then raises ``IndexError`` (reported naming the functor) instead of
    reading garbage or crashing the process; Numba compiles no bounds checks for CUDA, so on a
    GPU the mode changes nothing, and the simulator checks indices anyway (it indexes NumPy
    arrays)."""
    return environ.get(BOUNDSCHECK_VARIABLE, "0") not in ("", "0")


class Target(ABC):
    """Memory, compilation and launching for one kind of processor.

    ``launches`` and ``host_reads`` count kernel launches and device-to-host reads since the
    target was made, for benchmarks that report them per step.
    """

    name: str
    launches: int = 0
    host_reads: int = 0

    #: Source lines that open every generated kernel: define ``tid`` (this thread's global index)
    #: and ``nthreads`` (threads in the launch), plus ``lane``/``block`` helpers where meaningful.
    @property
    @abstractmethod
    def prologue(self) -> str: ...

    def kernel_entry(self, params: tuple[str, ...]) -> str:
        """The first lines of a generated kernel of ``params``: the :attr:`prologue`."""
        return self.prologue

    #: The parameters :meth:`compile_source` puts before a kernel text's own: none here.
    thread_params: tuple[str, ...] = ()

    def index_reads(self, source: str) -> str:
        """Kernel text whose id reads ``as_index(a[i])`` (:mod:`frontier.runtime.indices`) are
        compiled as this target reads ids: here plain reads ``(a[i])``."""
        return re.sub(rf"\b{as_index.__name__}\(", "(", source)

    @abstractmethod
    def to_device(self, array: np.ndarray) -> Any: ...

    @abstractmethod
    def empty(self, shape: int, dtype: Any) -> Any: ...

    def zeros(self, shape: int, dtype: Any) -> Any:
        return self.to_device(np.zeros(shape, dtype=dtype))

    def full(self, shape: int, value: Any, dtype: Any) -> Any:
        return self.to_device(np.full(shape, value, dtype=dtype))

    def fill(self, array: Any, value: Any) -> None:
        """Set every element of a device array to ``value`` (reusing it instead of allocating
        a new one)."""
        array[:] = value

    @abstractmethod
    def to_host(self, array: Any) -> np.ndarray: ...

    #: Whether the target's arrays are host (NumPy) arrays: then an array a call made for its
    #: result is handed to the caller as it is (:meth:`hand_over`).
    host_arrays: bool = False

    def hand_over(self, array: Any) -> np.ndarray:
        """``array``, made by one call for its result and used by nothing after it, as the
        caller's host array: the array itself where :attr:`host_arrays`, else a host copy."""
        return array if self.host_arrays else self.to_host(array)

    @abstractmethod
    def read_scalar(self, array: Any, index: int) -> int:
        """One element of a device array, read back to the host (a synchronization point)."""

    @abstractmethod
    def write_scalar(self, array: Any, index: int, value: int) -> None: ...

    @abstractmethod
    def upload(self, array: Any, values: np.ndarray) -> None:
        """Copy host ``values`` into the first ``len(values)`` entries of a device array."""

    @abstractmethod
    def synchronize(self) -> None: ...

    @abstractmethod
    def compile_device_function(self, fn: Callable, lifted: int = 0) -> Callable:
        """Compile a user functor for calling from this target's kernels; its first ``lifted``
        parameters are closure numbers (:mod:`operators.lifting`). A functor run as Python (the
        simulator, the race detector) gets them, and reads the numbers compiled code freezes
        into it, as compiled code holds them (:mod:`frontier.runtime.simulator`)."""

    @abstractmethod
    def compile_kernel(self, fn: Callable, cache: bool = False) -> Callable:
        """Compile a generated kernel function; ``cache``: with Numba's disk cache (``fn``'s
        file is one :func:`frontier.runtime.kernel_cache.place` wrote)."""

    def text_globals(self) -> dict[str, Any]:
        """The globals every kernel text of the target sees besides ``np``: none here."""
        return {}

    def text_names(self) -> frozenset[str]:
        """The globals every kernel text of the target runs with besides its own namespace
        (:meth:`compile_source`): :meth:`text_globals`, ``np`` and ``borrowed``."""
        return frozenset({*self.text_globals(), *_COMMON_GLOBALS})

    def compile_source(self, name: str, source: str, namespace: dict[str, Any]) -> Callable:
        """Compile kernel text defining ``def name(...)``: the one way any kernel text becomes a
        kernel. The text is registered in :mod:`linecache` as ``<frontier-generated name>``, so
        tracebacks and Numba's errors show its lines; it runs with ``namespace`` (plus ``np`` and
        :meth:`text_globals`) as globals, and remembered as the kernel's text for recordings
        (:func:`frontier.runtime.recording.remember`). Where the target keeps compiled code
        (:attr:`disk_key`) and everything the code depends on can be keyed, the text is a file
        of the disk cache and its compiled code is loaded by a later process instead of
        compiled (:mod:`frontier.runtime.kernel_cache`); callers cache the result in memory."""
        label = f"<frontier-generated {name}>"
        linecache.cache[label] = (len(source), None, source.splitlines(True), label)
        globals_: dict[str, Any] = {**self.text_globals(), **_COMMON_GLOBALS, **namespace}
        path = kernel_cache.place(name, source, globals_, self.disk_key)
        if path is not None:  # an importable module: Numba rebuilds cached code's environment
            globals_["__name__"] = kernel_cache.__name__
        filename = label if path is None else str(path)
        exec(compile(source, filename, "exec"), globals_)  # noqa: S102 - our own kernel text
        if name not in globals_:
            raise TargetError(f"kernel text {label} does not define a function {name!r}")
        kernel = self.compile_kernel(globals_[name], cache=path is not None)
        kernel_cache.track(kernel, on_disk=path is not None)
        remember(kernel, name, source)
        return kernel

    def launch(self, kernel: Callable, blocks: int, threads: int, args: tuple, *,
               cooperative: bool = False, balancer: str | None = None,
               mode: str | None = None) -> None:
        """Launch ``kernel`` on ``blocks`` blocks of ``threads`` threads: the one place every
        kernel launch passes, which reports it to the open recordings
        (:mod:`frontier.runtime.recording`) with ``balancer`` (the one its text was generated for,
        if any) and ``mode`` (default: fused for a cooperative launch, else host).
        ``cooperative``: the kernel uses ``grid_barrier``, and runs at most ``blocks`` blocks,
        all resident at once (what a grid-wide barrier needs)."""
        if RECORDER.open:
            RECORDER.record(kernel, blocks, threads, balancer,
                            mode or (Mode.FUSED if cooperative else Mode.HOST))
        checking = racecheck.current()
        if checking is None:  # the common case, a frame fewer
            if cooperative:
                self._launch_cooperative(kernel, blocks, threads, args)
            else:
                self._launch(kernel, blocks, threads, args)
            return
        self.check_races_here()
        with checking.step(getattr(kernel, "__name__", str(kernel)), self.simulated):
            self._run(kernel, blocks, threads, args, cooperative)

    def _run(self, kernel: Callable, blocks: int, threads: int, args: tuple,
             cooperative: bool) -> None:
        if cooperative:
            self._launch_cooperative(kernel, blocks, threads, args)
        else:
            self._launch(kernel, blocks, threads, args)

    #: Whether the race detector (:func:`frontier.testing.check_race_free`) can run here: it
    #: runs functors as Python, on the cpu target or in the simulator (the CUDA compile check,
    #: :func:`frontier.testing.check_cuda`, runs them so too).
    checks_races: bool = True

    def check_races_here(self) -> None:
        """Raise :class:`TargetError` where the race detector cannot run (a real GPU)."""
        if not self.checks_races:
            raise TargetError(
                f"check_race_free runs on the cpu target or in the CUDA simulator "
                f"(NUMBA_ENABLE_CUDASIM=1), and check_cuda on the cpu target, not on {self!r}: "
                "they run the functors as Python to see every access; pass target='cpu' (or "
                "frontiers made on it)")

    @abstractmethod
    def _launch(self, kernel: Callable, blocks: int, threads: int, args: tuple) -> None: ...

    #: Whether an exception raised in a compiled functor reaches the caller (see
    #: :func:`operators.functors.check_raises`).
    reports_raises: bool = True

    #: Source line making every thread of the launch wait for all others (between the steps of
    #: a fused traversal); nothing on a one-thread target.
    grid_barrier: str = "pass"

    #: Source lines that open a block-level kernel (dense tiles, :mod:`operators.tiles`): define
    #: ``block`` and ``blocks`` (this block's index and the grid's size) and ``thread`` and
    #: ``threads`` (this thread's index in its block and the block's size). The sequential
    #: target is one block of one thread.
    block_prologue: str = "block = 0\nblocks = 1\nthread = 0\nthreads = 1\n"

    #: Source line making every thread of a block wait for the others; nothing on a one-thread
    #: target.
    block_barrier: str = "pass"

    def shared_array(self, name: str, shape: str, dtype: str) -> str:
        """Source line binding ``name`` to a ``shape`` array of ``dtype`` that the threads of a
        block share (on the sequential target, a plain array of the one thread)."""
        return f"{name} = np.empty({shape}, {dtype})\n"

    @abstractmethod
    def _launch_cooperative(self, kernel: Callable, blocks: int, threads: int,
                            args: tuple) -> None: ...

    def persistent_blocks(self, threads_per_block: int) -> int:
        """Default grid of a persistent (fused) kernel: two blocks per multiprocessor, which
        kept the grid barrier cheap (about 10 µs per BFS level on a 2000x2000 grid) while giving
        scale-free levels enough threads (python -m bench fused_grid, docs/performance.md)."""
        return self.resident_blocks(threads_per_block)

    @abstractmethod
    def resident_blocks(self, threads_per_block: int) -> int:
        """How many blocks of this size run at once; grid-stride kernels launch this many."""

    @property
    def simulated(self) -> bool:
        return False

    @property
    def identity(self) -> tuple:
        """What tells this target from another of its kind (the simulator; the cpu target's
        thread count): the key of what a call keeps per target (frontier pools, adaptive
        policies), which hold the target they were made for."""
        return (self.name, self.simulated)

    @property
    def checks_bounds(self) -> bool:
        """Whether functors compiled now for this target check their indices (the checked mode
        of :func:`bounds_checked`, where the target can)."""
        return False

    @property
    def compile_key(self) -> tuple:
        """What compiled code for this target depends on besides its source: the target, the
        simulator, the checked mode, the race detector's checking mode
        (:mod:`frontier.runtime.racecheck`). Every cache of compiled kernels and functors keys on
        it."""
        return (self.name, self.simulated, self.checks_bounds, racecheck.checking())

    @property
    def disk_key(self) -> tuple | None:
        """What compiled code kept on disk for this target depends on besides its source
        (:mod:`frontier.runtime.kernel_cache`): :attr:`compile_key`, plus the device's architecture
        where it has one; None where no compiled code is kept (the race detector's checking
        mode, which runs functors as Python)."""
        return None if racecheck.checking() else self.compile_key

    #: Largest block the target runs (the simulator runs each GPU thread as a Python thread,
    #: so its blocks are kept small).
    max_threads_per_block: int = 1024

    #: False where work is not spread over threads (the sequential CPU target): there every
    #: balancer generates the same one-thread loop.
    runs_balancers: bool = True

    #: Whether every kernel runs on one thread (the sequential cpu target): a kernel's text may
    #: then keep what its one thread folds without atomics.
    sequential: bool = False

    #: Whether a float sum is made by one thread adding the elements in order (the cpu target,
    #: on one thread or several), so that it does not depend on how many threads ran the
    #: kernel; on a GPU the threads' sums meet in an atomic addition in any order.
    ordered_sums: bool = False

    @property
    def no_balancer(self) -> str | None:
        """Where no balancer applies (``runs_balancers`` False), what recordings and stats show
        as a kernel's balancer: ``"n/a on cpu"``; None where balancers apply."""
        return None if self.runs_balancers else f"n/a on {self.name}"

    def free_bytes(self) -> int | None:
        """Free device memory, where the target can tell."""
        return None

    @property
    def multiprocessors(self) -> int:
        """Processors that run blocks at once (SMs on a GPU; 1 for a sequential target)."""
        return 1

    @property
    def device_name(self) -> str:
        """What the target runs on, as a key for per-device settings (calibration)."""
        return self.name

    def __repr__(self) -> str:
        return f"<target {self.name}{' (simulator)' if self.simulated else ''}>"


#: The globals of every kernel text besides the target's and the text's own namespace.
_COMMON_GLOBALS: dict[str, Any] = {"np": np, "borrowed": borrowed}


class CpuTarget(Target):
    """CPU execution of the generated kernels, compiled by ``numba.njit``: on one thread (one
    "thread" striding over all the work: ``threads`` 1, the sequential target) or on
    ``threads`` threads at once (:mod:`frontier.runtime.cpu_threads`; default: its
    :func:`~frontier.runtime.cpu_threads.configured` count).

    A parallel kernel takes ``tid``, ``nthreads`` and its launch's ``team`` (the barrier's
    state) as its first parameters, and runs each thread as a block of one thread of the GPU's
    text (``block = tid``); a launch runs a thread per ``part`` elements of its grid, at most
    ``threads`` (a launch of fewer elements runs on the calling thread alone: the team's
    hand-over costs more than such a part's work)."""

    name = "cpu"
    runs_balancers = False
    host_arrays = True
    ordered_sums = True

    def __init__(self, threads: int | None = None, grain: int = cpu_threads.GRAIN,
                 part: int = cpu_threads.PART) -> None:
        if threads is None:
            threads = cpu_threads.configured()
        for name, value in (("threads", threads), ("grain", grain), ("part", part)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise TargetError(f"{name}={value!r}; expected a positive integer")
        if threads > cpu_threads.MAX_THREADS:
            raise TargetError(f"threads={threads}; expected at most {cpu_threads.MAX_THREADS}")
        self.threads = threads
        self.grain = grain
        self.part = part
        self.parallel = threads > 1
        self.sequential = not self.parallel

    @property
    def prologue(self) -> str:  # type: ignore[override]
        """One thread: ``tid`` 0 of 1; parallel: the grain of the grid-stride loops (``tid``
        and ``nthreads`` are parameters; :func:`frontier.runtime.cpu_threads.chunked`)."""
        return cpu_threads.PROLOGUE if self.parallel else "tid = 0\nnthreads = 1\n"

    @property
    def thread_params(self) -> tuple[str, ...]:  # type: ignore[override]
        """Parallel: ``tid``, ``nthreads`` and ``team``
        (:data:`~frontier.runtime.cpu_threads.THREAD_PARAMS`)."""
        return cpu_threads.THREAD_PARAMS if self.parallel else ()

    @property
    def grid_barrier(self) -> str:  # type: ignore[override]
        """Parallel: the team's barrier (:func:`frontier.runtime.cpu_threads.team_barrier`)."""
        return "team_barrier(team, nthreads)" if self.parallel else "pass"

    @property
    def block_prologue(self) -> str:  # type: ignore[override]
        """Every thread a block of one thread."""
        if self.parallel:
            return "block = tid\nblocks = nthreads\nthread = 0\nthreads = 1\n"
        return "block = 0\nblocks = 1\nthread = 0\nthreads = 1\n"

    def text_globals(self) -> dict[str, Any]:
        """Parallel: what the parallel forms of the text call (:meth:`compile_source`): the
        prologue's ``team_begin``, the epilogue's ``team_end``, the chunked loops'
        ``chunk_slot``, ``claim_chunk``, ``claimed_size``, ``as_index`` and ``index_after``, the
        grid barrier's ``team_barrier``, the owned and buffered pushes' ``owned_or`` and
        ``flush_pushes``."""
        if not self.parallel:
            return {}
        return {"team_begin": cpu_threads.team_begin, "team_end": cpu_threads.team_end,
                "team_barrier": cpu_threads.team_barrier,
                "chunk_slot": cpu_threads.chunk_slot, "claim_chunk": cpu_threads.claim_chunk,
                "claimed_size": cpu_threads.claimed_size, "owned_or": cpu_threads.owned_or,
                "flush_pushes": cpu_threads.flush_pushes, "as_index": as_index,
                "index_after": index_after}

    def compile_source(self, name: str, source: str, namespace: dict[str, Any]) -> Callable:
        """Parallel: the kernel's parameters begin with :attr:`thread_params`, its
        grid-stride loops take chunks and its dense pushes count apart
        (:func:`frontier.runtime.cpu_threads.chunked`, ``counted_apart``)."""
        if self.parallel:
            head = f"def {name}("
            if head not in source:
                raise TargetError(f"kernel text <frontier-generated {name}> does not define a "
                                  f"function {name!r}")
            params = "".join(f"{p}, " for p in self.thread_params)
            source = cpu_threads.chunked(source.replace(head, head + params, 1))
            source = cpu_threads.bracket(cpu_threads.buffered_pushes(cpu_threads.owned_words(
                cpu_threads.counted_apart(source))))
        return super().compile_source(name, source, namespace)

    def kernel_entry(self, params: tuple[str, ...]) -> str:
        """The prologue, then every argument rebound :func:`~frontier.runtime.borrowed.borrowed`:
        the arrays without reference counting, so that a functor's call costs no atomics."""
        return self.prologue + "".join(f"{p} = borrowed({p})\n" for p in params)

    def index_reads(self, source: str) -> str:
        """``source`` as it is: ids read through :func:`~frontier.runtime.indices.as_index`, so that
        no access they index tests for a negative index."""
        return source

    def to_device(self, array: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(array).copy()

    def empty(self, shape: int, dtype: Any) -> np.ndarray:
        return np.empty(shape, dtype=dtype)

    def zeros(self, shape: int, dtype: Any) -> np.ndarray:
        """A new host array of zeros (made where it lives: no copy)."""
        return np.zeros(shape, dtype=dtype)

    def full(self, shape: int, value: Any, dtype: Any) -> np.ndarray:
        """A new host array of ``value`` (made where it lives: no copy)."""
        return np.full(shape, value, dtype=dtype)

    def to_host(self, array: np.ndarray) -> np.ndarray:
        return np.array(array, copy=True)

    def read_scalar(self, array: np.ndarray, index: int) -> int:
        return array[index].item()

    def write_scalar(self, array: np.ndarray, index: int, value: int) -> None:
        array[index] = value

    def upload(self, array: np.ndarray, values: np.ndarray) -> None:
        array[: values.size] = values

    def synchronize(self) -> None:
        return None

    @property
    def checks_bounds(self) -> bool:  # type: ignore[override]
        return bounds_checked()

    @property
    def compile_key(self) -> tuple:  # type: ignore[override]
        """:attr:`Target.compile_key`, without the properties between (it is read on every
        operator call)."""
        return ("cpu", False, bounds_checked(), racecheck.current() is not None, self.parallel)

    def compile_device_function(self, fn: Callable, lifted: int = 0) -> Callable:
        """``numba.njit`` without the wrappers that make a compiled function callable from
        Python (a functor is called only by kernels: the wrappers were a tenth of a cold
        compile); in the race detector's checking mode, the Python function (calling its
        Numba-compiled helpers' Python functions), reading and called with its numbers as
        compiled code holds them (as in the simulator: :mod:`frontier.runtime.simulator`), so that
        it can take recording proxies (:mod:`frontier.runtime.racecheck`)."""
        if racecheck.checking():
            return simulator.compiled_numbers(simulator.as_compiled(fn, python_helpers=True),
                                              lifted)
        exact_defaults(numba.core.types.Omitted)
        return numba.njit(cache=False, boundscheck=self.checks_bounds, no_cpython_wrapper=True,
                          no_cfunc_wrapper=True, **self._options)(fn)

    def compile_kernel(self, fn: Callable, cache: bool = False) -> Callable:
        """``numba.njit``; the Python function itself in the race detector's checking mode."""
        if racecheck.checking():
            return fn
        if not cache:
            return numba.njit(cache=False, **self._options)(fn)
        kernel_cache.register_locator(_CACHE_IMPL)
        return harden(numba.njit(cache=True, **self._options)(fn))

    @property
    def _options(self) -> dict[str, Any]:
        """Numba's options for the target's functors and kernels besides the compile's own:
        parallel, without the GIL (the team's threads run them at once); one thread,
        :data:`~frontier.runtime.cpu_atomics.ONE_THREAD` (plain read-modify-writes for the
        atomics, as before the cpu target ran on several threads)."""
        return cpu_atomics.TEAM if self.parallel else cpu_atomics.ONE_THREAD

    def _launch(self, kernel: Callable, blocks: int, threads: int, args: tuple) -> None:
        if self.parallel:
            self._spread(kernel, blocks, threads, args, together=False)
        else:  # one thread: the kernel itself (a frame fewer on every launch)
            kernel(*args)

    def _launch_cooperative(self, kernel: Callable, blocks: int, threads: int,
                            args: tuple) -> None:
        if self.parallel:
            self._spread(kernel, blocks, threads, args, together=True)
        else:
            kernel(*args)

    def _spread(self, kernel: Callable, blocks: int, threads: int, args: tuple,
                together: bool) -> None:
        """Run ``kernel`` of a parallel target in a part per :attr:`part` threads of the GPU's
        grid of ``blocks`` blocks of ``threads``, at most a part per block (a part is a block
        of the kernel's text: a block-level kernel of one block is one part) and up to
        :attr:`threads` (one, in order, under the race detector: its step is a launch);
        ``together``: the parts run at once (a kernel with grid barriers;
        :meth:`frontier.runtime.cpu_threads.Team.run`)."""
        if racecheck.current() is not None:
            cpu_threads.run(kernel, 1, args, self.grain)
        else:
            parts = min(blocks, self.threads, -(-blocks * threads // self.part))
            cpu_threads.run(kernel, parts, args, self.grain, together, bracketed=True)

    def resident_blocks(self, threads_per_block: int) -> int:
        """Parallel: enough blocks for a part of :attr:`part` threads of the GPU's grid per
        thread (a grid covering more elements runs on every thread); else one."""
        if not self.parallel:
            return 1
        return self.threads * max(1, -(-self.part // threads_per_block))

    @property
    def identity(self) -> tuple:  # type: ignore[override]
        """Each cpu target object its own (a pool holds the target that made it, so the
        object outlives every key naming it)."""
        return ("cpu", id(self))

    def __repr__(self) -> str:
        return f"<target cpu ({self.threads} threads)>" if self.parallel else "<target cpu>"


class CudaTarget(Target):
    """An NVIDIA GPU through Numba CUDA (or the Numba CUDA simulator)."""

    name = "cuda"
    prologue = "tid = cuda.grid(1)\nnthreads = cuda.gridsize(1)\n"
    grid_barrier = "cuda.cg.this_grid().sync()"
    block_prologue = ("block = cuda.blockIdx.x\nblocks = cuda.gridDim.x\n"
                      "thread = cuda.threadIdx.x\nthreads = cuda.blockDim.x\n")
    block_barrier = "cuda.syncthreads()"

    def shared_array(self, name: str, shape: str, dtype: str) -> str:
        return f"{name} = cuda.shared.array({shape}, {dtype})\n"

    def text_globals(self) -> dict[str, Any]:
        """``cuda``: Numba's module, which kernel text calls (its prologue, barriers)."""
        return {"cuda": _numba_cuda()}

    def __init__(self) -> None:
        self._cuda = _numba_cuda()
        self._sm_count: int | None = None
        self._launcher: Launcher | None | bool = False  # False: not made yet
        self._cooperative: dict[tuple, tuple[Any, int]] = {}
        self._helpers: dict[str, Callable] = {}
        self._device_array: type | None = None  # Numba's device array class, on a GPU
        self._gpu: Any = None  # numba-cuda's pieces of a real GPU (frontier.runtime.gpu)
        if not self.simulated:
            prepare_numba("cuda")
            from frontier.runtime import gpu

            self._gpu = gpu
            self._device_array, self._driver = gpu.DeviceNDArray, gpu.driver
        self._pinned = PinnedPool(self._pin)
        self._pool: DevicePool | None | bool = False  # False: not made yet
        self._pool_lock = threading.Lock()

    @property
    def simulated(self) -> bool:
        return simulator.enabled()

    @property
    def reports_raises(self) -> bool:  # type: ignore[override]
        return self.simulated  # the simulator runs functors as Python

    @property
    def disk_key(self) -> tuple | None:  # type: ignore[override]
        """None in the simulator (it compiles nothing); on a GPU, with its compute
        capability."""
        if self.simulated or racecheck.checking():
            return None
        return (*self.compile_key, tuple(self._cuda.get_current_device().compute_capability))

    @property
    def checks_races(self) -> bool:  # type: ignore[override]
        return self.simulated

    @property
    def max_threads_per_block(self) -> int:  # type: ignore[override]
        return 64 if self.simulated else 1024

    def to_device(self, array: np.ndarray) -> Any:
        """A copy of ``array`` on the device: one of at most :data:`ASYNC_BYTES` written into a
        new array by :meth:`_write` (no wait for the device), a larger one by Numba's copy."""
        array = np.asarray(array)
        if 0 < array.nbytes <= ASYNC_BYTES and not self.simulated:
            values = np.array(array, order="C", ndmin=1)  # a copy of our own (see _write)
            placed = self.empty(values.shape, values.dtype)
            self._write(placed, 0, values)
            return placed
        array = np.ascontiguousarray(array)
        return self._allocating(lambda: self._cuda.to_device(array), array.nbytes)

    def empty(self, shape: int | tuple[int, ...], dtype: Any) -> Any:
        """An uninitialized array: from the target's
        :class:`frontier.runtime.device_pool.DevicePool` on a GPU with memory pools, else from
        Numba."""
        dtype = np.dtype(dtype)
        if isinstance(shape, (int, np.integer)):
            shape = (int(shape),)
            size = shape[0]
        else:
            shape = tuple(int(x) for x in shape)
            size = int(np.prod(shape, dtype=np.int64))
        pool = self._device_pool() if size else None

        def allocate() -> Any:
            if pool is None:
                return self._cuda.device_array(shape, dtype=dtype)
            return pool.empty(_use_context(self._cuda), shape, dtype)

        return self._allocating(allocate, size * dtype.itemsize)

    def _device_pool(self) -> DevicePool | None:
        """The target's pool of working memory, made on first use (None in the simulator and
        where the device has no memory pools)."""
        if self._pool is False:
            with self._pool_lock:
                if self._pool is False:
                    pool = None
                    if not self.simulated:
                        _use_context(self._cuda)
                        device = self._cuda.get_current_device().id
                        total = self._cuda.current_context().get_memory_info()[1]
                        pool = make_pool(self._gpu, device, int(total))
                    self._pool = pool
        return self._pool  # type: ignore[return-value]

    def _allocating(self, allocate: Callable[[], Any], nbytes: int) -> Any:
        """``allocate()``; refused for lack of memory, retried once after the device pool gave
        back what it keeps unused, then raised as :class:`frontier.errors.GraphTooLargeError`."""
        try:
            try:
                return allocate()
            except Exception as err:  # noqa: BLE001 - only out-of-memory is retried
                if not _out_of_memory(err) or not self._pool:
                    raise
            _use_context(self._cuda)
            self._pool.trim()  # type: ignore[union-attr]
            return allocate()
        except Exception as err:  # noqa: BLE001 - only out-of-memory is turned into another
            self._raise_if_out_of_memory(err, nbytes)
            raise

    def _raise_if_out_of_memory(self, err: Exception, nbytes: int) -> None:
        """A device allocation the driver refused for lack of memory, as GraphTooLargeError
        naming the array's size and the free memory (the size checks before a graph is copied
        cannot see every working array of every algorithm)."""
        if not _out_of_memory(err):
            return
        try:
            free = self.free_bytes() or 0
        except Exception:  # noqa: BLE001 - the message can do without it
            free = 0
        raise GraphTooLargeError(f"a working array of {nbytes:,} bytes on the device", nbytes,
                                 free, self.name) from err

    def full(self, shape: int, value: Any, dtype: Any) -> Any:
        """Filled on the device (one launch) instead of uploading a host array."""
        array = self.empty(shape, dtype)
        self.fill(array, value)
        return array

    def fill(self, array: Any, value: Any) -> None:
        """On a GPU, a contiguous array whose ``value`` repeats a 32-bit (or narrower) pattern
        (any value of a type of 1, 2 or 4 bytes; 0 or -1 of 8 bytes) is set by the driver's
        asynchronous memset on the default stream: a few µs of host time and nothing compiled.
        Anything else: one launch of a grid-stride fill kernel."""
        if not array.size:
            return
        memset = _memset(array, value) if type(array) is self._device_array else None
        if memset is None:
            if array.ndim > 1 and not array.is_c_contiguous():
                for row in range(array.shape[0]):  # a strided view: row by row
                    self.fill(array[row], value)
                return
            flat = array if array.ndim == 1 else array.reshape(array.size)  # one index per element
            blocks = min(-(-array.size // 256), self.resident_blocks(256))
            self.launch(self.helper("_fill"), blocks, min(256, self.max_threads_per_block),
                        (flat, array.dtype.type(value)))
            return
        name, word, count = memset
        _use_context(self._cuda)
        getattr(self._driver, name)(array.device_ctypes_pointer.value, word, count, 0)

    def zeros(self, shape: int, dtype: Any) -> Any:
        return self.full(shape, 0, dtype)

    def to_host(self, array: Any) -> np.ndarray:
        """A copy of ``array`` in host memory: on a GPU a contiguous array of a megabyte or more
        is copied into a recycled page-locked block where
        :class:`frontier.runtime.pinned.PinnedPool` lends one (several times faster than into a
        fresh NumPy array), a smaller one (a pool's lengths, a reduction's result) into a new NumPy
        array, both straight through the driver (Numba's ``copy_to_host`` costs several times the
        copy of a few bytes in Python); any other array by Numba."""
        self.host_reads += 1
        if type(array) is self._device_array and array.is_c_contiguous():
            nbytes = array.nbytes
            host = self._pinned.borrow(array.shape, array.dtype) if nbytes >= MIN_BYTES else None
            if host is None:
                host = np.empty(array.shape, array.dtype)
            if nbytes:
                self._copy_out(host, array.device_ctypes_pointer.value, nbytes)
            return host
        return array.copy_to_host()

    def _pin(self, nbytes: int) -> np.ndarray:
        """``nbytes`` of page-locked host memory, portable to every context (freed by the
        driver when the array is collected)."""
        _use_context(self._cuda)
        memory = self._cuda.current_context().memhostalloc(nbytes, portable=True)
        return np.ndarray(nbytes, np.uint8, buffer=memory)

    def free_bytes(self) -> int | None:
        """The device's free memory, with what the device pool keeps unused."""
        if self.simulated:
            return None
        _use_context(self._cuda)
        pool = self._device_pool()
        idle = pool.idle_bytes() if pool is not None else 0
        return int(self._cuda.current_context().get_memory_info()[0]) + idle

    def read_scalar(self, array: Any, index: int) -> int:
        """One element copied straight from its address on a GPU (no one-element view of the
        array made for it, which costs more than the copy); through a view elsewhere."""
        self.host_reads += 1
        if type(array) is not self._device_array or array.ndim != 1 or self.simulated:
            return array[index : index + 1].copy_to_host()[0].item()
        _check_index(array, index)
        value = np.empty(1, array.dtype)
        self._copy_out(value, array.device_ctypes_pointer.value + index * array.strides[0],
                       array.dtype.itemsize)
        return value[0].item()

    def _copy_out(self, host: np.ndarray, address: int, nbytes: int) -> None:
        """``nbytes`` from device ``address`` into ``host``, straight through the driver."""
        _use_context(self._cuda)
        self._driver.cuMemcpyDtoH(host.ctypes.data, address, nbytes)

    def write_scalar(self, array: Any, index: int, value: int) -> None:
        _check_index(array, index)
        if type(array) is not self._device_array:  # the simulator's, or another library's
            array[index : index + 1].copy_to_device(np.array([value], array.dtype))
            return
        self._write(array, index, np.array([value], array.dtype))

    def upload(self, array: Any, values: np.ndarray) -> None:
        if not values.size:
            return
        if values.size > array.shape[0]:
            raise IndexError(f"{values.size} values do not fit a device array of "
                             f"{array.shape[0]} elements")
        if (type(array) is not self._device_array or array.ndim != 1
                or array.strides[0] != array.dtype.itemsize
                or values.size * array.dtype.itemsize > ASYNC_BYTES):
            array[: values.size].copy_to_device(np.ascontiguousarray(values, dtype=array.dtype))
        else:
            self._write(array, 0, np.array(values, dtype=array.dtype))

    def _write(self, array: Any, start: int, values: np.ndarray) -> None:
        """``values`` into element ``start`` of ``array`` (of a strided view too) and, for
        several, the adjacent elements after it (a contiguous array), by the driver's
        asynchronous host-to-device copy on the default stream, where every launch goes (so
        ordered with them). From pageable memory the driver takes the values into its staging
        memory before it returns (CUDA's "API synchronization behavior"; pinned memory would be
        read later), so ``values`` must be a fresh NumPy array of the caller's own: the caller
        may drop or change it at once. A few µs of host time, where a synchronous copy waits
        for the device to finish its queued work and a kernel taking the values as arguments
        costs a launch and a compilation per dtype (``bench/device/small_writes.py``)."""
        _use_context(self._cuda)
        self._driver.cuMemcpyHtoDAsync(
            array.device_ctypes_pointer.value + start * array.strides[0],
            values.ctypes.data, values.nbytes, 0)

    def synchronize(self) -> None:
        self._cuda.synchronize()

    def compile_device_function(self, fn: Callable, lifted: int = 0) -> Callable:
        """On a GPU, a device function; in the simulator, the Python function reading and
        called with its numbers as compiled code holds them (:mod:`frontier.runtime.simulator`; in
        the race detector's checking mode, with its Numba-compiled helpers' Python functions)."""
        if self.simulated:
            fn = simulator.as_compiled(fn, python_helpers=racecheck.checking())
            return simulator.compiled_numbers(self._cuda.jit(device=True)(fn), lifted)
        exact_defaults(self._gpu.types.Omitted)
        return self._cuda.jit(device=True)(fn)

    def compile_kernel(self, fn: Callable, cache: bool = False) -> Callable:
        if not cache:
            return self._cuda.jit(fn)
        kernel_cache.register_locator(self._gpu.CacheImpl)
        return harden(self._cuda.jit(fn, cache=True))

    def helper(self, name: str) -> Callable:
        """The target's own kernel ``name`` of :data:`_HELPERS`, compiled through
        :meth:`compile_source` on first use (once, whichever threads ask)."""
        kernel = self._helpers.get(name)
        if kernel is None:
            with _HELPERS_LOCK:
                kernel = self._helpers.get(name)
                if kernel is None:
                    kernel = self.compile_source(name, _HELPERS[name], {})
                    self._helpers[name] = kernel
        return kernel

    def _fast(self) -> Launcher | None:
        """The launcher that reuses converted arguments (:mod:`frontier.runtime.launch`), made on
        first use; None where this numba-cuda does not allow it or ``FRONTIER_FAST_LAUNCH=0``."""
        if self._launcher is False:
            enabled = os.environ.get("FRONTIER_FAST_LAUNCH", "1") != "0"
            self._launcher = make_launcher(_argument_type, self._gpu) if enabled else None
        return self._launcher  # type: ignore[return-value]

    def _launch(self, kernel: Callable, blocks: int, threads: int, args: tuple) -> None:
        self.launches += 1
        if self.simulated:
            _simulate(kernel, blocks, threads, args)
            return
        _use_context(self._cuda)
        launcher = self._fast()
        if launcher is None:
            kernel[blocks, threads](*args)
        else:
            launcher(kernel, blocks, threads, args)

    def _launch_cooperative(self, kernel: Callable, blocks: int, threads: int,
                            args: tuple) -> None:
        """A grid of at most as many blocks as the GPU holds at once (asked of the driver once
        per kernel and argument types), launched cooperatively."""
        self.launches += 1
        if self.simulated:  # the simulator runs a cooperative grid of one block only
            _simulate(kernel, 1, threads, args)
            return
        _use_context(self._cuda)
        launcher = self._fast()
        if launcher is not None:
            launcher(kernel, blocks, threads, args, cooperative=True)
            return
        key = (kernel, threads, tuple(_argument_type(a) for a in args))
        found = self._cooperative.get(key)
        if found is None:
            compiled = compiled_for(kernel, args)
            found = (kernel, compiled.max_cooperative_grid_blocks(threads))
            self._cooperative[key] = found
        _, most = found
        kernel[min(blocks, most), threads](*args)

    @property
    def multiprocessors(self) -> int:  # type: ignore[override]
        if self.simulated:
            return 1
        if self._sm_count is None:
            self._sm_count = self._cuda.get_current_device().MULTIPROCESSOR_COUNT
        return self._sm_count

    @property
    def device_name(self) -> str:  # type: ignore[override]
        if self.simulated:
            return "cuda-simulator"
        name = self._cuda.get_current_device().name
        return name.decode() if isinstance(name, bytes) else str(name)

    def resident_blocks(self, threads_per_block: int) -> int:
        if self.simulated:
            return 2
        return self.multiprocessors * max(1, 2048 // threads_per_block)

    def persistent_blocks(self, threads_per_block: int) -> int:
        resident = self.resident_blocks(threads_per_block)
        return resident if self._sm_count is None else min(resident, 2 * self._sm_count)


#: Threads of this process that have made the GPU's context current (see _use_context).
_CONTEXT = threading.local()


def _use_context(cuda_module: Any) -> Any:
    """Make Numba's CUDA context current in the calling thread, once per thread, and return it:
    the launcher of :mod:`frontier.runtime.launch` launches through the driver, which needs it, and
    a thread whose first GPU work is a launch with arrays made by another thread would not have it
    yet. The context is kept per thread (a process's target uses one device): Numba's own
    lookup asks the driver for the current context at every call."""
    context = getattr(_CONTEXT, "context", None)
    if context is None:
        context = _CONTEXT.context = cuda_module.current_context()
    return context


#: One simulated launch at a time: Numba's simulator keeps the running kernel's state in
#: module globals and on the shared kernel object, so it cannot run two launches at once.
_SIMULATOR_LOCK = threading.RLock()


def _simulate(kernel: Callable, blocks: int, threads: int, args: tuple) -> None:
    """A launch in Numba's CUDA simulator (one at a time in the process, whichever thread
    launches) that, when a thread raises, returns only after the block's other threads have
    stopped: the simulator re-raises at once and leaves them running (aborted at their next
    ``syncthreads``), and a thread still writing its output after the caller rolled the step
    back would corrupt the retried step (e.g. a queue's length). When the launching thread
    itself is interrupted (Ctrl-C), the kernel's threads are aborted the way the simulator
    aborts them after a thread's exception: else they would wait at their next
    ``syncthreads`` for ever, and the interrupt would take the settling time to arrive. The
    launch runs with quick thread switches
    (:func:`frontier.runtime.simulator.quick_thread_switches`)."""
    with _SIMULATOR_LOCK, simulator.quick_thread_switches():
        try:
            kernel[blocks, threads](*args)
        except BaseException as err:
            block_threads = simulator.block_threads()
            if not isinstance(err, Exception):
                function = getattr(kernel, "fn", None)
                for thread in block_threads:
                    if getattr(getattr(thread, "_manager", None), "_f", None) is function:
                        thread.abort = True
                        thread.syncthreads_blocked = False
                        thread.syncthreads_event.set()
            deadline = time.monotonic() + _SIMULATOR_SETTLE_SECONDS
            for thread in block_threads:
                thread.join(max(0.0, deadline - time.monotonic()))
            raise


_SIMULATOR_SETTLE_SECONDS = 30.0


def _argument_type(value: Any) -> Any:
    """What a kernel's compiled version depends on in one argument: an array's element type,
    dimensions and contiguity, a scalar's Python type."""
    dtype = getattr(value, "dtype", None)
    if dtype is None or not hasattr(value, "ndim"):
        return type(value)
    try:
        contiguous = bool(value.flags["C_CONTIGUOUS"])
    except (AttributeError, KeyError, TypeError):
        contiguous = None
    return (type(value), dtype.str, value.ndim, contiguous)


def _numba_cuda() -> Any:
    """Numba's ``cuda`` module itself (:func:`frontier.runtime.cuda_support.cuda_module`), as
    the globals of kernel text get it: a module's global ``cuda`` is not it while the simulator
    runs a kernel of that module (it swaps the global for its fake module during the launch), and
    a kernel compiled meanwhile in another thread would keep the fake module for good."""
    return cuda_support.cuda_module()


#: The largest write (bytes) that :meth:`CudaTarget.to_device` and :meth:`CudaTarget.upload`
#: make by an asynchronous copy from a private pageable copy of the values (the driver stages
#: at most this much in a few µs; ``bench/device/small_writes.py``); larger ones are Numba's
#: synchronous copies.
ASYNC_BYTES = 64 * 1024


def _check_index(array: Any, index: int) -> None:
    """IndexError unless ``0 <= index < len(array)``: a device array has no negative indices."""
    if not 0 <= index < array.shape[0]:
        raise IndexError(f"index {index} is out of range for a device array of "
                         f"{array.shape[0]} elements")


def _memset(array: Any, value: Any) -> tuple[str, int, int] | None:
    """The driver's memset that sets every element of the contiguous device ``array`` to
    ``value`` (cast to its dtype): ``(function name, word, count of words)``, or None where the
    array is not contiguous or the value's bytes are no repeated word of 4, 2 or 1 bytes."""
    if not array.is_c_contiguous():
        return None
    raw = np.array([value], dtype=array.dtype).tobytes()
    for size, name, word in ((4, "cuMemsetD32Async", np.uint32),
                             (2, "cuMemsetD16Async", np.uint16),
                             (1, "cuMemsetD8Async", np.uint8)):
        if len(raw) % size == 0 and raw == raw[:size] * (len(raw) // size):
            return name, int(np.frombuffer(raw[:size], word)[0]), array.nbytes // size
    return None


#: The target's own kernels, compiled by :meth:`CudaTarget.helper` from their text as generated
#: kernels are (so kept on disk and loaded, not compiled, by a later process): a grid-stride
#: fill for what the driver's memsets cannot set.
_HELPERS = {
    "_fill": """
def _fill(array, value):
    for i in range(cuda.grid(1), array.size, cuda.gridsize(1)):
        array[i] = value
""",
}
_HELPERS_LOCK = threading.Lock()


def _out_of_memory(err: Exception) -> bool:
    """Whether ``err`` is the driver refusing an allocation for lack of memory."""
    return "OUT_OF_MEMORY" in str(err) or getattr(err, "code", None) == 2


_KINDS: dict[str, type[Target]] = {"cuda": CudaTarget, "cpu": CpuTarget}
_TARGETS: dict[str, Target] = {}
_TARGETS_LOCK = threading.Lock()

#: The names of the targets: the processors :func:`named` gives a :class:`Target` of.
TARGET_KINDS = tuple(_KINDS)


def cpu_of(threads: int) -> CpuTarget:
    """The process's cpu target of ``threads`` threads: the one :func:`named` gives where that
    is its count (``FRONTIER_NUM_THREADS``'s), else one made on first use, whichever thread
    asks first."""
    target = named("cpu")
    assert isinstance(target, CpuTarget)
    if target.threads == threads:
        return target
    found = _CPU_TARGETS.get(threads)
    if found is None:
        with _TARGETS_LOCK:
            found = _CPU_TARGETS.setdefault(threads, CpuTarget(threads))
    return found


#: The cpu targets of other thread counts than the process's (:func:`cpu_of`).
_CPU_TARGETS: dict[int, CpuTarget] = {}


def named(name: str) -> Target:
    """The process's one target of the kind ``name`` (one of :data:`TARGET_KINDS`), made on
    first use, whichever thread asks first; :class:`~frontier.errors.TargetError` where the
    name is none of them, or for ``"cuda"`` where no GPU (nor the simulator) can run kernels,
    saying why (:func:`frontier.runtime.cuda_support.cuda_problem`)."""
    if name not in _KINDS:
        raise TargetError(f"unknown target {name!r}; expected one of {TARGET_KINDS}")
    if name == "cuda" and not cuda_support.cuda_usable():
        raise TargetError(f"target 'cuda' asked for, but {cuda_support.cuda_problem()}")
    found = _TARGETS.get(name)
    if found is not None:
        return found
    with _TARGETS_LOCK:  # one Target per name, whichever thread asks first
        found = _TARGETS.get(name)
        if found is None:
            found = _TARGETS[name] = _KINDS[name]()
    return found

