"""The restart rule on a real store file: an interrupted game whose moves finish it gets its
result (and ratings); any other is voided, unrated, its moves kept."""

from __future__ import annotations

from pathlib import Path

from arbiter.server.results.recovery import VOIDED_REASON, adjudicate, resolve_interrupted
from arbiter.server.store.base import GameRecord, GameStart, MoveRecord
from arbiter.server.store.sqlite import SqliteStore

FIRST_WINS = [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]


def record(game: str, moves: list[list[int]]) -> GameRecord:
    start = GameStart("m", game, {}, ("a", "b"), {}, True, 0.0)
    return GameRecord(start, [MoveRecord(i, m, 1) for i, m in enumerate(moves)], None, None, None)


def test_adjudicate() -> None:
    assert adjudicate(record("tictactoe", FIRST_WINS)) == ("1-0", "line")
    assert adjudicate(record("tictactoe", FIRST_WINS[:4])) == (None, VOIDED_REASON)
    assert adjudicate(record("tictactoe", [[0, 0], [0, 0]])) == (None, VOIDED_REASON)  # does not replay
    assert adjudicate(record("chess", [])) == (None, VOIDED_REASON)


async def test_resolve_interrupted_games(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "a.db")
    await store.open()
    for name in ("a", "b"):
        await store.add_player(name, "bot")
    for match_id, moves in (("decided", FIRST_WINS), ("cut", FIRST_WINS[:3])):
        await store.start_game(GameStart(match_id, "tictactoe", {}, ("a", "b"), {"initial_ms": 1000}, True, 1.0))
        for ply, move in enumerate(moves):
            store.record_move(match_id, MoveRecord(ply, move, 5))
    await store.flush()
    assert sorted(await resolve_interrupted(store)) == [("cut", None, "interrupted"), ("decided", "1-0", "line")]
    assert await store.interrupted_games() == []
    decided, cut = await store.get_game("decided"), await store.get_game("cut")
    assert decided is not None and decided.rating_changes["a"] > 0
    assert cut is not None and cut.result is None and cut.ended is not None and len(cut.moves) == 3
    assert (await store.get_rating("a", "tictactoe/bullet")).games == 1
    assert await resolve_interrupted(store) == []
    await store.close()
