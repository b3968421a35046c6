"""Reviews and the analysis board over real sockets (SPEC.md section 18): our bot as a worker
process connected to a real server reviews a finished game; results are checked (a worker's illegal
best move is refused and the job goes to another, or the request fails cleanly); no worker is said
at once; a kept review is served without a worker; the queue's bound holds under 50 requests
while a live game goes on."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.results.game_files import format_named
from arbiter.server.store.memory import MemoryStore
from tests.support.wsclient import Client, play_move, play_out, start_match

# X takes a corner, O answers beside it (the blunder: only the centre holds the draw), X forks and wins.
BLUNDER_GAME = [[0, 0], [0, 1], [1, 1], [2, 2], [1, 0], [2, 0], [1, 2]]


@pytest.fixture
def config() -> ServerConfig:
    return ServerConfig(port=0, reconnect_grace_s=2.0, review_budget_ms=50, analyse_burst=100)


async def finished_game(connect: Any, moves: list[list[int]]) -> str:
    first, second = await connect(), await connect()
    match = await start_match(first, second)
    for ply, move in enumerate(moves):
        assert (await play_move((first, second)[ply % 2], match, ply, move))["type"] == "moved"
    await first.expect("end", match=match)
    return match


@contextlib.asynccontextmanager
async def analysis_worker(server: RunningServer) -> AsyncIterator[asyncio.subprocess.Process]:
    """``arbiter analyse`` on tictactoe as a real process, connected once its hello is in."""
    known = len(server.hub.analysis.workers)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "arbiter.cli", "analyse", "--server", server.url, "--games", "tictactoe",
        "--log-level", "warning", stderr=asyncio.subprocess.DEVNULL, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        async with asyncio.timeout(120):
            while len(server.hub.analysis.workers) == known:
                await asyncio.sleep(0.05)
        yield process
    finally:
        process.kill()
        await process.wait()


async def bad_worker(server: RunningServer, answer: Any) -> Client:
    """A worker that answers every job with ``answer(job)``'s evaluations."""
    client = await Client.connect(server.url, games=["tictactoe"], analysis=1)

    async def serve() -> None:
        with contextlib.suppress(AssertionError, ConnectionClosed):  # until the connection closes
            while True:
                job = await client.expect("analysis_job", timeout=600)
                evals = answer(job)
                await client.send({"type": "analysis_result", "id": job["job"], "job": job["job"], "evals": evals})

    asyncio.get_running_loop().create_task(serve())
    return client


def illegal(job: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"ply": ply, "win": 0.5, "best": [9, 9]} for ply in job["plies"]]


async def get_review(server: RunningServer, match: str) -> tuple[int, dict[str, Any]]:
    return await asyncio.to_thread(read_review, server, match)


