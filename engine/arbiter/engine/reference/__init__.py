"""Tiny pure-Python rules, one module per game, written to be obviously right rather than fast.

They are the oracle the property tests check the numba kernels against, and the baseline that
``arbiter bench`` measures the kernels against. Each exposes ``new_state(game)`` returning an
object with ``legal_actions()``, ``play(action)``, ``to_move``, ``status`` and ``reason``
(the codes of ``arbiter.engine.base``), using the same action numbering as the kernels.
"""

from __future__ import annotations

from typing import Any

from ..base import Game
from . import five as five_reference
from . import mnk as mnk_reference
from . import paper_soccer as paper_soccer_reference
from . import ttt3d as ttt3d_reference
from . import vanishing as vanishing_reference

REFERENCES: dict[str, Any] = {
    "mnk": mnk_reference,
    "vanishing": vanishing_reference,
    "ttt3d": ttt3d_reference,
    "paper_soccer": paper_soccer_reference,
    "five": five_reference,
}


def reference_state(game: Game) -> Any:
    """The reference implementation's start position for ``game``."""
    return REFERENCES[game.family].new_state(game)
