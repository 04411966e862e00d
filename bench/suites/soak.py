"""Soak test: random graphs through every algorithm, balancer and target, checked.

Each result is compared with the algorithm's independent reference.

``python -m bench soak --cases 10000 --targets cpu --out DIR``

Graphs come from the public Hypothesis strategies of :mod:`frontier.testing` (isolated vertices,
self-loops, multi-edges, hubs, several components, empty-edged and one-vertex graphs, directed and
undirected, weighted or not), with a source drawn the same way (any vertex, the hub, an isolated
one). Each graph runs every entry of :data:`algorithms.CATALOG` with ``"auto"`` and every
balancer of ``operators.available_balancers()`` (once for an entry with ``balanced=False``) on
every target given, with each of the entry's options drawn at random from its choices; the
result goes to the entry's ``check`` (the reference comparison of the tests). A
*case* is one such run. Outcomes:

* ``ok`` — the result equals the reference;
* ``mismatch`` — the check raised AssertionError: a wrong answer;
* ``refused`` — the algorithm refused the drawn combination of arguments before any work (a
  ValueError from argument validation naming an argument the mode would ignore, e.g. a
  balancer with ``direction="pull"``): counted apart, neither a case nor an error;
* ``error:<Type>`` — anything else raised while running.

It prints the counts (cases, mismatches, refusals, errors by kind), writes them to ``soak.md``,
and writes one row per case to ``soak.csv`` as the cases run (for failures, the graph's arcs
too, so a case can be replayed). The exit status is
1 when there was any mismatch or error. ``--time-limit`` stops drawing new graphs after that many
seconds; ``--seed`` makes the run reproducible. ``--jobs N`` runs N processes, each over its
share of the (algorithm, balancer) pairs (dealt round robin) with its own seed and its share of
the cases, and adds their counts up: on a GPU machine each process then compiles only the
kernels of its pairs (a new pair's first case compiles its kernels, ~0.3-2 s each), which is
what makes 100,000 cases fit in minutes. On the cpu target every balancer runs the same
sequential loop (balancers spread work over GPU threads), so the balancer dimension matters on
``cuda`` (a GPU, or the simulator with ``NUMBA_ENABLE_CUDASIM=1``).

``--threads N`` runs the cases from N Python threads at once (issue 20: every public call is
safe from several threads): all the cases of a graph are handed to the threads together, so
the threads run different algorithms, balancers, options and targets on one shared graph at
the same time. The soak waits for them before it draws the next graph, and each case's options
are drawn before it is handed over, so a seed gives the same cases whatever the number of
threads; every result is checked as in a serial soak (a wrong answer from a race is a
mismatch). It combines with ``--jobs`` (N threads in each process).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import random
import sys
import threading
import time
from collections import Counter, deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import baselines, options, tables
from frontier.graph import Graph
from frontier.runtime.cuda_support import cuda_usable
from frontier.target import resolve_target
from operators import available_balancers

FIELDS = ("case", "target", "algorithm", "balancer", "options", "num_vertices", "num_edges",
          "directed", "weighted", "source", "outcome", "message", "seconds", "arcs")


@dataclass
class Soak:
    """The plan of a soak run and what it has found so far."""

    targets: list[str]
    pairs: list[tuple[str, str | None]]
    cases: int
    time_limit: float | None
    rng: random.Random
    writer: Any = None
    outcomes: Counter = field(default_factory=Counter)
    messages: dict[str, str] = field(default_factory=dict)
    done: int = 0
    graphs: int = 0
    started: float = field(default_factory=time.perf_counter)
    threads: ThreadPoolExecutor | None = None  # None: every case runs in this thread
    pending: deque = field(default_factory=deque)  # cases handed to the threads, oldest first
    lock: threading.Lock = field(default_factory=threading.Lock)  # guards the counts and CSV

    def finished(self) -> bool:
        late = (self.time_limit is not None
                and time.perf_counter() - self.started > self.time_limit)
        return self.done >= self.cases or late

    def run_graph(self, graph: Graph, source: int) -> None:
        """Every case of one graph: run here, or handed to the threads all at once (after the
        previous graph's cases have finished, so that the counts decide, as in a serial soak,
        whether another graph is needed)."""
        self.wait()
        if self.finished():
            return
        self.graphs += 1
        for target in self.targets:
            for name, balancer in self.pairs:
                drawn = {option: self.rng.choice(choices)
                         for option, choices in baselines.option_choices(name).items()}
                if self.threads is None:
                    self.run_case(graph, source, target, name, balancer, drawn)
                else:
                    self.pending.append(self.threads.submit(
                        self.run_case, graph, source, target, name, balancer, drawn))

    def wait(self) -> None:
        """Wait for every case handed to the threads (a failure of the soak itself, not of a
        case, is raised here)."""
        while self.pending:
            future: Future = self.pending.popleft()
            future.result()

    def run_case(self, graph: Graph, source: int, target: str, name: str,
                 balancer: str | None, drawn: dict[str, Any]) -> None:
        given = source if baselines.takes_source(name) else None
        start = time.perf_counter()
        outcome, message = "ok", ""
        try:
            result = baselines.run(name, graph, given, balancer=balancer, target=target, **drawn)
        except (ValueError, TypeError) as err:
            outcome, message = ("refused" if _refusal(err) else f"error:{type(err).__name__}",
                                str(err))
        except Exception as err:  # noqa: BLE001 - every failure is counted, none stops the soak
            outcome, message = f"error:{type(err).__name__}", str(err)
        else:
            differs = baselines.disagreement(name, graph, given, result)
            if differs is not None:
                outcome, message = "mismatch", differs
        seconds = time.perf_counter() - start
        first = message.splitlines()[0] if message else ""
        failed = outcome not in ("ok", "refused")
        coo = graph.coo() if failed and self.writer is not None else None
        with self.lock:
            self.record(graph, given, target, name, balancer, drawn, outcome, first,
                        seconds, coo)

    def record(self, graph: Graph, given: int | None, target: str, name: str,
               balancer: str | None, drawn: dict[str, Any], outcome: str, first: str,
               seconds: float, coo: Any) -> None:
        """Count one case and write its CSV row (the caller holds the lock)."""
        self.done += outcome != "refused"  # a refusal checks nothing: it is not a case
        self.outcomes[outcome] += 1
        if outcome != "ok":
            self.messages.setdefault(f"{outcome} ({name})", first)
        if self.writer is not None:
            self.writer.writerow({
                "case": self.done if outcome != "refused" else "", "target": target,
                "algorithm": name,
                "balancer": balancer or "", "options": json.dumps(drawn),
                "num_vertices": graph.num_vertices, "num_edges": graph.num_edges,
                "directed": graph.directed, "weighted": graph.weighted, "source": given,
                "outcome": outcome, "message": first[:300], "seconds": f"{seconds:.6f}",
                "arcs": json.dumps([coo.src.tolist(), coo.dst.tolist()]) if coo else ""})


def _refusal(err: BaseException) -> bool:
    """Whether ``err`` is argument validation refusing the drawn combination (raised before any
    work, with the argument named) rather than a failure while running."""
    text = str(err)
    return "has no effect with" in text or "have no effect with" in text


def drive(soak: Soak, seed: int, max_vertices: int, max_edges: int) -> None:
    """Draw graphs from the public strategies until the soak has its cases or its time."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis import strategies as st

    from frontier.testing import graphs_with_source

    cases = st.booleans().flatmap(lambda weighted: graphs_with_source(
        max_vertices=max_vertices, max_edges=max_edges, weighted=weighted))
    per_graph = len(soak.targets) * len(soak.pairs)
    while not soak.finished():
        soak.wait()  # the counts of every case handed out so far decide whether to go on
        if soak.finished():
            break

        @hypothesis_seed(seed + soak.graphs)
        @settings(max_examples=max(1, (soak.cases - soak.done) // per_graph + 1), database=None,
                  deadline=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(case=cases)
        def batch(case: tuple[Graph, int]) -> None:
            soak.run_graph(*case)

        batch()


def pairs_of(algorithms: list[str], balancers: list[str]) -> list[tuple[str, str | None]]:
    """Every (algorithm, balancer) the soak runs: each balancer for an entry that takes one,
    ``None`` once for an entry that does not."""
    return [(name, balancer) for name in algorithms
            for balancer in (balancers if baselines.balanced(name) else [None])]


@dataclass
class Counts:
    """What a soak (or a shard of one) found: the summary the report prints."""

    outcomes: Counter
    messages: dict[str, str]
    done: int
    graphs: int

    @classmethod
    def of(cls, soak: Soak) -> Counts:
        return cls(Counter(soak.outcomes), dict(soak.messages), soak.done, soak.graphs)

    def add(self, other: Counts) -> None:
        self.outcomes.update(other.outcomes)
        for kind, message in other.messages.items():
            self.messages.setdefault(kind, message)
        self.done += other.done
        self.graphs += other.graphs

    def failed(self) -> int:
        return self.outcomes["mismatch"] + sum(v for k, v in self.outcomes.items()
                                               if k.startswith("error:"))


def report(counts: Counts, seconds: float, targets: list[str], algorithms: list[str],
           balancers: list[str], jobs: int = 1, out: Any = None, threads: int = 1) -> None:
    out = out or sys.stdout
    errors = {k: v for k, v in counts.outcomes.items() if k.startswith("error:")}
    print(f"cases       {counts.done:,} on {counts.graphs:,} graphs in {seconds:.0f} s "
          f"(targets {', '.join(targets)}; algorithms {', '.join(algorithms)}; "
          f"{len(balancers)} balancers; {jobs} job{'s' if jobs > 1 else ''}; "
          f"{threads} thread{'s' if threads > 1 else ''} each)", file=out)
    print(f"ok          {counts.outcomes['ok']:,}", file=out)
    print(f"mismatches  {counts.outcomes['mismatch']:,}", file=out)
    print(f"refused     {counts.outcomes['refused']:,} (argument combinations the algorithm "
          "refuses before any work)", file=out)
    print(f"errors      {sum(errors.values()):,}"
          + "".join(f"; {k[6:]} {v:,}" for k, v in sorted(errors.items())), file=out)
    for kind, message in sorted(counts.messages.items()):
        print(f"  first {kind}: {message[:200]}", file=out)


@dataclass
class Plan:
    """One soak run (or one shard of it): what to run, for how long, where to write."""

    targets: list[str]
    pairs: list[tuple[str, str | None]]
    cases: int
    time_limit: float | None
    seed: int
    max_vertices: int
    max_edges: int
    csv: Path | None
    threads: int = 1


def run_plan(plan: Plan) -> Counts:
    """Run one soak (in this process, from ``plan.threads`` threads) and return its counts."""
    soak = Soak(plan.targets, plan.pairs, plan.cases, plan.time_limit,
                random.Random(plan.seed))
    if plan.threads > 1:
        soak.threads = ThreadPoolExecutor(plan.threads, thread_name_prefix="soak")
    handle = None
    if plan.csv is not None:
        handle = plan.csv.open("w", newline="")
        soak.writer = csv.DictWriter(handle, FIELDS)
        soak.writer.writeheader()
    try:
        drive(soak, plan.seed, plan.max_vertices, plan.max_edges)
        soak.wait()
    except KeyboardInterrupt:
        print("interrupted; the counts so far:", file=sys.stderr)
    finally:
        if soak.threads is not None:
            for future in soak.pending:
                future.cancel()
            soak.threads.shutdown(wait=True)
        if handle is not None:
            handle.close()
    return Counts.of(soak)


def shards(plan: Plan, jobs: int) -> list[Plan]:
    """``jobs`` plans over disjoint shares of the (algorithm, balancer) pairs, dealt round
    robin, so that each process compiles only its share of the kernels; each with its own seed,
    its share of the cases and its own CSV (``NAME.K.csv``, merged into ``NAME`` at the end)."""
    jobs = max(1, min(jobs, len(plan.pairs)))
    return [Plan(plan.targets, plan.pairs[k::jobs], -(-plan.cases // jobs), plan.time_limit,
                 plan.seed * 1000 + k, plan.max_vertices, plan.max_edges,
                 None if plan.csv is None else plan.csv.with_suffix(f".{k}.csv"), plan.threads)
            for k in range(jobs)]


def run_jobs(plan: Plan, jobs: int) -> Counts:
    """The plan's shards in ``jobs`` processes (spawned: each has its own Numba and CUDA
    context), their counts added up and their CSV files joined into the plan's."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    parts = shards(plan, jobs)
    total = Counts(Counter(), {}, 0, 0)
    with ProcessPoolExecutor(len(parts), mp_context=get_context("spawn")) as pool:
        for counts in pool.map(run_plan, parts):
            total.add(counts)
    if plan.csv is not None:
        with plan.csv.open("w", newline="") as out:
            for k, part in enumerate(parts):
                text = part.csv.read_text()
                out.write(text if k == 0 else text.split("\n", 1)[1])
                part.csv.unlink()
    return total


def add_arguments(parser: argparse.ArgumentParser) -> None:
    options.add_out(parser)
    parser.add_argument("--cases", type=int, default=1000, help="runs to make (default 1000)")
    parser.add_argument("--targets", default=None,
                        help="comma-separated: cpu, cuda (default: every usable one)")
    options.add_names(parser, "--algorithms",
                      ",".join(baselines.names(any_graph_only=True)),
                      "algorithms (default: every entry that takes any graph; list ranking "
                      "takes lists)", baselines.names())
    known = ["auto", *available_balancers()]
    options.add_names(parser, "--balancers", ",".join(known),
                      "balancers (default: auto, the default of every algorithm, and every "
                      "static balancer)", known)
    parser.add_argument("--time-limit", type=float, default=None,
                        help="seconds after which no new graph is drawn")
    parser.add_argument("--max-vertices", type=int, default=40)
    parser.add_argument("--max-edges", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1,
                        help="worker processes, each running a share of the (algorithm, "
                        "balancer) pairs (default 1)")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads per process running cases at once on shared graphs "
                        "(default 1)")


def run(args: argparse.Namespace) -> int:
    targets = (args.targets.split(",") if args.targets
               else ["cpu"] + (["cuda"] if cuda_usable() else []))
    for name in targets:
        resolve_target(name)  # an unusable target fails here, before any case
    if args.jobs < 1:
        raise options.UsageError(f"--jobs {args.jobs}; expected at least 1")
    if args.threads < 1:
        raise options.UsageError(f"--threads {args.threads}; expected at least 1")
    args.out.mkdir(parents=True, exist_ok=True)
    plan = Plan(targets, pairs_of(args.algorithms, args.balancers), args.cases, args.time_limit,
                args.seed, args.max_vertices, args.max_edges, args.out / "soak.csv",
                args.threads)
    started = time.perf_counter()
    counts = run_plan(plan) if args.jobs == 1 else run_jobs(plan, args.jobs)
    text = io.StringIO()
    report(counts, time.perf_counter() - started, targets, args.algorithms, args.balancers,
           args.jobs, out=text, threads=args.threads)
    print(text.getvalue(), end="")
    tables.replace_text(args.out / "soak.md", "```\n" + text.getvalue() + "```\n")
    return 1 if counts.failed() else 0