def read_review(server: RunningServer, match: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(f"{server.http_url}/review.json?match={match}", timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


async def until_done(client: Client, match: str) -> dict[str, Any]:
    while True:
        state = await client.expect("review_state", match=match, timeout=60)
        if state["status"] in ("done", "failed"):
            return state


async def test_a_worker_process_reviews_a_game_after_a_bad_worker_is_refused(
    server: RunningServer, connect: Any
) -> None:
    match = await finished_game(connect, BLUNDER_GAME)
    liar = await bad_worker(server, illegal)  # the first worker: the job goes to it first
    async with analysis_worker(server):
        await reviewed(server, connect, liar, match)


async def reviewed(server: RunningServer, connect: Any, liar: Client, match: str) -> None:
    viewer = await connect()
    first = await viewer.request("review", match=match)
    assert first["type"] == "review_state" and first["total"] == len(BLUNDER_GAME)  # the final position is over
    refused = await liar.expect("error", code="bad_analysis")
    assert "[9, 9]" in refused["message"]
    assert (await until_done(viewer, match))["status"] == "done"
    status, review = await get_review(server, match)
    assert status == 200
    assert (
        len(review["players"]) == 2 and review["result"] == "first" and review["engine"].startswith("arbiter-analyse/")
    )
    assert [p["win"] for p in review["positions"]][-1] == [1.0, 0.0]  # the final position: first won
    classes = [m["class"] for m in review["moves"]]
    assert classes[1] == "blunder" and review["moves"][1]["best"] == [1, 1], review["moves"][1]
    assert review["moves"][1]["loss"] == pytest.approx(0.5)
    assert classes.count("blunder") == 1 and set(classes) <= {"best", "good", "blunder"}
    first_side, second_side = review["summary"]
    assert first_side["counts"]["blunder"] == 0 and second_side["counts"]["blunder"] == 1
    assert second_side["accuracy"] < first_side["accuracy"] == 100.0
    assert review["thresholds"] == {"inaccuracy": 0.1, "mistake": 0.2, "blunder": 0.3}
    # The analysis board on the blunder's position: the same worker, the centre and X's win after O's edge.
    board = await viewer.request("analyse", game="tictactoe", moves=BLUNDER_GAME[:1])
    assert board["type"] == "analysis" and board["best"] == [1, 1] and board["win"] == [0.5, 0.5]
    board = await viewer.request("analyse", game="tictactoe", moves=BLUNDER_GAME[:2])
    assert board["win"] == [1.0, 0.0] and board["pv"][0] == board["best"]
    over = await viewer.request("analyse", game="tictactoe", moves=BLUNDER_GAME)  # over: no worker asked
    assert (over["best"], over["win"]) == (None, [1.0, 0.0])
    bad = await viewer.request("analyse", game="tictactoe", moves=[[0, 0], [0, 0]])
    assert bad["code"] == "illegal_move"
    # The game's files carry it, and still read back as the game.
    for fmt, mark in (("sgf", "\nreview: blunder (-50%"), ("text", "{review blunder (-50%")):
        url = f"{server.http_url}/export?match={match}&format={fmt}"
        body = (await asyncio.to_thread(lambda url=url: urllib.request.urlopen(url, timeout=10).read())).decode()
        assert body.count(mark) == 1, body
        (record,) = format_named(fmt).read(body)
        assert [m.move for m in record.moves] == BLUNDER_GAME and all(m.info is None for m in record.moves)
    # The terminal's review, asked of the server: the kept one, the same verdicts.
    command = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "arbiter.cli", "review", match, "--server", server.url, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await command.communicate()
    assert command.returncode == 0
    assert "blunder (-50%, 50% → 0%), best [1, 1] line [1, 1]" in out.decode() and "??" in out.decode()
    assert "accuracy 100.0" in out.decode()


async def test_a_kept_review_is_served_without_a_worker_and_none_is_said_at_once(
    server: RunningServer, connect: Any, store: MemoryStore
) -> None:
    match = await finished_game(connect, BLUNDER_GAME)
    viewer = await connect()
    assert (await viewer.request("review", match=match))["code"] == "no_analysis_worker"
    assert (await viewer.request("analyse", game="tictactoe", moves=[]))["code"] == "no_analysis_worker"
    status, body = await get_review(server, match)
    assert (status, body["code"]) == (404, "no_review")
    assert (await viewer.request("review", match="nope"))["code"] == "unknown_match"
    kept = {"match": match, "positions": [{"best": [1, 1]}, {"best": None}], "moves": [], "summary": []}
    await store.save_review(match, kept)
    state = await viewer.request("review", match=match)
    assert (state["type"], state["status"], state["done"], state["total"]) == ("review_state", "done", 1, 1)
    assert await get_review(server, match) == (200, kept)


async def test_a_worker_that_only_lies_fails_the_review_cleanly(server: RunningServer, connect: Any) -> None:
    match = await finished_game(connect, BLUNDER_GAME)
    liar = await bad_worker(server, illegal)
    viewer = await connect()
    assert (await viewer.request("review", match=match))["status"] == "running"  # given to the worker at once
    assert (await until_done(viewer, match))["status"] == "failed"
    assert [(await liar.expect("error"))["code"] for _ in range(3)] == ["bad_analysis"] * 3  # three tries
    assert not server.hub.analysis.tasks and not server.hub.analysis.reviews
    wrong_plies = await bad_worker(server, lambda job: [{"ply": 99, "win": 0.5, "best": [1, 1]}])
    await liar.close()
    answer = await viewer.request("analyse", game="tictactoe", moves=[])
    assert answer["code"] == "analysis_failed"
    assert (await wrong_plies.expect("error"))["code"] == "bad_analysis"


async def test_the_queue_holds_50_requests_and_refuses_the_51st_while_a_live_game_plays_on(
    server: RunningServer, connect: Any
) -> None:
    silent = await Client.connect(server.url, games=["tictactoe"], analysis=1)  # takes one job, never answers
    asker = await connect()
    for n in range(50):
        await asker.send({"type": "analyse", "id": n, "game": "tictactoe", "moves": [[n % 3, n // 3 % 3]]})
    refused = await asker.request("analyse", game="tictactoe", moves=[])
    assert refused["code"] == "analysis_queue_full"
    assert len(server.hub.analysis.tasks) == 50 and not asker.pending("analysis")
    first, second = await connect(), await connect()
    match = await start_match(first, second)
    end = await play_out((first, second), match, "tictactoe", None, seed=3)  # the live game is not held up
    assert end["reason"] in ("line", "full")
    await silent.close()  # its job is lost, then no worker is left: every request fails, none spins
    errors = [await asker.expect("error", re=n) for n in range(50)]
    assert {e["code"] for e in errors} == {"analysis_failed"}
    assert not server.hub.analysis.tasks


async def test_the_analysis_board_is_rate_limited_per_person() -> None:
    async with run_server(ServerConfig(port=0), MemoryStore()) as server:
        silent = await Client.connect(server.url, games=["tictactoe"], analysis=1)
        asker = await Client.connect(server.url)
        for n in range(6):  # a burst of 5 is taken (queued: the worker never answers), the 6th is not
            await asker.send({"type": "analyse", "id": n, "game": "tictactoe", "moves": []})
        assert (await asker.expect("error", re=5))["code"] == "rate_limited"
        assert len(server.hub.analysis.tasks) == 5 and not asker.pending("error")
        other = await Client.connect(server.url)  # another person has a bucket of its own
        await other.send({"type": "analyse", "id": 1, "game": "tictactoe", "moves": []})
        async with asyncio.timeout(10):
            while len(server.hub.analysis.tasks) < 6:
                await asyncio.sleep(0.01)
        assert not other.pending("error")
        for client in (silent, asker, other):
            await client.close()


async def test_the_analysis_board_is_closed_to_a_player_while_it_plays_and_opens_at_the_end(
    server: RunningServer, connect: Any
) -> None:
    """The server's workers never search for a side of a live game: its players are refused, a
    spectator is not, and the players may ask again once the game is over."""
    silent = await Client.connect(server.url, games=["tictactoe"], analysis=2)  # takes jobs, never answers
    first, second, watcher = await connect(), await connect(), await connect()
    match = await start_match(first, second)
    assert (await play_move(first, match, 0, [1, 1]))["type"] == "moved"
    position = {"game": "tictactoe", "moves": [[1, 1]]}
    for player in (first, second):
        refused = await player.request("analyse", **position)
        assert refused["code"] == "analysis_while_playing", refused
    assert not server.hub.analysis.tasks and not silent.pending("analysis_job")  # nothing queued for them
    await watcher.send({"type": "analyse", "id": 1, **position})  # a spectator's request goes to the worker
    assert (await silent.expect("analysis_job"))["moves"] == position["moves"]
    await first.request("resign", match=match)
    assert (await second.expect("end", match=match))["reason"] == "resign"
    await first.send({"type": "analyse", "id": 2, **position})  # over: searched like anyone's
    assert (await silent.expect("analysis_job"))["moves"] == position["moves"]
    assert len(server.hub.analysis.tasks) == 2 and not first.pending("error") and not watcher.pending("error")
    await silent.close()
