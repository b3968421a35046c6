"""What a bot client is told: which games and challenges it takes, how many at once, and how it behaves
on the network. Keyword-only, so a call site names every option it sets."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

from ..timeman import TimeManager


@dataclass(frozen=True, kw_only=True)
class ChallengeFilter:
    """Which challenges to accept: the games, a range of initial clock, rated or not."""

    games: frozenset[str]
    rated: bool | None = None  # None: rated and casual alike
    min_initial_ms: int = 0
    max_initial_ms: int | None = None
    min_move_limit_ms: int = 0  # a per-move limit shorter than this is refused (no limit is fine)
    # The game's own check (game, params) → why not, or None: a bridged engine takes only some boards.
    playable: Callable[[str, Mapping[str, Any]], str | None] | None = None

    def refusal(self, challenge: Mapping[str, Any]) -> str | None:
        """Why ``challenge`` (a challenge map from the server) is refused, or None to accept it."""
        clock = challenge.get("clock") or {}
        initial = clock.get("initial_ms", 0)
        limit = clock.get("move_limit_ms")
        if challenge.get("game") not in self.games:
            return f"game {challenge.get('game')!r} is not one of {sorted(self.games)}"
        if self.rated is not None and bool(challenge.get("rated")) != self.rated:
            return "only rated games" if self.rated else "only casual games"
        if initial < self.min_initial_ms or (self.max_initial_ms is not None and initial > self.max_initial_ms):
            return f"initial clock {initial} ms is outside the accepted range"
        if limit is not None and limit < self.min_move_limit_ms:
            return f"move limit {limit} ms is below {self.min_move_limit_ms} ms"
        if self.playable is not None:
            return self.playable(challenge["game"], challenge.get("params") or {})
        return None


@dataclass(kw_only=True)
class BotSettings:
    games: tuple[str, ...]  # announced in hello; the ladder queues joined
    accept: ChallengeFilter | None = None  # None: any challenge to one of ``games``
    ladder: bool = False
    tournaments: tuple[str, ...] = ()  # open tournaments entered after each welcome (tournament_enter)
    max_matches: int = 8  # live matches at once (challenges beyond it are declined)
    capacity: int | None = None  # announced in hello: the ladder's bound across all games (None: max_matches)
    client_name: str = f"arbiter-bot/{version('arbiter-bots')}"
    game_log: Path | None = None
    health_file: Path | None = None  # touched every HEALTH_INTERVAL s while connected (container health checks)
    timeman: TimeManager = field(default_factory=TimeManager)
    backoff_initial: float = 0.25
    backoff_max: float = 15.0
    ping_interval: float = 10.0
    drain_timeout: float = 30.0  # seconds live matches may go on after a stop before they are resigned
    ponder: bool = True  # think on the opponent's time while playing one match (brains that can: BrainPool.ponder)
    takebacks: str = "casual"  # announced in hello: grant takebacks in casual games ("casual"), or "never"
    hints: bool = True  # announced in hello: suggest a move to a casual opponent that asks (SPEC section 15)
    hint_budget: float = 0.25  # seconds of search for a hint

    @property
    def challenge_filter(self) -> ChallengeFilter:
        return self.accept if self.accept is not None else ChallengeFilter(games=frozenset(self.games))

    @property
    def announced_capacity(self) -> int:
        return self.capacity or self.max_matches


def server_addresses(text: str) -> list[str]:
    """``--server``'s addresses: one, or a cluster's nodes separated by commas (the bot uses the
    first and moves on to the next when it cannot connect or the node leaves). ValueError if one
    is not a ws:// or wss:// address."""
    addresses = [part.strip() for part in text.split(",") if part.strip()]
    for address in addresses:
        if not address.startswith(("ws://", "wss://")):
            raise ValueError(f"--server must be ws:// or wss:// addresses, not {address!r}")
    if not addresses:
        raise ValueError("--server needs an address")
    return addresses
