"""The options users pass as strings, each an enumeration in one place (Gunrock keeps them in
one ``configs.hxx``).

Every member *is* its string (a :class:`StrEnum`): ``Kind.SPARSE == "sparse"``, it hashes,
formats and prints as ``"sparse"``, and its ``repr`` is the string's, so messages that list the
choices read as they always did. Users keep passing plain strings; the library compares them
with the members, and converts where it needs to reject a bad one (``Cull(value)``).

* :class:`Kind`: a frontier's representation, a ``"sparse"`` queue or a ``"dense"`` bitmap;
* :class:`Domain`: what a frontier's elements are, ``"vertices"`` or ``"edges"``;
* :class:`Way`: the direction of an advance, ``"push"``, ``"pull"`` or ``"auto"`` (chosen per
  step, :class:`operators.Direction`);
* :class:`Mode`: how the steps of a traversal run, ``"fused"`` (in one persistent kernel),
  ``"host"`` (a launch sequence per step) or ``"block"`` (the small-frontier mode, one block);
* :class:`Cull`: how a push drops repeated heads, ``"none"``, ``"bitmap"`` or ``"hash"``.

The load balancers' names are no option of this layer: the operators layer owns their registry
(``operators.available_balancers()``, :data:`operators.balancers.BALANCERS`). A layer above
enumerates its own choices with :class:`Option` (``algorithms.sssp.SSSPMethod``), and
``frontier.validate.one_of`` turns a given string into the member.
"""

from __future__ import annotations

import enum
import sys
from functools import cache

__all__ = ["StrEnum", "Option", "Kind", "Domain", "Way", "Mode", "Cull", "values"]

if sys.version_info >= (3, 11):
    from enum import StrEnum
else:  # pragma: no cover - Python 3.10

    class StrEnum(str, enum.Enum):
        """``enum.StrEnum`` of Python 3.11: members are strings and print as their value."""

        def __str__(self) -> str:
            return str.__str__(self)

        def __format__(self, spec: str) -> str:
            return str.__format__(self, spec)


class Option(StrEnum):
    """An option's choices; a member's ``repr`` is its string's (``'sparse'``)."""

    def __repr__(self) -> str:
        return repr(self.value)


@cache
def values(option: type[Option]) -> tuple[str, ...]:
    """The choices of ``option`` as plain strings, in declaration order (worked out once per
    option: options are checked on every call)."""
    return tuple(member.value for member in option)


class Kind(Option):
    """A frontier's representation."""

    SPARSE = "sparse"
    DENSE = "dense"


class Domain(Option):
    """What a frontier's elements are."""

    VERTICES = "vertices"
    EDGES = "edges"


class Way(Option):
    """The direction of an advance (``"auto"``: chosen per step)."""

    PUSH = "push"
    PULL = "pull"
    AUTO = "auto"


class Mode(Option):
    """How a traversal's steps run."""

    FUSED = "fused"
    HOST = "host"
    BLOCK = "block"


class Cull(Option):
    """How a push drops repeated heads from its queue."""

    NONE = "none"
    BITMAP = "bitmap"
    HASH = "hash"

