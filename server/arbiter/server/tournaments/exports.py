"""A tournament's archive: every game played for it (forfeits have none), as Gomocup's psq files
in one zip or as one SGF collection (archive.py writes both), for the CLI and the HTTP routes."""

from __future__ import annotations

from arbiter.server.store.base import GameRecord, Store

from . import archive, lifecycle
from .model import Pairing


async def played(store: Store, name: str) -> list[tuple[Pairing, GameRecord]]:
    """Each pairing decided by a finished game, with the game, by round then board."""
    tournament, _ = await lifecycle.get(store, name)
    records: list[tuple[Pairing, GameRecord]] = []
    for game in await store.tournament_games(tournament.name):
        if game.match_id is None or game.score is None or game.forfeit is not None:
            continue
        record = await store.get_game(game.match_id)
        if record is not None and record.result is not None:
            records.append((Pairing(game.round, game.board, game.black, game.white, game.opening), record))
    return records


async def archive_of(store: Store, name: str, kind: str) -> tuple[bytes, str]:
    """The archive's bytes and its file suffix: ``kind`` "zip" (psq files) or "sgf"."""
    records = await played(store, name)
    if kind == "zip":
        return archive.psq_zip(records), ".zip"
    return archive.sgf_collection(records).encode(), ".sgf"
