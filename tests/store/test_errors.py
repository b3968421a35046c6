"""A full disk, a locked file and a corrupted file: clear errors, nothing half-written, queued
moves kept and retried, and the store keeps answering (so live games keep running)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from store_helpers import TTT, game_start, play

from arbiter.server.results.rating_updates import rate_result
from arbiter.server.store.base import MoveRecord, StoreError
from arbiter.server.store.sqlite import SqliteStore

LIMIT = 256 * 1024


def reader(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


async def test_full_disk_keeps_moves_queued_until_space_is_freed(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    store = SqliteStore(path, size_limit_bytes=LIMIT)
    await store.open()
    await store.add_player("alice", "bot")
    await store.add_player("bob", "bot")
    other = reader(path)
    other.execute("CREATE TABLE filler (b BLOB)")
    other.execute("INSERT INTO filler VALUES (zeroblob(?))", (2 * LIMIT,))  # past the store's quota

    await store.start_game(game_start("m"))
    for ply in range(3000):  # needs new pages; each call only queues, nothing raises
        store.record_move("m", MoveRecord(ply, [ply % 3, ply // 3], 1))
    with pytest.raises(StoreError, match="disk is full") as failure:
        await store.flush()
    assert str(path) in str(failure.value) and "\n" not in str(failure.value)
    with pytest.raises(StoreError, match="disk is full"):
        await store.finish_game("m", "1-0", "line", 2e9, rate_result)
    with pytest.raises(StoreError, match="disk is full"):
        await play(store, "big", [[i, 0] for i in range(3000)], "1-0", "line")
    assert (await store.get_player("alice")) is not None  # reads still answered
    assert other.execute("SELECT count(*) FROM games").fetchone() == (0,)  # nothing partial
    assert other.execute("SELECT count(*) FROM ratings").fetchone() == (0,)

    other.execute("DELETE FROM filler")  # space is freed: the queued writes go through
    changes = await store.finish_game("m", "1-0", "line", 2e9, rate_result)
    assert changes["alice"] > 0
    record = await store.get_game("m")
    assert record is not None and len(record.moves) == 3000 and record.result == "1-0"
    await store.close()


async def test_locked_file_times_out_then_recovers(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    store = SqliteStore(path, busy_timeout=0.2)
    await store.open()
    await store.add_player("alice", "bot")
    await store.add_player("bob", "bot")
    await store.start_game(game_start("m"))
    store.record_move("m", MoveRecord(0, [0, 0], 1))
    await store.flush()

    locker = reader(path)
    locker.execute("BEGIN EXCLUSIVE")
    with pytest.raises(StoreError, match="locked by another process") as failure:
        await store.add_player("carol", "bot")
    assert "\n" not in str(failure.value)
    for ply in range(1, 50):
        store.record_move("m", MoveRecord(ply, [ply, 0], 1))
    with pytest.raises(StoreError, match="locked"):
        await store.flush()
    with pytest.raises(StoreError, match="locked"):
        await store.finish_game("m", "1-0", "line", 5.0, rate_result)
    assert (await store.get_player("alice")) is not None  # WAL readers are not blocked
    assert locker.execute("SELECT ended FROM games").fetchone() == (None,)
    assert locker.execute("SELECT count(*) FROM ratings").fetchone() == (0,)
    locker.execute("ROLLBACK")

    assert (await store.finish_game("m", "1-0", "line", 5.0, rate_result))["alice"] > 0
    record = await store.get_game("m")
    assert record is not None and len(record.moves) == 50
    await store.close()


async def test_open_fails_cleanly_while_another_process_holds_the_file(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    store = SqliteStore(path)
    await store.open()
    await store.close()
    locker = reader(path)
    locker.execute("PRAGMA locking_mode = EXCLUSIVE")
    locker.execute("BEGIN EXCLUSIVE")
    with pytest.raises(StoreError, match="locked"):
        await SqliteStore(path, busy_timeout=0.1).open()
    locker.execute("ROLLBACK")
    locker.close()
    store = SqliteStore(path)
    await store.open()
    await store.close()


async def test_failed_finish_leaves_no_partial_record(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    store = SqliteStore(path)
    await store.open()
    await store.add_player("alice", "bot")
    await store.add_player("bob", "bot")
    await store.start_game(game_start("m"))
    await store.flush()
    # Make the last statement of finish_game fail, after the result and ratings were written.
    other = reader(path)
    other.execute("CREATE TRIGGER refuse BEFORE INSERT ON rating_history BEGIN SELECT RAISE(ABORT, 'refused'); END")
    with pytest.raises(StoreError, match="refused"):
        await store.finish_game("m", "1-0", "line", 5.0, rate_result)
    assert other.execute("SELECT ended, result FROM games").fetchone() == (None, None)
    assert other.execute("SELECT count(*) FROM ratings").fetchone() == (0,)
    other.execute("DROP TRIGGER refuse")
    assert (await store.finish_game("m", "1-0", "line", 5.0, rate_result))["alice"] > 0
    await store.close()


@pytest.mark.parametrize("garbage", [b"this is no database " * 400, bytes(range(256)) * 64])
async def test_a_file_that_is_not_a_database_is_named_in_the_error(tmp_path: Path, garbage: bytes) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(garbage)
    with pytest.raises(StoreError, match="is not an Arbiter database or is corrupted") as failure:
        await SqliteStore(path).open()
    assert str(path) in str(failure.value) and "\n" not in str(failure.value)
    assert path.read_bytes() == garbage  # untouched


async def test_corrupted_pages_give_store_errors(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    store = SqliteStore(path)
    await store.open()
    for i in range(20):
        await store.add_player(f"p{i}", "bot")
        await play(store, f"m{i}", [[j, 0] for j in range(50)], "1-0", "line", first=f"p{i}", second="p0")
    await store.close()
    conn = sqlite3.connect(path)
    page = conn.execute("PRAGMA page_size").fetchone()[0]
    roots = [
        row[0] for row in conn.execute("SELECT rootpage FROM sqlite_master WHERE name IN ('games', 'moves', 'ratings')")
    ]
    conn.close()
    data = bytearray(path.read_bytes())
    for root in roots:  # smash the tables' root pages; the schema's pages stay intact
        data[(root - 1) * page : root * page] = b"\xa5" * page
    path.write_bytes(bytes(data))
    store = SqliteStore(path)
    await store.open()  # the schema is intact; the damage shows on use
    with pytest.raises(StoreError, match="corrupted"):
        await store.list_games()
    with pytest.raises(StoreError, match="corrupted"):
        await store.leaderboard(TTT)
    await store.start_game(game_start("new"))  # queued writes fail in the background, never here
    with pytest.raises(StoreError, match="corrupted"):  # close reports the writes it could not make
        await store.close()


async def test_a_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"cannot open .*folder"):
        await SqliteStore(tmp_path / "no" / "such" / "a.db").open()


async def test_an_end_that_cannot_be_written_is_kept_across_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    store = SqliteStore(path, busy_timeout=0.1)
    await store.open()
    await store.add_player("alice", "bot")
    await store.add_player("bob", "bot")
    await store.start_game(game_start("m"))
    await store.flush()
    locker = reader(path)
    locker.execute("BEGIN EXCLUSIVE")
    with pytest.raises(StoreError, match=r"locked.*the end is kept"):
        await store.finish_game("m", "0-1", "resign", 5.0, rate_result)
    assert store.ends_path.exists()
    await store.close()  # nothing lost: the end is in the side file

    store = SqliteStore(path, busy_timeout=0.1)
    await store.open()  # while the lock lasts
    [waiting] = await store.interrupted_games()
    assert (waiting.start.match_id, waiting.result, waiting.reason, waiting.ended) == ("m", "0-1", "resign", 5.0)
    with pytest.raises(StoreError, match="locked"):
        await store.finish_game("m", "0-1", "resign", 5.0, rate_result)
    locker.execute("ROLLBACK")
    await store.flush()  # the queued end is retried: written once, rated once
    assert not store.ends_path.exists()
    record = await store.get_game("m")
    assert record is not None and (record.result, record.reason, record.ended) == ("0-1", "resign", 5.0)
    assert await store.finish_game("m", "0-1", "resign", 5.0, rate_result) == record.rating_changes
    bob = await store.get_rating("bob", TTT)
    assert (bob.games, bob.wins) == (1, 1)
    assert locker.execute("SELECT count(*) FROM rating_history").fetchone() == (2,)
    await store.close()


async def test_a_kept_end_already_in_the_database_is_dropped_at_open(tmp_path: Path) -> None:
    path = tmp_path / "a.db"
    store = SqliteStore(path)
    await store.open()
    await store.add_player("alice", "bot")
    await store.add_player("bob", "bot")
    await play(store, "m", [[0, 0]], "1-0", "line")
    await store.close()
    # As if the process died after committing the end but before rewriting the side file.
    store.ends_path.write_text(json.dumps([{"match": "m", "result": "1-0", "reason": "line", "ended": 9.0}]))
    store = SqliteStore(path)
    await store.open()
    assert await store.interrupted_games() == []
    assert not store.ends_path.exists()
    assert (await store.get_rating("alice", TTT)).games == 1
    await store.close()


async def test_a_damaged_side_file_is_named_in_the_error(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "a.db")
    store.ends_path.write_text("{not json")
    with pytest.raises(StoreError, match=r"a\.db-ends\.json is damaged"):
        await store.open()
