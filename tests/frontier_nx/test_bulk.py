"""A result's containers are built with the garbage collector paused (:mod:`frontier_nx.bulk`),
and the collector comes back as it was, also when pauses of several threads overlap."""

from __future__ import annotations

import gc
import threading

import pytest

from frontier_nx import bulk


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
