"""The bot client: one connection to an Arbiter server, many matches at once, decisions from the pool.

``core`` is the client as a pure state machine (server messages in, requests and moves to find
out), ``connection`` its websocket adapter (``BotClient``), ``deciding`` how a move is found in
time, ``settings`` what a bot is told. The protocol is the one in the protocol package's SPEC.md,
read through its codec and typed messages; nothing here knows any game's rules beyond the
engine's ``State``.
"""

from .connection import BotClient, BotFatal, ChallengeRefused
from .core import FINISHED_KEPT, ClientCore, Decision, LiveGame
from .settings import BotSettings, ChallengeFilter

__all__ = [
    "FINISHED_KEPT",
    "BotClient",
    "BotFatal",
    "BotSettings",
    "ChallengeFilter",
    "ChallengeRefused",
    "ClientCore",
    "Decision",
    "LiveGame",
]
