"""The pure match state machine and its clock, driven with made-up times (no sockets, no sleeping)."""

from __future__ import annotations

import asyncio

import pytest

from arbiter.engine import create_game
from arbiter.engine.mnk import MnkGame
from arbiter.protocol import ErrorCode
from arbiter.server.basics.clock import Alarm, ClockSpec, FischerClock
from arbiter.server.play.match import Match, MatchError
from arbiter.server.play.ratelimit import TokenBucket, Verdict

T0 = 1000.0


def new_match(game: str = "tictactoe", **clock) -> Match:
    match = Match("m1", create_game(game), ClockSpec(**({"initial_ms": 10_000} | clock)))
    match.start(T0)
    return match


def snapshot(match: Match) -> tuple:
    return (list(match.moves), match.state.key(), match.to_move, list(match.clock.remaining),
            match.clock.running, match.draw_offer, match.result)  # fmt: skip


# --- clock --------------------------------------------------------------------------------------
def test_fischer_clock_charges_the_mover_and_adds_the_increment():
    clock = FischerClock(ClockSpec(5_000, 1_000))
    clock.start(0, T0)
    assert clock.remaining_ms(T0 + 2) == [3_000, 5_000]
    assert clock.press(T0 + 2, 1) == pytest.approx(2)
    assert clock.remaining_ms(T0 + 2) == [4_000, 5_000]
    assert clock.deadline() == pytest.approx(T0 + 2 + 5)
    assert not clock.flagged(T0 + 6.999) and clock.flagged(T0 + 7)


def test_move_limit_caps_the_deadline():
    clock = FischerClock(ClockSpec(60_000, 0, 2_000))
    clock.start(0, T0)
    assert clock.deadline() == pytest.approx(T0 + 2)
    clock.remaining[0] = 1.0
    assert clock.deadline() == pytest.approx(T0 + 1)  # whichever comes first


def test_stopped_clock_keeps_its_values():
    clock = FischerClock(ClockSpec(5_000))
    clock.start(1, T0)
    clock.stop(T0 + 1.5)
    assert clock.running is None and clock.deadline() is None
    assert clock.remaining_ms(T0 + 100) == [5_000, 3_500]


async def test_alarm_rings_once_at_the_deadline_of_its_time_source():
    loop = asyncio.get_running_loop()
    rung = asyncio.Event()
    alarm = Alarm(rung.set, now=loop.time)
    alarm.set(loop.time() + 0.05)
    alarm.set(loop.time() + 0.02)  # re-arming replaces the earlier setting
    await asyncio.wait_for(rung.wait(), 2)
    assert loop.time() >= alarm._deadline and not alarm.armed


async def test_alarm_rearms_when_its_clock_lags():
    loop = asyncio.get_running_loop()
    offset = [-0.05]  # this clock is 50 ms behind the loop: the first timer fires early for it
    rung = asyncio.Event()
    alarm = Alarm(rung.set, now=lambda: loop.time() + offset[0])
    start = loop.time()
    alarm.set(start + 0.01)
    await asyncio.wait_for(rung.wait(), 2)
    assert loop.time() + offset[0] >= start + 0.01


async def test_cancelled_alarm_never_rings():
    loop = asyncio.get_running_loop()
    rung = []
    alarm = Alarm(lambda: rung.append(1), now=loop.time)
    alarm.set(loop.time() + 0.01)
    alarm.cancel()
    await asyncio.sleep(0.03)
    assert rung == []


# --- match --------------------------------------------------------------------------------------
def test_moves_alternate_and_clocks_are_reported():
    match = new_match(increment_ms=500)
    played = match.play(0, 0, [1, 1], T0 + 1)
    assert (played.ply, played.move, played.by, played.elapsed_ms) == (0, [1, 1], 0, 1000)
    assert played.clocks_ms == [9_500, 10_000]
    played = match.play(1, 1, [0, 0], T0 + 3)
    assert played.clocks_ms == [9_500, 8_500] and match.to_move == 0 and match.ply == 2


@pytest.mark.parametrize(
    ("color", "ply", "move", "code"),
    [
        (1, 2, [1, 1], ErrorCode.NOT_YOUR_TURN),
        (0, 1, [1, 1], ErrorCode.STALE_PLY),
        (0, 5, [1, 1], ErrorCode.STALE_PLY),
        (0, 2, [3, 3], ErrorCode.BAD_MOVE),
        (0, 2, [1], ErrorCode.BAD_MOVE),
        (0, 2, [[1, 1]], ErrorCode.BAD_MOVE),
        (0, 2, [0, 0], ErrorCode.ILLEGAL_MOVE),
    ],
)
def test_refused_moves_change_nothing(color, ply, move, code):
    match = new_match()
    match.play(0, 0, [0, 0], T0)
    match.play(1, 1, [2, 2], T0)
    before = snapshot(match)
    with pytest.raises(MatchError) as caught:
        match.play(color, ply, move, T0 + 1)
    assert caught.value.code == code
    assert snapshot(match) == before


