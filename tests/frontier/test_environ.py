"""frontier.environ: a variable read as ``os.environ.get`` reads it, every change seen at once."""

from __future__ import annotations

import os

from frontier import environ
from frontier.runtime.target import bounds_checked

NAME = "FRONTIER_TEST_ENVIRON_VARIABLE"


def test_a_variable_reads_as_os_environ_reads_it_after_every_change(monkeypatch):
    monkeypatch.delenv(NAME, raising=False)
    assert environ.get(NAME) is None and environ.get(NAME, "fallback") == "fallback"
    for value in ("1", "", "ünïcode", "0"):
        monkeypatch.setenv(NAME, value)
        assert environ.get(NAME) == os.environ.get(NAME) == value
    monkeypatch.delenv(NAME)
    assert environ.get(NAME, "gone") == "gone"


def test_the_checked_mode_follows_its_variable_at_once(monkeypatch):
    monkeypatch.setenv("FRONTIER_BOUNDSCHECK", "1")
    assert bounds_checked()
    monkeypatch.setenv("FRONTIER_BOUNDSCHECK", "0")
    assert not bounds_checked()
    monkeypatch.delenv("FRONTIER_BOUNDSCHECK")
    assert not bounds_checked()


def test_a_snapshot_of_variables_changes_exactly_when_one_of_them_does(monkeypatch):
    names = (NAME, NAME + "_2")
    for name in names:
        monkeypatch.delenv(name, raising=False)
    unset = environ.snapshot(names)
    assert unset == (None, None) and environ.snapshot(names) == unset
    seen = {unset}
    for name, value in ((NAME, "a"), (NAME + "_2", "a"), (NAME, "b"), (NAME, "")):
        monkeypatch.setenv(name, value)
        now = environ.snapshot(names)
        assert now not in seen and environ.snapshot(names) == now
        seen.add(now)
    monkeypatch.delenv(NAME)
    monkeypatch.delenv(NAME + "_2")
    assert environ.snapshot(names) == unset
