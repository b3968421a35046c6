"""Make the upgrade fixtures: a small store as this release's ``arbiter serve`` leaves it, on both stores.

    .venv/bin/python -m tests.store.make_upgrade_fixture

writes ``tests/store/fixtures/schema-N.sqlite.sql`` (the SQLite file as SQL text, its ``user_version``
first), ``schema-N.postgresql.sql`` (a plain ``pg_dump`` of the same games played on the tests' own
PostgreSQL, arbiter.soak.services) and ``schema-N.json`` (each
store's tokens and its finished games as the server reported them), N being this release's schema
version. Run it on a release's code before the next release's migrations land, and commit the three
files: tests/store/test_upgrade.py opens every fixture with the current code. An existing fixture
is never rewritten (it stands for databases in the field).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from arbiter.server.store.migrations import SCHEMA_VERSION
from arbiter.soak import services
from tests.support.serve_process import opened, serving
from tests.support.wsclient import Client, play_out, start_match

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PLAYERS = (("alice", "bot", None), ("bob", "bot", None), ("carol", "human", None), ("dave", "bot", "carol"))
# (first, second, game, params, rated): bots and a human rated, casual games, a guest's game.
GAMES = (
    ("alice", "bob", "tictactoe", None, True),
    ("bob", "alice", "gomoku", None, True),
    ("carol", "alice", "paper_soccer", None, False),
    ("guest", "bob", "tictactoe4", None, False),
    ("dave", "alice", "mnk", {"m": 7, "n": 7, "k": 4}, True),
    ("carol", "dave", "tictactoe", None, False),  # a bot with the same owner: casual only
    ("alice", "dave", "renju", None, True),
)


async def play_games(db: str) -> dict[str, Any]:
    """Players and the games of GAMES through a real server on ``db``; its tokens and finished games."""
    async with opened(db) as setup:
        tokens = {name: await setup.add_player(name, kind, owner=owner) for name, kind, owner in PLAYERS}
    games: dict[str, Any] = {}
    async with serving(db, "--no-warm") as url:
        clients = {name: await Client.connect(url, token=token) for name, token in tokens.items()}
        clients["guest"] = await Client.connect(url)
        for seed, (first, second, game, params, rated) in enumerate(GAMES):
            pair = (clients[first], clients[second])
            match = await start_match(*pair, game, params=params, rated=rated)
            end = await play_out(pair, match, game, params, seed)
            games[match] = {"game": game, "result": end["result"], "reason": end["reason"]}
        for client in clients.values():
            await client.close()
    async with opened(db) as store:
        for match, expected in games.items():
            record = await store.get_game(match)
            assert record is not None and record.result == expected["result"]
            expected["moves"] = [m.move for m in record.moves]
    return {"tokens": tokens, "games": games}


def main() -> None:
    stem = FIXTURES / f"schema-{SCHEMA_VERSION}"
    if any(stem.with_suffix(suffix).exists() for suffix in (".sqlite.sql", ".postgresql.sql", ".json")):
        raise SystemExit(f"{stem}.* exists: a fixture stands for a release's databases and is never rewritten")
    FIXTURES.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "arbiter.db"
        contents = {"sqlite": asyncio.run(play_games(str(db)))}
        with sqlite3.connect(db) as conn, stem.with_suffix(".sqlite.sql").open("w") as dump:
            dump.write(f"PRAGMA user_version = {conn.execute('PRAGMA user_version').fetchone()[0]};\n")
            dump.writelines(line + "\n" for line in conn.iterdump())
    with services.postgres() as server:
        url = server.create_database("arbiter")
        contents["postgresql"] = asyncio.run(play_games(url))
        dump_file = stem.with_suffix(".postgresql.sql")
        subprocess.run(["pg_dump", "--no-owner", f"--file={dump_file}", url], check=True)
    stem.with_suffix(".json").write_text(json.dumps(contents, indent=1, sort_keys=True) + "\n")
    print(f"wrote {stem}.sqlite.sql, .postgresql.sql and .json")


if __name__ == "__main__":
    main()
