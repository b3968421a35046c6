"""Messages for people learning against bots: takebacks and hints, in casual games only.

A player asks to take back its last move (``takeback``); the opponent answers (``accept_takeback``,
``decline_takeback``): a person in its client, a bot by the policy its ``hello`` announced. A player
in a casual game against a bot that announced ``hints`` may ask once per turn for the bot's
suggestion (``hint``): the server asks the bot (``hint_request``), the bot answers (``hint_answer``)
and the player gets it (``hint``). SPEC.md section 15. Registered into the message tables on import
(``arbiter.protocol`` imports this module), as the ladder's are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .messages import PLY, MatchRequest, register, spec, wire_move
from .server_messages import Move, ServerMessage
from .server_messages import register as register_server

TAKEBACK_POLICIES = ("casual", "never")  # hello.takebacks: a bot grants takebacks in casual games, or never


@dataclass(slots=True, kw_only=True)
class Takeback(MatchRequest):
    TYPE: ClassVar[str] = "takeback"


@dataclass(slots=True, kw_only=True)
class AcceptTakeback(MatchRequest):
    TYPE: ClassVar[str] = "accept_takeback"


@dataclass(slots=True, kw_only=True)
class DeclineTakeback(MatchRequest):
    TYPE: ClassVar[str] = "decline_takeback"


@dataclass(slots=True, kw_only=True)
class Hint(MatchRequest):
    TYPE: ClassVar[str] = "hint"


@dataclass(slots=True, kw_only=True)
class HintAnswer(MatchRequest):
    TYPE: ClassVar[str] = "hint_answer"
    ply: int = field(metadata=spec(PLY, "the ply of the `hint_request` answered"))
    move: list[Any] = field(metadata=spec(wire_move, "the suggested move for the side to move, in the game's encoding"))


for _cls in (Takeback, AcceptTakeback, DeclineTakeback, Hint, HintAnswer):
    register(_cls)


class TakebackOffered(ServerMessage, frozen=True, tag="takeback_offered"):
    match: str
    by: int
    ply: int  # the match goes back to this many moves if the opponent accepts


class TakebackDeclined(ServerMessage, frozen=True, tag="takeback_declined"):
    match: str
    by: int


class TakenBack(ServerMessage, frozen=True, tag="taken_back"):
    match: str
    by: int  # the colour that asked
    ply: int  # the moves left: the next move has this ply
    moves: list[Move]  # the moves taken back, in the order they were played
    clocks: list[int]
    to_move: int


class HintRequest(ServerMessage, frozen=True, tag="hint_request"):
    match: str
    ply: int


class HintGiven(ServerMessage, frozen=True, tag="hint"):
    match: str
    ply: int
    move: Move
    used: int  # hints this player has had in the match, this one included


for _server_cls in (TakebackOffered, TakebackDeclined, TakenBack, HintRequest, HintGiven):
    register_server(_server_cls)
