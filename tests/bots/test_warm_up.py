"""A brain's warm-up compiles every kernel its first move runs, so no move pays for compiling on its clock.

Each brain runs in a fresh interpreter: warm up, note the signatures of every numba kernel loaded from
``arbiter``, think once on a real position of a game it plays, and list the kernels that gained a
signature (compiled, or loaded from the cache, during the think). With an empty kernel cache such a
kernel costs the first move a second or more (docs/STRENGTH.md, X99 and X100: a first move of 0.65 s,
lost on time at 0.5 s a move).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

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


@pytest.mark.parametrize(
    ("bot", "level", "game", "moves"),
    [
        ("gomoku", 4, "gomoku", [[7, 4], [6, 4], [8, 8], [6, 5]]),
        ("gomoku", 1, "gomoku", [[7, 4], [6, 4], [8, 8], [6, 5]]),  # the level of every bot's fallback move
        ("mcts", None, "gomoku10", [[4, 4], [5, 5]]),
        ("soccer", None, "paper_soccer", []),
    ],
)
def test_the_first_move_after_the_warm_up_compiles_nothing(bot: str, level: int | None, game: str, moves: list) -> None:
    probe = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps([bot, level, game, moves])],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert probe.returncode == 0, probe.stderr[-2000:]
    assert json.loads(probe.stdout.splitlines()[-1]) == []
