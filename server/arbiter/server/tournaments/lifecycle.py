"""A tournament's life in the store, written once for the CLI, the server and the HTTP routes:
creating it with its field, entering, starting (seeds and every pairing in one transaction),
withdrawing, and the stored pairings read back as the formats' values.

The formats are pure (round_robin.py, swiss.py); this module gives them the field and the results
the store holds, and keeps what they return.
"""

from __future__ import annotations

from arbiter.server.store.base import (
    Store,
    Tournament,
    TournamentEntry,
    TournamentError,
    TournamentGame,
    UnknownPlayer,
    UnknownTournament,
)

from . import round_robin, swiss
from .model import Entrant, Outcome, Pairing
from .spec import TournamentSpec


class TournamentClosed(TournamentError):
    """What was asked needs another state: entering a started tournament, starting one twice, …"""


async def create(store: Store, name: str, spec: TournamentSpec, players: list[str]) -> Tournament:
    """A new tournament, open, with ``players`` invited into its field (UnknownPlayer, before
    anything is stored, unless each is registered)."""
    for player in players:
        if await store.get_player(player) is None:
            raise UnknownPlayer(f"no player named {player!r}")
    tournament = await store.add_tournament(name, spec.stored())
    for player in players:
        await store.enter_tournament(tournament.name, player)
    return tournament


async def get(store: Store, name: str) -> tuple[Tournament, TournamentSpec]:
    """The stored tournament and its settings; UnknownTournament if there is none."""
    tournament = await store.get_tournament(name)
    if tournament is None:
        raise UnknownTournament(f"no tournament named {name!r}")
    return tournament, TournamentSpec.check(tournament.spec)


async def enter(store: Store, name: str, player: str) -> None:
    """``player`` enters an open tournament (open entry, not started yet)."""
    tournament, spec = await get(store, name)
    if tournament.state != "open":
        raise TournamentClosed(f"{tournament.name} has started: entries are closed")
    if spec.entry != "open":
        raise TournamentClosed(f"{tournament.name} is by invitation")
    await store.enter_tournament(tournament.name, player)


async def start(store: Store, name: str) -> list[TournamentGame]:
    """Seed the field by pool rating (then name) and store the first pairings (a round robin's
    every round) with the seeds and the state ``running``, in one transaction."""
    tournament, spec = await get(store, name)
    if tournament.state != "open":
        raise TournamentClosed(f"{tournament.name} is {tournament.state}: only an open tournament starts")
    field = [entry.name for entry in await store.tournament_entries(tournament.name) if not entry.withdrawn]
    if len(field) < 2:
        raise TournamentClosed(f"{tournament.name} has {len(field)} entrants: it needs two at least")
    pool = spec.pool()
    ratings = {player: (await store.get_rating(player, pool)).rating for player in field}
    ordered = sorted(field, key=lambda player: (-ratings[player], player.lower()))
    entrants = [Entrant(player, seed, ratings[player]) for seed, player in enumerate(ordered, 1)]
    if spec.format == "round_robin":
        pairings = round_robin.schedule(entrants, double=spec.double, seed=spec.seed, openings=spec.openings)
    else:
        pairings = swiss.pair_round(entrants, [], 1, seed=spec.seed)
    games = [game_of(pairing) for pairing in pairings]
    await store.add_tournament_games(tournament.name, games, seeds={e.name: e.seed for e in entrants}, state="running")
    return games


async def next_swiss_round(store: Store, tournament: Tournament, spec: TournamentSpec,
                           entries: list[TournamentEntry], games: list[TournamentGame]) -> bool:  # fmt: skip
    """Pair a Swiss tournament's next round once every game of the last is decided; False when the
    last round is over (or the field left)."""
    entrants = entrants_of(entries)
    rounds = spec.rounds or swiss.rounds_for(len(entrants))
    played = max((game.round for game in games), default=0)
    withdrawn = frozenset(entry.name for entry in entries if entry.withdrawn)
    if played >= rounds or len(entrants) - len(withdrawn) < 2:
        return False
    pairings = swiss.pair_round(entrants, outcomes_of(games), played + 1, seed=spec.seed, withdrawn=withdrawn)
    await store.add_tournament_games(tournament.name, [game_of(pairing) for pairing in pairings])
    return True


def entrants_of(entries: list[TournamentEntry]) -> list[Entrant]:
    """The seeded field (every entrant seeded at the start; one who entered after is last)."""
    last = len(entries) + 1
    return [Entrant(entry.name, entry.seed or last) for entry in entries]


def game_of(pairing: Pairing) -> TournamentGame:
    return TournamentGame(pairing.round, pairing.board, pairing.black, pairing.white, pairing.opening)


def outcomes_of(games: list[TournamentGame]) -> list[Outcome]:
    """The stored pairings as the formats read them."""
    return [Outcome(Pairing(g.round, g.board, g.black, g.white, g.opening), g.score, g.forfeit, g.cause) for g in games]
