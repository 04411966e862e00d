"""The claims of docs/functors.md ("What a functor may use") that its examples do not run: what
compiles for CUDA and what does not (compiled with numba-cuda's ``compile_ptx``, which needs the
CUDA compiler libraries but no GPU; skipped where they are missing or the simulator runs), the
element types CUDA's atomics take, what the simulator runs that the cpu target refuses (and the
other way round: an ``njit`` helper), how often a pull calls a condition, and which module
globals of a helper a functor sees: a ``device_function``'s as they are at each call, an
``njit`` function's as Numba first compiled it."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numba
import numpy as np
import pytest
from numba import cuda, int64

from frontier import (
    Frontier,
    Graph,
    atomic_add,
    atomic_cas,
    atomic_claim,
    atomic_exch,
    atomic_load,
    atomic_max,
    atomic_min,
    atomic_or,
    atomic_store,
    common_neighbors,
    device_function,
    in_neighbors,
    intersection_count,
    neighbors,
    out_degree,
    random,
    random_bits,
    tally_common_neighbors,
)
from frontier.graphview import view_type
from operators import FunctorError, advance, compute
from tests.cuda_compiler import require_compiler

#: The architecture the claims are compiled for (the A100's, the oldest validated on).
ARCH = (8, 0)


@pytest.fixture
def compile_for_cuda(monkeypatch):
    """``compile(fn, *argument_types)``: raises what CUDA refuses. Skips where numba-cuda's
    compiler cannot run here (the simulator, or no NVRTC / NVVM)."""
    require_compiler()
    from numba.cuda import compile_ptx, dispatcher

    # a device function that a functor calls is compiled for "the current device", which
    # numba-cuda asks the driver for: there is none here
    monkeypatch.setattr(dispatcher, "get_current_device",
                        lambda: SimpleNamespace(compute_capability=ARCH))

    def compile(fn, *kinds):
        compile_ptx(fn, kinds, device=True, cc=ARCH)

    return compile


def _array(dtype):
    """The Numba type of a C-contiguous 1-D array of ``dtype`` (a state array)."""
    from numba import from_dtype, types

    return types.Array(from_dtype(np.dtype(dtype)), 1, "C")


I64, A64, F64 = int64, _array(np.int64), _array(np.float64)


# ---- what the page says builds for CUDA ------------------------------------------------------
def numbers(v, out):
    out[v] = (math.sqrt(out[v]) + math.exp(-1.0) + math.floor(2.5) + abs(-v) + min(v, 2)
              + v / 2 + v ** 0.5 + (-7 // 2) + (-7 % 2) + (v << 1) + round(2.5) + divmod(v, 3)[0]
              + np.float32(v) + np.int32(v) + np.uint64(v) + np.isnan(out[v]) + np.inf * 0)


def random_numbers(v, out):
    out[v] = random(7, v) + random_bits(7, v) % 5


def control_flow(v, out):
    pair = (v, v + 1)
    lo, hi = pair
    total = 0.0
    for i in range(2):
        total += pair[i]
    for x in (1, 2, 3):
        total += x
    for k, (a, b) in enumerate(zip(out[0:2], out[1:3])):  # noqa: B905 - Numba has no strict=
        total += k * a * b
    while total > 100:
        total -= 1
    out[v] = total if lo < hi else -1.0


def mixed_tuple_by_constant(v, out):
    t = (1, 2.5)
    a, b = t
    out[v] = a + b + t[1]


def inner_function(v, out):
    def square(x):
        return x * x
    out[v] = square(out[v])


def slices(v, out):
    out[0:2] = 1.0
    out[2:4].fill(2.0)
    out[v] = out[0:4].sum()


def local_array(v, out):
    slots = cuda.local.array(4, int64)
    slots[0] = v
    out[v] = slots[0]


def prints(v, out):
    print("vertex", v)


def graph_view(v, out, graph):
    total = out_degree(graph, v)
    for u in neighbors(graph, v):
        total += intersection_count(graph, v, u)
    for u in in_neighbors(graph, v):
        total += u
    total += tally_common_neighbors(graph, v, 0, out)
    out[v] = total + common_neighbors(graph, v, 0, out[0:1], out[1:2], out[2:3])


@device_function
def _twice(x):
    return 2 * x


@device_function
def _pair(x, by=1):
    return _twice(x), x + by


@device_function
def _store(out, v, value):
    out[v] = value


def _row(values, v):
    return values[v:v + 2]


_row = device_function(_row, inline=True)


def helpers(v, out):
    a, b = _pair(v)
    c, d = _pair(v, 5)
    _store(out, v, a + b + c + d + _row(out, v)[0])


@numba.njit
def _njit_helper(out, v):
    return out[v] + 1


def calls_an_njit_function(v, out):
    out[v] = _njit_helper(out, v)


@pytest.mark.parametrize("functor, kinds", [
    (numbers, (I64, F64)), (random_numbers, (I64, F64)), (control_flow, (I64, F64)),
    (mixed_tuple_by_constant, (I64, F64)), (inner_function, (I64, F64)), (slices, (I64, F64)),
    (local_array, (I64, A64)), (prints, (I64, A64)), (graph_view, (I64, A64, "view")),
    (helpers, (I64, A64)), (calls_an_njit_function, (I64, A64)),
], ids=lambda x: getattr(x, "__name__", ""))
def test_what_the_page_says_compiles_for_cuda_compiles(compile_for_cuda, functor, kinds):
    compile_for_cuda(functor, *(view_type() if k == "view" else k for k in kinds))


# ---- what the page says CUDA does not build ---------------------------------------------------
def sorts(v, out):
    out[v] = np.sort(out)[0]


def argsorts(v, out):
    out[v] = np.argsort(out)[0]


def uniques(v, out):
    out[v] = np.unique(out)[0]


def sorts_a_slice(v, out):
    out[0:2].sort()


def zeros(v, out):
    out[v] = np.zeros(2)[0]


def empty(v, out):
    out[v] = np.empty(2)[0]


def copies(v, out):
    out[v] = out.copy()[0]


def array_arithmetic(v, out):
    out[v] = (out[0:2] * 2)[0]


def dot(v, out):
    out[v] = np.dot(out[0:2], out[0:2])


def slice_max(v, out):
    out[v] = out[0:2].max()


def slice_min(v, out):
    out[v] = out[0:2].min()


def makes_a_list(v, out):
    items = [v, v + 1]
    out[v] = items[1]


def list_comprehension(v, out):
    items = [i for i in range(3)]
    out[v] = items[1]


def makes_a_dict(v, out):
    table = {1: v}
    out[v] = table[1]


def makes_a_set(v, out):
    seen = {v, 1}
    out[v] = len(seen)


def makes_a_string(v, out):
    out[v] = len(str(v))


def formats(v, out):
    out[v] = len(f"{v}")


def tries(v, out):
    try:
        out[v] = 1.0
    except Exception:
        out[v] = 2.0


def numpy_sqrt(v, out):
    out[v] = np.sqrt(out[v])


def numpy_exp(v, out):
    out[v] = np.exp(out[v])


def numpy_abs(v, out):
    out[v] = np.abs(out[v])


def numpy_floor(v, out):
    out[v] = np.floor(out[v])


def gcd(v, out):
    out[v] = math.gcd(v, 6)


def mixed_tuple_loop(v, out):
    for x in (1, 2.5):
        out[v] += x


def mixed_tuple_by_variable(v, out):
    t = (1, 2.5)
    out[v] = t[v % 2]


def _plain(out, v):
    return out[v] + 1


def calls_a_plain_function(v, out):
    out[v] = _plain(out, v)


@device_function
def _factorial(n):
    return 1 if n <= 1 else n * _factorial(n - 1)


def recursion(v, out):
    out[v] = _factorial(v)


def keyword_argument(v, out):
    a, b = _pair(v, by=2)
    out[v] = a + b


@device_function
def _row_not_inline(values, v):
    return values[v:v + 2]


def returns_a_view(v, out):
    out[v] = _row_not_inline(out, v)[0]


REFUSED = [sorts, argsorts, uniques, sorts_a_slice, zeros, empty, copies, array_arithmetic, dot,
           slice_max, slice_min, makes_a_list, list_comprehension, makes_a_dict, makes_a_set,
           makes_a_string, formats, tries, numpy_sqrt, numpy_exp, numpy_abs, numpy_floor, gcd,
           mixed_tuple_loop, mixed_tuple_by_variable, calls_a_plain_function, recursion,
           keyword_argument, returns_a_view]


@pytest.mark.parametrize("functor", REFUSED, ids=lambda f: f.__name__)
def test_what_the_page_says_cuda_does_not_build_fails_to_compile(compile_for_cuda, functor):
    with pytest.raises(Exception):  # noqa: B017 - Numba's typing and lowering errors vary
        compile_for_cuda(functor, I64, F64)


#: docs/functors.md's table: the element types CUDA has each atomic for.
CUDA_ATOMIC_TYPES = {
    atomic_add: "int32 int64 uint32 uint64 float32 float64",
    atomic_min: "int32 int64 uint32 uint64 float32 float64",
    atomic_max: "int32 int64 uint32 uint64 float32 float64",
    atomic_cas: "int32 int64 uint32 uint64",
    atomic_exch: "int32 int64 uint32 uint64",
    atomic_or: "int32 int64 uint32 uint64",
    atomic_claim: "int32 int64 float32 float64",
    atomic_load: "int8 int16 int32 int64 uint8 uint32 uint64 float32 float64 bool",
    atomic_store: "int8 int16 int32 int64 uint8 uint32 uint64 float32 float64 bool",
}
ELEMENT_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint32", "uint64", "float32",
                 "float64", "bool")


def _calling(atomic, dtype):
    """A functor calling ``atomic`` on an array of ``dtype`` with a value of that type, and its
    argument types."""
    from numba import from_dtype

    value = from_dtype(np.dtype(dtype))
    calls = {
        atomic_cas: lambda v, a, x: atomic_cas(a, 0, x, x),
        atomic_claim: lambda v, a, x: atomic_claim(a, 0),
        atomic_load: lambda v, a, x: atomic_load(a, 0),
    }
    return calls.get(atomic, lambda v, a, x: atomic(a, 0, x)), (I64, _array(dtype), value)


@pytest.mark.parametrize("atomic", list(CUDA_ATOMIC_TYPES), ids=lambda a: a.__name__)
def test_cuda_atomics_take_the_element_types_the_page_lists(compile_for_cuda, atomic):
    builds = set()
    for dtype in ELEMENT_TYPES:
        functor, kinds = _calling(atomic, dtype)
        try:
            compile_for_cuda(functor, *kinds)
            builds.add(dtype)
        except Exception:  # noqa: BLE001, S112 - what CUDA refuses is the finding
            continue
    assert builds == set(CUDA_ATOMIC_TYPES[atomic].split())


# ---- the cpu target and the simulator -------------------------------------------------------
PATH = Graph.from_edges([0, 1, 2], [1, 2, 3])


@pytest.mark.parametrize("functor", [mixed_tuple_loop, calls_a_plain_function, recursion,
                                     keyword_argument], ids=lambda f: f.__name__)
def test_the_simulator_runs_what_the_cpu_target_refuses(target, functor):
    out = target.zeros(PATH.num_vertices, np.float64)
    if target.name == "cpu":
        with pytest.raises(FunctorError, match=functor.__name__):
            compute(PATH, "vertices", functor, out, target=target)
    elif target.simulated:
        compute(PATH, "vertices", functor, out, target=target)


def test_an_njit_helper_runs_on_the_cpu_target_and_not_in_the_simulator(target):
    out = target.zeros(PATH.num_vertices, np.int64)
    if target.name == "cpu":
        compute(PATH, "vertices", calls_an_njit_function, out, target=target)
        assert target.to_host(out).tolist() == [1, 1, 1, 1]
    elif target.simulated:  # it cannot take the simulator's state arrays
        with pytest.raises(FunctorError, match="calls_an_njit_function"):
            compute(PATH, "vertices", calls_an_njit_function, out, target=target)


def test_a_pull_calls_the_condition_again_after_each_accepted_edge():
    calls = np.zeros(1, np.int64)

    def counted(dst, calls):
        calls[0] += 1
        return True

    everyone = Frontier.all_vertices(PATH, target="cpu")
    advance(PATH, everyone, lambda s, d, e, w, calls: True, calls, condition=counted,
            direction="pull", output="none")
    # once per vertex, and once more after each of the three accepted in-edges
    assert calls[0] == PATH.num_vertices + PATH.num_edges


SCALE = 3


@device_function
def _scaled(v):
    return v * SCALE


def _scaled_by_numba(v):
    return v * SCALE


def _each_scale(target, functor, scales):
    """What ``functor`` computes on ``PATH`` with the module global ``SCALE`` set to each of
    ``scales`` in turn."""
    global SCALE
    before, seen = SCALE, []
    try:
        for scale in scales:
            SCALE = scale
            out = target.zeros(PATH.num_vertices, np.int64)
            compute(PATH, "vertices", functor, out, target=target)
            seen.append(target.to_host(out).tolist())
    finally:
        SCALE = before
    return seen


def test_a_helper_reads_its_module_globals_as_they_are_at_each_call(target):
    def scale(v, out):
        out[v] = _scaled(v)

    assert _each_scale(target, scale, (3, 5, 3)) == [[0, 3, 6, 9], [0, 5, 10, 15], [0, 3, 6, 9]]


def test_an_njit_helper_keeps_the_globals_numba_first_compiled_it_with(target):
    helper = numba.njit(_scaled_by_numba)  # compiled first in this test

    def scale(v, out):
        out[v] = helper(v)

    assert _each_scale(target, scale, (3, 5)) == [[0, 3, 6, 9], [0, 3, 6, 9]]
