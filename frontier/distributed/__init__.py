"""Graphs over several workers: a graph partitioned by vertex ranges over the workers of a Dask
cluster (:func:`partition`, :class:`DistributedGraph`), and the collectives the workers exchange
frontier updates with (:class:`Communicator`: Dask's transport between cpu workers, NCCL
between GPUs).

``algorithms.bfs``, ``sssp`` and ``connected_components`` accept a :class:`DistributedGraph`;
the runtime that runs their steps on the workers is :mod:`operators.distributed`, the
exchange between steps :func:`operators.exchange`. Dask is an optional dependency
(``pip install 'frontier-graph[distributed]'``): importing this package does not need it,
partitioning does. docs/scale-out.md describes the design.
"""

from __future__ import annotations

from frontier.distributed.cluster import start_cluster
from frontier.distributed.comm import Communicator, DaskComm
from frontier.distributed.errors import (
    DistributedError,
    ExchangeAbortedError,
    ExchangeTimeoutError,
    WorkerFailedError,
)
from frontier.distributed.graph import TRANSPORTS, DistributedGraph, RunReport, partition
from frontier.distributed.partition import PARTITIONERS, Piece, register_partitioner

__all__ = [
    "partition", "DistributedGraph", "Piece", "RunReport", "PARTITIONERS",
    "register_partitioner", "start_cluster", "Communicator", "DaskComm", "TRANSPORTS",
    "DistributedError", "WorkerFailedError", "ExchangeAbortedError", "ExchangeTimeoutError",
]
