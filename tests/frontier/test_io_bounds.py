"""Bounded reading and bounded requests (issue 20, item 4): a device, pipe or FIFO is read in
chunks and refused past the bound a regular file gets; gzip streams from a pipe; a .npz whose
npy header lies about its shape is refused before anything that size is allocated; partition
refuses more parts than vertices and more local workers than the machine can start, before
Dask is imported."""

from __future__ import annotations

import gzip
import io
import os
import subprocess
import sys
import threading
import zipfile
from pathlib import Path

import numpy as np
import pytest

from frontier import generators
from frontier.distributed import partition, start_cluster
from frontier.distributed.cluster import max_local_workers
from frontier.errors import GraphTooLargeError
from frontier.io import GraphFormatError, load, save
from frontier.limits import text_bound

ROOT = Path(__file__).resolve().parents[2]


def test_dev_zero_is_refused_under_an_address_space_limit():
    code = ("import frontier\ntry:\n    frontier.load('/dev/zero')\n"
            "except frontier.GraphTooLargeError as e:\n    print('refused', e)\n")
    done = subprocess.run(["bash", "-c", 'ulimit -v 3000000; exec timeout 120 "$1" -c "$2"',
                           "-", sys.executable, code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.stdout.startswith("refused /dev/zero (a device or pipe giving more than"), \
        done.stderr[-500:]


def feed_fifo(path: Path, data: bytes) -> threading.Thread:
    def write() -> None:
        with open(path, "wb") as f:
            try:
                f.write(data)
            except BrokenPipeError:  # the reader stopped: it refused the rest
                pass

    writer = threading.Thread(target=write)
    writer.start()
    return writer


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
def test_a_fifo_loads_like_the_file_it_carries(tmp_path, compress):
    fifo = tmp_path / "g.txt"
    os.mkfifo(fifo)
    text = b"0 1\n1 2\n2 0\n"
    writer = feed_fifo(fifo, gzip.compress(text) if compress else text)
    graph = load(fifo)
    writer.join()
    assert (graph.num_vertices, graph.num_edges) == (3, 3)


def test_a_fifo_past_the_bound_is_refused_as_it_is_read(tmp_path, monkeypatch):
    monkeypatch.setenv("FRONTIER_MAX_HOST_BYTES", str(14 * 100_000))
    assert text_bound() == 100_000
    fifo = tmp_path / "g.txt"
    os.mkfifo(fifo)
    writer = feed_fifo(fifo, b"0 1\n" * 30_000)
    with pytest.raises(GraphTooLargeError, match="device or pipe giving more than 100,000"):
        load(fifo)
    writer.join()


def test_a_pipe_on_standard_input_is_read_in_chunks():
    code = "import frontier\nprint(frontier.load('/dev/stdin').num_edges)\n"
    done = subprocess.run([sys.executable, "-c", code], input=b"0 1\n" * 200_000,
                          capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.stdout.strip() == b"200000", done.stderr[-500:]


def lying_npz(tmp_path: Path, shape: tuple[int, ...]) -> Path:
    """A saved graph whose col_indices npy header declares ``shape``."""
    good = tmp_path / "g.npz"
    save(generators.gnm(50, 200, seed=2), good)
    liar = tmp_path / "liar.npz"
    with zipfile.ZipFile(good) as zin, zipfile.ZipFile(liar, "w") as zout:
        for name in zin.namelist():
            raw = zin.read(name)
            if name == "col_indices.npy":
                arr = np.load(io.BytesIO(raw))
                head = io.BytesIO()
                np.lib.format.write_array_header_2_0(head, {"descr": "<i4", "shape": shape,
                                                           "fortran_order": False})
                raw = head.getvalue() + arr.tobytes()
            zout.writestr(name, raw)
    return liar


def test_an_npz_header_declaring_2_to_the_40_elements_is_too_large_before_allocating(tmp_path):
    with pytest.raises(GraphTooLargeError, match=r"array col_indices declaring "
                       r"1,099,511,627,776 elements"):
        load(lying_npz(tmp_path, (1 << 40,)))


@pytest.mark.parametrize("shape, words", [((7,), "declares 28 bytes of data"),
                                          ((-1,), "declares the shape")])
def test_an_npz_header_that_does_not_match_its_data_is_a_format_error(tmp_path, shape, words):
    with pytest.raises(GraphFormatError, match=words):
        load(lying_npz(tmp_path, shape))


def without_dask(monkeypatch) -> None:
    """Make ``import distributed`` fail, so that a call that imports it cannot pass."""
    for name in ("distributed", "dask"):
        monkeypatch.setitem(sys.modules, name, None)


def test_partition_refuses_more_parts_than_vertices_before_importing_dask(monkeypatch):
    without_dask(monkeypatch)
    with pytest.raises(ValueError, match="parts=5: more partitions than the graph's 3 vertices"):
        partition(generators.path(3), 5)
    with pytest.raises(ValueError, match="parts=1000000"):
        partition(generators.path(3), 10**6)


def test_more_local_workers_than_the_machine_can_start_are_refused_before_dask(monkeypatch):
    without_dask(monkeypatch)
    too_many = max_local_workers() + 1
    with pytest.raises(ValueError, match=f"{too_many:,} local workers asked for"):
        partition(generators.path(too_many), too_many)
    with pytest.raises(ValueError, match="1,000,000 local workers"):
        start_cluster(10**6)


def test_the_local_worker_limit_follows_the_memory_available(monkeypatch):
    from frontier.distributed.cluster import WORKER_BYTES

    monkeypatch.setenv("FRONTIER_MAX_HOST_BYTES", str(3 * WORKER_BYTES + 1))
    assert max_local_workers() == 3
    monkeypatch.setenv("FRONTIER_MAX_HOST_BYTES", "1")
    assert max_local_workers() == 1
