"""A brain's warm-up compiles every kernel its first move runs, so no move pays for compiling on its clock.

Each search bot, on each game it plays, runs in a fresh interpreter: warm up, note the signatures of every
numba kernel loaded from ``arbiter``, think once on a position a few moves in, and list the kernels that gained a
signature (compiled, or loaded from the cache, during the think). With an empty kernel cache such a
kernel costs the first move a second or more (docs/lab/strength-2026-11-30.md, X99 and X100: a first move of 0.65 s,
lost on time at 0.5 s a move).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from arbiter.bots.registry import brain_class, games_played
from arbiter.engine import create_game

PROBE = """
import json, sys
from numba.core.dispatcher import Dispatcher
from arbiter.bots.brain import ThinkRequest
from arbiter.bots.registry import brain_class
from arbiter.engine import create_game

def kernels():
    found = {}
    for name, module in list(sys.modules.items()):
        if name.startswith("arbiter") and module is not None:
            for attr, value in vars(module).items():
                if isinstance(value, Dispatcher):
                    found[f"{value.py_func.__module__}.{value.py_func.__qualname__}"] = len(value.signatures)
    return found

bot, level, game_name, moves = json.loads(sys.argv[1])
brain = brain_class(bot)(level)
brain.warm_up()
before = kernels()
game = create_game(game_name)
brain.think(ThinkRequest("first", game.name, dict(game.params), moves, 0.3))
after = kernels()
print(json.dumps(sorted(name for name, count in after.items() if count > before.get(name, 0))))
"""


def opening(game_name: str, plies: int = 2) -> list:
    """A few seeded random moves, played here: in the probe, choosing them would run the rules' kernels
    before the think and hide a warm-up that skips them."""
    game = create_game(game_name)
    state, rng, moves = game.new_state(), random.Random(1), []
    for _ in range(plies):
        move = rng.choice(state.legal_moves())
        state.play(move)
        moves.append(game.encode_move(move))
    return moves


def cases() -> list:
    """Each search bot at its default level on every game it plays, and the gomoku bot's fallback level."""
    found = [
        (bot, None, game) for bot in ("gomoku", "mcts", "soccer", "perfect") for game in games_played(brain_class(bot))
    ]
    return [*found, ("gomoku", 1, "gomoku")]  # the level of every bot's fallback move


@pytest.mark.parametrize(("bot", "level", "game"), cases())
def test_the_first_move_after_the_warm_up_compiles_nothing(bot: str, level: int | None, game: str) -> None:
    probe = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps([bot, level, game, opening(game)])],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert probe.returncode == 0, probe.stderr[-2000:]
    assert json.loads(probe.stdout.splitlines()[-1]) == []
