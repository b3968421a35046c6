"""Rating pools: which games are rated together, and who a rated player is.

A rating belongs to a player in a pool. The pool is the game with its rule parameters (gomoku and
gomoku with exact five are different pools, so is paper soccer with ``stuck=draw``) and a
time-control category, as lichess draws them: the estimated duration ``initial + 40 × increment``
(seconds) under 3 minutes is bullet, under 8 blitz, under 25 rapid, else classical. A pool's key
reads ``gomoku/blitz``, ``gomoku[exact=true]/rapid``: the game, the parameters that differ from its
defaults, the category.

Each strength level of a bot is its own rated identity: ``alphabeta`` (the level it runs at by
itself) is not ``alphabeta@2`` (level 2, asked by a challenge), so a rated game at a level moves
only that level's rating. Names cannot hold ``@``, so a label is never ambiguous.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arbiter.engine import EngineError, create_game

CATEGORIES = (("bullet", 180), ("blitz", 480), ("rapid", 1500))  # upper bounds, seconds; then classical
CATEGORY_NAMES = ("bullet", "blitz", "rapid", "classical")


def category(clock: Mapping[str, Any]) -> str:
    """The time-control category of a clock map (initial_ms, increment_ms)."""
    estimate = (clock.get("initial_ms") or 0) / 1000 + 40 * (clock.get("increment_ms") or 0) / 1000
    return next((name for name, bound in CATEGORIES if estimate < bound), "classical")


def pool_key(game: str, params: Mapping[str, Any], clock: Mapping[str, Any]) -> str:
    """The pool of a game of ``game`` with ``params`` under ``clock``."""
    try:
        defaults = create_game(game).params
    except EngineError:  # a game this server no longer has: every parameter is part of the key
        defaults = {}
    changed = sorted((k, v) for k, v in params.items() if defaults.get(k, object()) != v)
    rules = "[" + ",".join(f"{k}={_text(v)}" for k, v in changed) + "]" if changed else ""
    return f"{game}{rules}/{category(clock)}"


def game_of(pool: str) -> str:
    """The game name a pool key starts with."""
    return pool.split("/", 1)[0].split("[", 1)[0]


def label(player: str, level: int | None) -> str:
    """The rated identity's name: the player, or ``player@level`` for a level a challenge asked."""
    return player if level is None else f"{player}@{level}"


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
