"""The plain values every tournament format shares: who entered, who plays whom, what happened.

The formats (round_robin.py, swiss.py, league.py) and the results (standings.py, archive.py) are
pure functions of these values, so a tournament's pairings are reproducible from its seed and a
test can replay any situation without a server. Colour 0 (``black``) moves first, as everywhere
in Arbiter; in the chess terms of the FIDE rules these formats follow, it is "white".
"""

from __future__ import annotations

from dataclasses import dataclass

FORMATS = ("round_robin", "swiss")  # what standings.table understands; a league is round robins
# What a bye scores: a Swiss bye is a win's point (FIDE C.04.1 c); in a round robin of an odd field
# everyone sits out one round, so its bye is just a rest. A bye's Outcome.score is not read.
BYE_POINTS = {"round_robin": 0.0, "swiss": 1.0}


class FormatError(ValueError):
    """A field or a result a format cannot use; ``code`` names the reason (as protocol errors do)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Entrant:
    name: str  # the player's name
    seed: int  # 1 = top seed (by pool rating at the start, then name)
    rating: float | None = None


@dataclass(frozen=True)
class Pairing:
    round: int  # 1-based
    board: int  # 1-based within the round
    black: str  # colour 0, moves first
    white: str | None  # None: a bye for ``black`` (scored as the format says)
    opening: int | None  # index of the balanced opening to start from; None: the empty board

    @property
    def is_bye(self) -> bool:
        return self.white is None

    @property
    def players(self) -> tuple[str, ...]:
        return (self.black,) if self.white is None else (self.black, self.white)


@dataclass(frozen=True)
class Outcome:
    pairing: Pairing
    score: float | None  # black's score: 1, 0.5 or 0; None: not played yet
    forfeit: str | None = None  # why it was decided without play: "absent", "withdrawn", …
    cause: str | None = None  # how a played game ended when it matters: "time", "illegal", "crash", …

    def score_of(self, name: str) -> float | None:
        """``name``'s score in this game (None: not decided yet)."""
        if self.score is None:
            return None
        if name == self.pairing.black:
            return self.score
        if name == self.pairing.white:
            return 1.0 - self.score
        raise FormatError("not_in_game", f"{name} does not play round {self.pairing.round} board {self.pairing.board}")


def check_field(entrants: list[Entrant], *, minimum: int = 2) -> None:
    """A field a format can pair: at least ``minimum`` entrants, each name once."""
    names = [e.name for e in entrants]
    if len(names) < minimum:
        raise FormatError("field_too_small", f"a tournament needs at least {minimum} entrants, not {len(names)}")
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise FormatError("duplicate_entrant", f"entered twice: {', '.join(twice)}")


def by_seed(entrants: list[Entrant]) -> list[Entrant]:
    """The field top seed first (then by name, so equal seeds still have one order)."""
    return sorted(entrants, key=lambda e: (e.seed, e.name))
