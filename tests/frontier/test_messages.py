"""What the user gave, as error messages show it (issue 47, item 6): a file name as it is when
printable, else escaped on one line; other text as its repr, cut short with its length."""

from __future__ import annotations

from pathlib import Path

import pytest

from frontier import messages


@pytest.mark.parametrize("given, shown", [
    ("data/road.mtx", "data/road.mtx"), ("with space.txt", "with space.txt"),
    (Path("/tmp/g.txt"), "/tmp/g.txt"), (b"/tmp/g.txt", "/tmp/g.txt"),
    ("a\nb.txt", "'a\\nb.txt'"), ("", "''"), (" lead.txt", "' lead.txt'"),
    ("\x1b[31mred.txt", "'\\x1b[31mred.txt'"), (b"\xff.txt", "'\\udcff.txt'"),
])
def test_a_path_is_shown_as_it_is_when_printable_else_escaped(given, shown):
    assert messages.path(given) == shown


def test_long_text_is_cut_with_its_length_and_short_text_is_its_repr():
    assert messages.text("path:5") == "'path:5'"
    long = "path:" + "9" * 5000
    shown = messages.text(long)
    assert shown.startswith("'path:999") and shown.endswith("... (5,005 characters)")
    assert len(shown) < 100 and "\n" not in messages.text("a\n" * 100)
