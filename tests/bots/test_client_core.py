"""The bot client's core without sockets: typed server messages and clock readings in, effects out.

Every reaction the websocket adapter carries out is decided here, so these tests pin the client's
behaviour (turns, resyncs, refused moves, replies, the drain, pacing) with messages and numbers."""

from __future__ import annotations

from typing import Any

import pytest

from arbiter.bots.client import BotSettings, ClientCore, Decision
from arbiter.bots.client.core import Notice, Over, Replied, Send, Started, Think, TokenBucket
from arbiter.protocol.messages import Lobby, parse
from arbiter.protocol.server_messages import read
from arbiter.stack.series import SeriesClient

CLOCK = {"initial_ms": 10_000, "increment_ms": 0, "move_limit_ms": None}
PLAYERS = [{"name": "us", "kind": "bot", "guest": False}, {"name": "them", "kind": "bot", "guest": False}]
WELCOME = {
    "type": "welcome", "re": 1, "protocol": 1, "server": "arbiter/test", "player": {"name": "us"},
    "resume_token": None, "games": [], "limits": {"rate_per_s": 10, "rate_burst": 4}, "resumed": [],
}  # fmt: skip


def core_for(**settings: Any) -> ClientCore:
    core = ClientCore(BotSettings(games=("tictactoe",), **settings), levels=3, token="t")
    core.hello()
    return core


def welcomed(core: ClientCore, **changes: Any) -> list[Any]:
    return core.welcomed(read({**WELCOME, **changes}), 0.0)  # type: ignore[arg-type]


def start(match: str = "m1", color: int = 0, moves: list[Any] | None = None, *, rated: bool = False) -> Any:
    return read({
        "type": "match_start", "match": match, "game": "tictactoe", "params": {}, "players": PLAYERS,
        "color": color, "clock": CLOCK, "clocks": [10_000, 10_000], "rated": rated, "to_move": 0,
        "levels": [2, None], "challenge": None, "moves": moves or [],
    })  # fmt: skip


def moved(ply: int, move: list[int], by: int, match: str = "m1") -> Any:
    return read({"type": "moved", "match": match, "ply": ply, "move": move, "by": by,
                 "clocks": [9_000, 10_000], "elapsed_ms": 5})  # fmt: skip


def decision(move: list[int], fallback: str = "") -> Decision:
    return Decision(move, {"depth": 3}, {"ply": 0, "source": "test"}, fallback)


def sent(effects: list[Any]) -> list[dict[str, Any]]:
    return [e.message for e in effects if isinstance(e, Send)]


def test_our_turn_asks_for_a_move_by_the_plan_s_deadline_and_sends_it_with_its_analysis() -> None:
    core = core_for()
    welcomed(core)
    effects = core.receive(start(), now=100.0)
    assert isinstance(effects[0], Started) and effects[0].live.level == 2  # the level asked of us
    (think,) = [e for e in effects if isinstance(e, Think)]
    assert think.ply == 0 and think.request.level == 2 and think.alone
    assert think.deadline == pytest.approx(100.0 + think.plan.deadline) and think.request.deadline == think.deadline
    (move,) = sent(core.decided("m1", 0, decision([1, 1])))
    assert move == {"type": "move", "match": "m1", "ply": 0, "move": [1, 1], "info": {"depth": 3}, "id": move["id"]}
    parse(move)  # a valid client message
    assert core.receive(moved(0, [1, 1], 0), 100.1) == []  # our own move, accepted: nothing to do
    assert not core._pending and not core._move_requests


def test_a_resync_sends_a_move_already_found_and_a_gap_asks_for_the_full_state() -> None:
    core = core_for()
    welcomed(core)
    core.receive(start(color=1), 0.0)
    assert core.receive(moved(0, [0, 0], 0), 1.0)[0].ply == 1  # type: ignore[attr-defined]
    core.disconnected()
    assert not sent(core.decided("m1", 1, decision([1, 1])))  # found while away: kept, and not pending
    welcomed(core, resumed=["m1"])
    state = {
        "type": "match_state", "match": "m1", "game": "tictactoe", "params": {}, "players": PLAYERS, "color": 1,
        "clock": CLOCK, "clocks": [9_000, 9_000], "rated": False, "moves": [[0, 0]], "ply": 1, "opening": 0,
        "to_move": 1,
        "draw_offer": None, "connected": [True, True], "levels": [None, None],
    }  # fmt: skip
    (move,) = sent(core.receive(read(state), 2.0))
    assert move["move"] == [1, 1] and move["ply"] == 1
    (sync,) = sent(core.receive(moved(5, [2, 2], 0), 3.0))
    assert sync["type"] == "sync"


