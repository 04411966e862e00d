"""The benchmarks: one harness and its suites, each run as ``python -m bench SUITE``
(``python -m bench --help`` lists them).

The harness: :mod:`bench.timing` (warm-up, then the median of at least five calls on a
synchronized target), :mod:`bench.graphs` (graphs by name and the named sets),
:mod:`bench.baselines` (the catalog's scipy references and checks), :mod:`bench.tables` (rows to
CSV and Markdown), :mod:`bench.progress` (the progress bar), :mod:`bench.options` (the shared
options) and :mod:`bench.command` (the command). The suites are the modules of
:mod:`bench.suites`, registered in ``bench/suites/__init__.py``; the GPU machine's wrappers are
``bench/device/*.sh``, named for what they run.
"""
