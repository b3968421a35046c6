"""A tournament as one JSON-ready map: its settings, field, schedule with each game's result,
standings with the format's tie-breaks, crosstable and BayesElo. ``arbiter tournament show`` prints
it and ``/tournament.json`` serves it, so the two never disagree.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from arbiter.server.store.base import Store

from . import lifecycle, standings


async def describe(store: Store, name: str) -> dict[str, Any]:
    """Everything known of tournament ``name`` (UnknownTournament if there is none)."""
    tournament, spec = await lifecycle.get(store, name)
    entries = await store.tournament_entries(tournament.name)
    games = await store.tournament_games(tournament.name)
    entrants = lifecycle.entrants_of(entries)
    outcomes = lifecycle.outcomes_of(games)
    table = standings.table(spec.format, entrants, outcomes) if games else []
    fit = standings.bayeselo([o for o in outcomes if o.score is not None and o.forfeit is None])
    return {
        "name": tournament.name,
        "state": tournament.state,
        "created": tournament.created,
        "spec": spec.stored(),
        "pool": spec.pool(),
        "entrants": [asdict(entry) for entry in entries],
        "games": [asdict(game) for game in games],
        "decided": sum(game.score is not None for game in games),
        "standings": [asdict(row) for row in table],
        "crosstable": standings.crosstable(entrants, outcomes) if games else {},
        "bayeselo": {player: {"elo": elo, "low": low, "high": high} for player, (elo, low, high) in fit.items()},
    }
