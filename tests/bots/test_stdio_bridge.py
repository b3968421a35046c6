"""``arbiter bridge stdio``: any program of the line protocol (docs/STDIO.md) as a bot. The handshake,
turn lines and answers as functions; the faults of a small program written for the tests
(tests/bots/stdio_programs/first_legal.py) through the bridge's processes; then whole games through
a real ``arbiter bridge stdio`` process on a real server: a sound program plays to the end, and a
program that crashes, hangs, answers an occupied cell or prints garbage has its match resigned
with that cause, in the game log, /metrics and the player's failure report, whose request file,
downloaded over HTTP, brings the failure back with ``--replay``."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

import pytest
from bridge_helpers import bridge_process, finished_records, http_get, logged, metric, play_against, sound_game
from click.testing import CliRunner

from arbiter.bots.brain import ThinkRequest
from arbiter.bots.bridge.replay import replay, turn_of
from arbiter.bots.bridge.stdio import Handshake, StdioPool, check_answer, position_of, turn_line
from arbiter.bots.client.deciding import GiveUp
from arbiter.cli import main
from arbiter.server import RunningServer
from tests.support.wsclient import Client

pytestmark = pytest.mark.timeout(180)

PROGRAM = [sys.executable, str(Path(__file__).parent / "stdio_programs" / "first_legal.py")]
GAME = "tictactoe"
FAST = {"initial_ms": 60_000, "increment_ms": 0, "move_limit_ms": 1_000}  # a hang costs a second, not minutes
CLOCK = {"remaining_ms": 5_000, "opponent_ms": 4_000, "initial_ms": 60_000, "increment_ms": 0}
FAULTS = [("--crash-at", "crash"), ("--hang-at", "timeout"), ("--illegal-at", "illegal_move"),
          ("--garbage-at", "protocol_error")]  # fmt: skip


@pytest.mark.parametrize(
    ("line", "complaint"),
    [("hello", "must be its handshake"), ('{"stdio": 2}', "must be its handshake"),
     ('{"stdio": 1, "games": "gomoku"}', "games must be a list"),
     ('{"stdio": 1, "process": "move"}', "process must be one of")],
)  # fmt: skip
def test_a_bad_handshake_says_what_is_wrong(line: str, complaint: str) -> None:
    with pytest.raises(GiveUp) as gave_up:
        Handshake.parse(line, "prog")
    assert gave_up.value.cause == "protocol_error" and complaint in str(gave_up.value)


def test_a_handshake_names_the_games_and_the_process() -> None:
    shake = Handshake.parse('{"stdio": 1, "name": "kit", "games": ["gomoku"], "process": "game"}', "prog")
    assert (shake.name, shake.process, shake.plays("gomoku"), shake.plays("qubic")) == ("kit", "game", True, False)
    assert Handshake.parse('{"stdio": 1}', "prog").plays("qubic")  # no games: whatever the bridge offers


def test_a_turn_line_has_the_game_the_clocks_the_budget_and_the_legal_moves() -> None:
    request = ThinkRequest("m1", "tictactoe", {}, [[1, 1], [0, 0], [2, 2]], 0.25, clock=CLOCK)
    turn = turn_line(request, position_of("tictactoe", {}, request.moves), 480)
    assert turn["type"] == "turn" and turn["family"] == "mnk" and turn["params"]["k"] == 3
    assert (turn["ply"], turn["color"], turn["last"]) == (3, 1, [2, 2])
    assert turn["clocks"] == [4_000, 5_000]  # by colour: the mover (1) has remaining_ms
    assert (turn["budget_ms"], turn["deadline_ms"]) == (250, 480)
    assert turn["clock"] == {"initial_ms": 60_000, "increment_ms": 0, "move_limit_ms": None}
    assert [0, 1] in turn["legal"] and [1, 1] not in turn["legal"] and len(turn["legal"]) == 6
    assert "X" in turn["position"]
    soccer = ThinkRequest("m2", "paper_soccer", {}, [[0]], 0.25, clock=CLOCK)
    line = turn_line(soccer, position_of("paper_soccer", {}, soccer.moves), 480)
    assert "legal" not in line and line["params"] == {"width": 8, "length": 10, "stuck": "lose"}


@pytest.mark.parametrize(
    ("line", "cause", "complaint"),
    [("e4", "protocol_error", "not a JSON line"), ("[1, 1]", "protocol_error", 'not {"move"'),
     ('{"move": [0, 0], "info": 3}', "protocol_error", "info must be a map"),
     ('{"move": "b2"}', "protocol_error", '"b2"'), ('{"move": [1, 1]}', "illegal_move", "played [1, 1]")],
)  # fmt: skip
def test_an_answer_that_is_no_legal_move_is_classified(line: str, cause: str, complaint: str) -> None:
    with pytest.raises(GiveUp) as gave_up:
        check_answer(line, position_of("tictactoe", {}, [[1, 1]]), "prog")
    assert gave_up.value.cause == cause and complaint in str(gave_up.value)


def test_a_legal_answer_keeps_only_the_analysis_the_protocol_carries() -> None:
    move, info = check_answer('{"move": [0, 0], "info": {"depth": 2, "pv": [[0, 0]], "mood": "good"}}',
                              position_of("tictactoe", {}, [[1, 1]]), "prog")  # fmt: skip
    assert move == [0, 0] and info == {"depth": 2, "pv": [[0, 0]]}
    state = position_of("tictactoe", {}, [[1, 1]])
    for bad in ('{"depth": 20000}', '{"pv": [["b2"]]}', '{"pv": [[1, 1]], "depth": 100000}'):
        move, info = check_answer(f'{{"move": [0, 0], "info": {bad}}}', state, "prog")
        assert move == [0, 0] and info == {}  # what the server would refuse the move for is dropped, not sent


def request_at(ply_moves: list[list[int]], match: str = "m1", budget: float = 0.2) -> ThinkRequest:
    deadline = time.monotonic() + 1.0
    return ThinkRequest(match, GAME, {}, ply_moves, budget, deadline=deadline, clock=CLOCK)


@pytest.mark.process
@pytest.mark.parametrize(("flag", "cause"), FAULTS)
async def test_each_fault_gives_up_with_its_cause_and_the_turn_line_sent(flag: str, cause: str) -> None:
    pool = StdioPool([*PROGRAM, flag, "3"], slots=1)
    try:
        assert await pool.start([GAME, "gomoku"]) == [GAME, "gomoku"]
        first = await pool.think(request_at([[1, 1]]))
        assert first.move == [0, 0] and first.info["depth"] == 1 and "seconds" in first.info
        with pytest.raises(GiveUp) as gave_up:
            await pool.think(request_at([[1, 1], [0, 0], [2, 2]]))
        assert gave_up.value.cause == cause
        assert gave_up.value.request is not None and gave_up.value.request["moves"] == [[1, 1], [0, 0], [2, 2]]
        pool.forget("m1")  # the next match gets a sound process again
        assert (await pool.think(request_at([[1, 1]], match="m2"))).move == [0, 0]
    finally:
        await pool.close()


@pytest.mark.process
async def test_after_a_cancelled_turn_the_next_answer_is_the_next_turn_s() -> None:
    """A resync cancels the search of a turn whose answer is still to come: the bridge skips that
    answer, and the next turn gets its own (first-legal's info score is the ply it answers)."""
    pool = StdioPool([*PROGRAM, "--slow-at", "3"], slots=1)
    try:
        await pool.start([GAME])
        slow = asyncio.get_running_loop().create_task(pool.think(request_at([[1, 1], [0, 0], [2, 2]])))
        while "m1" not in pool._sent:  # the turn line is out
            await asyncio.sleep(0)
        slow.cancel()
        answer = await pool.think(request_at([[1, 1], [0, 0], [2, 2], [1, 0], [2, 0]]))
        assert answer.info["score"] == 5 and answer.move == [0, 1]
    finally:
        await pool.close()


@pytest.mark.process
async def test_a_game_process_serves_every_match_of_its_game() -> None:
    pool = StdioPool([*PROGRAM, "--process", "game", "--games", "tictactoe,qubic"], slots=2)
    try:
        assert await pool.start(["gomoku", "tictactoe", "qubic"]) == ["tictactoe", "qubic"]
        assert pool.refusal("gomoku", {}) == "first-legal does not play gomoku"
        assert pool.refusal("tictactoe", {"k": 9}) is not None and pool.refusal("tictactoe", {}) is None
        answers = await asyncio.gather(pool.think(request_at([[1, 1]], "a")), pool.think(request_at([], "b")))
        assert [a.move for a in answers] == [[0, 0], [0, 0]]
        assert list(pool._shared) == ["tictactoe", "qubic"] and not pool._busy and not pool._idle
        pool.forget("a")  # an end line to the shared process, which goes on with b
        assert (await pool.think(request_at([[0, 0], [1, 1]], "b"))).move == [1, 0]
    finally:
        await pool.close()


async def replayed(replay_file: Path, *flags: str) -> tuple[int, str]:
    """``arbiter bridge stdio --replay FILE`` with the test program: its exit code and output."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "arbiter.cli", "bridge", "stdio", "--replay", str(replay_file), "--", *PROGRAM, *flags,
        stdout=asyncio.subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    out, _ = await asyncio.wait_for(process.communicate(), 60)
    return process.returncode or 0, out.decode()


@pytest.mark.process
async def test_a_sound_program_plays_whole_games_with_its_analysis(server: RunningServer, tmp_path: Path) -> None:
    process = await bridge_process(server, tmp_path, "stdio", PROGRAM, games=GAME)
    record = await sound_game(server, tmp_path, process, GAME, clock=FAST)
    assert all(d["info"]["nodes"] > 0 for d in record["decisions"])  # the program's info, as it said it


@pytest.mark.process
@pytest.mark.parametrize(("flag", "cause"), FAULTS)
async def test_a_failing_program_is_resigned_reported_and_its_turn_replays(
    server: RunningServer, tmp_path: Path, flag: str, cause: str
) -> None:
    process = await bridge_process(server, tmp_path, "stdio", [*PROGRAM, flag, "3"], games=GAME)
    try:
        await logged(process, '"connected"')
        end, moves = await play_against(server, GAME, clock=FAST)
        assert end["reason"] == "resign" and end["winner"] == 0 and len(moves) == 1
        assert await metric(server, cause) == 1
        (record,) = await finished_records(tmp_path, process)
        assert record["resigned"] == cause and record["decisions"][-1]["request"]["ply"] == 3
    finally:
        if process.returncode is None:
            process.kill()
    status, _, body = await http_get(server, "/player.json?name=engine")
    (failure,) = json.loads(body)["failures"]["games"]
    assert status == 200 and failure["cause"] == cause and failure["ply"] == 3
    assert json.loads(body)["failures"]["counts"]["resigned"] == {cause: 1}
    status, headers, body = await http_get(server, failure["request"])
    assert status == 200 and headers["Content-Disposition"].startswith("attachment;")
    request = json.loads(body)
    assert request["moves"] == record["moves"] and request["color"] == 1
    assert request["received"][0]["type"] == "moved" and request["received"][0]["ply"] == 2
    stored = await server.hub.store.get_game(record["match"])
    assert stored is not None
    elapsed = [m.elapsed_ms for m in stored.moves]
    assert (
        request["clocks"] == request["received"][0]["clocks"] == [60_000 - elapsed[0] - elapsed[2], 60_000 - elapsed[1]]
    )
    said: list[str] = []
    assert not await replay([*PROGRAM, flag, "3"], turn_of(request), said.append)  # the failure comes back
    assert said[-1].startswith(f"verdict: {cause}:") and json.loads(said[0].split(maxsplit=1)[1])["ply"] == 3
    said.clear()  # the exact line the bridge sent, from its game log
    assert not await replay([*PROGRAM, flag, "3"], turn_of(record), said.append)
    assert said[-1].startswith(f"verdict: {cause}:")
    if cause == "illegal_move":  # the command itself, on the downloaded file: exit 1, then 0 once fixed
        downloaded = tmp_path / "request.json"
        downloaded.write_bytes(body)
        code, out = await replayed(downloaded, flag, "3")
        assert code == 1 and "verdict: illegal_move:" in out, out
        code, out = await replayed(downloaded)
        assert code == 0 and "verdict: legal, in time" in out and '"move": [1, 0]' in out, out


@pytest.mark.parametrize(
    ("args", "complaint"),
    [(["--games", "tictactoe"], "needs --server"),
     (["--server", "http://x/", "--token", "t"], "must be ws:// or wss://"),
     (["--server", "ws://127.0.0.1:1/"], "needs --token"),
     (["--server", "ws://127.0.0.1:1/", "--token", "t", "--games", "chess"], "--games: unknown game"),
     (["--server", "ws://127.0.0.1:1/", "--token", "t", "--games", ","], "--games needs at least one game")],
)  # fmt: skip
def test_bad_flags_get_clear_errors(args: list[str], complaint: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["bridge", "stdio", *args, "--", *PROGRAM], env={"ARBITER_TOKEN": ""})
    assert result.exit_code == 2 and complaint in result.output, result.output


def test_a_replay_file_that_holds_no_turn_is_refused(tmp_path: Path) -> None:
    runner = CliRunner()
    for content, complaint in [("{", "is not JSON"), ('{"type": "moved"}', "expected a turn line"),
                               ('{"type": "turn", "game": "tictactoe"}', "has no 'params'")]:  # fmt: skip
        (tmp_path / "bad.json").write_text(content)
        result = runner.invoke(main, ["bridge", "stdio", "--replay", str(tmp_path / "bad.json"), "--", *PROGRAM])
        assert result.exit_code == 2 and complaint in result.output, result.output


@pytest.mark.process
@pytest.mark.parametrize(
    ("flags", "complaint"),
    [(["--handshake", "hello"], "first line must be its handshake"),
     (["--games", "qubic"], "first-legal plays none of tictactoe (its handshake names qubic)")],
)  # fmt: skip
def test_a_program_that_cannot_play_stops_the_bridge_before_it_connects(flags: list[str], complaint: str) -> None:
    args = ["bridge", "stdio", "--server", "ws://127.0.0.1:1/", "--token", "t", "--games", GAME, "--", *PROGRAM]
    result = CliRunner().invoke(main, [*args, *flags])
    assert result.exit_code == 1 and complaint in result.output, result.output


@pytest.mark.process
async def test_a_drain_resigns_a_live_match_for_drain_which_is_no_failure_of_the_program(
    server: RunningServer, tmp_path: Path
) -> None:
    process = await bridge_process(server, tmp_path, "stdio", PROGRAM, games=GAME, flags=["--drain-timeout", "0"])
    human = await Client.connect(server.url, token=await server.hub.store.add_player("tester", "human"))
    try:
        await logged(process, '"connected"')
        await human.request("challenge", to="engine", game=GAME, clock=FAST, color="second")
        match = (await human.expect("match_start"))["match"]
        await human.expect("moved", match=match, ply=0)  # the program's first move; now the human thinks
        process.terminate()
        end = await human.expect("end", match=match)
        assert (end["reason"], end["winner"]) == ("resign", 1) and await process.wait() == 0
    finally:
        await human.close()
        if process.returncode is None:
            process.kill()
    assert await metric(server, "drain") == 1
    status, _, body = await http_get(server, "/player.json?name=engine")
    (failure,) = json.loads(body)["failures"]["games"]  # lost, but by the bridge's stop, not the program
    assert status == 200 and failure["cause"] == "resign" and json.loads(body)["failures"]["counts"]["resigned"] == {}
