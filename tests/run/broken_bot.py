"""A bot with two classic bugs, for the conformance suite to catch: it ends a paper soccer turn on its
first step even when the ball bounced (an incomplete turn), and it never reconnects after a drop.

    python tests/run/broken_bot.py URL TOKEN

Otherwise it is the Python starter kit (examples/python_kit/bot.py), loaded from its file.
"""

from __future__ import annotations

import asyncio
import importlib.util
import random
import sys
from pathlib import Path

KIT = Path(__file__).resolve().parents[2] / "examples" / "python_kit" / "bot.py"
spec = importlib.util.spec_from_file_location("kit", KIT)
assert spec is not None and spec.loader is not None
kit = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kit)
whole_turn = kit.Soccer.choose
kit.Soccer.choose = lambda self, me, rng, deadline: whole_turn(self, me, rng, deadline)[:1]

if __name__ == "__main__":
    url, token = sys.argv[1:3]
    try:
        asyncio.run(kit.session(url, token, ["tictactoe", "paper_soccer"], False, random.Random(1)))
    except Exception as error:  # the connection dropped: a broken bot just stops
        sys.exit(f"connection lost: {error!r}")
