"""What only the SQLite store does, on a real file: hashed tokens, batched moves, rating history,
reopening, the schema, and a per-game id map that does not grow. What every store does is in
test_store_contract.py."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from store_helpers import TTT, game_start, play

from arbiter.server.results.rating_updates import rebuild_outdated_ratings
from arbiter.server.store.base import MoveRecord, StoreError
from arbiter.server.store.migrations import MIGRATIONS, SCHEMA_VERSION
from arbiter.server.store.sqlite import SqliteStore

X_WINS = [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]


async def test_tokens_are_stored_hashed(store: SqliteStore, tmp_path: Path) -> None:
    token = await store.add_player("alice", "bot")
    await store.flush()
    raw = (tmp_path / "arbiter.db").read_bytes() + (tmp_path / "arbiter.db-wal").read_bytes()
    selector, secret = token.removeprefix("arb_").split(".")
    assert secret.encode() not in raw
    for wrong in ["arb_" + selector, "arb_.", "arb_" + selector + ".", selector + "." + secret]:
        assert await store.authenticate(wrong) is None


async def test_the_file_and_its_wal_are_readable_by_their_owner_only(tmp_path: Path) -> None:
    """Password and token hashes: 0600 from the first byte (whatever the umask), and an older
    file readable by others is made 0600 when opened."""
    store = SqliteStore(tmp_path / "arbiter.db")
    await store.open()
    try:
        await store.add_player("alice", "bot")
        await store.flush()
        for name in ("arbiter.db", "arbiter.db-wal", "arbiter.db-shm"):
            assert oct((tmp_path / name).stat().st_mode & 0o777) == "0o600", name
    finally:
        await store.close()
    (tmp_path / "arbiter.db").chmod(0o644)
    reopened = SqliteStore(tmp_path / "arbiter.db")
    await reopened.open()
    await reopened.close()
    assert oct((tmp_path / "arbiter.db").stat().st_mode & 0o777) == "0o600"


async def test_rating_history_keeps_each_rated_game(store: SqliteStore) -> None:
    await store.add_player("alice", "bot")
    await store.add_player("bob", "bot")
    await play(store, "m1", X_WINS, "1-0", "line")
    await play(store, "m2", X_WINS, "1-0", "line", rated=False)
    alice = await store.get_rating("alice", TTT)
    assert await store.rating_history("alice", TTT) == [(1_700_000_060.0, alice.rating, alice.deviation)]


async def test_the_game_id_map_stays_flat_over_thousands_of_games(store: SqliteStore) -> None:
    await store.add_player("alice", "bot")
    await store.add_player("bob", "bot")
    await store.start_game(game_start("live"))  # a game still going keeps its id
    store.record_move("live", MoveRecord(0, [1, 1], 5))
    sizes = []
    for wave in range(30):
        ids = [f"g{wave}-{i}" for i in range(100)]
        for match_id in ids:
            await store.start_game(game_start(match_id))
            store.record_move(match_id, MoveRecord(0, [0, 0], 5))
        await asyncio.gather(*(store.finish_game(match_id, "1-0", "line", 2e9) for match_id in ids))
        sizes.append(len(store._game_ids))  # the store's own map: what must not grow
    assert sizes == [1] * 30
    assert len(await store.list_games(limit=None)) == 3001


async def test_moves_are_written_in_batches_without_flush(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "a.db", flush_interval=0.01, batch_size=10)
    await store.open()
    await store.start_game(game_start("m"))
    for ply in range(25):
        store.record_move("m", MoveRecord(ply, [ply, 0], 5))
    await store.flush()
    reader = sqlite3.connect(tmp_path / "a.db")
    assert reader.execute("SELECT count(*) FROM moves").fetchone() == (25,)
    store.record_move("m", MoveRecord(25, [25, 0], 5))
    store.record_move("nope", MoveRecord(0, [0, 0], 5))  # unknown match: logged and dropped
    store.record_move("m", MoveRecord(-1, [0, 0], 5))  # refused by the schema: dropped alone
    store.record_move("m", MoveRecord(2**70, [0, 0], 5))  # too big for SQLite: dropped alone
    await store.close()
    assert reader.execute("SELECT count(*), max(ply) FROM moves").fetchone() == (26, 25)


async def test_interrupted_games_survive_a_reopen(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "a.db")
    await store.open()
    await play(store, "done", X_WINS, "1-0", "line")
    await store.start_game(game_start("live"))
    store.record_move("live", MoveRecord(0, [1, 1], 7))
    await store.close()
    store = SqliteStore(tmp_path / "a.db")
    await store.open()
    [interrupted] = await store.interrupted_games()
    assert interrupted.start.match_id == "live" and [m.move for m in interrupted.moves] == [[1, 1]]
    await store.finish_game("live", None, "interrupted", 2.0)
    assert await store.interrupted_games() == []
    await store.close()


async def test_schema_is_versioned(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    store = SqliteStore(path)
    await store.open()
    await store.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer Arbiter"):
        await SqliteStore(path).open()


async def test_revocations_made_before_migration_9_count_as_the_operators(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for version, migration in enumerate(MIGRATIONS[:8], start=1):
        conn.executescript(migration)
        conn.execute(f"PRAGMA user_version = {version}")
    conn.execute(
        "INSERT INTO players (name, kind, token_selector, token_hash, created, revoked) VALUES"
        " ('gone', 'bot', 's1', x'00', 1.0, 2.0), ('here', 'bot', 's2', x'00', 1.0, NULL)"
    )
    conn.close()
    store = SqliteStore(path)
    await store.open()
    try:
        gone, here = await store.get_player("gone"), await store.get_player("here")
        assert gone is not None and (gone.revoked, gone.revoked_by_operator) == (True, True)
        assert here is not None and (here.revoked, here.revoked_by_operator) == (False, False)
        assert await store.authenticate(await store.reissue_token("gone")) is None
    finally:
        await store.close()


async def test_a_version_1_file_gains_the_moves_analysis_and_keeps_its_games(tmp_path: Path) -> None:
    """Migration 2 adds moves.info and migration 5 rebuilds moves without its foreign key; a file
    written before them opens with every game and move as it was."""
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.executescript(MIGRATIONS[0])
    conn.execute(
        "INSERT INTO games (match_id, game, params, first_name, second_name, clock, rated, started, ended, result,"
        " reason) VALUES ('m', 'tictactoe', '{}', 'a', 'b', '{}', 0, 1.0, 2.0, '1-0', 'resign')"
    )
    conn.execute("INSERT INTO moves (game_id, ply, move, elapsed_ms) VALUES (1, 0, '[1,1]', 5)")
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    store = SqliteStore(path)
    await store.open()
    try:
        record = await store.get_game("m")
        assert record is not None and record.moves == [MoveRecord(0, [1, 1], 5, None)]
    finally:
        await store.close()
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
    assert conn.execute("PRAGMA foreign_key_list(moves)").fetchall() == []


async def test_a_version_2_file_gets_rating_pools_rebuilt_from_its_games(tmp_path: Path) -> None:
    """Migration 3 keys ratings by pool and level; the old per-game ratings are replayed from the
    games into their pools (blitz and rapid apart), each game rated once, as the server would."""
    path = tmp_path / "v2.db"
    conn = sqlite3.connect(path, isolation_level=None)
    for script in MIGRATIONS[:2]:
        conn.executescript(script)
    conn.execute("INSERT INTO players (name, kind, token_selector, token_hash, created) VALUES"
                 " ('a', 'bot', 's1', x'00', 0), ('b', 'bot', 's2', x'00', 0)")  # fmt: skip
    blitz, rapid = '{"initial_ms": 180000, "increment_ms": 2000}', '{"initial_ms": 600000, "increment_ms": 10000}'
    for n, (clock, result) in enumerate([(blitz, "1-0"), (blitz, "1-0"), (rapid, "0-1")]):
        conn.execute(
            "INSERT INTO games (match_id, game, params, first_name, second_name, first_id, second_id, clock, rated,"
            " started, ended, result, reason) VALUES (?, 'gomoku', '{}', 'a', 'b', 1, 2, ?, 1, ?, ?, ?, 'line')",
            (f"m{n}", clock, float(n), n + 0.5, result),
        )
    conn.execute("INSERT INTO ratings VALUES (1, 'gomoku', 1600, 100, 0.06, 3, 2, 0, 1, 3.0)")  # the old kind
    conn.execute("PRAGMA user_version = 2")
    conn.close()
    store = SqliteStore(path)
    await store.open()
    try:
        assert await store.ratings_outdated()
        assert await rebuild_outdated_ratings(store) == 3
        assert not await store.ratings_outdated() and await rebuild_outdated_ratings(store) == 0
        assert await store.rating_pools("gomoku") == ["gomoku/blitz", "gomoku/rapid"]
        a_blitz, a_rapid = await store.get_rating("a", "gomoku/blitz"), await store.get_rating("a", "gomoku/rapid")
        assert (a_blitz.games, a_blitz.wins, a_rapid.games, a_rapid.losses) == (2, 2, 1, 1)
        assert a_blitz.rating > 1500 > a_rapid.rating
        assert (await store.get_game("m2")).rating_changes["b"] > 0  # type: ignore[union-attr]
    finally:
        await store.close()


async def test_closed_store_refuses_calls(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "a.db")
    with pytest.raises(StoreError, match="not open"):
        await store.get_player("alice")
    await store.open()
    with pytest.raises(StoreError, match="already open"):
        await store.open()
    await store.close()
    store.record_move("m", MoveRecord(0, [0, 0], 1))  # logged, never raised into a game loop
    with pytest.raises(StoreError, match="not open"):
        await store.list_players()
