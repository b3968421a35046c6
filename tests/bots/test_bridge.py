"""``arbiter bridge pbrain``: a Gomocup engine as an ordinary bot. The position commands and the probe
against a small engine written for the tests (tests/bots/pbrain_engines/threat_engine.py, with the
quirks of a real one), then whole games through a real ``arbiter bridge pbrain`` process on a real
server: a sound engine plays to the end with its analysis on the wire (in renju and caro too, the
rule passed as INFO rule), and an engine that crashes, hangs, answers an occupied cell or prints
garbage has its match resigned with that cause, in the bridge's game log and the server's /metrics;
an engine that refuses a rule is not offered its games, and a forbidden point is an illegal move."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from bridge_helpers import bridge_process, finished_records, logged, metric, play_against, sound_game

from arbiter.bots.brain import ThinkRequest
from arbiter.bots.bridge.engines import EnginePool, position_commands
from arbiter.bots.client.deciding import GiveUp
from arbiter.server import RunningServer
from tests.support.wsclient import Client, play_move, start_match

pytestmark = pytest.mark.timeout(180)

ENGINE = [sys.executable, str(Path(__file__).parent / "pbrain_engines" / "threat_engine.py")]
GAME = "gomoku10"


def test_position_commands_begin_turn_or_the_whole_board() -> None:
    assert position_commands([], []) == ["BEGIN"]
    assert position_commands([], [[4, 4]]) == ["TURN 4,4"]
    assert position_commands([[4, 4], [5, 5]], [[4, 4], [5, 5], [6, 6]]) == ["TURN 6,6"]
    # a resync (the engine's game is not a prefix): the engine is to move as the second player
    assert position_commands([[1, 1]], [[4, 4], [5, 5], [6, 6]]) == ["BOARD", "4,4,2", "5,5,1", "6,6,2", "DONE"]


async def test_the_probe_offers_only_the_boards_start_took_and_moves_come_with_analysis() -> None:
    pool = EnginePool(ENGINE, slots=1)
    try:
        await pool.probe([3, 10, 15, 25])
        assert pool.squares == {10, 15} and not pool.rectangles  # RECTSTART is an ERROR for this engine
        assert pool.about.startswith('name="threat-engine"')
        assert pool.refusal("gomoku10", {}) is None and pool.refusal("gomoku", {}) is None
        assert "does not take a 25x25" in (pool.refusal("mnk", {"m": 25, "n": 25}) or "")
        assert "only square" in (pool.refusal("mnk", {"m": 15, "n": 10}) or "")
        assert "not five in a row" in (pool.refusal("tictactoe", {}) or "")
        await pool.warm(10)
        loop = asyncio.get_running_loop()
        request = ThinkRequest("m1", GAME, {}, [[0, 0]], 0.2, deadline=loop.time() + 2,
                               clock={"remaining_ms": 5_000, "initial_ms": 60_000, "increment_ms": 0})  # fmt: skip
        answer = await pool.think(request)
        assert answer.move != [0, 0] and answer.info["depth"] == 1 and "score" in answer.info
        # The next command comes right after the move: the engine's quirk would drop it, the bridge waits.
        second = await pool.think(ThinkRequest("m1", GAME, {}, [[0, 0], answer.move, [0, 1]], 0.2,
                                               deadline=loop.time() + 2))  # fmt: skip
        assert second.move not in ([0, 0], answer.move, [0, 1])
    finally:
        await pool.close()


async def test_the_probe_offers_only_the_rules_info_rule_took() -> None:
    strict = EnginePool([*ENGINE, "--rules", "0,1"], slots=1)  # an engine of free style and exact five only
    anything = EnginePool(ENGINE, slots=1)
    try:
        await strict.probe([15], {1, 4, 8, 9})
        assert strict.rules == {0, 1} and strict.squares == {15}
        assert strict.refusal("gomoku", {"exact": True}) is None
        assert strict.refusal("renju", {}) == "the engine does not play Renju (INFO rule 4)"
        assert strict.refusal("caro", {"exact": True}) == "the engine does not play Standard Caro (INFO rule 9)"
        await anything.probe([15], {4, 8})
        assert anything.rules == {0, 4, 8} and anything.refusal("renju", {}) is None
        assert "Standard Caro (INFO rule 9)" in (anything.refusal("caro", {"exact": True}) or "")  # not asked
    finally:
        await strict.close()
        await anything.close()


async def test_the_probe_finds_swap2board_and_the_decisions_come_back_checked() -> None:
    """An engine with SWAP2BOARD proposes, chooses and places through the pool; one without it is found
    out at the probe (it answers UNKNOWN), and a decision the phase does not take gives up."""
    plain = EnginePool(ENGINE, slots=1)
    placing = EnginePool([*ENGINE, "--swap2", "place,swap"], slots=1)
    moving = EnginePool([*ENGINE, "--swap2", "move,move"], slots=1)
    try:
        for pool in (plain, placing, moving):
            await pool.probe([15], {4})
        assert not plain.swap2 and placing.swap2 and moving.swap2
        assert plain.refusal("renju", {"opening": "swap2"}) == "the engine does not answer SWAP2BOARD (no swap2)"
        assert placing.refusal("renju", {"opening": "swap2"}) is None
        assert "swap2 only" in (placing.refusal("gomoku", {"opening": "swap1"}) or "")
        loop = asyncio.get_running_loop()

        def request(moves: list[list[int]], game: str = "renju") -> ThinkRequest:
            return ThinkRequest("m1", game, {}, moves, 0.2, deadline=loop.time() + 2)

        proposal = await placing.swap(request([]))
        assert proposal.take is None and proposal.stones == [[7, 7], [8, 7], [7, 9]]
        placed = await placing.swap(request(proposal.stones))
        assert placed.take is None and len(placed.stones) == 2
        five = [*proposal.stones, *placed.stones]
        assert (await placing.swap(request(five))).take == "black"  # SWAP: it takes black
        stay = await moving.swap(request(proposal.stones))
        assert stay.take == "white" and len(stay.stones) == 1 and stay.stones[0] not in proposal.stones
        # After a decision the engine's board is the decision's: its next move comes from the whole BOARD.
        after = await moving.think(request([*proposal.stones, *stay.stones, [0, 0]]))
        assert after.move not in [*proposal.stones, *stay.stones, [0, 0]]
        with pytest.raises(GiveUp) as gave_up:
            await moving.swap(request([[7, 7]]))
        assert gave_up.value.cause == "protocol_error"
        with pytest.raises(GiveUp) as gave_up:  # an engine that never took SWAP2BOARD
            await plain.swap(request([]))
        assert "does not answer SWAP2BOARD" in str(gave_up.value)
    finally:
        for pool in (plain, placing, moving):
            await pool.close()


async def test_an_engine_s_swap2_decisions_play_a_whole_opening_on_a_real_server(server: RunningServer) -> None:
    """The engine opens a swap2 game on a real server with its three stones, the person places two more,
    the engine takes white with its move (its SWAP2BOARD answer) and plays on from the whole BOARD."""
    pool = EnginePool([*ENGINE, "--swap2", "place,move"], slots=1)
    engine = await Client.connect(server.url, features=["swap"])
    person = await Client.connect(server.url, features=["swap"])
    try:
        match = await start_match(engine, person, "gomoku", params={"opening": "swap2"})
        loop = asyncio.get_running_loop()

        def request(moves: list[list[int]]) -> ThinkRequest:
            return ThinkRequest(match, "gomoku", {"opening": "swap2"}, moves, 0.2, deadline=loop.time() + 2)

        moves = (await pool.swap(request([]))).stones
        for ply, stone in enumerate(moves):
            moved = await play_move(engine, match, ply, stone)
            assert moved["type"] == "moved", moved
        assert moved["swap"]["phase"] == "choose" and moved["swap"]["to_act"] == 1
        assert (await person.request("swap", match=match, choice="place"))["type"] == "ok"
        for ply, stone in enumerate([[0, 0], [14, 14]], start=3):
            assert (await play_move(person, match, ply, stone))["type"] == "moved"
            moves.append(stone)
        await engine.expect("moved", match=match, ply=4)
        decision = await pool.swap(request(moves))
        assert decision.take == "white" and len(decision.stones) == 1
        assert (await engine.request("swap", match=match, choice="white"))["type"] == "ok"
        swapped = await person.expect("swapped", match=match, choice="white")
        assert [player["name"] for player in swapped["players"]] == [person.name, engine.name]  # colour order
        assert (await play_move(engine, match, 5, decision.stones[0]))["type"] == "moved"
        moves += [decision.stones[0], [0, 14]]
        assert (await play_move(person, match, 6, [0, 14]))["type"] == "moved"
        answer = await pool.think(request(moves))
        assert (await play_move(engine, match, 7, answer.move))["type"] == "moved"
        assert (await person.request("resign", match=match))["type"] == "ok"
    finally:
        await pool.close()
        await engine.close()
        await person.close()


@pytest.mark.process
async def test_the_bridge_plays_a_swap2_opening_through_swap2board(server: RunningServer, tmp_path: Path) -> None:
    """A real ``arbiter bridge pbrain`` opens a swap2 game: its engine's three stones, then, after the
    person's two more, its choice (white, with its move) — every decision SWAP2BOARD's."""
    process = await bridge_process(server, tmp_path, "pbrain", [*ENGINE, "--swap2", "place,move"], games="gomoku")
    person = await Client.connect(server.url, token=await server.hub.store.add_player("tester", "human"),
                                  features=["swap"])  # fmt: skip
    try:
        await logged(process, '"connected"')
        fields = {"to": "engine", "game": "gomoku", "params": {"opening": "swap2"}, "color": "second"}
        created = await person.request("challenge", **fields, clock={"initial_ms": 60_000})
        assert created["type"] == "challenge_created", created
        match = (await person.expect("match_start"))["match"]
        moved = [await person.expect("moved", match=match, ply=ply) for ply in range(3)]
        assert [m["move"] for m in moved] == [[7, 7], [8, 7], [7, 9]]  # the engine's SWAP2BOARD proposal
        assert (await person.request("swap", match=match, choice="place"))["type"] == "ok"
        for ply, stone in enumerate([[0, 0], [14, 14]], start=3):
            assert (await play_move(person, match, ply, stone))["type"] == "moved"
        swapped = await person.expect("swapped", match=match, choice="white", timeout=30)
        assert swapped["by"] == 0 and [p["name"] for p in swapped["players"]] == ["tester", "engine"]
        sixth = await person.expect("moved", match=match, ply=5, timeout=30)
        assert sixth["move"] not in ([7, 7], [8, 7], [7, 9], [0, 0], [14, 14])
        assert (await play_move(person, match, 6, [0, 14]))["type"] == "moved"
        await person.expect("moved", match=match, ply=7, timeout=30)  # its own move again, from the BOARD
        assert (await person.request("resign", match=match))["type"] == "ok"
        (record,) = await finished_records(tmp_path, process)
        assert record["resigned"] is None
    finally:
        await person.close()
        if process.returncode is None:
            process.kill()


async def test_a_forbidden_point_the_engine_plays_gives_up_as_an_illegal_move() -> None:
    pool = EnginePool(ENGINE, slots=1)  # it plays renju's black as free style: h8 is its longest line
    try:
        await pool.warm(15)
        black = [[6, 7], [8, 7], [7, 6], [7, 8]]  # g8, i8, h7, h9: h8 would make two threes
        white = [[0, 0], [0, 14], [14, 0], [14, 14]]
        moves = [move for pair in zip(black, white, strict=True) for move in pair]
        loop = asyncio.get_running_loop()
        with pytest.raises(GiveUp) as gave_up:
            await pool.think(ThinkRequest("m1", "renju", {}, moves, 0.2, deadline=loop.time() + 2))
        assert gave_up.value.cause == "illegal_move"
        assert "played 7,7: h8 is forbidden for black (double-three)" in str(gave_up.value)
    finally:
        await pool.close()


async def test_an_engine_that_hangs_is_killed_and_its_request_gives_up_as_timeout() -> None:
    pool = EnginePool([*ENGINE, "--hang-at", "2"], slots=1)  # the second move of each game (the warm-up's is one)
    try:
        await pool.warm(10)
        loop = asyncio.get_running_loop()
        first = await pool.think(ThinkRequest("m1", GAME, {}, [], 0.1, deadline=loop.time() + 2))
        with pytest.raises(GiveUp) as gave_up:
            await pool.think(ThinkRequest("m1", GAME, {}, [first.move, [0, 0]], 0.1, deadline=loop.time() + 0.5))
        assert gave_up.value.cause == "timeout"
        assert not pool._busy["m1"].alive  # killed; the next match gets a new engine
    finally:
        await pool.close()


async def engine_bridge(server: RunningServer, tmp_path: Path, *engine_flags: str) -> asyncio.subprocess.Process:
    return await bridge_process(server, tmp_path, "pbrain", [*ENGINE, *engine_flags], games=GAME)


async def finished_record(tmp_path: Path, process: asyncio.subprocess.Process) -> dict[str, Any]:
    (record,) = await finished_records(tmp_path, process)
    return record


@pytest.mark.process
async def test_a_sound_engine_plays_whole_games_with_its_analysis(server: RunningServer, tmp_path: Path) -> None:
    record = await sound_game(server, tmp_path, await engine_bridge(server, tmp_path), GAME)
    assert all(d["info"]["depth"] == 1 and "score" in d["info"] for d in record["decisions"])  # from MESSAGE


@pytest.mark.process
@pytest.mark.parametrize("game", ["renju", "caro"])
async def test_a_sound_engine_plays_renju_and_caro_with_the_rule_passed(
    server: RunningServer, tmp_path: Path, game: str
) -> None:
    process = await bridge_process(server, tmp_path, "pbrain", ENGINE, games=f"{game},gomoku10")
    record = await sound_game(server, tmp_path, process, game)  # the engine plays white: no forbidden point
    assert record["game"] == game


@pytest.mark.process
@pytest.mark.parametrize(
    ("flag", "cause"),
    [("--crash-at", "crash"), ("--hang-at", "timeout"), ("--occupied-at", "illegal_move"),
     ("--garbage-at", "protocol_error")],
)  # fmt: skip
async def test_a_failing_engine_s_match_is_resigned_with_its_cause(
    server: RunningServer, tmp_path: Path, flag: str, cause: str
) -> None:
    process = await engine_bridge(server, tmp_path, flag, "3")  # the engine's third move of the game
    try:
        await logged(process, '"connected"')
        end, moves = await play_against(server, GAME)
        assert end["reason"] == "resign" and end["winner"] == 0 and len(moves) == 2
        assert await metric(server, cause) == 1
        record = await finished_record(tmp_path, process)
        assert record["resigned"] == cause
        assert record["decisions"][-1]["source"].startswith(f"resigned: {cause}")
    finally:
        if process.returncode is None:
            process.kill()