@pytest.mark.parametrize(("code", "repaired"), [("illegal_move", True), ("match_over", False)])
def test_a_refused_move_is_dropped_and_resynced_unless_the_match_is_over(code: str, repaired: bool) -> None:
    core = core_for()
    welcomed(core)
    core.receive(start(), 0.0)
    (move,) = sent(core.decided("m1", 0, decision([1, 1])))
    error = read({"type": "error", "re": move["id"], "code": code, "message": "no"})
    assert [m["type"] for m in sent(core.receive(error, 1.0))] == (["sync"] if repaired else [])
    assert (0 in core.games["m1"].ready) is not repaired


def test_replies_find_their_request_and_other_messages_are_notices() -> None:
    core = core_for()
    welcomed(core)
    request = core.request(Lobby())
    reply = read({"type": "lobby_state", "re": request.message["id"], "players": [], "seeks": [], "matches": []})
    (replied,) = core.receive(reply, 0.0)
    assert isinstance(replied, Replied) and replied.request_id == request.message["id"]
    closed = read({"type": "challenge_closed", "challenge": "c1", "reason": "declined"})
    assert core.receive(closed, 0.0) == [Notice(closed)]


def test_the_opponent_s_draw_offer_is_declined_and_a_rate_limit_resyncs_our_turns() -> None:
    core = core_for()
    welcomed(core)
    core.receive(start(), 0.0)
    (decline,) = sent(core.receive(read({"type": "draw_offered", "match": "m1", "by": 1}), 0.0))
    assert decline["type"] == "decline_draw"
    assert sent(core.receive(read({"type": "draw_offered", "match": "m1", "by": 0}), 0.0)) == []
    limited = read({"type": "error", "code": "rate_limited", "message": "slow down"})
    assert [m["type"] for m in sent(core.receive(limited, 0.0))] == ["sync"]


def test_matches_that_ended_while_away_are_over_once_the_pong_after_their_ends_comes() -> None:
    core = core_for()
    welcomed(core)
    core.receive(start("m1"), 0.0)
    core.receive(start("m2"), 0.0)
    core.disconnected()
    (ping,) = sent(welcomed(core, resumed=["m2"]))
    assert ping["type"] == "ping"
    effects = core.receive(read({"type": "pong", "re": ping["id"], "time_ms": 1}), 1.0)
    assert Over("m1", None) in effects and list(core.games) == ["m2"]


def test_a_drain_leaves_the_ladder_declines_challenges_and_resigns_at_its_deadline() -> None:
    core = core_for(ladder=True, drain_timeout=30.0)
    joins = sent(welcomed(core))
    assert [m["type"] for m in joins] == ["ladder_join"] and joins[0]["max_matches"] == 8
    core.receive(start(), 0.0)
    assert [m["type"] for m in sent(core.begin_drain(now=10.0))] == ["ladder_leave"]
    core.begin_drain(now=20.0)  # a second stop does not move the deadline
    assert core.drain_left(25.0) == pytest.approx(15.0) and core.drain_left(50.0) == 0
    offer = {"id": "c9", "from": "x", "game": "tictactoe", "clock": CLOCK, "rated": False}
    (answer,) = sent(core.receive(read({"type": "challenge_offered", "challenge": offer}), 26.0))
    assert answer["type"] == "decline"
    assert [m["type"] for m in sent(core.resign_all())] == ["resign"]
    assert not sent(welcomed(core, resumed=["m1"]))  # reconnected while draining: no ladder join


def test_the_end_makes_a_record_counts_fallbacks_and_forgets_the_match() -> None:
    core = core_for()
    welcomed(core)
    core.receive(start(), 0.0)
    core.decided("m1", 0, decision([1, 1], fallback="deadline"))
    end = read({"type": "end", "match": "m1", "result": "0-1", "winner": 1, "reason": "resign",
                "clocks": [1, 2], "ply": 1, "rating_changes": {}})  # fmt: skip
    (over,) = core.receive(end, 5.0)
    assert isinstance(over, Over) and over.record is not None and over.record["reason"] == "resign"
    assert core.fallbacks == {"deadline": 1} and core.finished_count == 1 and not core.games
    assert not core._pending and not core._move_requests


def test_the_token_bucket_spaces_sends_by_the_rate_in_their_order() -> None:
    bucket = TokenBucket(rate=10.0, burst=2.0, tokens=2.0, last=0.0)
    assert [bucket.delay(0.0) for _ in range(4)] == pytest.approx([0.0, 0.0, 0.1, 0.2])
    assert bucket.delay(1.0) == 0.0  # refilled


