"""A tournament's archive: every game played for it (forfeits have none), as Gomocup's psq files
in one zip or as one SGF collection (archive.py writes both), for the CLI and the HTTP routes."""

from __future__ import annotations

from arbiter.server.store.base import GameRecord, Store

from . import archive, lifecycle
from .model import by_seed

SUFFIXES = {"zip": ".zip", "sgf": ".sgf"}


async def played(store: Store, name: str) -> tuple[list[str], list[GameRecord]]:
    """The field by seed, and every finished game played for the tournament, by round then board."""
    tournament, _ = await lifecycle.get(store, name)
    field = [
        entrant.name for entrant in by_seed(lifecycle.entrants_of(await store.tournament_entries(tournament.name)))
    ]
    records: list[GameRecord] = []
    for game in await store.tournament_games(tournament.name):
        if game.match_id is None or game.score is None or game.forfeit is not None:
            continue
        record = await store.get_game(game.match_id)
        if record is not None and record.result is not None:
            records.append(record)
    return field, records


async def archive_of(store: Store, name: str, kind: str) -> bytes:
    """The archive's bytes: ``kind`` "zip" (psq files, the players numbered by seed from 0, as
    Piskvork numbers them) or "sgf". FormatError for a game no such file holds (paper soccer)."""
    field, records = await played(store, name)
    if kind == "zip":
        return archive.psq_zip(records, players=field)
    return archive.sgf_collection(records).encode()
