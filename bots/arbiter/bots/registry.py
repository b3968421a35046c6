"""Every bot by name. Registering a new one is one line in ``BOTS``: its name and ``module:Class``.

Classes are imported when first asked for, so naming a bot does not compile another bot's kernels.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator

from arbiter.engine import create_game, game_names

from .brain import Brain

BOTS: dict[str, str] = {
    "random": "arbiter.bots.random_bot:RandomBrain",
    "perfect": "arbiter.bots.perfect:PerfectBrain",
    "mcts": "arbiter.bots.mcts.brain:MctsBrain",
    "gomoku": "arbiter.bots.gomoku.brain:GomokuBrain",
    "soccer": "arbiter.bots.soccer.brain:SoccerBrain",
}


class UnknownBot(LookupError):
    """A bot name that is not in the registry."""


def bot_names() -> list[str]:
    return sorted(BOTS)


def brain_class(name: str) -> type[Brain]:
    """The Brain subclass registered as ``name``; UnknownBot otherwise."""
    target = BOTS.get(name)
    if target is None:
        raise UnknownBot(f"unknown bot {name!r}; known bots: {', '.join(bot_names())}")
    module_name, _, class_name = target.partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    if cls.name != name:
        raise UnknownBot(f"{target} calls itself {cls.name!r}, but it is registered as {name!r}")
    return cls


def games_played(cls: type[Brain]) -> list[str]:
    """The server's game names (each with its default parameters) that ``cls`` can play."""
    return [name for name in game_names() if cls.plays(create_game(name))]


def warm() -> Iterator[str]:
    """The ``arbiter.warm`` entry point: each bot's kernels compiled and run once, a bot at a time."""
    for name in bot_names():
        brain_class(name)().warm_up()
        yield f"bot {name}"
