"""A swap opening's phase as a pure state machine: a stored game's stones and choices replay to the
same phase, colours and clocks (a cluster's failover), and bad requests change nothing."""

from __future__ import annotations

import pytest

from arbiter.engine import create_game
from arbiter.protocol.errors import ErrorCode
from arbiter.server.basics.clock import ClockSpec
from arbiter.server.play.match import Match, MatchError
from arbiter.server.play.swap_opening import (
    SwapOpening,
    choose,
    opening_of,
    place,
    resume,
    stored_choices,
    stored_seats,
)

STONES = [[7, 7], [8, 7], [7, 9], [6, 8], [9, 6], [0, 0]]


def new_match() -> tuple[Match, SwapOpening]:
    match = Match("m", create_game("gomoku", {"opening": "swap2"}), ClockSpec(60_000, 1_000))
    opening = opening_of(match)
    assert opening is not None
    match.start(0.0)
    return match, opening


@pytest.mark.parametrize("stop", range(len(STONES) + 1))
def test_a_stored_phase_replays_to_the_same_state(stop: int) -> None:
    match, opening = new_match()
    now, script = 0.0, [("stone", 0), ("stone", 0), ("stone", 0), ("choice", "place"), ("stone", 1), ("stone", 1),
                        ("choice", "white"), ("stone", None)]  # fmt: skip
    stored, ply = [], 0
    for kind, what in script[: stop + (stop > 3) + (stop > 5)]:
        now += 1.5
        if kind == "stone":
            seat = opening.to_act if what is not None else match.to_move
            if opening.done:
                match.play(match.to_move, ply, STONES[ply], now)
            else:
                place(match, opening, seat, ply, STONES[ply], now)
            stored.append((STONES[ply], int(match.elapsed_ms[-1])))
            ply += 1
        else:
            choose(match, opening, opening.to_act, what, now)
    names = ("ann", "bob")  # the opener and the chooser
    seats = names[::-1] if opening.swapped else names
    record_swap = [{**c.describe(), "by": names[c.by]} for c in opening.choices]
    record_players = seats  # the store's order: colour order once settled
    again, phase = Match("m", match.game, match.clock_spec), opening_of(match)
    assert phase is not None
    choices = stored_choices(record_swap, stored_seats(record_swap, record_players))
    resume(again, phase, stored, choices, now)
    assert phase.describe() == opening.describe() and again.moves == match.moves
    assert again.to_move == match.to_move and again.clock.running == match.clock.running
    assert again.clocks_ms(now) == pytest.approx(
        match.clocks_ms(now), abs=1500 * len(choices) + 5
    )  # a choice's own time is not stored


def test_a_refused_request_changes_nothing() -> None:
    match, opening = new_match()
    before = (opening.describe(), list(match.moves), match.clocks_ms(1.0))
    for call, code in (
        (lambda: choose(match, opening, 1, "black", 1.0), ErrorCode.SWAP_PHASE),
        (lambda: place(match, opening, 1, 0, [7, 7], 1.0), ErrorCode.NOT_YOUR_TURN),
        (lambda: place(match, opening, 0, 1, [7, 7], 1.0), ErrorCode.STALE_PLY),
    ):
        with pytest.raises(MatchError) as caught:
            call()
        assert caught.value.code == code
        assert (opening.describe(), list(match.moves), match.clocks_ms(1.0)) == before