def test_series_client_uses_only_the_public_hooks() -> None:
    private = {name for name in vars(SeriesClient) if name.startswith("_") and not name.startswith("__")}
    assert private == set(), private


def test_a_search_that_gives_up_resigns_with_its_cause_once_and_the_record_keeps_it() -> None:
    core = core_for()
    welcomed(core)
    core.receive(start(), 0.0)
    gave_up = Decision(None, None, {"ply": 0, "source": "resigned: crash"}, resign="crash")
    (resign,) = sent(core.decided("m1", 0, gave_up))
    assert resign == {"type": "resign", "match": "m1", "cause": "crash", "id": resign["id"]}
    parse(resign)
    assert core.resign("m1", "timeout") == [] and core.resignations == {"crash": 1}
    end = read({"type": "end", "match": "m1", "result": "0-1", "winner": 1, "reason": "resign",
                "clocks": [1, 2], "ply": 0, "rating_changes": {}})  # fmt: skip
    (over,) = core.receive(end, 1.0)
    assert over.record["resigned"] == "crash"  # type: ignore[attr-defined]


def test_a_match_that_starts_from_an_opening_is_thought_about_from_its_position() -> None:
    core = core_for()
    welcomed(core)
    effects = core.receive(start(moves=[[1, 1], [0, 0]]), 0.0)
    (think,) = [e for e in effects if isinstance(e, Think)]
    assert think.ply == 2 and think.request.moves == [[1, 1], [0, 0]]


def test_a_takeback_is_granted_in_a_casual_game_and_the_search_follows_the_position_taken_back() -> None:
    core = core_for()
    assert core.hello()["takebacks"] == "casual" and core.hello()["hints"] is True  # announced
    welcomed(core)
    core.receive(start(color=1), 0.0)
    (think,) = [e for e in core.receive(moved(0, [0, 1], 0), 1.0) if isinstance(e, Think)]
    core.decided("m1", 1, decision([1, 1]))
    core.receive(moved(1, [1, 1], 1), 1.1)
    offered = read({"type": "takeback_offered", "match": "m1", "by": 0, "ply": 0})
    assert [m["type"] for m in sent(core.receive(offered, 1.2))] == ["accept_takeback"]
    back = read({"type": "taken_back", "match": "m1", "by": 0, "ply": 0, "moves": [[0, 1], [1, 1]],
                 "clocks": [9_000, 9_500], "to_move": 0})  # fmt: skip
    effects = core.receive(back, 1.3)
    assert [type(e).__name__ for e in effects] == ["Retract"]  # the search tree is dropped; their turn
    live = core.games["m1"]
    assert live.moves == [] and live.state.to_move == 0 and not live.ready and live.clocks == [9_000, 9_500]
    (think,) = [e for e in core.receive(moved(0, [2, 2], 0), 2.0) if isinstance(e, Think)]
    assert think.ply == 1 and think.request.moves == [[2, 2]]  # from the new line


def test_a_rated_game_s_takeback_is_declined_and_a_policy_of_never_declines_every_one() -> None:
    for policy, rated in (("casual", True), ("never", False)):
        core = core_for(takebacks=policy)
        welcomed(core)
        core.receive(start(color=1, rated=rated), 0.0)
        offered = read({"type": "takeback_offered", "match": "m1", "by": 0, "ply": 0})
        assert [m["type"] for m in sent(core.receive(offered, 1.0))] == ["decline_takeback"]


def test_a_hint_is_asked_of_the_pool_for_the_opponent_s_position_and_answered_while_it_still_stands() -> None:
    core = core_for()
    welcomed(core)
    core.receive(start(color=1), 0.0)
    (suggest,) = core.receive(read({"type": "hint_request", "match": "m1", "ply": 0}), 0.5)
    assert type(suggest).__name__ == "Suggest" and suggest.request.moves == [] and suggest.request.match_id == "m1:hint"
    (answer,) = sent(core.hinted("m1", 0, [1, 1]))
    assert answer == {"type": "hint_answer", "match": "m1", "ply": 0, "move": [1, 1], "id": answer["id"]}
    core.receive(moved(0, [0, 0], 0), 1.0)
    assert core.hinted("m1", 0, [1, 1]) == []  # they moved meanwhile: the hint is stale
    assert core.receive(read({"type": "hint_request", "match": "m1", "ply": 5}), 1.1) == []  # not this position
