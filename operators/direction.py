"""Which way an advance goes: push (top-down), pull (bottom-up), or chosen per step.

Ligra's ``edgeMap`` (Shun & Blelloch, PPoPP 2013) makes direction the operator's business: the
same advance either expands the frontier's out-edges (push) or has every vertex that may still
change scan its in-edges for a frontier member (pull). Beamer et al. (SC 2012; Busato &
Bombieri, *Graph Algorithms on GPUs*, §2.1) switch between the two during a traversal: pull once
the frontier is large, push again once it is small and shrinking. :class:`Direction` is that
switching rule with its history, passed by the caller from step to step; ``advance`` and
``traverse`` also accept the plain strings ``"push"``, ``"pull"`` and ``"auto"`` (a fresh
``Direction`` for the call).

The measure is the frontier's size, which a host loop reads anyway and a fused traversal tests
on the device: push while ``|F| <= max(|V| / alpha, min_pull)`` (``min_pull`` is 0 unless set;
the adaptive runtime sets it to its T2); once it outgrows that, pull until
``|F| < |V| / beta`` and the frontier shrank since the previous step, then push to the end (the
frontier's peak has passed). The defaults (alpha 64, beta 24) were tuned on rmat and grid graphs
on an H100 (``python -m bench direction_thresholds``, docs/performance.md). The thresholds
belong to ``"auto"``: passing ``alpha`` or ``beta`` with ``"push"`` or ``"pull"`` raises
``ValueError`` rather than being ignored.
"""

from __future__ import annotations

from frontier import validate
from frontier.options import Way, values

#: The default switching thresholds (see the module docstring).
ALPHA, BETA = 64.0, 24.0

__all__ = ["Direction"]


class Direction:
    """A direction mode and, for ``"auto"``, the switching state of one traversal."""

    def __init__(self, mode: str = Way.AUTO, alpha: float | None = None,
                 beta: float | None = None, min_pull: int = 0) -> None:
        way = Way._value2member_map_.get(mode) if isinstance(mode, str) else None
        if way is None:
            raise ValueError(f"direction={mode!r}; expected one of {values(Way)} or a Direction")
        if way != Way.AUTO:
            validate.unused(f"direction={mode!r} (the thresholds switch direction='auto' only)",
                            {"alpha": alpha, "beta": beta})
        min_pull = validate.count("min_pull", min_pull)
        self.mode = way
        self.alpha = ALPHA if alpha is None else validate.positive("alpha", alpha)
        self.beta = BETA if beta is None else validate.positive("beta", beta)
        self.min_pull = min_pull
        self.pulling = mode == Way.PULL
        self.past_peak = False
        self._last_size: int | None = None

    @classmethod
    def of(cls, direction: str | Direction) -> Direction:
        """``direction`` itself, or one for a mode name (fresh for ``"auto"``, whose state
        changes; shared for ``"push"`` and ``"pull"``, which have none)."""
        if isinstance(direction, Direction):
            return direction
        if isinstance(direction, str) and direction in _FIXED:
            return _FIXED[direction]
        return cls(direction)

    def choose(self, size: int, num_vertices: int) -> str:
        """The direction of the next step, whose input frontier holds ``size`` elements."""
        if self.mode != Way.AUTO:
            return self.mode
        if self.pulling:
            if (size < num_vertices / self.beta and self._last_size is not None
                    and size < self._last_size):
                self.pulling, self.past_peak = False, True
        elif not self.past_peak and size > max(num_vertices / self.alpha, self.min_pull):
            self.pulling = True
        self._last_size = size
        return Way.PULL if self.pulling else Way.PUSH

    def push_limit(self, num_vertices: int) -> int | None:
        """The frontier size above which a fused push phase must stop and hand over to a pull
        step (None: push to the end)."""
        if self.mode != Way.AUTO or self.past_peak:
            return None
        return max(int(num_vertices / self.alpha), self.min_pull)

    def with_min_pull(self, min_pull: int) -> Direction:
        """A copy (with this one's switching state) that never pulls a frontier of
        ``min_pull`` elements or fewer: the adaptive runtime's floor, below which a pull step
        (a launch over every vertex and a host read) costs more than a fused push step."""
        copy = object.__new__(Direction)  # this one's checked values and state
        copy.__dict__.update(self.__dict__)
        copy.min_pull = max(self.min_pull, validate.count("min_pull", min_pull))
        return copy

    def __repr__(self) -> str:
        state = f", {'pulling' if self.pulling else 'pushing'}" if self.mode == Way.AUTO else ""
        return f"Direction({self.mode!r}, alpha={self.alpha:g}, beta={self.beta:g}{state})"


_FIXED = {mode: Direction(mode) for mode in (Way.PUSH, Way.PULL)}
