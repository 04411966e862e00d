"""Recording: the kernels a piece of code launches, in launch order.

Every kernel launch passes one place, :meth:`frontier.runtime.target.Target.launch`: the operators'
generated kernels (:mod:`operators.codegen`), the frontier's own (:mod:`frontier.kernels`) and
the target's fill kernel alike. While a :func:`recording` is open in the launching
thread, each launch appends a :class:`Launch` to it: the kernel's name and source text, the
balancer that shaped it, its mode and its launch shape. Work that is no kernel (a fill or a copy
on the cpu target, the driver's memsets and copies on a GPU, a device-to-host read) launches
nothing and is not recorded.

``with recording() as log: ...`` then ``[k.name for k in log]``; :meth:`Recording.kernels`
gives each distinct kernel once, with its launch count, and :meth:`Recording.text` and
:meth:`Recording.as_json` render them (what :func:`operators.explain` and ``frontier explain``
print).

Cost when off: one read of a counter of open recordings per launch (no recording anywhere), a
thread-local read more while another thread records. Threads: a recording sees only the
launches of the thread that opened it (the log lives in a thread-local stack); recordings nest,
and a launch is appended to every recording open in its thread.

A kernel's name and text are those :meth:`Target.compile_source` compiled it from (registered
here by :func:`remember`); a kernel compiled otherwise (a ``cuda.jit`` Python function) shows
its function's name and source.
"""

from __future__ import annotations

import inspect
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any, overload

__all__ = ["Launch", "Kernel", "Recording", "recording", "remember", "RECORDER"]

@dataclass(frozen=True)
class Launch:
    """One kernel launch: the kernel's ``name`` and ``source``, the ``balancer`` its text was
    generated for (None: a kernel no balancer shapes), its ``mode``, and the launch shape,
    ``blocks`` (the grid asked for: a cooperative launch runs at most as many blocks as the
    device holds at once) of ``threads_per_block``."""

    name: str
    source: str
    balancer: str | None
    mode: str
    blocks: int
    threads_per_block: int

    @property
    def shape(self) -> tuple[int, int]:
        """(blocks, threads per block)."""
        return self.blocks, self.threads_per_block


@dataclass(frozen=True)
class Kernel:
    """One distinct kernel of a recording (same name, source, balancer and mode): how many
    times it was launched and the grids it was launched with, in first-use order."""

    name: str
    source: str
    balancer: str | None
    mode: str
    threads_per_block: int
    launches: int
    grids: tuple[int, ...]

    def heading(self) -> str:
        """One line: the kernel's name, balancer, mode and launch shape."""
        times = "1 launch" if self.launches == 1 else f"{self.launches} launches"
        return (f"{self.name}: balancer {self.balancer or '-'}, mode {self.mode}, {times}, "
                f"blocks {'/'.join(str(b) for b in self.grids)}, {self.threads_per_block} "
                "threads per block")


class Recording(Sequence[Launch]):
    """The launches of one :func:`recording`, in order (a sequence of :class:`Launch`)."""

    def __init__(self) -> None:
        self._launches: list[Launch] = []

    @overload
    def __getitem__(self, index: int) -> Launch: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Launch]: ...

    def __getitem__(self, index: int | slice) -> Launch | Sequence[Launch]:
        return self._launches[index]

    def __len__(self) -> int:
        return len(self._launches)

    def __repr__(self) -> str:
        return f"<Recording: {len(self)} launches of {len(self.kernels())} kernels>"

    def kernels(self) -> list[Kernel]:
        """Each distinct kernel launched, once, in the order of its first launch."""
        found: dict[tuple[str, str, str | None, str], list[Launch]] = {}
        for launch in self._launches:
            found.setdefault((launch.name, launch.source, launch.balancer, launch.mode),
                             []).append(launch)
        return [Kernel(name, source, balancer, mode, launches[0].threads_per_block,
                       len(launches), tuple(dict.fromkeys(x.blocks for x in launches)))
                for (name, source, balancer, mode), launches in found.items()]

    def text(self) -> str:
        """Each distinct kernel's source under a ``# --- heading ---`` line
        (:meth:`Kernel.heading`); "" when nothing was launched."""
        return "\n".join(f"# --- {k.heading()} ---\n{k.source.rstrip()}\n"
                         for k in self.kernels())

    def as_json(self) -> dict[str, Any]:
        """``{"kernels": [{"name", "source", "balancer", "mode", "threads_per_block",
        "launches", "grids"}, ...]}``: the distinct kernels, in first-launch order."""
        return {"kernels": [asdict(k) for k in self.kernels()]}


class Recorder:
    """Where launches are reported: the thread-local stacks of open recordings, and how many
    are open in the whole process (``open``: what a launch reads first, to cost nothing when
    no recording is open)."""

    def __init__(self) -> None:
        self.open = 0
        self._count_lock = threading.Lock()
        self._local = threading.local()
        self._texts: weakref.WeakKeyDictionary[Any, tuple[str, str]] = (
            weakref.WeakKeyDictionary())

    def record(self, kernel: Callable, blocks: int, threads: int, balancer: str | None,
               mode: str) -> None:
        """Append a launch of ``kernel`` to the recordings open in this thread."""
        stack: list[Recording] | None = getattr(self._local, "stack", None)
        if not stack:
            return
        name, source = self._text(kernel)
        launch = Launch(name, source, balancer, mode, int(blocks), int(threads))
        for log in stack:
            log._launches.append(launch)

    def remember(self, kernel: Callable, name: str, source: str) -> None:
        self._texts[kernel] = (name, source)

    def _text(self, kernel: Callable) -> tuple[str, str]:
        try:
            found = self._texts.get(kernel)
        except TypeError:  # not weakly referable: not one compile_source made
            found = None
        return found if found is not None else _function_text(getattr(kernel, "py_func", kernel))

    @contextmanager
    def recording(self) -> Iterator[Recording]:
        log = Recording()
        stack = getattr(self._local, "stack", None)
        if stack is None:
            stack = self._local.stack = []
        with self._count_lock:
            self.open += 1
        stack.append(log)
        try:
            yield log
        finally:
            stack.remove(log)
            with self._count_lock:
                self.open -= 1


@lru_cache(maxsize=256)
def _function_text(function: Callable) -> tuple[str, str]:
    name = getattr(function, "__name__", type(function).__name__)
    try:
        return name, inspect.getsource(function)
    except (OSError, TypeError):
        return name, ""


#: The process's one recorder, which :meth:`frontier.runtime.target.Target.launch` reports to.
RECORDER = Recorder()


def recording() -> AbstractContextManager[Recording]:
    """A context manager recording the kernels this thread launches inside it; it yields the
    :class:`Recording`, which fills as they run."""
    return RECORDER.recording()


def remember(kernel: Callable, name: str, source: str) -> None:
    """Note that ``kernel`` was compiled from ``source`` defining ``name`` (what a recorded
    launch of it shows); :meth:`Target.compile_source` calls it for every kernel it compiles."""
    RECORDER.remember(kernel, name, source)
