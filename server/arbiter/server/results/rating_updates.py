"""The rating updates a finished game brings, computed by the server rather than by each store.

Every store (SQLite, PostgreSQL, memory) then saves the same numbers: a store only
reads the players' current ratings and writes what ``rate_result`` returns, in the transaction
that records the end. The store calls it with the ratings as they are at commit time, so an end
whose write is retried is rated from the ratings it finally lands on, and never twice.
"""

from __future__ import annotations

import logging

from arbiter.server.basics.ratings import Glicko2Rating, rate_game
from arbiter.server.store.base import Rating, Store

log = logging.getLogger("arbiter.server")

FIRST_SCORE = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def rate_result(first: Rating, second: Rating, result: str) -> tuple[Rating, Rating]:
    """Both players' ratings (estimate and win/draw/loss counts) after a rated game with ``result``."""
    score = FIRST_SCORE[result]
    new_first, new_second = rate_game(_glicko(first), _glicko(second), score)
    return _after(first, new_first, score), _after(second, new_second, 1.0 - score)


def _glicko(rating: Rating) -> Glicko2Rating:
    return Glicko2Rating(rating.rating, rating.deviation, rating.volatility)


def _after(old: Rating, new: Glicko2Rating, score: float) -> Rating:
    return Rating(
        old.player,
        old.pool,
        new.rating,
        new.deviation,
        new.volatility,
        games=old.games + 1,
        wins=old.wins + (score == 1.0),
        draws=old.draws + (score == 0.5),
        losses=old.losses + (score == 0.0),
        level=old.level,
    )


async def rebuild_outdated_ratings(store: Store) -> int:
    """After a schema change that left the ratings behind (store.ratings_outdated), replay every
    rated game into its pool's ratings with ``rate_result``; the number of games rated."""
    if not await store.ratings_outdated():
        return 0
    replayed = await store.rebuild_ratings(rate_result)
    log.warning("ratings rebuilt from the games: one rating per player, pool and level", extra={"games": replayed})
    return replayed
