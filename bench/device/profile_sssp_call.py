"""Where the host time of a tiny ``sssp`` call on the GPU goes: cProfile over 20 calls on a
7-vertex path (after 3 warm-up calls), by cumulative and by own time.

Usage on a CUDA machine, from the repository root (with bench/device/env.sh sourced):
``python3 bench/device/profile_sssp_call.py``.
"""

from __future__ import annotations

import cProfile
import io
import pstats

from algorithms import sssp
from frontier import generators


def main() -> None:
    tiny = generators.path(7, weights=(1, 5))
    for _ in range(3):
        sssp(tiny, 0, target="cuda")
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(20):
        sssp(tiny, 0, target="cuda")
    profile.disable()
    for order, rows in (("cumulative", 28), ("tottime", 15)):
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats(order).print_stats(rows)
        print(text.getvalue())


if __name__ == "__main__":
    main()
