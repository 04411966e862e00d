"""Where the shared datasets are (the real graphs of the tests and benchmarks), found relative to
the repository rather than by a machine's path.

The folder is ``$FRONTIER_DATASETS`` when that is set, else ``<repo>/../shared/datasets`` (the
layout of a checkout beside the project's shared folder), else ``<repo>/.data`` (where
``bench/gpu.sh`` machines keep a copy); ``<repo>`` is the folder holding the ``frontier`` package.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["dataset_dir"]

_REPO = Path(__file__).resolve().parents[2]


def dataset_dir() -> Path | None:
    """The datasets folder, or None when the one looked for does not exist (an explicit
    ``$FRONTIER_DATASETS`` is the only candidate; otherwise the first existing of
    ``<repo>/../shared/datasets`` and ``<repo>/.data``)."""
    named = os.environ.get("FRONTIER_DATASETS")
    candidates = [Path(named)] if named else [_REPO.parent / "shared" / "datasets",
                                              _REPO / ".data"]
    return next((folder for folder in candidates if folder.is_dir()), None)
