"""The restart rule: what becomes of games a crash (or a stop) left unfinished in the store.

Run once at start-up, before any new match. A game whose end was announced but not written
before the stop (the store could not write it: a locked or full disk) gets that end, with its
reason, rated as it was meant to be: a result players were told is never voided. Every other
interrupted game is adjudicated from its recorded moves, replayed with the engine:

- If the moves already finish the game (the crash came between the last move and the end being
  committed), the game gets the result the rules give it, rated as it was meant to be.
- Otherwise it is **voided**: no result, reason ``interrupted``, no rating change. Neither player
  is to blame for a server that went away, and a partial game says nothing about strength; the
  moves stay in the record, and the ladder pairs the players again.

Matches are not adjourned and resumed: clients, bots above all, hold no state across a server
restart to resume from, and the clocks' real time is lost with the process.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable

from arbiter.engine import EngineError, create_game
from arbiter.server.results.rating_updates import rate_result
from arbiter.server.store.base import GameRecord, Store, StoreError

log = logging.getLogger("arbiter.server")

VOIDED_REASON = "interrupted"


def adjudicate(record: GameRecord) -> tuple[str | None, str]:
    """(result, reason) for an interrupted game: its outcome if the moves end it, else void."""
    try:
        game = create_game(record.start.game, record.start.params)
        state = game.new_state()
        for move in record.moves:
            state.play(game.decode_move(move.move))
    except EngineError as error:
        log.warning("interrupted match does not replay (%s); voided", error, extra={"match": record.start.match_id})
        return None, VOIDED_REASON
    outcome = state.outcome
    if outcome is None:
        return None, VOIDED_REASON
    return outcome.result, outcome.reason


async def resolve_interrupted(
    store: Store, live_elsewhere: Callable[[list[str]], Awaitable[set[str]]] | None = None
) -> list[tuple[str, str | None, str]]:
    """Adjudicate every interrupted game in ``store``; (match id, result, reason) of each.
    In a cluster, ``live_elsewhere`` names the unfinished games other nodes are playing: not interrupted."""
    resolved = []
    records = await store.interrupted_games()
    playing = set() if live_elsewhere is None else await live_elsewhere([r.start.match_id for r in records])
    for record in (r for r in records if r.start.match_id not in playing):
        if record.reason is not None:  # announced before the stop, not yet written
            result, reason, ended = record.result, record.reason, record.ended or time.time()
        else:
            (result, reason), ended = adjudicate(record), time.time()
        try:
            await store.finish_game(record.start.match_id, result, reason, ended, rate_result)
        except StoreError as error:  # the store keeps the end and retries it
            log.error("could not resolve an interrupted match: %s", error, extra={"match": record.start.match_id})
            continue
        log.info(
            "interrupted match resolved", extra={"match": record.start.match_id, "result": result, "reason": reason}
        )
        resolved.append((record.start.match_id, result, reason))
    return resolved
