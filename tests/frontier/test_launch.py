"""The GPU launcher's argument cache (frontier/runtime/launch.py), with stand-ins for Numba's
kernels (the launches themselves run on the GPU: tests/ on an H100 through bench/gpu.sh)."""

from __future__ import annotations

import gc

from frontier.runtime.launch import Launcher


class Array:
    """A stand-in device array."""

    __cuda_array_interface__ = {}

    def __init__(self, name: str, dtype: str = "int32") -> None:
        self.name = name
        self.dtype = dtype


class Compiled:
    cooperative = False
    extensions: list = []

    def __init__(self, types: tuple, conversions: list) -> None:
        self.argument_types = types
        self.conversions = conversions
        self._codelibrary = self

    def get_cufunc(self):
        return self

    kernel = "function"

    def _prepare_args(self, ty, value, stream, retr, out):
        self.conversions.append(value)
        out.append(value.name if hasattr(value, "name") else value)

    def max_cooperative_grid_blocks(self, threads):
        return 4


class Kernel:
    """A stand-in ``cuda.jit`` dispatcher: ``compiled`` counts its compilations (one per
    argument types; the launcher asks the dispatcher itself, whose disk cache serves them)."""

    def __init__(self) -> None:
        self.compiled = 0
        self.conversions: list = []

    def typeof_pyval(self, value):
        return type(value).__name__

    def compile(self, argtypes):
        self.compiled += 1
        return Compiled(argtypes, self.conversions)


class TypedKernel(Kernel):
    """A stand-in dispatcher whose compiled kernel takes ``types`` (Numba types)."""

    def __init__(self, types: tuple) -> None:
        super().__init__()
        self.types = types

    def compile(self, argtypes):
        self.compiled += 1
        return Compiled(self.types, self.conversions)


def launcher(calls: list) -> Launcher:
    return Launcher(lambda stream, config, fn, *flat: calls.append((config, flat)),
                    lambda **kw: tuple(sorted(kw.items())), "stream",
                    lambda a: str(getattr(a, "dtype", type(a))))


def test_the_same_arrays_are_converted_once_and_scalars_every_launch():
    calls: list = []
    launch, kernel = launcher(calls), Kernel()
    a, b = Array("a"), Array("b")
    launch(kernel, 2, 32, (a, 1, b))
    launch(kernel, 2, 32, (a, 5, b))
    assert kernel.compiled == 1
    assert [x for x in kernel.conversions if isinstance(x, Array)] == [a, b]
    assert calls[-1][1] == ("a", 5, "b")


def test_a_scalar_is_converted_by_the_ctypes_type_numba_gives_its_type_without_numba():
    import ctypes

    from numba.cuda import types

    calls: list = []
    kernel = TypedKernel((types.int64, types.uint32, types.float64, types.float32,
                          types.boolean))
    launcher(calls)(kernel, 1, 32, (7, 3, 2.5, 0.5, True))
    flat = calls[-1][1]
    assert [type(x) for x in flat] == [ctypes.c_int64, ctypes.c_uint32, ctypes.c_double,
                                       ctypes.c_float, bool]
    assert [getattr(x, "value", x) for x in flat] == [7, 3, 2.5, 0.5, True]
    assert kernel.conversions == []  # none went through the kernel's own conversion


def test_a_new_array_object_at_a_position_is_converted_again():
    calls: list = []
    launch, kernel = launcher(calls), Kernel()
    a = Array("a")
    launch(kernel, 1, 32, (a,))
    launch(kernel, 1, 32, (Array("c"),))
    assert calls[-1][1] == ("c",)
    assert kernel.compiled == 1  # same argument types: the same compiled kernel


class Vector(Array):
    """A stand-in one-dimensional device array with a layout."""

    def __init__(self, name: str, dtype: str = "int32", step: int = 1) -> None:
        import numpy as np

        super().__init__(name)
        self.dtype = np.dtype(dtype)
        self.shape = (5,)
        self.strides = (step * self.dtype.itemsize,)


