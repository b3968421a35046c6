"""Tournament messages: a registered player enters an open tournament (``tournament_enter``), and
the server tells each entrant its coming tournament games, so a bot can prepare (warm the game's
kernels, plan its time). Registered into the message tables on import (``arbiter.protocol``
imports this module), as the ladder's are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from .messages import NAME, Request, register, spec
from .server_messages import ClockMap, ServerMessage
from .server_messages import register as register_server


@dataclass(slots=True, kw_only=True)
class TournamentEnter(Request):
    TYPE: ClassVar[str] = "tournament_enter"
    tournament: str = field(metadata=spec(NAME, "the name of an open tournament"))


register(TournamentEnter)


class TournamentGames(ServerMessage, frozen=True, tag="tournament_games"):
    tournament: str
    state: str  # "running", "paused" or "finished"
    game: str
    params: dict[str, Any]
    clock: ClockMap
    games: list[dict[str, Any]]  # each {round, board, color, opponent}: its games not decided yet, in order


register_server(TournamentGames)
