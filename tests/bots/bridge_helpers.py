"""``arbiter bridge pbrain|stdio`` as real processes on a real server, for the bridges' tests: start
one, wait for its log lines, play a human's random moves against it, read its game log and the
server's /metrics."""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arbiter.engine import create_game
from arbiter.server import RunningServer
from tests.support.wsclient import Client, play_move, random_move

CLOCK = {"initial_ms": 60_000, "increment_ms": 0}


async def bridge_process(
    server: RunningServer, tmp_path: Path, kind: str, program: Sequence[str], *, games: str, account: str = "engine",
    flags: Sequence[str] = (),
) -> asyncio.subprocess.Process:  # fmt: skip
    """``arbiter bridge KIND`` for a new bot ``account`` playing ``games`` with ``program``, its log on stderr."""
    token_file = tmp_path / f"{account}.token"
    token_file.write_text(await server.hub.store.add_player(account, "bot") + "\n")
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "arbiter.cli", "bridge", kind, "--server", server.url, "--token-file",
        str(token_file), "--games", games, "--game-log", str(tmp_path / "games.jsonl"), "--log-level", "info",
        *flags, "--", *program,
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


async def play_against(
    server: RunningServer, game: str, opponent: str = "engine", clock: dict[str, Any] = CLOCK
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A human opens against the bridged ``opponent`` and plays random moves to the end: the end, and
    the bridge's ``moved`` messages."""
    human = await Client.connect(server.url, token=await server.hub.store.add_player("tester", "human"))
    created = await human.request("challenge", to=opponent, game=game, clock=clock, color="first")
    assert created["type"] == "challenge_created", created
    match = (await human.expect("match_start"))["match"]
    state, rng, ply = create_game(game).new_state(), random.Random(7), 0
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


async def http_get(server: RunningServer, path: str) -> tuple[int, dict[str, str], bytes]:
    """GET ``path`` from the server's HTTP side (off the loop it runs on): status, headers, body."""

    def read() -> tuple[int, dict[str, str], bytes]:
        try:
            with urllib.request.urlopen(server.http_url + path, timeout=5) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    return await asyncio.to_thread(read)


async def metric(server: RunningServer, cause: str) -> float:
    """The server's count of resignations for ``cause``."""
    _, _, body = await http_get(server, "/metrics")
    for line in body.decode().splitlines():
        if line.startswith("arbiter_bot_resignations_total{") and f'cause="{cause}"' in line:
            return float(line.rsplit(" ", 1)[1])
    return 0.0


async def finished_records(tmp_path: Path, process: asyncio.subprocess.Process) -> list[dict[str, Any]]:
    """Stop the bridge (a drain: nothing is live, so it exits at once) and read its game log."""
    process.terminate()
    assert await asyncio.wait_for(process.wait(), 30) == 0
    return [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]


async def sound_game(
    server: RunningServer, tmp_path: Path, process: asyncio.subprocess.Process, game: str,
    clock: dict[str, Any] = CLOCK,
) -> dict[str, Any]:  # fmt: skip
    """The bridge ``process`` (capacity 1) plays a whole game against a human's random moves, every
    move its program's own, the analysis on the wire; its game-log record."""
    try:
        await logged(process, '"connected"')
        assert server.hub.roster.get("engine").capacity == 1
        end, moves = await play_against(server, game, clock=clock)
        assert end["reason"] != "resign" and moves
        (record,) = await finished_records(tmp_path, process)
        assert record["resigned"] is None and record["reason"] == end["reason"]
        assert all(d["source"] == "brain" for d in record["decisions"])
        stored = await server.hub.store.get_game(record["match"])
        assert stored is not None and stored.moves[1].info["depth"] == 1  # the analysis went on the wire
        return record
    finally:
        if process.returncode is None:
            process.kill()