def test_a_new_array_of_the_same_class_dtype_and_adjacent_elements_is_not_typed_again():
    calls: list = []
    typed: list = []
    launch = Launcher(lambda stream, config, fn, *flat: calls.append(flat),
                      lambda **kw: tuple(sorted(kw.items())), "stream",
                      lambda a: typed.append(a) or str((a.dtype, a.strides)))
    kernel = Kernel()
    launch(kernel, 1, 32, (Vector("a"),))
    assert len(typed) == 1
    launch(kernel, 1, 32, (Vector("b"),))  # a new array of the same kind: no typing
    assert len(typed) == 1 and calls[-1] == ("b",)
    launch(kernel, 1, 32, (Vector("c", "float64"),))  # another dtype
    launch(kernel, 1, 32, (Vector("d", step=2),))  # every other element: another layout
    assert len(typed) == 3 and calls[-1] == ("d",)
    assert kernel.compiled == 3


def test_an_array_that_died_is_never_taken_for_a_new_one_at_its_address():
    calls: list = []
    launch, kernel = launcher(calls), Kernel()
    launch(kernel, 1, 32, (Array("old"),))
    gc.collect()
    launch(kernel, 1, 32, (Array("new"),))
    assert calls[-1][1] == ("new",)


def test_other_argument_types_get_their_own_compiled_kernel():
    calls: list = []
    launch, kernel = launcher(calls), Kernel()
    launch(kernel, 1, 32, (Array("a", "int32"), 1))
    launch(kernel, 1, 32, (Array("b", "float64"), 1))
    launch(kernel, 1, 32, (Array("c", "float64"), 1.5))
    assert kernel.compiled == 3


def test_a_cooperative_grid_is_clamped_to_what_the_device_holds():
    calls: list = []
    launch, kernel = launcher(calls), Kernel()
    launch(kernel, 100, 32, (Array("a"),), cooperative=True)
    assert dict(calls[-1][0])["grid"] == 4


def test_a_host_array_argument_is_typed_at_every_launch():
    import numpy as np

    calls: list = []
    launch, kernel = launcher(calls), Kernel()
    launch(kernel, 1, 32, (np.zeros(2, np.int32),))
    launch(kernel, 1, 32, (np.zeros(2, np.float64),))
    assert kernel.compiled == 2


def test_launches_from_several_threads_each_pass_their_own_arrays_and_compile_once():
    import sys
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    class SlowKernel(Kernel):
        def specialize(self, *args):  # compiling takes a while: other threads arrive meanwhile
            time.sleep(0.05)
            return super().specialize(*args)

    calls: list = []
    launch, kernel = launcher(calls), SlowKernel()
    together = threading.Barrier(4)
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads interleave between almost every bytecode
    try:
        def work(k: int) -> None:
            together.wait(timeout=30)
            for i in range(300):  # new arrays each time: every position evicts its oldest
                a = Array(f"{k}.{i}")
                launch(kernel, 1, 32, (a, i, a))

        with ThreadPoolExecutor(4) as pool:
            list(pool.map(work, range(4)))
    finally:
        sys.setswitchinterval(before)
    assert sorted(flat for _, flat in calls) == sorted(
        (f"{k}.{i}", i, f"{k}.{i}") for k in range(4) for i in range(300))
    assert kernel.compiled == 1


def test_a_device_array_read_directly_gives_the_fields_numba_s_own_conversion_gives():
    import os

    import numpy as np
    import pytest

    from frontier.runtime.cuda_support import cuda_usable
    from frontier.runtime.launch import device_array_fields

    if os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0") or not cuda_usable():
        pytest.skip("needs a GPU: Numba's conversion of device arrays")
    from numba import cuda

    @cuda.jit
    def takes(a):
        pass

    base = cuda.to_device(np.arange(24, dtype=np.float64))
    for array in (base, base[3:11], base[::3], base[:0], cuda.device_array((4, 6), np.int32),
                  cuda.device_array((4, 6), np.int32)[:, 1:4], cuda.device_array(5, np.uint8)):
        compiled = takes.compile((takes.typeof_pyval(array),))
        numba_fields: list = []
        compiled._prepare_args(compiled.argument_types[0], array, 0, [], numba_fields)
        assert device_array_fields(array) == numba_fields, array.shape
