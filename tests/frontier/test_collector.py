"""Python's collector held back while the library imports (frontier.runtime.collector): no full
collection runs during ``import frontier``, and the collector is as the process had it after;
blocks from several threads at once leave it enabled only when the last one ends."""

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

from frontier.runtime import collector

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def enabled_after():
    yield
    gc.enable()


def test_a_paused_block_runs_without_the_collector_and_restores_it(enabled_after):
    gc.enable()
    with collector.paused():
        assert not gc.isenabled()
        with collector.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_the_process_disabled_stays_disabled(enabled_after):
    gc.disable()
    with collector.paused():
        pass
    assert not gc.isenabled()


def test_blocks_of_several_threads_enable_it_when_the_last_ends(enabled_after):
    gc.enable()
    inside = threading.Barrier(3)
    leave = [threading.Event(), threading.Event()]

    def block(i: int) -> None:
        with collector.paused():
            inside.wait()
            leave[i].wait()

    threads = [threading.Thread(target=block, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    inside.wait()
    assert not gc.isenabled()
    leave[0].set()
    threads[0].join()
    assert not gc.isenabled()  # the other block still runs
    leave[1].set()
    threads[1].join()
    assert gc.isenabled()


def test_importing_the_library_runs_no_full_collection_and_leaves_the_collector_on():
    code = textwrap.dedent("""
        import gc, json
        full = []
        gc.callbacks.append(lambda phase, info: phase == "start" and info["generation"] == 2
                            and full.append(1))
        gc.collect()
        full.clear()
        import frontier
        print(json.dumps({"full": len(full), "enabled": gc.isenabled()}))
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"full": 0, "enabled": True}
