"""Compile every engine kernel once (numba caches the result on disk for later processes)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .ops import playouts
from .perft import game_outcomes, perft
from .registry import create_game, game_names


def warm_engine() -> list[str]:
    """Exercise each game's kernels so every later process loads them from the cache."""
    warmed = []
    for name in game_names():
        game = create_game(name)
        state = game.new_state()
        state.play_action(int(state.legal_actions()[0]))
        state.undo_action()
        state.play_wire(game.encode_move(state.legal_moves()[0]))  # the server's path for a move received
        state.undo()
        perft(state, 2)
        game_outcomes(state, 1)
        buffer = np.empty(max(game.max_actions, game.state_size), dtype=np.int64)
        playouts(game.gid, game.param_array, state.s, 2, np.empty_like(state.s), buffer, 1)
        warmed.append(name)
    return warmed


def warm() -> Iterator[str]:
    """The ``arbiter.warm`` entry point: every game's kernels, as one part."""
    games = warm_engine()
    yield f"engine: {len(games)} games"
