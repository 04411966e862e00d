"""A call imports what it needs (issue 52, item 3): a cpu call of one algorithm in a fresh process
on a machine without a usable GPU imports neither numba.cuda, SciPy's sparse matrices, the
loaders, the scale-out machinery, nor the modules of the other algorithms of the catalog.
(SciPy's linear algebra is imported by Numba itself, whose CPU target checks for a BLAS as it
loads: not the library's.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from algorithms import CATALOG
from frontier.runtime import cuda_support
from frontier.runtime.simulator import SIMULATOR_VARIABLE

ROOT = Path(__file__).resolve().parent.parent

#: What a cpu call of bfs does not import, besides the other algorithms of the catalog.
UNNEEDED = ("numba.cuda", "scipy.sparse", "frontier.io", "frontier.textscan",
            "frontier.distributed.graph", "frontier.distributed.cluster", "algorithms.catalog",
            "algorithms.distributed", "frontier.testing")


@pytest.mark.skipif(cuda_support.driver_found(),
                    reason="an NVIDIA driver is found here: the library loads numba.cuda")
def test_a_cpu_call_of_bfs_imports_neither_numba_cuda_nor_other_algorithms(tmp_path):
    code = textwrap.dedent("""
        import json, sys
        from algorithms import bfs
        from frontier import generators
        result = bfs(generators.grid2d(4, 4), 0, target="cpu")
        print(json.dumps({"levels": result.iterations, "modules": sorted(sys.modules)}))
    """)
    env = {k: v for k, v in os.environ.items() if k != SIMULATOR_VARIABLE}
    env.update(PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
               FRONTIER_CACHE_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["levels"] == 7
    others = {entry.run.__module__ for entry in CATALOG.values()} - {"algorithms.bfs"}
    unneeded = [m for m in got["modules"]
                if m in others or any(m == u or m.startswith(u + ".") for u in UNNEEDED)]
    assert unneeded == []
