"""Environment variables that a call reads every time, read cheaply.

The checked mode (``FRONTIER_BOUNDSCHECK``) is part of every kernel lookup, and the adaptive
runtime's calibration cache is found from ``FRONTIER_CACHE_DIR``, ``XDG_CACHE_HOME`` and
``HOME`` on every traversal, so that a change takes effect at the next call. ``os.environ.get``
encodes the name and decodes the value on every read; :func:`get` reads the same mapping with
each name encoded once. It sees every change made through ``os.environ`` (pytest's
``monkeypatch.setenv`` too) at once, as ``os.environ.get`` does; like it, it does not see
``os.putenv`` alone.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["get", "SettingError"]


class SettingError(ValueError):
    """An environment variable of Frontier holds a value it does not take; the message names
    the variable, its value and what was expected. Raised as it is through every call (never
    turned into another error, such as a generator spec's), since the call's own arguments are
    not at fault."""

#: Per variable name: the key of ``os.environ``'s own mapping.
_KEYS: dict[str, Any] = {}


def get(name: str, default: str | None = None) -> str | None:
    """``os.environ.get(name, default)``."""
    environ = os.environ
    data = getattr(environ, "_data", None)
    if data is None:  # an interpreter whose os.environ keeps no encoded mapping
        return environ.get(name, default)
    key = _KEYS.get(name)
    if key is None:
        key = _KEYS[name] = environ.encodekey(name)
    value = data.get(key)
    return default if value is None else environ.decodevalue(value)
