"""The naming contract of generated kernel text, checked when the text is built.

Every kernel generator (advance, traverse, stepping, iterate, loop, tiles, the balancers' helper
kernels, ...) writes Python source for :func:`operators.codegen.build`, which checks it here
before the target compiles it. The contract:

* every name the text reads is defined before it is read, reading the statements in the
  order they are written (a loop's body after its test, an ``if``'s branches in turn): a
  parameter of the kernel, a local the text assigned earlier, a global of the namespace the
  text runs with (the target's text globals, the ring's and the launch shape's constants,
  the functors under the names the kernel calls them, Python's builtins);
* every parameter the generator declares beyond the calling convention's
  (:func:`operators.convention.kernel_params`' ``extra``) and every functor it is given is
  read by the text.

A text that breaks it is the generator's bug: :class:`GeneratorError` names the kernel, its
operator and the name, instead of a Numba typing error (or, for a parameter never read, a
value passed to no one) at the first launch. The check reads the text with :mod:`ast`, so a
name in a comment, a string or an attribute (``ids0.shape``) is no read.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable

__all__ = ["GeneratorError", "names_read", "check_names"]


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


def _parsed(text: str, kernel: str) -> ast.Module:
    try:
        return ast.parse(text)
    except SyntaxError as err:
        raise GeneratorError(f"the text of generated kernel {kernel} is no Python: {err}\n"
                             + text) from None


def names_read(body: str) -> set[str]:
    """The names the statements ``body`` (a kernel's text after its ``def`` line) read."""
    reader = _Reader(())
    reader.visit(_parsed("def _body():\n" + "".join(f"    {line}\n" if line else "\n"
                                                     for line in body.splitlines()), "body"))
    return reader.read


def check_names(text: str, kernel: str, operator: str, known: Iterable[str],
                declared: Iterable[str]) -> None:
    """Check kernel ``text`` (one ``def`` of kernel ``kernel``, written by the generator of
    ``operator``) against the naming contract (see the module docstring): ``known`` are the
    globals it runs with (functors included), ``declared`` the parameters and functors it
    must read. Raises :class:`GeneratorError` naming the first name that breaks it."""
    module = _parsed(text, kernel)
    definition = module.body[0] if len(module.body) == 1 else None
    if not isinstance(definition, ast.FunctionDef) or definition.name != kernel:
        raise GeneratorError(f"the text of generated kernel {kernel} (the {operator} "
                             f"generator) is not one function {kernel}(...)")
    params = [a.arg for a in definition.args.args]
    reader = _Reader({*params, *known, *_BUILTINS})
    for statement in definition.body:
        reader.visit(statement)
    lines = text.splitlines()
    for node in reader.undefined:
        raise GeneratorError(
            f"generated kernel {kernel} (the {operator} generator) reads {node.id!r} on line "
            f"{node.lineno} ({lines[node.lineno - 1].strip()!r}) before anything defines "
            "it: no parameter, no local assigned above it, no global of its namespace, no "
            f"functor\n{text}")
    for name in declared:
        if name not in reader.read:
            raise GeneratorError(
                f"generated kernel {kernel} (the {operator} generator) declares {name!r} (a "
                f"parameter or a functor) that its text never reads\n{text}")
