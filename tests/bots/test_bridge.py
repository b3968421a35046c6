"""``arbiter bridge pbrain``: a Gomocup engine as an ordinary bot. The position commands and the probe
against a small engine written for the tests (tests/bots/pbrain_engines/threat_engine.py, with the
quirks of a real one), then whole games through a real ``arbiter bridge pbrain`` process on a real
server: a sound engine plays to the end with its analysis on the wire, and an engine that crashes,
hangs, answers an occupied cell or prints garbage has its match resigned with that cause, in the
bridge's game log and the server's /metrics."""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from wsclient import Client, play_move, random_move

from arbiter.bots.brain import ThinkRequest
from arbiter.bots.bridge.engines import EnginePool, position_commands
from arbiter.bots.client.deciding import GiveUp
from arbiter.engine import create_game
from arbiter.server import RunningServer, ServerConfig, run_server

pytestmark = pytest.mark.timeout(180)

ENGINE = [sys.executable, str(Path(__file__).parent / "pbrain_engines" / "threat_engine.py")]
CLOCK = {"initial_ms": 60_000, "increment_ms": 0}
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


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    async with run_server(ServerConfig(port=0)) as running:
        yield running


async def bridge_process(server: RunningServer, tmp_path: Path, *engine_flags: str) -> asyncio.subprocess.Process:
    token_file = tmp_path / "engine.token"
    token_file.write_text(await server.hub.store.add_player("engine", "bot") + "\n")
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "arbiter.cli", "bridge", "pbrain", "--server", server.url, "--token-file",
        str(token_file), "--games", GAME, "--game-log", str(tmp_path / "games.jsonl"), "--log-level", "info",
        "--", *ENGINE, *engine_flags,
        stderr=asyncio.subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip


async def logged(process: asyncio.subprocess.Process, text: str) -> None:
    assert process.stderr is not None
    async with asyncio.timeout(60):
        while True:
            line = await process.stderr.readline()
            assert line, f"the bridge exited before logging {text!r}"
            if text.encode() in line:
                return


async def play_against(server: RunningServer) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A human opens against the bridged engine and plays random moves to the end: the end, and the moves' infos."""
    human = await Client.connect(server.url, token=await server.hub.store.add_player("tester", "human"))
    created = await human.request("challenge", to="engine", game=GAME, clock=CLOCK, color="first")
    assert created["type"] == "challenge_created", created
    match = (await human.expect("match_start"))["match"]
    state, rng, ply = create_game(GAME).new_state(), random.Random(7), 0
    infos = []
    while True:
        move = random_move(state, rng)
        assert (await play_move(human, match, ply, move))["type"] == "moved"
        state.play(state.game.decode_move(move))
        ply += 1
        if state.is_terminal:
            break
        answer = await human.expect(None, match=match, timeout=30)
        while answer["type"] not in ("moved", "end"):
            answer = await human.expect(None, match=match, timeout=30)
        if answer["type"] == "end":
            return answer, infos
        infos.append(answer)
        state.play(state.game.decode_move(answer["move"]))
        ply += 1
        if state.is_terminal:
            break
    return await human.expect("end", match=match), infos


async def metric(server: RunningServer, cause: str) -> float:
    """The server's count of resignations for ``cause`` (read off the loop the server runs on)."""

    def read() -> str:
        with urllib.request.urlopen(server.http_url + "/metrics", timeout=5) as response:
            return response.read().decode()

    for line in (await asyncio.to_thread(read)).splitlines():
        if line.startswith("arbiter_bot_resignations_total{") and f'cause="{cause}"' in line:
            return float(line.rsplit(" ", 1)[1])
    return 0.0


async def finished_record(tmp_path: Path, process: asyncio.subprocess.Process) -> dict[str, Any]:
    process.terminate()  # a drain: nothing is live, so it exits at once, its game log written
    assert await asyncio.wait_for(process.wait(), 30) == 0
    (line,) = (tmp_path / "games.jsonl").read_text().splitlines()
    return json.loads(line)


@pytest.mark.process
async def test_a_sound_engine_plays_whole_games_with_its_analysis(server: RunningServer, tmp_path: Path) -> None:
    process = await bridge_process(server, tmp_path)
    try:
        await logged(process, '"connected"')
        assert server.hub.roster.get("engine").capacity == 1
        end, moves = await play_against(server)
        assert end["reason"] != "resign" and moves
        record = await finished_record(tmp_path, process)
        assert record["resigned"] is None and record["reason"] == end["reason"]
        assert all(d["source"] == "brain" for d in record["decisions"])
        assert all(d["info"]["depth"] == 1 and "score" in d["info"] for d in record["decisions"])  # from MESSAGE
        stored = await server.hub.store.get_game(record["match"])
        assert stored is not None and stored.moves[1].info["depth"] == 1  # the analysis went on the wire
    finally:
        if process.returncode is None:
            process.kill()


@pytest.mark.process
@pytest.mark.parametrize(
    ("flag", "cause"),
    [("--crash-at", "crash"), ("--hang-at", "timeout"), ("--occupied-at", "illegal_move"),
     ("--garbage-at", "protocol_error")],
)  # fmt: skip
async def test_a_failing_engine_s_match_is_resigned_with_its_cause(
    server: RunningServer, tmp_path: Path, flag: str, cause: str
) -> None:
    process = await bridge_process(server, tmp_path, flag, "3")  # the engine's third move of the game
    try:
        await logged(process, '"connected"')
        end, moves = await play_against(server)
        assert end["reason"] == "resign" and end["winner"] == 0 and len(moves) == 2
        assert await metric(server, cause) == 1
        record = await finished_record(tmp_path, process)
        assert record["resigned"] == cause
        assert record["decisions"][-1]["source"].startswith(f"resigned: {cause}")
    finally:
        if process.returncode is None:
            process.kill()
