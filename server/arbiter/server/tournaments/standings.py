"""A tournament's results: the table with the format's tie-breaks, the crosstable, BayesElo.

Points: a win 1, a draw ½, a loss 0, whether the game was played or decided by forfeit (an absent
player, a withdrawal: ``Outcome.forfeit``), as the outcome's score says; a bye scores
``model.BYE_POINTS[kind]``. ``played``, ``wins``, ``draws`` and ``losses`` count every decided game,
forfeits included, and no bye. Games not decided yet (score None) count for nothing.

Tie-breaks, in the order they rank, after points:

- round robin: ``head_to_head``, the points scored against the players level on points (FIDE's
  "direct encounter", without its condition that all of them have met: in a round robin they
  have, once it is over); then ``sonneborn_berger``, the sum over decided games of the score times
  the opponent's points (a win over a strong player is worth more than one over a weak one).
  Forfeits count in both as their score says: the table is what the games' results say.
- Swiss: ``buchholz_median`` (the Buchholz without its highest and lowest terms, when there are at
  least three), then ``buchholz``, the sum of the opponents' points. A round without a played game
  (a bye, a forfeit either way, a round after a withdrawal) adds the player's own points, a
  "virtual opponent" as strong as itself, so being given a point or absent neither helps nor hurts
  the tie-break (nor a player's opponents).

Players level on points and on every tie-break share a rank and are listed by name.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from arbiter.server.ranking.bayeselo import Game, fit
from arbiter.server.tournaments.model import BYE_POINTS, FORMATS, Entrant, FormatError, Outcome

TIEBREAKS = {"round_robin": ("head_to_head", "sonneborn_berger"), "swiss": ("buchholz_median", "buchholz")}


@dataclass(frozen=True)
class Standing:
    rank: int
    name: str
    points: float
    played: int
    wins: int
    draws: int
    losses: int
    tiebreaks: dict[str, float]  # by TIEBREAKS[kind]


def _decided(entrants: Iterable[Entrant], outcomes: Iterable[Outcome]) -> tuple[list[str], list[Outcome]]:
    names = [e.name for e in entrants]
    known = set(names)
    decided = []
    for outcome in outcomes:
        for name in outcome.pairing.players:
            if name not in known:
                raise FormatError("unknown_player", f"{name} of round {outcome.pairing.round} has not entered")
        if outcome.pairing.white is not None and outcome.score not in (None, 0.0, 0.5, 1.0):
            raise FormatError("bad_score", f"a game scores 1, 0.5 or 0, not {outcome.score}")
        if outcome.pairing.white is None or outcome.score is not None:
            decided.append(outcome)
    return names, decided


def table(kind: str, entrants: Iterable[Entrant], outcomes: Iterable[Outcome]) -> list[Standing]:
    """The standings, best first (``kind``: "round_robin" or "swiss")."""
    if kind not in FORMATS:
        raise FormatError("bad_kind", f"no tournament format {kind!r}; formats: {', '.join(FORMATS)}")
    names, decided = _decided(entrants, outcomes)
    points = dict.fromkeys(names, 0.0)
    counts = {name: [0, 0, 0] for name in names}  # wins, draws, losses
    for outcome in decided:
        if outcome.pairing.white is None:
            points[outcome.pairing.black] += BYE_POINTS[kind]
            continue
        for name in outcome.pairing.players:
            score = outcome.score_of(name)
            assert score is not None
            points[name] += score
            counts[name][0 if score == 1.0 else 1 if score == 0.5 else 2] += 1
    breaks = _round_robin(names, decided, points) if kind == "round_robin" else _swiss(names, decided, points)
    order = TIEBREAKS[kind]

    def key(name: str) -> tuple[float, ...]:
        return (-points[name], *(-breaks[name][b] for b in order))

    ranked = sorted(names, key=lambda name: (key(name), name))
    out: list[Standing] = []
    for i, name in enumerate(ranked):
        rank = out[-1].rank if out and key(ranked[i - 1]) == key(name) else i + 1
        wins, draws, losses = counts[name]
        out.append(Standing(rank, name, points[name], wins + draws + losses, wins, draws, losses, breaks[name]))
    return out


def _round_robin(names: list[str], decided: list[Outcome], points: dict[str, float]) -> dict[str, dict[str, float]]:
    breaks = {name: {"head_to_head": 0.0, "sonneborn_berger": 0.0} for name in names}
    for outcome in decided:
        if outcome.pairing.white is None:
            continue
        for name, other in (
            (outcome.pairing.black, outcome.pairing.white),
            (outcome.pairing.white, outcome.pairing.black),
        ):
            score = outcome.score_of(name)
            assert score is not None
            breaks[name]["sonneborn_berger"] += score * points[other]
            if points[other] == points[name]:
                breaks[name]["head_to_head"] += score
    return breaks


def _swiss(names: list[str], decided: list[Outcome], points: dict[str, float]) -> dict[str, dict[str, float]]:
    rounds = max((o.pairing.round for o in decided), default=0)
    terms: dict[str, dict[int, float]] = {name: {} for name in names}
    for outcome in decided:
        if outcome.pairing.white is None or outcome.forfeit is not None:
            continue  # unplayed: the virtual opponent below
        black, white = outcome.pairing.black, outcome.pairing.white
        terms[black][outcome.pairing.round] = points[white]
        terms[white][outcome.pairing.round] = points[black]
    breaks = {}
    for name in names:
        opponents = [terms[name].get(r, points[name]) for r in range(1, rounds + 1)]
        median = sorted(opponents)[1:-1] if len(opponents) >= 3 else opponents
        breaks[name] = {"buchholz_median": sum(median), "buchholz": sum(opponents)}
    return breaks


def crosstable(entrants: Iterable[Entrant], outcomes: Iterable[Outcome]) -> dict[str, dict[str, list[float]]]:
    """Each player's scores against each opponent, in round order (forfeits included, byes not)."""
    names, decided = _decided(entrants, outcomes)
    rows: dict[str, dict[str, list[float]]] = {name: defaultdict(list) for name in names}
    for outcome in sorted(decided, key=lambda o: (o.pairing.round, o.pairing.board)):
        black, white = outcome.pairing.black, outcome.pairing.white
        if white is None or outcome.score is None:
            continue
        rows[black][white].append(outcome.score)
        rows[white][black].append(1.0 - outcome.score)
    return {name: dict(row) for name, row in rows.items()}


def bayeselo(outcomes: Iterable[Outcome]) -> dict[str, tuple[float, float, float]]:
    """BayesElo (ranking/bayeselo.py) over the games played on the board, forfeits and byes left
    out (they say nothing of strength): each player's Elo relative to the field's average and its
    95% interval, ``(elo, low, high)``."""
    games = [
        Game(o.pairing.black, o.pairing.white, o.score)
        for o in outcomes
        if o.pairing.white is not None and o.score is not None and o.forfeit is None
    ]
    return {p.name: (p.elo, p.low, p.high) for p in fit(games).players}
