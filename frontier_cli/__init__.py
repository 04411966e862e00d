"""The ``frontier`` command line, the top layer above :mod:`algorithms`, :mod:`operators` and
:mod:`frontier` (pyproject.toml's import-linter contracts): the commands
(:mod:`frontier_cli.commands`), shell completion, progress display, graph summaries and step
traces, and the entry point :func:`frontier_cli.guard.main`, which the installed ``frontier``
script and ``python -m frontier_cli`` run.

This file imports nothing: the guard must be importable with the standard library alone, before
the library (numpy, Numba, the kernels) is, so that Ctrl-C during those imports is handled too.
"""
