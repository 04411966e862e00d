"""Environment variables that a call reads every time, read cheaply.

The checked mode (``FRONTIER_BOUNDSCHECK``) is part of every kernel lookup, and the adaptive
runtime's calibration cache is found from the cache directory's variables
(:data:`frontier.runtime.cache_dir.CACHE_DIR_INPUTS`) on every traversal, so that a change takes
effect at the next call. ``os.environ.get`` encodes the name and decodes the value on every read;
:func:`get` reads the same mapping with each name encoded once, and :func:`snapshot` gives a
memo's key for several variables without decoding them. Both see every change made through
``os.environ`` (pytest's ``monkeypatch.setenv`` too) at once, as ``os.environ.get`` does; like
it, they do not see ``os.putenv`` alone.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["get", "snapshot", "SettingError"]


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


#: Per tuple of variable names: the keys of ``os.environ``'s own mapping.
_KEY_TUPLES: dict[tuple[str, ...], tuple[Any, ...]] = {}


def snapshot(names: tuple[str, ...]) -> tuple[Any, ...]:
    """The values of the variables ``names`` as ``os.environ`` keeps them (None where unset):
    equal for equal values, so a key for what is computed from them."""
    environ = os.environ
    data = getattr(environ, "_data", None)
    if data is None:
        return tuple(map(environ.get, names))
    keys = _KEY_TUPLES.get(names)
    if keys is None:
        keys = _KEY_TUPLES[names] = tuple(map(environ.encodekey, names))
    return tuple(map(data.get, keys))
