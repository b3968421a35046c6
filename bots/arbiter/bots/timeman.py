"""The time manager: how long a brain may think about one move, and when the move must be on its way.

The server charges a move from when it sends the turn to when the move arrives, so every move
also pays one network round trip. The plan therefore keeps ``lag_factor`` round trips for each
move still to come plus a fixed ``safety`` off the clock, spreads what is left over those moves,
adds most of the increment, and never gives more than a fixed share of what is left to a single
move. Two figures come out: the ``budget`` handed to the brain, and a later ``deadline``
(``overrun`` budgets, never past the usable time) by which the client sends *some* legal move
whatever the brain is doing — so a slow or stuck search never flags in normal conditions, and
one stuck move does not spend the time the next moves need.
"""

from __future__ import annotations

from dataclasses import dataclass

from arbiter.engine import State


@dataclass(frozen=True)
class TimePlan:
    """Seconds from the moment the turn was received: think for ``budget``, move by ``deadline``."""

    budget: float
    deadline: float


@dataclass(frozen=True)
class TimeManager:
    safety: float = 0.05  # seconds kept for scheduling and encoding on both sides
    lag_factor: float = 2.0  # round trips kept: the one every move pays, and one for jitter
    moves_to_go: int = 25  # the moves assumed still to come when the game cannot tell
    max_share: float = 0.4  # of the usable time, the most one move may take
    increment_share: float = 0.8  # of the increment, the part spent on the move that earns it
    overrun: float = 2.0  # the deadline, in budgets
    min_budget: float = 0.002

    def plan(
        self,
        *,
        remaining_ms: int,
        increment_ms: int = 0,
        move_limit_ms: int | None = None,
        latency: float = 0.0,
        moves_left: int | None = None,
    ) -> TimePlan:
        """The plan for a move with ``remaining_ms`` on the clock when the turn was sent.

        ``latency`` is the measured round trip in seconds; ``moves_left`` the most moves this side
        can still have to make (None: unknown). Every move to come is owed its round trips, so
        they are kept off the time this move may use.
        """
        lag = self.lag_factor * max(0.0, latency)
        to_go = self.moves_to_go if moves_left is None else max(1, min(moves_left, self.moves_to_go))
        # Every move still to come pays its round trips, not only the ``to_go`` the time is spread over.
        owed = to_go if moves_left is None else max(1, moves_left)
        usable = remaining_ms / 1000.0 - self.safety - lag * owed
        if move_limit_ms is not None:
            usable = min(usable, move_limit_ms / 1000.0 - self.safety - lag)
        if usable <= self.min_budget:
            return TimePlan(self.min_budget, max(0.0, usable))
        share = usable / to_go + self.increment_share * increment_ms / 1000.0
        budget = max(self.min_budget, min(share, usable * self.max_share if to_go > 1 else usable * 0.9))
        return TimePlan(budget, min(usable, self.overrun * budget))


def moves_left(state: State) -> int | None:
    """The most moves the side to move can still make, where the rules bound it (else None)."""
    family = state.game.family
    if family in ("mnk", "ttt3d"):
        return (len(state.legal_actions()) + 1) // 2
    if family == "vanishing":
        return (state.game.params["ply_limit"] - state.ply + 1) // 2
    return None
