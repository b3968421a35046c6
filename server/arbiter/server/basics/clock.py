"""Match clocks: Fischer time (initial + increment) with an optional per-move limit, and alarms.

``FischerClock`` is pure arithmetic over times the caller passes in (seconds on any monotonic
scale), so tests drive it with made-up times. ``Alarm`` turns a deadline into one asyncio timer
(no polling) and reads an injectable time source, re-arming if it fires early.

The rules (SPEC.md, "Clocks"): only the side to move has a running clock. It starts when the
server sends the message that gives that side the turn (``match_start`` for the first move,
``moved`` for the others) and stops when the server receives that side's legal move. The move is
charged ``elapsed = receive - start - lag``; the side loses on time when ``elapsed >= remaining``
or, with a per-move limit, ``elapsed >= move_limit``. After a legal move the increment is added.
``lag`` is the mover's network allowance for the turn, set when its clock starts: the round trip of
its connection, bounded (``ServerConfig.max_lag_credit_ms``), so the network's time is not charged
as thinking time, and the flag waits for it too.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ClockSpec:
    """A time control: ``initial_ms`` each, ``increment_ms`` added after each move, ``move_limit_ms`` per move."""

    initial_ms: int
    increment_ms: int = 0
    move_limit_ms: int | None = None

    def describe(self) -> dict[str, Any]:
        return {"initial_ms": self.initial_ms, "increment_ms": self.increment_ms, "move_limit_ms": self.move_limit_ms}

    @classmethod
    def from_description(cls, described: dict[str, Any]) -> ClockSpec:
        """The spec ``describe`` gave (as stored with a game)."""
        return cls(
            int(described["initial_ms"]), int(described.get("increment_ms") or 0), described.get("move_limit_ms")
        )


class FischerClock:
    """Both sides' remaining time; at most one side's clock runs."""

    __slots__ = ("increment", "lag", "move_limit", "remaining", "running", "turn_started")

    def __init__(self, spec: ClockSpec) -> None:
        self.remaining = [spec.initial_ms / 1000.0, spec.initial_ms / 1000.0]
        self.increment = spec.increment_ms / 1000.0
        self.move_limit = None if spec.move_limit_ms is None else spec.move_limit_ms / 1000.0
        self.running: int | None = None
        self.turn_started = 0.0
        self.lag = 0.0  # the running side's network allowance for this turn, in seconds

    def start(self, color: int, now: float, lag: float = 0.0) -> None:
        """Start ``color``'s clock (the other is stopped), with ``lag`` seconds of network allowance."""
        self.running = color
        self.turn_started = now
        self.lag = lag

    def deadline(self) -> float | None:
        """When the running side's flag falls, or None when no clock runs."""
        if self.running is None:
            return None
        budget = self.remaining[self.running]
        if self.move_limit is not None and self.move_limit < budget:
            budget = self.move_limit
        return self.turn_started + self.lag + budget

    def flagged(self, now: float) -> bool:
        """Whether the running side has run out of time (total or per move) at ``now``."""
        deadline = self.deadline()
        return deadline is not None and now >= deadline

    def press(self, now: float, next_color: int | None, next_lag: float = 0.0) -> float:
        """The running side moved at ``now``: charge it, add the increment, start ``next_color`` with
        ``next_lag``. Returns the seconds charged. The caller checks ``flagged(now)`` first: a late move loses.
        """
        color = self.running
        if color is None:
            raise RuntimeError("no clock is running")
        elapsed = now - self.turn_started - self.lag  # _used(now), inline: every move comes here
        if elapsed < 0.0:
            elapsed = 0.0
        remaining = self.remaining
        remaining[color] = remaining[color] - elapsed + self.increment
        self.running = next_color
        if next_color is not None:
            self.turn_started = now
            self.lag = next_lag
        return elapsed

    def _used(self, now: float) -> float:
        """The running side's thinking time so far: the time since its turn began, less its allowance."""
        return max(0.0, now - self.turn_started - self.lag)

    def stop(self, now: float) -> None:
        """Stop the running clock for good (the match ended), charging the time used so far."""
        if self.running is not None:
            self.remaining[self.running] = max(0.0, self.remaining[self.running] - self._used(now))
            self.running = None

    def remaining_ms(self, now: float) -> list[int]:
        """Both remaining times in whole milliseconds at ``now`` (the running one counting down)."""
        remaining, running = self.remaining, self.running
        out = [int(remaining[0] * 1000), int(remaining[1] * 1000)]
        if running is not None:
            used = now - self.turn_started - self.lag  # _used(now), inline: every move comes here
            left = int((remaining[running] - (used if used > 0.0 else 0.0)) * 1000)
            out[running] = left if left > 0 else 0
        return out


class Alarm:
    """Call ``callback`` once the time source reaches a deadline; one asyncio timer, cancellable.

    ``now`` must be on the same scale as the deadlines; the timer is scheduled ``deadline - now()``
    seconds ahead on the event loop, and if it fires before ``now()`` reaches the deadline (another
    time source, timer granularity, or a deadline moved later) it simply re-arms. Moving a deadline
    later keeps the armed timer (one early wake-up instead of a cancel and a new timer per move).
    """

    __slots__ = ("_armed_for", "_callback", "_deadline", "_handle", "_now")

    def __init__(self, callback: Callable[[], None], *, now: Callable[[], float] = time.monotonic) -> None:
        self._callback = callback
        self._now = now
        self._handle: asyncio.TimerHandle | None = None
        self._deadline = 0.0
        self._armed_for = 0.0

    def set(self, deadline: float) -> None:
        """Ring at ``deadline`` (replacing any earlier setting)."""
        self._deadline = deadline
        if self._handle is not None:
            if self._armed_for <= deadline:
                return  # the armed timer fires first and re-arms for the new deadline
            self._handle.cancel()
        self._arm()

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    @property
    def armed(self) -> bool:
        return self._handle is not None

    def _arm(self) -> None:
        self._armed_for = self._deadline
        self._handle = asyncio.get_running_loop().call_later(max(0.0, self._deadline - self._now()), self._ring)

    def _ring(self) -> None:
        if self._now() < self._deadline:
            self._arm()
            return
        self._handle = None
        self._callback()
