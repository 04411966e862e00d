"""``out="device"`` and ``target="auto"`` on every entry of the catalog (iterated, never a
hand-written list): device results equal host ones, ``auto`` gives what each target gives and
says which target ran, and a bad ``out`` or ``target`` is refused up front."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from functools import cache

import numpy as np
import pytest

from algorithms import CATALOG
from algorithms.output import on_host
from frontier import Graph, generators
from frontier.errors import TargetError
from frontier.target import resolve_target

NAMES = sorted(CATALOG)


def small(name: str) -> Graph:
    """A small graph the entry takes (the simulator runs ~10,000 GPU threads a second)."""
    entry = CATALOG[name]
    if entry.example:
        return generators.from_spec(entry.example)
    return generators.grid2d(3, 4, weights=(1, 5)) if name.startswith(("sssp", "apsp")) \
        else generators.from_spec("rmat:4")


def run(name: str, target, **options):
    entry, graph = CATALOG[name], small(name)
    return entry.invoke(graph, 0 if entry.source else None, balancer="auto", target=target,
                        **options)


@cache
def ran(name: str, target, out: str = "host"):
    """One run of the entry with results ``out`` on ``target``, shared by the tests that only
    read it (a run in the simulator takes seconds)."""
    return run(name, target, out=out)


def arrays(result) -> dict[str, np.ndarray]:
    """The result's array fields, as host arrays (not its records: lists, tuples and other
    sequences, such as a traversal's per-step :class:`operators.runs.Runs`)."""
    return {f.name: on_host(getattr(result, f.name)) for f in dataclasses.fields(result)
            if hasattr(getattr(result, f.name), "__len__")
            and not isinstance(getattr(result, f.name), Sequence)}


@pytest.mark.parametrize("name", NAMES)
def test_device_results_equal_host_results(name, target):
    host, device = ran(name, target), ran(name, target, "device")
    assert device.target is target
    kept = arrays(device)
    assert kept, "the result holds no array"
    if target.sequential:  # one thread: every array is the same, bit for bit
        for field, values in arrays(host).items():
            np.testing.assert_array_equal(kept[field], values, err_msg=field)
    entry, graph = CATALOG[name], small(name)
    entry.check(graph, 0 if entry.source else None, device)  # agrees with the reference
    assert entry.report(device) == entry.report(host)
    assert device.edges_traversed == host.edges_traversed


@pytest.mark.parametrize("name", NAMES)
def test_host_results_of_two_calls_share_no_memory(name, target):
    """A host result handed over without a copy (the cpu target) is the call's own: the next
    call writes into none of its arrays."""
    first = ran(name, target)
    kept = arrays(first)
    before = {field: values.copy() for field, values in kept.items()}
    second = run(name, target)
    for field, values in kept.items():
        for other, again in arrays(second).items():
            assert not np.shares_memory(values, again), (field, other)
    for field, values in kept.items():
        np.testing.assert_array_equal(values, before[field], err_msg=field)


@pytest.mark.parametrize("name", NAMES)
def test_device_arrays_are_the_targets_own(name, target):
    result = ran(name, target, "device")
    for field in arrays(result):
        value = getattr(result, field)
        if target.name == "cpu" or field == "sources":  # sources: the call's input, on the host
            assert isinstance(value, np.ndarray)
        else:
            assert hasattr(value, "copy_to_host"), field


@pytest.mark.parametrize("name", NAMES)
def test_auto_gives_what_each_target_gives_and_says_which_ran(name, target):
    entry, graph = CATALOG[name], small(name)
    auto = ran(name, "auto")
    chosen = getattr(auto, "target", None)
    if chosen is not None:  # every result but SSSP's until it is wired
        assert chosen is resolve_target("auto", graph)
    entry.check(graph, 0 if entry.source else None, auto)
    assert entry.report(auto) == entry.report(ran(name, target))


@pytest.mark.parametrize("name", NAMES)
def test_an_unknown_out_is_refused_naming_the_choices(name):
    with pytest.raises(ValueError, match=r"unknown place for the results 'gpu'.*'host', 'device'"):
        run(name, "cpu", out="gpu")


@pytest.mark.parametrize("name", NAMES)
def test_an_unknown_target_is_refused_naming_the_choices(name):
    with pytest.raises(TargetError, match=r"unknown target 'gpu'.*'auto'"):
        run(name, "gpu")
