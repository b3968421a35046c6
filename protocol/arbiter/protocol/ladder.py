"""Ladder messages: join or leave a game's ladder queue; read a game's leaderboard and crosstable.

Registered into the message tables on import (``arbiter.protocol`` imports this module), so
``parse`` and ``server_messages.read`` know them like every other message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from msgspec import UNSET

from .messages import IDENT, NAME, Request, integer, optional, register, spec
from .server_messages import ClockMap, RatingList, RatingMap, Re, ServerMessage
from .server_messages import register as register_server

MAX_LADDER_MATCHES = 100  # ladder matches one player may ask to play at once (the server's max_matches also holds)


@dataclass(slots=True, kw_only=True)
class LadderJoin(Request):
    TYPE: ClassVar[str] = "ladder_join"
    game: str = field(metadata=spec(NAME, "a game name from welcome.games"))
    max_matches: int = field(
        default=1,
        metadata=spec(integer(1, MAX_LADDER_MATCHES), "ladder matches to play at once (a bot may take several)"),
    )


@dataclass(slots=True, kw_only=True)
class LadderLeave(Request):
    TYPE: ClassVar[str] = "ladder_leave"
    game: str = field(metadata=spec(NAME, "the game whose queue to leave; matches in progress go on"))


POOL_DOC = "a rating pool of the game, e.g. `gomoku[exact=true]/rapid` (see `ladder_join`); absent: its ladder's"


@dataclass(slots=True, kw_only=True)
class Leaderboard(Request):
    TYPE: ClassVar[str] = "leaderboard"
    game: str = field(metadata=spec(NAME, "a game name from welcome.games"))
    pool: str | None = field(default=None, metadata=spec(optional(IDENT), POOL_DOC))


@dataclass(slots=True, kw_only=True)
class Crosstable(Request):
    TYPE: ClassVar[str] = "crosstable"
    game: str = field(metadata=spec(NAME, "a game name from welcome.games"))
    pool: str | None = field(default=None, metadata=spec(optional(IDENT), POOL_DOC))


for _cls in (LadderJoin, LadderLeave, Leaderboard, Crosstable):
    register(_cls)


class LadderJoined(ServerMessage, frozen=True, tag="ladder_joined"):
    game: str
    pool: str
    clock: ClockMap
    rating: RatingMap
    waiting: int
    re: Re = UNSET


class LeaderboardState(ServerMessage, frozen=True, tag="leaderboard"):
    ratings: RatingList
    game: str
    pool: str
    pools: list[str]
    re: Re = UNSET


class CrosstableState(ServerMessage, frozen=True, tag="crosstable"):
    game: str
    pool: str
    table: dict[str, Any]
    re: Re = UNSET


for _server_cls in (LadderJoined, LeaderboardState, CrosstableState):
    register_server(_server_cls)
