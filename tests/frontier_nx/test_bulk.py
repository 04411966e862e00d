"""A result's containers are built, and the library imported, with the garbage collector paused
(:mod:`frontier_nx.bulk`), and the collector comes back as it was, also when pauses of several
threads overlap."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from frontier_nx import bulk

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def collector():
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_the_collector_is_paused_inside_and_enabled_again_after(collector):
    gc.enable()
    with bulk.paused():
        assert not gc.isenabled()
        with bulk.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_disabled_before_stays_disabled(collector):
    gc.disable()
    with bulk.paused():
        pass
    assert not gc.isenabled()


def test_the_collector_comes_back_after_an_exception(collector):
    gc.enable()
    with pytest.raises(KeyError), bulk.paused():
        raise KeyError("x")
    assert gc.isenabled()


def test_overlapping_pauses_of_two_threads_enable_it_when_the_last_ends(collector):
    gc.enable()
    inside, release = threading.Event(), threading.Event()

    def other():
        with bulk.paused():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    inside.wait(10)
    with bulk.paused():
        pass
    assert not gc.isenabled()  # the other thread's pause still holds
    release.set()
    thread.join(10)
    assert gc.isenabled()


def test_the_librarys_import_through_a_lazy_module_runs_no_full_collection():
    code = textwrap.dedent("""
        import gc, json
        from frontier_nx.lazy import LazyModule
        full = []
        gc.callbacks.append(lambda phase, info: phase == "start" and info["generation"] == 2
                            and full.append(1))
        gc.collect()
        full.clear()
        LazyModule("algorithms.bfs").bfs
        print(json.dumps({"full": len(full), "enabled": gc.isenabled()}))
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"full": 0, "enabled": True}
