"""frontier.environ: a variable read as ``os.environ.get`` reads it, every change seen at once."""

from __future__ import annotations

import os

from frontier import environ
from frontier.target import bounds_checked

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
