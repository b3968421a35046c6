"""The time manager: whatever the clock, a bot that moves at each plan's deadline never flags."""

from __future__ import annotations

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from arbiter.bots.timeman import TimeManager, moves_left
from arbiter.engine import create_game


@settings(derandomize=True, max_examples=400, deadline=None)
@given(
    initial_ms=st.integers(300, 600_000),
    increment_ms=st.integers(0, 5_000),
    move_limit_ms=st.none() | st.integers(200, 60_000),
    latency=st.floats(0.0, 0.04),
    own_moves=st.integers(1, 120),
    bounded=st.booleans(),
)
# More moves to come than the time is spread over, each owed a long round trip: all of them are kept.
@example(initial_ms=4988, increment_ms=0, move_limit_ms=None, latency=0.03125, own_moves=79, bounded=True)
def test_moving_at_every_deadline_never_flags(
    initial_ms: int, increment_ms: int, move_limit_ms: int | None, latency: float, own_moves: int, bounded: bool
) -> None:
    """Each move is charged its deadline plus one round trip, as the server charges it.

    Only clocks that can be survived at all are tried: the round trips alone must fit (with the
    manager's jitter allowance), and without a bound on the moves the increment must pay for them.
    """
    manager = TimeManager()
    assume(initial_ms / 1000 > manager.safety + manager.lag_factor * latency * own_moves)
    assume(bounded or increment_ms / 1000 > manager.lag_factor * latency)
    remaining = initial_ms / 1000
    for left in range(own_moves, 0, -1):
        plan = manager.plan(
            remaining_ms=int(remaining * 1000),
            increment_ms=increment_ms,
            move_limit_ms=move_limit_ms,
            latency=latency,
            moves_left=left if bounded else None,
        )
        assert plan.budget > 0 and plan.deadline >= 0
        assert plan.budget <= plan.deadline or plan.deadline < manager.min_budget
        charged = plan.deadline + latency
        assert charged < remaining
        if move_limit_ms is not None:
            assert charged < move_limit_ms / 1000
        remaining += increment_ms / 1000 - charged


def test_the_budget_follows_the_clock_and_the_moves_left() -> None:
    manager = TimeManager()
    long, short = manager.plan(remaining_ms=60_000), manager.plan(remaining_ms=6_000)
    assert long.budget > 5 * short.budget
    assert manager.plan(remaining_ms=60_000, moves_left=2).budget > 5 * long.budget
    assert manager.plan(remaining_ms=60_000, increment_ms=2_000).budget > long.budget + 1
    assert manager.plan(remaining_ms=60_000, move_limit_ms=500).deadline < 0.5
    lagged = manager.plan(remaining_ms=1_000, moves_left=1, latency=0.2)
    assert lagged.deadline < 1.0 - 0.4  # two round trips kept


def test_moves_left_is_bounded_by_the_rules_where_they_bound_it() -> None:
    state = create_game("tictactoe").new_state()
    assert moves_left(state) == 5
    state.play((1, 1))
    assert moves_left(state) == 4
    assert moves_left(create_game("vanishing", {"ply_limit": 10}).new_state()) == 5
    assert moves_left(create_game("paper_soccer").new_state()) is None
