"""Speculative colouring against Jones & Plassmann on a target: per graph, method and order,
the rounds, the colours, the arcs read over the graph's arcs and the median wall time of a
default call (``balancer="auto"``), on the undirected simple graph the catalog colours.
Usage from the repository root: python3 bench/device/speculative_coloring.py [TARGET [GRAPHS]]
(defaults: cuda; rmat16,rmat21,luxembourg_osm,grid2000)
"""

from __future__ import annotations

import sys

from algorithms import graph_coloring
from algorithms.output import on_host
from bench import graphs
from bench.timing import time_calls
from frontier import resolve_target
from frontier.testing import check_coloring

CASES = (("speculative", "largest_first"), ("speculative", "random"),
         ("jones_plassmann", "random"))


def main() -> None:
    target = resolve_target(sys.argv[1] if len(sys.argv) > 1 else "cuda")
    names = graphs.expand(sys.argv[2] if len(sys.argv) > 2
                          else "rmat16,rmat21,luxembourg_osm,grid2000")
    print("| graph | method | order | rounds | colours | arcs / m | ms |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for name in names:
        g = graphs.build(name).simple(directed=False)
        for method, order in CASES:
            timing = time_calls(lambda: graph_coloring(g, method=method, order=order,  # noqa: B023
                                                       target=target), target=target)
            r = timing.result
            check_coloring(g, on_host(r.colors),
                           neighbours="arcs" if method == "speculative" else "distinct")
            print(f"| {name} | {method} | {order} | {r.iterations} | {r.num_colors} | "
                  f"{r.edges_traversed / max(g.num_edges, 1):.2f} | "
                  f"{timing.wall_s * 1e3:.2f} |", flush=True)


if __name__ == "__main__":
    main()
