"""SIGTERM drains a real ``arbiter serve``: no new matches, live ones finish (or are interrupted at the
deadline), every end is announced and stored, and the process exits 0."""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from arbiter.server.store.sqlite import SqliteStore
from tests.support.wsclient import Client, play_move, start_match

FIRST_WINS = [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]


class Server:
    """A running ``arbiter serve`` whose stderr is read as it comes: JSON log records, kept in order."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.url = ""
        self.records: list[dict[str, Any]] = []
        self._logged = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> None:
        stderr = self.process.stderr
        assert stderr is not None
        async with asyncio.timeout(60):
            while not self.url:
                line = (await stderr.readline()).decode()
                assert line, "the server exited before listening"
                if line.startswith("listening on "):
                    self.url = line.split()[-1]
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        assert self.process.stderr is not None
        async for line in self.process.stderr:
            if line.startswith(b"{"):
                self.records.append(json.loads(line))
                self._logged.set()

    async def logged(self, msg: str, timeout: float = 10.0) -> dict[str, Any]:
        """The first log record with this message, waiting for it."""
        async with asyncio.timeout(timeout):
            while True:
                for record in self.records:
                    if record["msg"] == msg:
                        return record
                self._logged.clear()
                await self._logged.wait()

    async def exit_code(self, timeout: float = 30.0) -> int:
        async with asyncio.timeout(timeout):
            code = await self.process.wait()
            if self._reader is not None:
                await self._reader
        return code


@asynccontextmanager
async def serve(db: Path, *args: str) -> AsyncIterator[Server]:
    command = [sys.executable, "-m", "arbiter.cli", "serve", "--port", "0", "--db", str(db), *args]
    server = Server(await asyncio.create_subprocess_exec(*command, stderr=asyncio.subprocess.PIPE))
    try:
        await server.start()
        yield server
    finally:
        if server.process.returncode is None:
            server.process.kill()
            await server.process.wait()


def health(ws_url: str) -> dict[str, Any]:
    with urllib.request.urlopen(ws_url.replace("ws://", "http://", 1) + "healthz", timeout=5) as response:
        return json.loads(response.read())


async def players(db: Path) -> dict[str, str]:
    store = SqliteStore(db)
    await store.open()
    try:
        return {name: await store.add_player(name, "bot") for name in ("alpha", "beta")}
    finally:
        await store.close()


async def stored_game(db: Path, match: str) -> Any:
    store = SqliteStore(db)
    await store.open()
    try:
        return await store.get_game(match), await store.interrupted_games()
    finally:
        await store.close()


async def test_sigterm_refuses_new_matches_and_lets_the_live_one_finish(tmp_path: Path) -> None:
    db = tmp_path / "arbiter.db"
    tokens = await players(db)
    async with serve(db, "--drain-timeout", "60") as server:
        alpha = await Client.connect(server.url, token=tokens["alpha"])
        beta = await Client.connect(server.url, token=tokens["beta"])
        match = await start_match(alpha, beta, rated=True)
        for ply, move in enumerate(FIRST_WINS[:2]):
            await play_move(alpha if ply % 2 == 0 else beta, match, ply, move)

        server.process.send_signal(signal.SIGTERM)
        draining = await server.logged("draining")
        assert draining["live_matches"] == 1 and draining["timeout_s"] == 60
        refused = await alpha.request("challenge", to=beta.name, game="tictactoe", clock={"initial_ms": 60_000})
        assert refused["type"] == "error" and refused["code"] == "unavailable", refused
        assert "shutting down" in refused["message"]
        assert (await beta.request("ladder_join", game="tictactoe"))["code"] == "unavailable"
        guest = await Client.connect(server.url)  # logging in still works: players may come back to finish
        assert guest.name.startswith("guest-")
        assert (await asyncio.to_thread(health, server.url))["status"] == "draining"

        for ply, move in enumerate(FIRST_WINS[2:], start=2):
            await play_move(alpha if ply % 2 == 0 else beta, match, ply, move)
        end = await beta.expect("end", match=match)
        assert (end["result"], end["reason"]) == ("1-0", "line") and end["rating_changes"]["alpha"] > 0
        assert await server.exit_code() == 0  # the last live match ended: the drain is over at once
        assert (await alpha.wait_closed())[0] == 1001

    record, interrupted = await stored_game(db, match)
    assert (record.result, record.reason, len(record.moves)) == ("1-0", "line", 5)
    assert record.rating_changes["alpha"] > 0 and interrupted == []


async def test_matches_still_live_at_the_drain_deadline_end_interrupted(tmp_path: Path) -> None:
    db = tmp_path / "arbiter.db"
    tokens = await players(db)
    async with serve(db, "--drain-timeout", "0.5") as server:
        alpha = await Client.connect(server.url, token=tokens["alpha"])
        beta = await Client.connect(server.url, token=tokens["beta"])
        match = await start_match(alpha, beta, rated=True)
        for ply, move in enumerate(FIRST_WINS[:3]):
            await play_move(alpha if ply % 2 == 0 else beta, match, ply, move)

        server.process.send_signal(signal.SIGTERM)  # nobody moves again: the deadline ends the match
        ends = [await client.expect("end", match=match) for client in (alpha, beta)]
        assert ends[0] == ends[1]
        assert (ends[0]["result"], ends[0]["winner"], ends[0]["reason"]) == (None, None, "interrupted")
        assert ends[0]["ply"] == 3 and ends[0]["rating_changes"] == {}
        assert await server.exit_code() == 0
        assert (await alpha.wait_closed())[0] == 1001
        logged = [r for r in server.records if r["msg"] == "match ended"]
        assert [(r["match"], r["reason"], r["result"]) for r in logged] == [(match, "interrupted", None)]

    record, interrupted = await stored_game(db, match)
    assert (record.result, record.reason, len(record.moves)) == (None, "interrupted", 3)
    assert record.ended is not None and interrupted == []


async def test_a_second_signal_ends_the_drain_at_once(tmp_path: Path) -> None:
    db = tmp_path / "arbiter.db"
    async with serve(db, "--drain-timeout", "3600") as server:
        alpha, beta = await Client.connect(server.url), await Client.connect(server.url)
        match = await start_match(alpha, beta)
        server.process.send_signal(signal.SIGINT)
        await server.logged("draining")
        server.process.send_signal(signal.SIGINT)  # Ctrl-C twice: stop now, still cleanly
        assert (await alpha.expect("end", match=match))["reason"] == "interrupted"
        assert await server.exit_code() == 0

    record, _ = await stored_game(db, match)
    assert (record.result, record.reason) == (None, "interrupted")
