"""Every ```python block of the documentation (docs/*.md and README.md) runs: the blocks of one
page in order, in one namespace, on the cpu target (the default target is forced to the CPU, so
examples that leave it out run there too)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from frontier.runtime import cuda_support

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def python_blocks(page: Path) -> list[str]:
    return BLOCK.findall(page.read_text(encoding="utf-8"))


PAGES_WITH_CODE = [p for p in PAGES if python_blocks(p)]


@pytest.mark.parametrize("page", PAGES_WITH_CODE, ids=lambda p: p.name)
def test_every_python_example_of_the_page_runs(page, monkeypatch, capsys):
    monkeypatch.setattr(cuda_support, "cuda_usable", lambda: False)
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    for number, block in enumerate(python_blocks(page), start=1):
        try:
            exec(compile(block, f"{page.name}, python block {number}", "exec"), namespace)
        except Exception as err:
            raise AssertionError(f"{page.name}: python block {number} failed: "
                                 f"{type(err).__name__}: {err}\n{block}") from err


def test_the_documentation_has_examples_to_run():
    assert {p.name for p in PAGES_WITH_CODE} >= {"tutorial.md", "pagerank.md", "functors.md",
                                                 "README.md"}
