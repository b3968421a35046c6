"""An upgrade from a previous release's database: the current code opens it, migrates it, finds it
clean (``arbiter check``), and serves its games and players.

Each ``tests/store/fixtures/schema-N.sqlite.sql`` (a SQLite file as SQL text, loaded here into a new
file) and ``schema-N.postgresql.sql`` (a plain ``pg_dump``, restored here with psql into a fresh
database of the tests' PostgreSQL) was made by release N's code with

    .venv/bin/python -m tests.store.make_upgrade_fixture

and ``schema-N.json`` holds what that release reported: each store's tokens and its finished games
(game, result, moves). Nothing here names a migration or a column: a later migration is applied to
every fixture like the earlier ones, and the test goes on passing when the schema moves on, which
is its purpose. A release that changes the schema adds its own fixture with the same command.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from arbiter.server.store.migrations import SCHEMA_VERSION
from tests.support.serve_process import opened, serving
from tests.support.store_check import assert_store_clean
from tests.support.wsclient import Client

FIXTURES = Path(__file__).resolve().parent / "fixtures"
RELEASES = sorted(FIXTURES.glob("schema-*.json"), key=lambda path: int(path.stem.split("-")[1]))


def fixture_version(contents: Path) -> int:
    return int(contents.stem.split("-")[1])


def get_json(url: str, path: str) -> Any:
    with urllib.request.urlopen(url.replace("ws://", "http://", 1).rstrip("/") + path, timeout=10) as response:
        return json.loads(response.read())


async def upgrade_and_serve(db: str, expected: dict[str, Any], schema_version: Any) -> None:
    """Open (migrating), check, then serve ``db``: every game and every player the release left is there."""
    async with opened(db):  # opening is what migrates
        pass
    assert schema_version() == SCHEMA_VERSION
    await asyncio.to_thread(assert_store_clean, db)
    async with serving(db, "--no-warm") as url:
        listed = await asyncio.to_thread(get_json, url, "/games.json?limit=100")
        assert {game["match"] for game in listed["games"]} == set(expected["games"])
        for match, game in expected["games"].items():
            served = await asyncio.to_thread(get_json, url, f"/game.json?match={match}")
            summary = {key: served[key] for key in ("game", "result", "reason")}
            assert summary == {key: game[key] for key in ("game", "result", "reason")}, served
            assert [move["move"] for move in served["moves"]] == game["moves"]
        for name, token in expected["tokens"].items():  # every token still logs in as its player
            client = await Client.connect(url, token=token)
            assert client.name == name
            await client.close()
    await asyncio.to_thread(assert_store_clean, db)  # and what the upgraded server wrote on its start


def test_there_is_a_fixture_of_the_current_schema_or_an_older_one() -> None:
    assert RELEASES, "make one: .venv/bin/python -m tests.store.make_upgrade_fixture"
    assert all(fixture_version(path) <= SCHEMA_VERSION for path in RELEASES)
    for path in RELEASES:
        assert path.with_suffix(".sqlite.sql").exists() and path.with_suffix(".postgresql.sql").exists()


@pytest.mark.parametrize("release", RELEASES, ids=lambda path: path.stem)
async def test_a_release_sqlite_database_upgrades(release: Path, tmp_path: Path) -> None:
    db = tmp_path / "arbiter.db"
    with sqlite3.connect(db) as conn:
        conn.executescript(release.with_suffix(".sqlite.sql").read_text())

    def schema_version() -> int:
        with sqlite3.connect(db) as conn:
            return int(conn.execute("PRAGMA user_version").fetchone()[0])

    assert schema_version() == fixture_version(release)
    await upgrade_and_serve(str(db), json.loads(release.read_text())["sqlite"], schema_version)


@pytest.mark.parametrize("release", RELEASES, ids=lambda path: path.stem)
async def test_a_release_postgresql_database_upgrades(release: Path, postgres_url: str) -> None:
    subprocess.run(
        ["psql", "--quiet", "-v", "ON_ERROR_STOP=1", f"--dbname={postgres_url}",
         f"--file={release.with_suffix('.postgresql.sql')}"],
        check=True, capture_output=True,
    )  # fmt: skip

    def schema_version() -> int:
        import psycopg

        with psycopg.connect(postgres_url) as conn:
            row = conn.execute("SELECT version FROM arbiter_schema").fetchone()
            assert row is not None
            return int(row[0])

    assert schema_version() == fixture_version(release)
    await upgrade_and_serve(postgres_url, json.loads(release.read_text())["postgresql"], schema_version)
