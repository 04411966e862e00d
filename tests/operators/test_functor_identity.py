"""A functor is identified by the type and the exact value of what compiled code freezes: ``-0.0``
is not ``0.0`` and ``False`` is not ``0``, as module globals, closure values and default
arguments, whichever comes first; a nan is one value; an unchanged functor compiles once. What
the helpers it calls read, recursively, is part of its identity too: a value changed there is
seen at the next call, on every target."""

from __future__ import annotations

import math
import types
import warnings
from itertools import count

import numpy as np
import pytest

from frontier import device_function
from frontier.runtime.identity import identity
from operators import compute
from operators.functors import (
    _COMPILED,
    _CURRENT_HELPERS,
    FunctorError,
    RecompileWarning,
    as_functor,
)

VALUE = None  # the module global the functors below read
_TAGS = count()


def sign_of_global(i, out):
    out[i] = math.copysign(1.0, VALUE)


def inverse_of_global(i, out):
    out[i] = ~VALUE


def sign_of_default(i, out, value=None):
    out[i] = math.copysign(1.0, value)


def inverse_of_default(i, out, value=None):
    out[i] = ~value


def sign_of_closure(value):
    def sign(i, out):
        out[i] = math.copysign(1.0, value)
    return sign


def inverse_of_closure(value):
    def inverse(i, out):
        out[i] = ~value
    return inverse


def sign_of_frozen_closure(value):
    held = (value,)  # a tuple: frozen into the compiled code, not passed as an argument

    def sign(i, out):
        out[i] = math.copysign(1.0, held[0])
    return sign


def inverse_of_frozen_closure(value):
    held = (value,)

    def inverse(i, out):
        out[i] = ~held[0]
    return inverse


def made(where, which, value, tag):
    """The functor of ``FUNCTIONS[where][which]`` reading ``value`` from ``where`` (the module
    global is set by the caller), its code renamed by ``tag``: functors of one tag share their
    code, so compiled code is looked up by what they read."""
    fn = FUNCTIONS[where][which]
    if where in ("closure", "frozen closure"):
        fn = fn(value)
    code = fn.__code__.replace(co_name=f"{fn.__code__.co_name}_{tag}")
    out = types.FunctionType(code, fn.__globals__, code.co_name,
                             (value,) if where == "default" else fn.__defaults__, fn.__closure__)
    return out


FUNCTIONS = {
    "module global": (sign_of_global, inverse_of_global),
    "default": (sign_of_default, inverse_of_default),
    "closure": (sign_of_closure, inverse_of_closure),
    "frozen closure": (sign_of_frozen_closure, inverse_of_frozen_closure),
}
ORDERS = {"0.0 then -0.0": (0, 0.0, -0.0), "-0.0 then 0.0": (0, -0.0, 0.0),
          "False then 0": (1, False, 0), "0 then False": (1, 0, False)}


def run(target, where, which, value, tag):
    global VALUE
    VALUE = value
    out = target.zeros(1, np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # ~bool, where Python runs it
        compute(None, 1, made(where, which, value, tag), out, target=target)
    return float(target.to_host(out)[0])


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("where", FUNCTIONS)
def test_values_equal_by_eq_compile_apart_in_either_order(target, where, order):
    which, first, second = ORDERS[order]
    tag = next(_TAGS)  # both values through one code
    got = [run(target, where, which, v, tag) for v in (first, second)]
    alone = [run(target, where, which, v, next(_TAGS)) for v in (first, second)]
    assert got == alone
    if which == 0:
        assert got == [math.copysign(1.0, first), math.copysign(1.0, second)]
    elif not target.simulated or where == "closure":  # as compiled: ~False is True, ~0 -1
        assert got == ([1.0, -1.0] if first is False else [-1.0, 1.0])


NAN_GLOBAL = float("nan")


def reads_nans(held, lifted):
    def fn(i, out, default=float("nan")):
        out[i] = held[0] + default + NAN_GLOBAL + lifted
    return fn


def test_an_unchanged_functor_compiles_once_even_around_nans(target):
    global NAN_GLOBAL
    out = target.zeros(1, np.float64)
    compute(None, 1, reads_nans((float("nan"),), float("nan")), out, target=target)
    before = len(_COMPILED)
    for _ in range(3):  # a new nan object every time: in a global, a default, a closure
        NAN_GLOBAL = float("nan")
        compute(None, 1, reads_nans((float("nan"),), float("nan")), out, target=target)
        assert math.isnan(target.to_host(out)[0])
    assert len(_COMPILED) == before


SCALE = 2.0  # the module global times_scale reads


def times_scale(i, out, factor=1.0):
    out[i] = SCALE * factor


def test_one_function_object_sees_its_global_rebound_and_its_defaults_replaced(target):
    """A resolved functor is reused while its function reads the same objects (the watch of a
    plain function, with no closure and no keyword-only defaults, looks at its defaults and
    its module globals in one expression): a rebound global or new defaults of the very same
    function object are seen at the next call."""
    global SCALE
    out = target.zeros(1, np.float64)
    try:
        got = []
        for scale, defaults in ((2.0, (1.0,)), (2.0, (1.0,)), (3.0, (1.0,)), (3.0, (10.0,))):
            SCALE = scale
            times_scale.__defaults__ = defaults
            compute(None, 1, times_scale, out, target=target)
            got.append(float(target.to_host(out)[0]))
        assert got == [2.0, 2.0, 3.0, 30.0]
        assert as_functor(times_scale) is as_functor(times_scale)  # unchanged: reused
    finally:
        SCALE, times_scale.__defaults__ = 2.0, (1.0,)


def scaled(k):
    def fn(i, out):
        out[i] = k * 3
    return fn


def test_a_closure_number_of_another_type_compiles_anew_and_the_same_type_does_not(target):
    out = target.zeros(1, np.float64)
    compute(None, 1, scaled(True), out, target=target)
    before = len(_COMPILED)
    compilations = {bool: 0, int: 1, float: 2, np.float32: 3}  # in this order, one per type
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RecompileWarning)
        for k in (False, 2, 0, 2.5, -0.0, np.float32(0.5)):
            compute(None, 1, scaled(k), out, target=target)
            assert target.to_host(out)[0] == k * 3
            assert len(_COMPILED) == before + compilations[type(k)], k


