"""The shared engine: exact rules of every game as numba kernels behind one small interface.

>>> from arbiter.engine import create_game
>>> state = create_game("tictactoe").new_state()
>>> state.play((1, 1)); state.to_move
1
"""

# ruff: noqa: E402  (numba reads its cache folder once, when first imported: set it before the kernels)
from .numba_cache import configure_numba_cache

configure_numba_cache()

from .base import (
    EngineError,
    Game,
    IllegalMove,
    Move,
    MoveFormatError,
    Outcome,
    Param,
    ParamError,
    State,
)
from .registry import FAMILIES, PRESETS, create_game, decode_state, describe_games, game_names

__all__ = [
    "FAMILIES",
    "PRESETS",
    "EngineError",
    "Game",
    "IllegalMove",
    "Move",
    "MoveFormatError",
    "Outcome",
    "Param",
    "ParamError",
    "State",
    "create_game",
    "decode_state",
    "describe_games",
    "game_names",
]
