"""The takeback and hint rules as pure state (play/takeback.py), driven with made-up times: what is
taken back, what the clocks do, what is refused, and that a refusal changes nothing."""

from __future__ import annotations

import pytest

from arbiter.engine import create_game
from arbiter.protocol import ErrorCode
from arbiter.server.basics.clock import ClockSpec
from arbiter.server.play.match import Match, MatchError
from arbiter.server.play.takeback import Asks


def new_match(*, rated: bool = False, opening: list | None = None) -> Match:
    match = Match("m1", create_game("tictactoe"), ClockSpec(10_000, 1_000), rated=rated)
    match.open_with(opening or [])
    match.start(0.0)
    return match


def snapshot(match: Match) -> tuple:
    return (list(match.moves), list(match.elapsed_ms), list(match.moves_by), match.to_move,
            list(match.clock.remaining), match.clock.running)  # fmt: skip


def test_a_takeback_after_the_reply_takes_back_both_and_gives_no_time_back():
    match, asks = new_match(), Asks()
    match.play(0, 0, [0, 0], 1.0)  # 9 s left, +1 s: 10 s
    match.play(1, 1, [1, 1], 3.0)  # 8 s left, +1 s: 9 s
    assert asks.ask_takeback(match, 0) == 0
    asker, taken = asks.accept_takeback(match, 1, 4.0)  # first's clock ran 1 s meanwhile
    assert asker == 0 and [(t.ply, t.move, t.by, t.elapsed_ms) for t in taken] == [
        (0, [0, 0], 0, 1000),
        (1, [1, 1], 1, 2000),
    ]
    assert match.moves == [] and match.moves_by == [0, 0] and match.to_move == 0
    assert match.clock.remaining_ms(4.0) == [8_000, 8_000]  # the time used stays used, the increments go
    assert match.clock.running == 0 and match.deadline() == pytest.approx(12.0)
    match.play(0, 0, [2, 2], 5.0)  # the match goes on from the position taken back
    assert match.moves == [[2, 2]]


def test_before_the_reply_only_the_own_move_goes():
    match, asks = new_match(), Asks()
    match.play(0, 0, [0, 0], 1.0)
    asks.ask_takeback(match, 0)
    _, taken = asks.accept_takeback(match, 1, 2.0)
    assert [t.ply for t in taken] == [0] and match.to_move == 0


@pytest.mark.parametrize(
    ("setup", "act", "code"),
    [
        (lambda m, a: None, lambda m, a: a.ask_takeback(m, 0), ErrorCode.NOTHING_TO_TAKE_BACK),
        (lambda m, a: a.ask_takeback(m, 0), lambda m, a: a.ask_takeback(m, 0), ErrorCode.TAKEBACK_PENDING),
        (lambda m, a: a.ask_takeback(m, 0), lambda m, a: a.accept_takeback(m, 0, 2.0), ErrorCode.NO_TAKEBACK_REQUEST),
        (lambda m, a: None, lambda m, a: a.decline_takeback(m, 1), ErrorCode.NO_TAKEBACK_REQUEST),
        (lambda m, a: a.ask_hint(m, 1, bot_gives_hints=True), lambda m, a: a.ask_hint(m, 1, bot_gives_hints=True),
         ErrorCode.HINT_USED),
        (lambda m, a: None, lambda m, a: a.ask_hint(m, 0, bot_gives_hints=True), ErrorCode.NOT_YOUR_TURN),
        (lambda m, a: None, lambda m, a: a.ask_hint(m, 1, bot_gives_hints=False), ErrorCode.HINT_NOT_ALLOWED),
        (lambda m, a: a.ask_hint(m, 1, bot_gives_hints=True), lambda m, a: a.answer_hint(m, 0, 1, [0, 0]),
         ErrorCode.ILLEGAL_MOVE),
        (lambda m, a: None, lambda m, a: a.answer_hint(m, 0, 1, [2, 2]), ErrorCode.NO_HINT_REQUEST),
    ],
)  # fmt: skip
def test_refusals_change_nothing(setup, act, code):
    match, asks = new_match(), Asks()
    if code is not ErrorCode.NOTHING_TO_TAKE_BACK:  # first's move 0 is played, but before it, none
        match.play(0, 0, [0, 0], 1.0)
    setup(match, asks)
    before = snapshot(match)
    with pytest.raises(MatchError) as refused:
        act(match, asks)
    assert refused.value.code == code and snapshot(match) == before


def test_rated_matches_refuse_both():
    match, asks = new_match(rated=True), Asks()
    match.play(0, 0, [0, 0], 1.0)
    for act, code in ((lambda: asks.ask_takeback(match, 0), ErrorCode.TAKEBACK_NOT_ALLOWED),
                      (lambda: asks.ask_hint(match, 1, bot_gives_hints=True), ErrorCode.HINT_NOT_ALLOWED)):  # fmt: skip
        with pytest.raises(MatchError) as refused:
            act()
        assert refused.value.code == code


def test_the_opening_is_no_one_s_and_a_request_lapses_with_a_move():
    match, asks = new_match(opening=[[1, 1]]), Asks()
    assert match.to_move == 1
    with pytest.raises(MatchError) as refused:
        asks.ask_takeback(match, 0)  # the opening's move is not first's
    assert refused.value.code == ErrorCode.NOTHING_TO_TAKE_BACK
    match.play(1, 1, [0, 0], 1.0)
    asks.ask_takeback(match, 1)
    match.play(0, 2, [2, 2], 2.0)  # first plays on instead of answering: the request lapses
    assert asks.standing(match) is None
    asks.ask_takeback(match, 1)  # asked again: its move and the reply
    _, taken = asks.accept_takeback(match, 0, 3.0)
    assert [t.ply for t in taken] == [1, 2] and match.moves == [[1, 1]]


def test_a_hint_is_counted_and_re_encoded():
    match, asks = new_match(), Asks()
    match.play(0, 0, [0, 0], 1.0)
    assert asks.ask_hint(match, 1, bot_gives_hints=True) == 1
    assert asks.answer_hint(match, 0, 1, [1, 1]) == (1, [1, 1], 1)
    assert match.moves == [[0, 0]]  # a hint plays nothing
