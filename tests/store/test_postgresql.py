"""What only the PostgreSQL store does: its connection errors in one line, a server restarted
under load (writes kept and caught up, the end kept, nothing lost), several nodes on one
database (migrated once, a game ended and rated once), and the shared schema definition."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from store_helpers import TTT, game_start

from arbiter.server.results.rating_updates import rate_result
from arbiter.server.store.base import MoveRecord, StoreError
from arbiter.server.store.migrations import SCHEMA_VERSION
from arbiter.server.store.postgresql import PostgresStore
from arbiter.soak import services

X_WINS = [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]


async def refused(url: str) -> str:
    store = PostgresStore(url, connect_timeout=2.0)
    with pytest.raises(StoreError) as failure:
        await store.open()
    message = str(failure.value)
    assert "\n" not in message and "postgresql://" in message
    password = url.split("@")[0].rsplit(":", 1)[1]
    assert password not in message  # errors go to logs: never the password
    return message


async def test_a_server_that_is_down_is_named(postgres_server: services.PostgresServer) -> None:
    url = f"postgresql://arbiter:secret@127.0.0.1:{services.free_port()}/arbiter"
    message = await refused(url)
    assert "is not answering" in message and "127.0.0.1" in message and "secret" not in message


async def test_a_wrong_password_is_refused_by_name(postgres_server: services.PostgresServer) -> None:
    message = await refused(postgres_server.url("postgres", password="not-the-password"))
    assert "refused user 'arbiter'" in message and "not-the-password" not in message


async def test_a_missing_database_says_how_to_create_it(postgres_server: services.PostgresServer) -> None:
    message = await refused(postgres_server.url("no_such_db"))
    assert "has no database 'no_such_db'" in message and "createdb no_such_db" in message


async def test_a_database_of_a_newer_arbiter_is_refused(postgres_url: str) -> None:
    store = PostgresStore(postgres_url)
    await store.open()
    await store.close()
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("UPDATE arbiter_schema SET version = %s", (SCHEMA_VERSION + 1,))
    with pytest.raises(StoreError, match="newer Arbiter"):
        await PostgresStore(postgres_url).open()


async def test_nodes_opening_together_migrate_once_and_rate_a_game_once(postgres_url: str) -> None:
    nodes = [PostgresStore(postgres_url) for _ in range(3)]
    await asyncio.gather(*(node.open() for node in nodes))
    try:
        with psycopg.connect(postgres_url) as conn:
            assert conn.execute("SELECT version FROM arbiter_schema").fetchall() == [(SCHEMA_VERSION,)]
        await nodes[0].add_player("alice", "bot")
        await nodes[1].add_player("bob", "bot")
        await nodes[0].start_game(game_start("m"))
        for ply, move in enumerate(X_WINS):
            nodes[0].record_move("m", MoveRecord(ply, move, 10))
        await nodes[0].flush()
        # Every node tries to write the same end at once (a failover racing the owner): rated once.
        changes = await asyncio.gather(*(n.finish_game("m", "1-0", "line", 9.0, rate_result) for n in nodes))
        assert all(c == changes[0] for c in changes) and changes[0]["alice"] > 0
        alice = await nodes[2].get_rating("alice", TTT)
        assert (alice.games, alice.wins) == (1, 1)
        # Games ended on different nodes in the same pool at once: each rating sees every game.
        for i, node in enumerate(nodes):
            await node.start_game(game_start(f"g{i}", started=10.0 + i))
        ends = [n.finish_game(f"g{i}", "1-0", "line", 20.0 + i, rate_result) for i, n in enumerate(nodes)]
        await asyncio.gather(*ends)
        alice = await nodes[1].get_rating("alice", TTT)
        assert (alice.games, alice.wins) == (4, 4)
    finally:
        for node in nodes:
            await node.close()


async def test_a_restart_under_load_keeps_every_write_and_the_end() -> None:
    with services.postgres() as server:
        url = server.create_database("arbiter")
        store = PostgresStore(url, flush_interval=0.01, connect_timeout=2.0)
        await store.open()
        await store.add_player("alice", "bot")
        await store.add_player("bob", "bot")
        await store.start_game(game_start("m"))
        for ply in range(20):
            store.record_move("m", MoveRecord(ply, [ply, 0], 5))
        await store.flush()

        server.stop()
        for ply in range(20, 60):  # the game goes on in memory: recording never raises
            store.record_move("m", MoveRecord(ply, [ply, 0], 5))
        with pytest.raises(StoreError, match="PostgreSQL"):
            await store.flush()
        with pytest.raises(StoreError, match="the end is kept"):
            await store.finish_game("m", "1-0", "line", 99.0, rate_result)

        server.start()
        await store.flush()  # caught up: the moves, then the end and its ratings, once
        record = await store.get_game("m")
        assert record is not None and [m.ply for m in record.moves] == list(range(60))
        assert (record.result, record.reason, record.ended) == ("1-0", "line", 99.0)
        alice = await store.get_rating("alice", TTT)
        assert (alice.games, alice.wins) == (1, 1)
        await store.close()