def test_rules_end_the_match():
    match = new_match()
    for ply, (color, move) in enumerate([(0, [0, 0]), (1, [0, 1]), (0, [1, 0]), (1, [1, 1]), (0, [2, 0])]):
        match.play(color, ply, move, T0 + ply)
    assert match.result is not None and (match.result.result, match.result.reason) == ("1-0", "line")
    assert match.deadline() is None
    with pytest.raises(MatchError) as caught:
        match.play(1, 5, [2, 2], T0 + 9)
    assert caught.value.code == ErrorCode.MATCH_OVER


def test_a_move_after_the_flag_loses_on_time():
    match = new_match(initial_ms=1_000)
    with pytest.raises(MatchError) as caught:
        match.play(0, 0, [1, 1], T0 + 1.0)
    assert caught.value.code == ErrorCode.MATCH_OVER
    assert (match.result.winner, match.result.reason) == (1, "timeout")
    assert match.moves == [] and match.clocks_ms(T0 + 5) == [0, 1_000]


def test_flag_only_when_the_time_is_up():
    match = new_match(initial_ms=1_000, move_limit_ms=400)
    assert match.flag(T0 + 0.399) is None
    result = match.flag(T0 + 0.4)
    assert (result.winner, result.reason) == (1, "timeout")
    assert match.clocks_ms(T0 + 1) == [600, 1_000]


def test_abort_rules():
    match = new_match()
    match.play(0, 0, [1, 1], T0)
    with pytest.raises(MatchError) as caught:
        match.abort(0, T0)
    assert caught.value.code == ErrorCode.ABORT_TOO_LATE
    result = match.abort(1, T0 + 1)
    assert (result.result, result.winner, result.reason) == (None, None, "abort")


def test_resign_and_abandon():
    match = new_match()
    assert match.resign(0, T0).result == "0-1"
    other = new_match()
    assert other.abandon(1, T0, opponent_present=True).result == "1-0"
    both = new_match()
    assert both.abandon(1, T0, opponent_present=False).result is None


def test_draw_offers():
    match = new_match()
    assert match.offer_draw(0, T0) is None and match.draw_offer == 0
    with pytest.raises(MatchError):
        match.offer_draw(0, T0)
    with pytest.raises(MatchError):
        match.accept_draw(0, T0)  # one's own offer
    match.decline_draw(1)
    assert match.draw_offer is None
    match.offer_draw(1, T0)
    assert match.accept_draw(0, T0).reason == "draw_agreed"


def test_draw_offers_refused_where_the_game_forbids_them():
    class NoDrawTicTacToe(MnkGame):
        allows_draw_offer = False

    match = Match("m2", NoDrawTicTacToe({"m": 3, "n": 3, "k": 3}), ClockSpec(1_000))
    match.start(T0)
    with pytest.raises(MatchError) as caught:
        match.offer_draw(0, T0)
    assert caught.value.code == ErrorCode.DRAW_NOT_ALLOWED and match.draw_offer is None


# --- rate limit -----------------------------------------------------------------------------------
def test_token_bucket_allows_a_burst_then_warns_once_then_closes():
    bucket = TokenBucket(rate=10, burst=5, tolerance=3, now=0.0)
    assert [bucket.take(0.0) for _ in range(5)] == [Verdict.ALLOW] * 5
    assert bucket.take(0.0) is Verdict.DROP_AND_WARN
    assert [bucket.take(0.0) for _ in range(2)] == [Verdict.DROP] * 2
    assert bucket.take(0.0) is Verdict.CLOSE


def test_token_bucket_refills():
    bucket = TokenBucket(rate=10, burst=5, tolerance=100, now=0.0)
    for _ in range(7):
        bucket.take(0.0)
    assert bucket.take(0.05) is Verdict.DROP  # still in debt
    assert bucket.take(0.5) is Verdict.ALLOW  # paid back


async def test_alarm_moved_later_rings_at_the_new_deadline():
    loop = asyncio.get_running_loop()
    rung = asyncio.Event()
    times = []
    alarm = Alarm(lambda: (times.append(loop.time()), rung.set()), now=loop.time)
    start = loop.time()
    alarm.set(start + 0.01)
    alarm.set(start + 0.05)  # later: the armed timer stays, wakes early and re-arms
    await asyncio.wait_for(rung.wait(), 2)
    assert len(times) == 1 and times[0] >= start + 0.05


def test_a_resumed_match_stands_as_after_its_last_move_and_charges_only_what_it_is_told() -> None:
    """A cluster's failover: the stored moves replay with the time each took; the side to move
    has been thinking for ``charged_s`` (what the failover took beyond the grace), no more."""
    spec = ClockSpec(initial_ms=60_000, increment_ms=1_000)
    played = Match("m1", create_game("tictactoe"), spec)
    played.start(0.0)
    played.play(0, 0, [1, 1], 2.0)  # first: 2 s
    played.play(1, 1, [0, 0], 5.0)  # second: 3 s
    resumed = Match("m1", create_game("tictactoe"), spec)
    resumed.resume([([1, 1], 2_000), ([0, 0], 3_000)], 100.0, charged_s=4.0)
    assert resumed.moves == played.moves and resumed.to_move == 0
    assert resumed.clocks_ms(100.0) == [played.clocks_ms(5.0)[0] - 4_000, played.clocks_ms(5.0)[1]]
