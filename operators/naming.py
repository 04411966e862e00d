"""The naming contract of generated kernel text, checked when the text is built.

Every kernel generator (advance, traverse, stepping, iterate, loop, tiles, the balancers' helper
kernels, ...) writes Python source for :func:`operators.codegen.build`, which checks it here
before the target compiles it. The contract:

* every name the text reads is defined before it is read, reading the statements in the
  order they are written (a loop's body after its test, an ``if``'s branches in turn): a
  parameter of the kernel, a local the text assigned earlier, a global of the namespace the
  text runs with (the target's text globals, the ring's and the launch shape's constants,
  the functors under the names the kernel calls them, Python's builtins);
* every functor the generator gives the kernel is called by the text (a functor never called
  would be a step silently left out).

The kernel's parameters are the names of the calling convention
(:func:`operators.convention.kernel_params`, the generator's ``extra`` buffers included) that
the text reads: a launch costs per argument, so a buffer a generator may pass and this text
does not read is left out, and every parameter of the ``def`` is read.

A text that breaks it is the generator's bug: :class:`GeneratorError` names the kernel, its
operator and the name, instead of a Numba typing error at the first launch. The check reads
the text with :mod:`ast` (one parse, which also gives the names read), so a name in a comment,
a string or an attribute (``ids0.shape``) is no read.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable
from functools import cache

__all__ = ["GeneratorError", "check_names", "assigned"]


class GeneratorError(AssertionError):
    """An internal error of a kernel generator: its text breaks the naming contract, or its
    operator declares no work items (:meth:`operators.codegen.KernelSpec.work_items`)."""


#: Names every text may read: Python's builtins (``range``, ``min``, ...).
_BUILTINS = frozenset(dir(builtins))


class _Reader(ast.NodeVisitor):
    """Visits statements in the order they run (a value before the names it is assigned to, a
    loop's iterable before its target), noting each name read before it was defined."""

    def __init__(self, defined: Iterable[str]) -> None:
        self.defined = set(defined)
        self.read: set[str] = set()
        self.undefined: list[ast.Name] = []

    def _load(self, node: ast.Name) -> None:
        self.read.add(node.id)
        if node.id not in self.defined:
            self.undefined.append(node)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self._load(node)
        else:
            self.defined.add(node.id)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.visit(node.value)
        for target in node.targets:
            self.visit(target)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None:
            self.visit(node.value)
        self.visit(node.target)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.visit(node.value)
        if isinstance(node.target, ast.Name):
            self._load(node.target)
        self.visit(node.target)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        self.visit(node.target)

    def visit_For(self, node: ast.For) -> None:
        self.visit(node.iter)
        self.visit(node.target)
        for statement in (*node.body, *node.orelse):
            self.visit(statement)

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp
                       | ast.DictComp, results: tuple[ast.expr, ...]) -> None:
        for generator in node.generators:
            self.visit(generator.iter)
            self.visit(generator.target)
            for test in generator.ifs:
                self.visit(test)
        for result in results:
            self.visit(result)

    def visit_ListComp(self, node: ast.ListComp) -> None:
        self._comprehension(node, (node.elt,))

    def visit_SetComp(self, node: ast.SetComp) -> None:
        self._comprehension(node, (node.elt,))

    def visit_GeneratorExp(self, node: ast.GeneratorExp) -> None:
        self._comprehension(node, (node.elt,))

    def visit_DictComp(self, node: ast.DictComp) -> None:
        self._comprehension(node, (node.key, node.value))


def check_names(body: str, kernel: str, operator: str, known: Iterable[str],
                declared: Iterable[str]) -> set[str]:
    """Check the statements ``body`` of kernel ``kernel`` (its text after the ``def`` line and
    the target's entry lines, written by the generator of ``operator``) against the naming
    contract (see the module docstring): ``known`` are the names defined before it (the
    kernel's candidate parameters, what the target's entry lines define, the globals the text
    runs with, functors included), ``declared`` the functors it must call. Returns the names
    it reads; raises :class:`GeneratorError` naming the first name that breaks it."""
    try:
        module = ast.parse("def _kernel():\n" + "".join(f"    {line}\n" if line else "\n"
                                                        for line in body.splitlines()))
    except SyntaxError as err:
        raise GeneratorError(f"the text of generated kernel {kernel} (the {operator} "
                             f"generator) is no Python: {err}\n{body}") from None
    reader = _Reader({*known, *_BUILTINS})
    for statement in module.body[0].body:  # type: ignore[attr-defined]
        reader.visit(statement)
    lines = body.splitlines()
    if reader.undefined:
        node = reader.undefined[0]
        raise GeneratorError(
            f"generated kernel {kernel} (the {operator} generator) reads {node.id!r} on line "
            f"{node.lineno - 1} of its body ({lines[node.lineno - 2].strip()!r}) before "
            "anything defines it: no parameter, no local assigned above it, no global of its "
            f"namespace, no functor\n{body}")
    for name in declared:
        if name not in reader.read:
            raise GeneratorError(
                f"generated kernel {kernel} (the {operator} generator) is given functor "
                f"{name!r} and never calls it\n{body}")
    return reader.read


@cache
def assigned(text: str) -> frozenset[str]:
    """The names the statements ``text`` (a target's kernel prologue) assign."""
    return frozenset(node.id for node in ast.walk(ast.parse(text))
                     if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load))
