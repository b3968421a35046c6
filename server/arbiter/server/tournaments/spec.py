"""A tournament's settings, as the store keeps them (a JSON map) and as the runner reads them.

``TournamentSpec.check`` turns a map (from ``arbiter tournament create`` or the store) into
settings or a ``SpecError`` saying what is wrong, so a bad setting never reaches a running server.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from arbiter.engine import EngineError, create_game, game_names

from ..basics.clock import ClockSpec
from ..basics.pools import pool_key

FORMATS = ("round_robin", "swiss")
ENTRY = ("invited", "open")
MAX_CONCURRENCY = 1000
MAX_GRACE_S = 3600.0


class SpecError(ValueError):
    """A tournament setting that cannot be: the message says which and why."""


@dataclass(frozen=True)
class TournamentSpec:
    format: str  # "round_robin" or "swiss"
    game: str
    params: dict[str, Any] = field(default_factory=dict)  # the game's rules (create_game's params)
    clock: dict[str, Any] = field(default_factory=lambda: {"initial_ms": 60_000, "increment_ms": 0})
    double: bool = False  # round robin: each pair plays twice, colours swapped, from the same opening
    rounds: int | None = None  # swiss: None derives it from the field (swiss.rounds_for)
    opening_plies: int = 0  # plies of a balanced opening each game starts from (0: the empty board)
    openings: int = 0  # how many openings a round robin draws from (0: one per pair)
    entry: str = "invited"  # "open": anyone registered may enter until the start
    start_at: float | None = None  # unix time of the automatic start (None: `arbiter tournament start`)
    concurrency: int = 4  # games at once, at most
    grace_s: float = 30.0  # how long a player may be absent at its game's start before it forfeits
    rated: bool = True  # rated in the game's pool
    seed: int = 0  # pairings and openings are reproducible from it

    @classmethod
    def check(cls, raw: dict[str, Any]) -> TournamentSpec:
        """The settings of ``raw``, or SpecError."""
        known = set(cls.__dataclass_fields__)
        unknown = set(raw) - known
        if unknown:
            raise SpecError(f"unknown tournament settings: {', '.join(sorted(unknown))}")
        try:
            spec = cls(**raw)
        except TypeError as error:
            raise SpecError(str(error)) from None
        spec._validate()
        return spec

    def _validate(self) -> None:
        if self.format not in FORMATS:
            raise SpecError(f"format is one of {', '.join(FORMATS)}, not {self.format!r}")
        if self.game not in game_names():
            raise SpecError(f"no game {self.game!r}; games: {', '.join(game_names())}")
        try:
            create_game(self.game, self.params)
        except (EngineError, TypeError, ValueError) as error:
            raise SpecError(f"bad rules for {self.game}: {error}") from None
        try:
            clock = self.clock_spec()
        except (KeyError, TypeError, ValueError):
            raise SpecError("clock is {initial_ms, increment_ms, move_limit_ms}") from None
        if (
            clock.initial_ms <= 0
            or clock.increment_ms < 0
            or (clock.move_limit_ms is not None and clock.move_limit_ms <= 0)
        ):
            raise SpecError("a clock's times are positive (the increment may be 0)")
        _whole(self.concurrency, "concurrency", 1, MAX_CONCURRENCY)
        _whole(self.opening_plies, "opening_plies", 0, 20)
        _whole(self.openings, "openings", 0, 10_000)
        _whole(self.seed, "seed", 0, 2**63 - 1)
        if self.rounds is not None:
            _whole(self.rounds, "rounds", 1, 1000)
        if self.entry not in ENTRY:
            raise SpecError(f"entry is one of {', '.join(ENTRY)}, not {self.entry!r}")
        if not isinstance(self.grace_s, (int, float)) or not 0 <= self.grace_s <= MAX_GRACE_S:
            raise SpecError(f"grace_s is between 0 and {MAX_GRACE_S:g} seconds")
        if self.start_at is not None and not isinstance(self.start_at, (int, float)):
            raise SpecError("start_at is a unix time")
        if not isinstance(self.double, bool) or not isinstance(self.rated, bool):
            raise SpecError("double and rated are true or false")

    def clock_spec(self) -> ClockSpec:
        return ClockSpec.from_description(self.clock)

    def pool(self) -> str:
        """The rating pool its games are rated in."""
        return pool_key(self.game, self.params, self.clock_spec().describe())

    def stored(self) -> dict[str, Any]:
        """The map the store keeps."""
        return asdict(self)


def _whole(value: Any, name: str, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SpecError(f"{name} is a whole number from {low} to {high}")
