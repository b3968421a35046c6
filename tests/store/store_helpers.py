"""Shared by the store tests: a match's start and a whole game driven through the store."""

from __future__ import annotations

from arbiter.server.results.rating_updates import rate_result
from arbiter.server.store.base import GameStart, MoveRecord, Store

CLOCK = {"initial_ms": 60_000, "increment_ms": 1_000}  # 100 s estimated: bullet
TTT = "tictactoe/bullet"  # the pool of game_start's games
GOMOKU = "gomoku/bullet"


def game_start(
    match_id: str,
    first: str = "alice",
    second: str = "bob",
    *,
    rated: bool = True,
    game: str = "tictactoe",
    started: float = 1_700_000_000.0,
) -> GameStart:
    return GameStart(match_id, game, {}, (first, second), CLOCK, rated, started)


async def play(
    store: Store, match_id: str, moves: list[list[int]], result: str | None, reason: str, **start: object
) -> dict[str, float]:
    """A whole game through the store as the server drives it: start, moves, finish (rated by the server's rule)."""
    begun = game_start(match_id, **start)  # type: ignore[arg-type]
    await store.start_game(begun)
    for ply, move in enumerate(moves):
        store.record_move(match_id, MoveRecord(ply, move, 100 + ply))
    return await store.finish_game(match_id, result, reason, begun.started + 60, rate_result)
