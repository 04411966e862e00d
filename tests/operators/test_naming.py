"""The naming contract of generated kernel text (operators.naming), checked when the text is built:
a text that reads a name nothing defined before it, or never calls a functor it is given, is
refused with the kernel, its generator and the name; a kernel's parameters are the candidates
its text reads; an operator whose kernels declare no work items is refused before its text is
built."""

from __future__ import annotations

import pytest

from frontier.runtime.target import named
from operators.codegen import (
    NONE,
    RANGE,
    GeneratorError,
    KernelIO,
    KernelSpec,
    barrier,
    build,
    declare_work_items,
    element_items,
)
from operators.naming import check_names
from operators.shape import per_element


def checked(body: str, known: tuple[str, ...] = ("a", "n"), declared: tuple[str, ...] = ()
            ) -> set[str]:
    return check_names(body, "k", "synthetic", known, declared)


def test_a_text_reading_only_defined_names_passes():
    checked("x = 0\nfor i in range(n):\n    x += a[i]\n    y = x\n"
            "if x > 0:\n    a[0] = min(x, y)\n")


def test_a_name_read_before_anything_defines_it_is_refused_naming_it():
    with pytest.raises(GeneratorError, match=r"kernel k \(the synthetic generator\) reads "
                                             r"'missing' on line 2 of its body"):
        checked("x = 0\na[0] = missing + x\n")


def test_a_local_assigned_only_later_in_a_loop_is_refused():
    """Its first read runs before its first assignment: undefined in the loop's first pass."""
    with pytest.raises(GeneratorError, match="reads 'carried'"):
        checked("for i in range(n):\n    a[i] = carried\n    carried = i\n")


def test_an_augmented_assignment_reads_its_target_first():
    with pytest.raises(GeneratorError, match="reads 'total'"):
        checked("total += 1\n")


def test_a_functor_given_and_never_called_is_refused_naming_it():
    with pytest.raises(GeneratorError, match="is given functor 'spare' and never calls it"):
        checked("a[0] = n\n", known=("a", "n", "spare"), declared=("spare",))


def test_attributes_strings_and_comments_are_no_reads():
    assert checked("x = a.shape[0]  # n\ny = 'n'\n") == {"a"}


def test_a_kernel_takes_only_the_candidate_parameters_its_text_reads():
    tgt = named("cpu")
    spec = KernelSpec("compute", RANGE, NONE, variant="_reads_one_buffer", io=KernelIO.RANGE)
    kernel = build(tgt, per_element(tgt), spec, {}, lambda: "for v in range(tid, count, "
                   "nthreads):\n    used[v] = v  # unused\n", ("used", "unused"))
    assert kernel.params == ("count", "used")


def test_a_kernel_reading_its_thread_ids_and_barrier_builds_on_every_target(target):
    """What a target's entry defines (the parallel cpu target's ``tid``, ``nthreads`` and
    ``team``, parameters it puts before the kernel's own) and its grid barrier's names are
    names the contract knows."""
    spec = KernelSpec("compute", RANGE, NONE, variant="_thread_ids", io=KernelIO.RANGE)
    kernel = build(target, per_element(target), spec, {}, lambda: "for v in range(tid, count, "
                   "nthreads):\n    out[v] = v\n" + barrier(target) + "out[tid] = nthreads\n",
                   ("out",))
    assert kernel.params == ("count", "out")


def test_build_refuses_a_generator_text_reading_an_undefined_name():
    tgt = named("cpu")
    spec = KernelSpec("compute", RANGE, NONE, variant="_undefined_read", io=KernelIO.RANGE)
    with pytest.raises(GeneratorError, match="compute_undefined_read.* reads 'nowhere'"):
        build(tgt, per_element(tgt), spec, {}, lambda: "for v in range(tid, count, nthreads):"
                                                       "\n    nowhere[v] = 1\n")


def test_build_refuses_a_functor_the_text_never_calls():
    tgt = named("cpu")
    spec = KernelSpec("compute", RANGE, NONE, variant="_uncalled", io=KernelIO.RANGE)

    def ignored(v):
        return v

    with pytest.raises(GeneratorError, match="is given functor 'functor' and never calls it"):
        build(tgt, per_element(tgt), spec, {"functor": ignored}, lambda: "x = count\n")


def test_an_operator_without_work_items_is_refused_when_its_text_is_built():
    tgt = named("cpu")
    spec = KernelSpec("undeclared_operator", RANGE, NONE, io=KernelIO.RANGE)
    built = []

    def body() -> str:
        built.append(True)
        return "x = count\n"

    with pytest.raises(GeneratorError, match="undeclared_operator generator declares no work "
                                             "items"):
        build(tgt, per_element(tgt), spec, {}, body)
    assert not built


def test_two_rules_for_one_operator_are_refused():
    def other(spec, name):
        return element_items(spec, name)

    with pytest.raises(GeneratorError, match="two rules declare the work items of compute"):
        declare_work_items("compute", other)
