"""Collectives between GPUs through NCCL (``cupy.cuda.nccl``), behind the same
:class:`~frontier.distributed.comm.Communicator` interface as Dask's transport.

The client asks rank 0's worker for an NCCL unique id (:func:`unique_id`) and hands it to every
rank; each rank's task then joins the communicator (:func:`communicator`; kept per worker, so a
later run on the same workers skips the setup). A run that fails aborts the communicators of its
unique id on every worker (:func:`abort`), releasing ranks blocked in a collective, and the next
run joins a fresh one. Buckets are CuPy arrays (the operators' Numba
device arrays convert without a copy through ``__cuda_array_interface__``):

* ``alltoallv``: first the bucket lengths (one int64 per rank pair, a grouped send/recv), then
  every array of every bucket in one NCCL group of sends and receives;
* ``allreduce``: ``ncclAllReduce`` of one element;
* ``allgather``: ``ncclAllGather`` of equal-length arrays.

Everything is enqueued on the current CuPy stream (the legacy default stream, which Numba's
kernels use too) and synchronized before a result is read. NVLink SHARP (multicast) is kept off
(``NCCL_NVLS_ENABLE=0``) in every process that joins: on a shared host it can take the GPUs out
of service.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from frontier.distributed.comm import REDUCE_OPS, Bucket, Communicator

__all__ = ["NcclComm", "unique_id", "communicator", "abort"]

_COMMS: dict[tuple[tuple, int], Any] = {}


def _nccl() -> Any:
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    from cupy.cuda import nccl

    return nccl


def unique_id() -> bytes | tuple:
    """A fresh NCCL unique id (run on rank 0's worker through ``Client.run``), in the form the
    installed CuPy makes and takes back (bytes since CuPy 14, a tuple of ints before)."""
    return _nccl().get_unique_id()


def communicator(uid: bytes | tuple, rank: int, size: int) -> Any:
    """This worker's NCCL communicator of ``uid`` (joined on first use: every rank must join
    at the same time, which the SPMD tasks of a run do)."""
    key = (tuple(uid), rank)
    comm = _COMMS.get(key)
    if comm is None:
        comm = _COMMS[key] = _nccl().NcclCommunicator(size, uid, rank)
    return comm


def abort(uid: bytes | tuple) -> None:
    """Abort and forget this worker's communicators of ``uid`` (run through ``Client.run`` when
    a run fails): a rank blocked in one of their collectives, waiting for a peer that failed
    and will never join it, is released (NCCL stops the collective's kernels) and fails at its
    next step; the next run joins a communicator of a fresh unique id. NCCL itself has no
    timeout: without this the blocked rank would hold its worker, and every later run on it,
    for ever."""
    for key in [k for k in _COMMS if k[0] == tuple(uid)]:
        _COMMS.pop(key).abort()


class NcclComm(Communicator):
    """Collectives over NCCL for CuPy (or CUDA-array-interface) arrays."""

    def __init__(self, uid: tuple, rank: int, size: int) -> None:
        import cupy

        super().__init__()
        self.xp = cupy
        self.rank, self.size = rank, size
        self._nccl = _nccl()
        self._comm = communicator(uid, rank, size)

    def synchronize(self) -> None:
        self.xp.cuda.Device().synchronize()

    def _stream(self) -> int:
        return self.xp.cuda.get_current_stream().ptr

    def _type(self, dtype: Any) -> int:
        nccl = self._nccl
        types = {np.dtype(np.uint8): nccl.NCCL_UINT8, np.dtype(np.int32): nccl.NCCL_INT32,
                 np.dtype(np.int64): nccl.NCCL_INT64, np.dtype(np.uint32): nccl.NCCL_UINT32,
                 np.dtype(np.float32): nccl.NCCL_FLOAT32, np.dtype(np.float64): nccl.NCCL_FLOAT64}
        found = types.get(np.dtype(dtype))
        if found is None:
            raise TypeError(f"NCCL exchange of dtype {np.dtype(dtype)}; expected one of "
                            f"{sorted(str(t) for t in types)}")
        return found

    def _sendrecv(self, sends: list[list[Any]], recvs: list[list[Any]]) -> None:
        """One NCCL group: the arrays ``sends[r]`` to rank r, ``recvs[r]`` from rank r, in
        order (self skipped)."""
        stream = self._stream()
        self._nccl.groupStart()
        for r in range(self.size):
            if r == self.rank:
                continue
            for s, d in zip(sends[r], recvs[r], strict=True):
                if s.size:
                    self._comm.send(s.data.ptr, s.size, self._type(s.dtype), r, stream)
                if d.size:
                    self._comm.recv(d.data.ptr, d.size, self._type(d.dtype), r, stream)
        self._nccl.groupEnd()

    def alltoallv(self, buckets: list[Bucket]) -> list[Bucket]:
        xp = self.xp
        if len(buckets) != self.size:
            raise ValueError(f"{len(buckets)} buckets for {self.size} ranks")
        buckets = [tuple(xp.ascontiguousarray(xp.asarray(a)) for a in b) for b in buckets]
        mine = buckets[self.rank]
        # the lengths first (one upload, one group, one read), then every array of every
        # bucket in one group
        counts = xp.asarray(np.array([b[0].size if b else 0 for b in buckets], np.int64))
        theirs = xp.zeros(self.size, dtype=xp.int64)
        self._sendrecv([[counts[r:r + 1]] for r in range(self.size)],
                       [[theirs[r:r + 1]] for r in range(self.size)])
        incoming = theirs.get().tolist()
        out: list[Bucket] = [mine if r == self.rank else
                             tuple(xp.empty(incoming[r], dtype=a.dtype) for a in mine)
                             for r in range(self.size)]
        self._sendrecv([list(b) for b in buckets], [list(b) for b in out])
        self.sent_bytes += sum(int(a.nbytes) for r, b in enumerate(buckets) if r != self.rank
                               for a in b)
        xp.cuda.get_current_stream().synchronize()
        return out

    def allreduce(self, value: int | float, op: str = "sum") -> int | float:
        if op not in REDUCE_OPS:
            raise ValueError(f"op={op!r}; expected one of {REDUCE_OPS}")
        xp, nccl = self.xp, self._nccl
        dtype = xp.float64 if isinstance(value, float) else xp.int64
        buf = xp.full(1, value, dtype=dtype)
        ops = {"sum": nccl.NCCL_SUM, "max": nccl.NCCL_MAX, "min": nccl.NCCL_MIN}
        self._comm.allReduce(buf.data.ptr, buf.data.ptr, 1, self._type(dtype), ops[op],
                             self._stream())
        self.sent_bytes += int(buf.nbytes) * (self.size - 1)
        return buf.get()[0].item()

    def allgather(self, array: Any) -> list[Any]:
        xp = self.xp
        send = xp.ascontiguousarray(xp.asarray(array))
        recv = xp.empty(send.size * self.size, dtype=send.dtype)
        self._comm.allGather(send.data.ptr, recv.data.ptr, send.size, self._type(send.dtype),
                             self._stream())
        xp.cuda.get_current_stream().synchronize()
        self.sent_bytes += int(send.nbytes) * (self.size - 1)
        return [recv[r * send.size:(r + 1) * send.size] for r in range(self.size)]
