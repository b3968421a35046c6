"""``arbiter serve --db postgresql://…`` as a real process on the tests' own PostgreSQL: players
registered with ``arbiter player add --db URL`` play a rated game over real sockets, the game
and the ratings are in PostgreSQL, and the CLI reads them back."""

from __future__ import annotations

import asyncio
import subprocess
import sys

from tests.support.wsclient import Client, play_out, start_match

ARBITER = [sys.executable, "-m", "arbiter.cli"]


def register(url: str, name: str) -> str:
    done = subprocess.run(
        [*ARBITER, "player", "add", name, "--kind", "bot", "--db", url], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


async def test_a_rated_game_on_postgresql(postgres_url: str) -> None:
    tokens = [register(postgres_url, name) for name in ("alice", "bob")]
    process = await asyncio.create_subprocess_exec(
        *ARBITER, "serve", "--port", "0", "--db", postgres_url, "--no-warm", stderr=asyncio.subprocess.PIPE
    )
    assert process.stderr is not None
    try:
        async with asyncio.timeout(60):
            while not (line := (await process.stderr.readline()).decode()).startswith("listening on "):
                assert line, "the server exited before listening"
                assert "arbiter-test-password" not in line  # the URL's password never reaches a log
        url = line.split()[-1]
        alice, bob = [await Client.connect(url, token=token) for token in tokens]
        match = await start_match(alice, bob, rated=True)
        end = await play_out((alice, bob), match, "tictactoe", None, seed=3)
        assert set(end["rating_changes"]) == {"alice", "bob"}
        for client in (alice, bob):
            await client.close()
    finally:
        process.terminate()
        assert await process.wait() == 0

    exported = subprocess.run([*ARBITER, "export", "--db", postgres_url], capture_output=True, text=True)
    assert exported.returncode == 0 and f'[MatchId "{match}"]' in exported.stdout, exported.stderr
    board = subprocess.run([*ARBITER, "leaderboard", "tictactoe", "--db", postgres_url], capture_output=True, text=True)
    assert board.returncode == 0 and "alice" in board.stdout and "bob" in board.stdout, board.stderr


def test_a_bad_url_is_one_line_and_exit_2() -> None:
    url = "postgresql://arbiter:hunter2@127.0.0.1:1/arbiter"
    done = subprocess.run([*ARBITER, "player", "list", "--db", url], capture_output=True, text=True)
    assert done.returncode == 2 and "is not answering" in done.stderr and "hunter2" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
