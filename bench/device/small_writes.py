"""What writing a few values into device memory costs the host, three ways: a one-thread kernel
taking the values as arguments (launched through the cuda target, as the target's writes were
until 2026-11-28), the driver's asynchronous
host-to-device copy from pageable memory on the default stream (``cuMemcpyHtoDAsync``), and its
synchronous copy (``cuMemcpyHtoD``); each with the device idle and behind a running kernel (a
copy that waits for the device shows the kernel's time), and whether the asynchronous copy keeps
stream order with the kernels around it and lets its host buffer be reused at once.

Usage on a CUDA machine, from the repository root (bench/device/env.sh sourced):
``python3 bench/device/small_writes.py``.
"""

from __future__ import annotations

import statistics
import time

import numpy as np
from numba import cuda
from numba.cuda.cudadrv.driver import driver

from frontier.target import resolve_target


@cuda.jit
def _spin(out, sleeps):
    for _ in range(sleeps):
        cuda.nanosleep(1000)
    out[0] = out[0] + 1


@cuda.jit
def _put(array, start, count, v0, v1):
    values = (v0, v1)
    for i in range(2):
        if i < count:
            array[start + i] = values[i]


@cuda.jit
def _copy_first(src, dst, i):
    dst[i] = src[0]


def _timed(write, calls: int = 300) -> float:
    """Median µs of ``write()`` from the host."""
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        write()
        times.append(1e6 * (time.perf_counter() - start))
    return statistics.median(times)


def main() -> None:
    target = resolve_target("cuda")
    counter = cuda.to_device(np.zeros(1, np.int64))
    arrays = {dt: target.empty(16, dt) for dt in (np.int32, np.int64, np.float64)}
    host = {dt: np.ones(8, dt) for dt in arrays}
    _spin[1, 1](counter, 1)
    cuda.synchronize()

    def put(dt):
        a, cast = arrays[dt], np.dtype(dt).type
        return lambda: target.launch(_put, 1, 1, (a, np.int64(0), np.int64(2), cast(1), cast(2)))

    def htod_async(dt):
        a, h = arrays[dt], host[dt]
        return lambda: driver.cuMemcpyHtoDAsync(a.device_ctypes_pointer.value, h.ctypes.data,
                                                2 * h.itemsize, 0)

    def htod_sync(dt):
        a, h = arrays[dt], host[dt]
        return lambda: driver.cuMemcpyHtoD(a.device_ctypes_pointer.value, h.ctypes.data,
                                           2 * h.itemsize)

    for name, make in (("one-thread kernel launch", put),
                       ("cuMemcpyHtoDAsync pageable", htod_async),
                       ("cuMemcpyHtoD pageable", htod_sync)):
        for dt in arrays:
            write = make(dt)
            for _ in range(20):
                write()
            cuda.synchronize()
            idle = _timed(lambda write=write: (write(), cuda.synchronize()), 300)
            sync_only = _timed(cuda.synchronize, 300)
            queued = []
            for _ in range(50):
                _spin[1, 1](counter, 1000)  # ~1 ms
                start = time.perf_counter()
                write()
                queued.append(1e6 * (time.perf_counter() - start))
                cuda.synchronize()
            print(f"{name:30s} {np.dtype(dt).name:8s} idle {idle - sync_only:8.1f} us "
                  f"(with a sync; sync alone {sync_only:.1f})  behind a 1 ms kernel "
                  f"{statistics.median(queued):8.1f} us", flush=True)

    # a chain as a call on a tiny graph makes it: kernel, write, kernel, write, kernel, then a
    # synchronization; the wall time of the chain tells what each way of writing adds on the
    # device's side as well (a copy between two kernels crosses from compute to copy engine)
    one = target.empty(1, np.int64)

    def chain(step):
        """Median µs of kernel, ``step()``, kernel, ``step()``, kernel, synchronization."""
        def run():
            _copy_first[1, 1](one, counter, 0)
            step()
            _copy_first[1, 1](one, counter, 0)
            step()
            _copy_first[1, 1](one, counter, 0)
            cuda.synchronize()

        for _ in range(20):
            run()
        return _timed(run, 500)

    for name, make in (("one-thread kernel launch", put),
                       ("cuMemcpyHtoDAsync pageable", htod_async)):
        print(f"chain of 3 kernels and 2 writes ({name}): {chain(make(np.int64)):8.1f} us",
              flush=True)

    filled = target.empty(64, np.int32)
    for name, fill in (("memset", lambda: target.fill(filled, -1)),
                       ("fill kernel", lambda: target.launch(target.helper("_fill"), 1, 64,
                                                             (filled, np.int32(-1))))):
        print(f"chain of 3 kernels and 2 fills ({name}): {chain(fill):8.1f} us", flush=True)

    # sizes: host µs of an asynchronous copy behind a 1 ms kernel, and whether a copy of that
    # size keeps stream order with its host buffer overwritten at once
    for nbytes in (8, 64, 512, 4096, 65536, 1 << 20):
        count = nbytes // 8
        src = target.empty(count, np.int64)
        dst = target.empty(2, np.int64)
        queued, wrong = [], 0
        for trial in range(300):
            value = np.full(count, trial, np.int64)
            _spin[1, 1](counter, 100 if trial % 3 == 0 else 1)
            start = time.perf_counter()
            driver.cuMemcpyHtoDAsync(src.device_ctypes_pointer.value, value.ctypes.data,
                                     nbytes, 0)
            queued.append(1e6 * (time.perf_counter() - start))
            value[:] = -1  # reused at once: the copy must have taken the values already
            _copy_first[1, 1](src, dst, 0)
            after = np.full(count, trial + 1, np.int64)
            driver.cuMemcpyHtoDAsync(src.device_ctypes_pointer.value, after.ctypes.data,
                                     nbytes, 0)
            after[:] = -2
            del after
            _copy_first[1, 1](src, dst, 1)
            got = dst.copy_to_host()
            wrong += int(got[0] != trial or got[1] != trial + 1)
        print(f"cuMemcpyHtoDAsync {nbytes:8d} bytes: host {statistics.median(queued):8.1f} us "
              f"behind a kernel; out of order or not taken at the call: {wrong} of 300",
              flush=True)


if __name__ == "__main__":
    main()
