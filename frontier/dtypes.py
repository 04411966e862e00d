"""The dtypes a graph keeps its arrays in, whichever memory holds them: int32 vertex ids, int64
row offsets, and weights in one of four stored dtypes (:func:`stored_dtype`). The host
constructors (:mod:`frontier.graph`) and the device ones (:mod:`frontier.device_graph`) both
convert to these.
"""

from __future__ import annotations

import numpy as np

__all__ = ["VERTEX_DTYPE", "OFFSET_DTYPE", "WEIGHT_DTYPES", "stored_dtype"]

VERTEX_DTYPE = np.int32
OFFSET_DTYPE = np.int64
#: The dtypes weights are stored in.
WEIGHT_DTYPES = (np.float64, np.float32, np.int64, np.int32)


def stored_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype weights of ``dtype`` are stored in (one of :data:`WEIGHT_DTYPES`)."""
    if dtype.kind == "f":
        return np.dtype(np.float32 if dtype == np.float32 else np.float64)
    small = dtype.itemsize < 4 or (dtype.itemsize == 4 and dtype.kind == "i")
    return np.dtype(np.int32 if small else np.int64)
