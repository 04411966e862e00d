"""What every operator shares (operators/common.py): each thread's temporaries are its own."""

from __future__ import annotations

import threading

import numpy as np

from operators.common import thread_buffer


def test_a_threads_buffer_is_kept_for_its_next_call_and_never_shared(target):
    name = f"test buffer {target!r}"
    mine = thread_buffer(name, target, 10, np.int32)
    assert thread_buffer(name, target, 10, np.int32) is mine  # reused
    assert thread_buffer(name, target, 5, np.int32) is mine  # large enough
    theirs = []
    worker = threading.Thread(target=lambda: theirs.append(
        thread_buffer(name, target, 10, np.int32)))
    worker.start()
    worker.join()
    assert theirs[0] is not mine  # a thread that never asked gets one of its own
    grown = thread_buffer(name, target, 1000, np.int32)
    assert grown.shape[0] >= 1000 and grown is not mine
