"""Each compilation of a cold first call on the GPU, timed: a fresh process with an empty kernel
cache runs bfs, then sssp, then connected_components on 30x30 grids (``target="cuda"``) and
prints, per call, its seconds, the kernels and device functions it compiled (numba-cuda's
``CUDADispatcher.compile`` and ``compile_device``, wrapped), and the slowest of them.
Usage on a CUDA machine, from the repository root: ``python3 bench/device/cold_compiles.py``
"""

from __future__ import annotations

import os
import tempfile
import time

os.environ["FRONTIER_CACHE_DIR"] = tempfile.mkdtemp()

from numba.cuda import dispatcher  # noqa: E402

import algorithms  # noqa: E402
from frontier import generators  # noqa: E402

#: (method, function, seconds) of every compilation since the last clear.
LOG: list[tuple[str, str, float]] = []


def timed(method: str) -> None:
    """Wrap ``CUDADispatcher.<method>`` so that each call appends to :data:`LOG`."""
    original = getattr(dispatcher.CUDADispatcher, method)

    def wrapper(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return original(self, *args, **kwargs)
        finally:
            name = f"{self.py_func.__module__}.{self.py_func.__name__}"
            LOG.append((method, name, time.perf_counter() - start))

    setattr(dispatcher.CUDADispatcher, method, wrapper)


def main() -> None:
    for method in ("compile", "compile_device"):
        timed(method)
    grid, weighted = generators.grid2d(30, 30), generators.grid2d(30, 30, weights=(1, 9))
    for name, call in (("bfs", lambda: algorithms.bfs(grid, 0, target="cuda")),
                       ("sssp", lambda: algorithms.sssp(weighted, 0, target="cuda")),
                       ("cc", lambda: algorithms.connected_components(grid, target="cuda"))):
        LOG.clear()
        start = time.perf_counter()
        call()
        seconds = time.perf_counter() - start
        kernels = [row for row in LOG if row[0] == "compile"]
        functions = [row for row in LOG if row[0] == "compile_device"]
        print(f"{name} cold {seconds:.3f} s; kernels {len(kernels)} "
              f"{sum(r[2] for r in kernels):.3f} s; device functions {len(functions)} "
              f"(nested in the kernels) {sum(r[2] for r in functions):.3f} s")
        for method, function, took in sorted(LOG, key=lambda r: -r[2])[:14]:
            print(f"   {method:15s} {took:.3f} {function}")


if __name__ == "__main__":
    main()