def wrapping(k):
    def fn(v, out):
        out[v] = k * 4 + v
    return fn


def test_a_closure_int_wraps_around_at_64_bits_on_every_target(target):
    out = target.zeros(3, np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # compiled code warns of nothing
        compute(None, 3, wrapping(2**62 + 1), out, target=target)
    wrapped = [(((2**62 + 1) * 4 + v + 2**63) % 2**64) - 2**63 for v in range(3)]
    assert target.to_host(out).tolist() == wrapped == [4, 5, 6]


UNSUPPORTED = [np.float16(1.5), np.longdouble(1.5), np.clongdouble(1 + 2j)]


def half_of_closure(value):
    def fn(i, out):
        out[i] = value
    return fn


def half_of_global(i, out):
    out[i] = VALUE


@pytest.mark.parametrize("value", UNSUPPORTED, ids=lambda v: type(v).__name__)
@pytest.mark.parametrize("where", ["closure variable 'value'", "module global 'VALUE'",
                                   "default argument"])
def test_numbers_no_target_compiles_are_refused_naming_the_variable_and_what_works(
        target, where, value):
    global VALUE
    VALUE = value
    fn = {"closure variable 'value'": half_of_closure(value), "module global 'VALUE'":
          half_of_global, "default argument": made("default", 0, value, next(_TAGS))}[where]
    out = target.zeros(1, np.float64)
    with pytest.raises(FunctorError) as refused:
        compute(None, 1, fn, out, target=target)
    message = str(refused.value)
    assert where in message and f"numpy.{type(value).__name__}" in message
    assert "float32" in message and "float64" in message and "convert it" in message


def test_keys_of_equal_looking_values_differ_and_identical_ones_agree():
    zero, negative = as_functor(scaled(0.0)), as_functor(scaled(-0.0))
    assert zero == negative  # a closure number: an argument, keyed by its type alone
    frozen = [as_functor(made("frozen closure", 0, v, "keys")) for v in (0.0, -0.0, 0.0)]
    assert frozen[0] != frozen[1] and frozen[0] == frozen[2]
    assert frozen[0].key[1] == (identity((0.0,)),)


# ---- what the helpers a functor calls read --------------------------------------------------
HELPER_VALUE = None  # the module global the helpers below read


@device_function
def _sign_of_global(i):
    return math.copysign(1.0, HELPER_VALUE)


@device_function
def _inverse_of_global(i):
    return ~HELPER_VALUE


@device_function
def _triple_of_global(i):
    return HELPER_VALUE * 3


@device_function
def _sign_through_a_helper(i):
    return _sign_of_global(i)


@device_function
def _inverse_through_a_helper(i):
    return _inverse_of_global(i)


@device_function
def _triple_through_a_helper(i):
    return _triple_of_global(i)


def _helpers_reading_a_cell():
    """Helpers reading a closure variable that :func:`set_cell` rebinds."""
    value = None

    @device_function
    def sign(i):
        return math.copysign(1.0, value)

    @device_function
    def inverse(i):
        return ~value

    @device_function
    def triple(i):
        return value * 3

    def set_cell(new):
        nonlocal value
        value = new

    return sign, inverse, triple, set_cell


*_CELL_HELPERS, set_cell = _helpers_reading_a_cell()


def calling(helper):
    """A functor calling ``helper``, which it reads from its closure."""
    def fn(i, out):
        out[i] = helper(i)
    return fn


def sign_by_helper(i, out):
    out[i] = _sign_of_global(i)


def inverse_by_helper(i, out):
    out[i] = _inverse_of_global(i)


def triple_by_helper(i, out):
    out[i] = _triple_of_global(i)


def sign_by_helper_of_helper(i, out):
    out[i] = _sign_through_a_helper(i)


def inverse_by_helper_of_helper(i, out):
    out[i] = _inverse_through_a_helper(i)


def triple_by_helper_of_helper(i, out):
    out[i] = _triple_through_a_helper(i)


#: Per way of reaching what changes: the functors (sign, inverse, triple) reading it.
THROUGH_HELPERS = {
    "a helper's module global": (sign_by_helper, inverse_by_helper, triple_by_helper),
    "a helper's helper's module global": (sign_by_helper_of_helper, inverse_by_helper_of_helper,
                                          triple_by_helper_of_helper),
    "a helper in a closure": tuple(calling(h) for h in (_sign_of_global, _inverse_of_global,
                                                         _triple_of_global)),
    "a helper's closure variable": tuple(calling(h) for h in _CELL_HELPERS),
}
#: Per pair of values in turn: which functor tells them apart, what it computes from a value.
HELPER_ORDERS = {
    "0.0 then -0.0": (0, 0.0, -0.0), "False then 0": (1, False, 0), "1 then 2": (2, 1, 2)}
EXPECTED = (lambda v: math.copysign(1.0, v), lambda v: 1.0 if v is False else float(~v),
            lambda v: 3.0 * v)  # as compiled: ~False is True


def through_helper(target, functor, value):
    """What ``functor`` computes with the helpers' global and closure variable set to
    ``value``."""
    global HELPER_VALUE
    HELPER_VALUE = value
    set_cell(value)
    out = target.zeros(1, np.float64)
    compute(None, 1, functor, out, target=target)
    return float(target.to_host(out)[0])


@pytest.mark.filterwarnings("ignore::operators.functors.RecompileWarning")
@pytest.mark.parametrize("order", HELPER_ORDERS)
@pytest.mark.parametrize("where", THROUGH_HELPERS)
def test_a_value_a_helper_reads_changed_between_calls_is_seen_on_every_target(
        target, where, order):
    which, first, second = HELPER_ORDERS[order]
    functor = THROUGH_HELPERS[where][which]
    got = [through_helper(target, functor, v) for v in (first, second, first)]
    assert got == [EXPECTED[which](v) for v in (first, second, first)]


@pytest.mark.filterwarnings("ignore::operators.functors.RecompileWarning")
def test_an_unchanged_helper_compiles_once_and_two_functors_share_its_registration(target):
    through_helper(target, triple_by_helper_of_helper, 2.5)
    compiled, registrations = len(_COMPILED), len(_CURRENT_HELPERS)
    for _ in range(3):  # an equal value, a new object every time
        assert through_helper(target, triple_by_helper_of_helper, float("2.5")) == 7.5
    assert (len(_COMPILED), len(_CURRENT_HELPERS)) == (compiled, registrations)
    for functor in (calling(_triple_through_a_helper), calling(_triple_through_a_helper)):
        assert through_helper(target, functor, 2.5) == 7.5  # a new functor: compiled once
    assert (len(_COMPILED), len(_CURRENT_HELPERS)) == (compiled + 1, registrations)


def test_a_recompiling_functor_names_the_helper_global_that_changed(target):
    functor = calling(_triple_of_global)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RecompileWarning)
        for value in (-1, -2, -3, -4, -5):
            assert through_helper(target, functor, value) == 3.0 * value
    named = [str(w.message) for w in caught if issubclass(w.category, RecompileWarning)]
    assert named and all("module global 'HELPER_VALUE' of helper _triple_of_global" in m
                         for m in named)


@device_function
def _reads_a_global_array(i):
    return HELPER_VALUE[i]


def test_a_helper_reading_a_global_array_is_refused_naming_the_helper(target):
    global HELPER_VALUE
    HELPER_VALUE = np.zeros(1)
    out = target.zeros(1, np.float64)
    with pytest.raises(FunctorError) as refused:
        compute(None, 1, calling(_reads_a_global_array), out, target=target)
    message = str(refused.value)
    assert "module global 'HELPER_VALUE' of helper _reads_a_global_array" in message
    assert "an array" in message and "state argument" in message
