"""Scale-out: graphs over several workers, and everything that runs on them except the
algorithms' own steps.

* placement: :func:`partition` cuts a graph into vertex ranges (:mod:`.partition`,
  :class:`Piece`) and places them on the workers of a Dask cluster (:mod:`.cluster`,
  :func:`start_cluster`) as a :class:`DistributedGraph` (:mod:`.graph`);
* transport: the collectives the workers exchange data with (:mod:`.comm`,
  :class:`Communicator`: Dask's transport between cpu workers, :mod:`.nccl` between GPUs) and
  the errors of a run (:mod:`.errors`);
* the runner: :class:`~frontier.distributed.runner.Runner` (``graph.runner``) runs one step
  function on every partition at once (SPMD) and keeps what the graph's runs share;
* the exchange: :mod:`.exchange` hands a frontier's remote vertices to their owners (and
  all-gathers frontier bitmaps) between steps.

Where this package sits, and why. It is in the bottom layer, ``frontier`` (pyproject.toml's
layering: algorithms > operators > frontier), because none of the above runs an operator: a
piece is a ``frontier.Graph``, a frontier crosses workers as ``frontier.Frontier`` pools, and
the runner calls whatever step function it is given. What does run operators is an
algorithm's step over partitions (advance, exchange, filter), so the three algorithms over
partitions live in :mod:`algorithms.distributed`, one module above the operators they call,
and register themselves with the single-device entry points when the first call on a
:class:`DistributedGraph` imports them (:mod:`frontier.distributed.dispatch`): ``algorithms.bfs``,
``sssp`` and ``connected_components`` accept a :class:`DistributedGraph`, and import-linter sees
every import of the dispatch. A
package above ``algorithms`` holding everything would have taken ``frontier.distributed`` (and
``from frontier.distributed import partition``) away from the users: the layering cannot put a
subpackage of ``frontier`` above ``algorithms``.

Dask is an optional dependency (``pip install 'frontier-graph[distributed]'``): importing this
package does not need it, partitioning does. Its names are imported on first use
(:mod:`frontier.lazy_exports`): the algorithms' entry points import the dispatch, and a process
that never partitions a graph imports nothing else of it. docs/scale-out.md describes the design.
"""

from __future__ import annotations

from frontier.lazy_exports import lazy_exports

__all__ = [
    "partition", "DistributedGraph", "Piece", "RunReport", "Runner", "PARTITIONERS",
    "register_partitioner", "start_cluster", "Communicator", "DaskComm", "TRANSPORTS",
    "DistributedError", "WorkerFailedError", "ExchangeAbortedError", "ExchangeTimeoutError",
]

lazy_exports(__name__, {
    "start_cluster": "frontier.distributed.cluster",
    "Communicator": "frontier.distributed.comm", "DaskComm": "frontier.distributed.comm",
    "DistributedError": "frontier.distributed.errors",
    "ExchangeAbortedError": "frontier.distributed.errors",
    "ExchangeTimeoutError": "frontier.distributed.errors",
    "WorkerFailedError": "frontier.distributed.errors",
    "TRANSPORTS": "frontier.distributed.graph", "DistributedGraph": "frontier.distributed.graph",
    "partition": "frontier.distributed.graph",
    "PARTITIONERS": "frontier.distributed.partition", "Piece": "frontier.distributed.partition",
    "register_partitioner": "frontier.distributed.partition",
    "Runner": "frontier.distributed.runner", "RunReport": "frontier.distributed.runner",
})
