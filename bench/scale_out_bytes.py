"""The bytes a push BFS over partitions sends per level and per rank, measured on cpu workers
(a Dask cluster of threads in this process) for P = 2, 4, 8, next to the communication model
(:mod:`frontier.distributed.model`); prints the Markdown table of docs/scale-out.md.

    python -m bench.scale_out_bytes [SCALE]      # rmat SCALE, default 12
"""

from __future__ import annotations

import sys

import numpy as np


def main(scale: int = 12) -> None:
    import distributed

    from algorithms import bfs
    from frontier import generators
    from frontier.distributed import partition
    from frontier.distributed.model import push_bfs_bytes

    graph = generators.rmat(scale, edge_factor=8, seed=1)
    source = int(np.argmax(graph.out_degrees()))
    cluster = distributed.LocalCluster(n_workers=8, threads_per_worker=1, processes=False,
                                       dashboard_address=":0")
    client = distributed.Client(cluster, set_as_default=False)
    print(f"rmat{scale}: {graph.num_vertices:,} vertices, {graph.num_edges:,} arcs; push BFS "
          f"from vertex {source}\n")
    print("| P | level | frontier | bytes per rank (measured) | model | sum | round trips |")
    print("|---:|---:|---:|---|---|---:|---:|")
    for parts in (2, 4, 8):
        dg = partition(graph, parts, client=client)
        bfs(dg, source, target="cpu", direction="push")  # installs the handler
        got = bfs(dg, source, target="cpu", direction="push")
        run = dg.last_run
        measured = np.asarray(run.rank_bytes)
        model = push_bfs_bytes(graph, dg.bounds, got.distances)
        for level in range(run.steps):
            sent, predicted = measured[:, level], model[:, level]
            agrees = "same" if np.array_equal(predicted, sent) else ", ".join(map(str, predicted))
            print(f"| {parts} | {level} | {run.frontier_sizes[level]:,} | "
                  f"{', '.join(map(str, sent))} | {agrees} | {sent.sum():,} | "
                  f"{run.round_trips} |")
    client.close()
    cluster.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 12)
