"""Tournament messages: the server tells each entrant its coming tournament games, so a bot can
prepare (warm the game's kernels, plan its time). Registered into the server messages on import
(``arbiter.protocol`` imports this module), as the ladder's are.
"""

from __future__ import annotations

from typing import Any

from .server_messages import ClockMap, ServerMessage
from .server_messages import register as register_server


class TournamentGames(ServerMessage, frozen=True, tag="tournament_games"):
    tournament: str
    state: str  # "running", "paused" or "finished"
    game: str
    params: dict[str, Any]
    clock: ClockMap
    games: list[dict[str, Any]]  # each {round, board, color, opponent}: its games not decided yet, in order


register_server(TournamentGames)
