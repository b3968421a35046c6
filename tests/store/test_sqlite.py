"""The SQLite store's behaviour on a real file: players and tokens, games, ratings, schema."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from store_helpers import game_start, play

from arbiter.server.store.base import BadName, MoveRecord, NameTaken, StoreError, UnknownPlayer
from arbiter.server.store.migrations import SCHEMA_VERSION
from arbiter.server.store.sqlite import SqliteStore

X_WINS = [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]


async def test_tokens_authenticate_until_revoked(store: SqliteStore) -> None:
    token = await store.add_player("alice", "bot")
    other = await store.add_player("bob", "human")
    assert token != other and len(token) > 40
    player = await store.authenticate(token)
    assert player is not None and (player.name, player.kind, player.revoked) == ("alice", "bot", False)
    assert (await store.authenticate(other)).name == "bob"  # type: ignore[union-attr]
    selector, secret = token.split(".")
    for wrong in [selector + "." + secret[:-1] + ("A" if secret[-1] != "A" else "B"), selector, "", "arb_.", "x"]:
        assert await store.authenticate(wrong) is None
    await store.revoke_player("alice")
    assert await store.authenticate(token) is None
    assert [(p.name, p.revoked) for p in await store.list_players()] == [("alice", True), ("bob", False)]


async def test_tokens_are_stored_hashed(store: SqliteStore, tmp_path: Path) -> None:
    token = await store.add_player("alice", "bot")
    await store.flush()
    raw = (tmp_path / "arbiter.db").read_bytes() + (tmp_path / "arbiter.db-wal").read_bytes()
    assert token.split(".")[1].encode() not in raw


async def test_names_are_unique_and_guest_names_reserved(store: SqliteStore) -> None:
    await store.add_player("Alice", "human")
    with pytest.raises(NameTaken, match="already exists"):
        await store.add_player("alice", "bot")
    for bad in ["guest-1234", "Guest_x", "", "a b", "-dash", "x" * 33, "ünï"]:
        with pytest.raises(BadName):
            await store.add_player(bad, "bot")
    with pytest.raises(StoreError, match="kind"):
        await store.add_player("carol", "robot")  # type: ignore[arg-type]
    with pytest.raises(UnknownPlayer):
        await store.revoke_player("nobody")
    assert [p.name for p in await store.list_players()] == ["Alice"]


async def test_a_rated_game_is_recorded_with_moves_and_ratings(store: SqliteStore) -> None:
    await store.add_player("alice", "bot")
    await store.add_player("bob", "bot")
    changes = await play(store, "m1", X_WINS, "1-0", "line")
    assert changes["alice"] > 0 > changes["bob"]
    assert changes["alice"] == pytest.approx(-changes["bob"])
    record = await store.get_game("m1")
    assert record is not None
    assert [m.move for m in record.moves] == X_WINS
    assert [m.elapsed_ms for m in record.moves] == [100, 101, 102, 103, 104]
    assert (record.result, record.reason, record.ended) == ("1-0", "line", 1_700_000_060.0)
    assert record.start == game_start("m1")
    assert record.rating_changes == pytest.approx(changes)
    alice = await store.get_rating("alice", "tictactoe")
    assert (alice.games, alice.wins, alice.draws, alice.losses) == (1, 1, 0, 0)
    assert alice.rating == pytest.approx(1500 + changes["alice"]) and alice.provisional
    assert await store.rating_history("alice", "tictactoe") == [(1_700_000_060.0, alice.rating, alice.deviation)]


async def test_unrated_aborted_and_guest_games_leave_ratings_alone(store: SqliteStore) -> None:
    await store.add_player("alice", "bot")
    await store.add_player("bob", "bot")
    assert await play(store, "u", X_WINS, "1-0", "line", rated=False) == {}
    assert await play(store, "a", [[0, 0]], None, "abort") == {}
    assert await play(store, "g", X_WINS, "0-1", "line", second="guest-7f3a") == {}
    assert (await store.get_rating("alice", "tictactoe")).games == 0
    assert (await store.get_game("a")).result is None  # type: ignore[union-attr]
    with pytest.raises(UnknownPlayer):
        await store.get_rating("guest-7f3a", "tictactoe")
    with pytest.raises(StoreError, match="already finished"):
        await store.finish_game("u", "0-1", "resign", 1.0)
    with pytest.raises(StoreError, match="no game"):
        await store.finish_game("never-started", "0-1", "resign", 1.0)
    with pytest.raises(StoreError, match="result"):
        await store.finish_game("u", "2-0", "resign", 1.0)


async def test_leaderboard_and_crosstable(store: SqliteStore) -> None:
    for name in ["alice", "bob", "carol"]:
        await store.add_player(name, "bot")
    await play(store, "1", X_WINS, "1-0", "line", first="alice", second="bob")
    await play(store, "2", X_WINS, "1/2-1/2", "board_full", first="bob", second="alice")
    await play(store, "3", X_WINS, "0-1", "line", first="carol", second="alice")
    await play(store, "4", X_WINS, "1-0", "line", first="bob", second="carol")
    await play(store, "5", X_WINS, "1-0", "line", first="bob", second="carol", rated=False)
    await play(store, "6", X_WINS, "1-0", "line", first="bob", second="carol", game="gomoku")
    board = await store.leaderboard("tictactoe")
    assert [r.player for r in board] == ["alice", "bob", "carol"]
    assert [(r.games, r.wins, r.draws, r.losses) for r in board] == [(3, 2, 1, 0), (3, 1, 1, 1), (2, 0, 0, 2)]
    assert board[0].rating > board[1].rating > board[2].rating
    assert await store.crosstable("tictactoe") == {
        "alice": {"bob": [1, 1, 0], "carol": [1, 0, 0]},
        "bob": {"alice": [0, 1, 1], "carol": [1, 0, 0]},
        "carol": {"alice": [0, 0, 1], "bob": [0, 0, 1]},
    }
    assert [r.player for r in await store.leaderboard("gomoku")] == ["bob", "carol"]
    await store.revoke_player("carol")
    assert [r.player for r in await store.leaderboard("tictactoe")] == ["alice", "bob"]


async def test_list_games_filters_newest_first(store: SqliteStore) -> None:
    for i in range(5):
        await play(store, f"m{i}", X_WINS[: i + 1], "1-0", "line", started=1000.0 + i,
                   first="alice" if i % 2 else "carol", game="tictactoe" if i < 4 else "gomoku")  # fmt: skip
    assert [g.start.match_id for g in await store.list_games()] == ["m4", "m3", "m2", "m1", "m0"]
    assert [g.start.match_id for g in await store.list_games(player="ALICE")] == ["m3", "m1"]
    assert [g.start.match_id for g in await store.list_games(game="gomoku")] == ["m4"]
    assert [g.start.match_id for g in await store.list_games(limit=2)] == ["m4", "m3"]
    assert [len(g.moves) for g in await store.list_games(limit=None)] == [5, 4, 3, 2, 1]


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


async def test_reissued_token_replaces_the_old_and_lifts_a_revocation(store: SqliteStore) -> None:
    old = await store.add_player("alice", "bot")
    await store.revoke_player("alice")
    new = await store.reissue_token("alice")
    assert new != old
    assert await store.authenticate(old) is None
    player = await store.authenticate(new)
    assert player is not None and (player.name, player.revoked) == ("alice", False)
    with pytest.raises(UnknownPlayer):
        await store.reissue_token("nobody")
