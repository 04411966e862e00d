"""Code run in a fresh Python process (nothing imported, nothing compiled yet), with this
checkout importable: for what a first call costs, and for what a process compiles."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

_ROOT = str(Path(__file__).resolve().parents[1])


def run_json(code: str, *args: str, env: dict[str, str] | None = None,
             timeout: float | None = None) -> Any:
    """Run ``code`` with ``args`` as ``sys.argv[1:]`` in a new interpreter (the environment of
    this one, updated with ``env``); return the JSON of the last line it prints. RuntimeError
    with the last line of its stderr when it fails; ``subprocess.TimeoutExpired`` (the
    interpreter killed) where it runs longer than ``timeout`` seconds."""
    path = os.environ.get("PYTHONPATH")
    environment = {**os.environ, **(env or {}),
                   "PYTHONPATH": _ROOT + (os.pathsep + path if path else "")}
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=environment, check=False, timeout=timeout)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"exit {done.returncode}: {tail}")
    return json.loads(done.stdout.strip().splitlines()[-1])
