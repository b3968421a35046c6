"""The ladder's matchmaking for one game: who plays whom next, and with which colour.

Pure bookkeeping over times the caller passes in, no I/O and no clock of its own, so the server
drives it and a test can replay any situation. The rules:

- A player *joins* the queue of a game and stays in it until it *leaves* (or disconnects): after
  each ladder match it is available again. ``capacity`` is how many ladder matches it plays at
  once (a bot may take several).
- Each call to ``pair`` makes at most one new pairing per available player, the longest-waiting
  first. A partner must be within a rating window that starts at ``window`` points and widens by
  ``widen_per_s`` for every second the longer-waiting of the two has waited, so nobody waits
  forever for a perfect match. Among those in the window, the partner is drawn at random with
  Gaussian weights on the rating gap: close ratings are likely, not certain.
- No immediate rematch: two players who just played each other are not paired again until both
  have waited ``rematch_after_s`` seconds (so two lone bots still meet again, just not at once).
  Two players never have two ladder matches against each other at the same time.
- Colours alternate: the player who has had the first move less often (then: who moved second in
  its last game) moves first; a full tie is a coin toss.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class _Entrant:
    name: str
    rating: float
    capacity: int
    waiting_since: float
    playing: int = 0


class LadderQueue:
    """The queue of one game's ladder."""

    def __init__(
        self,
        game: str,
        *,
        rng: random.Random | None = None,
        window: float = 200.0,
        widen_per_s: float = 10.0,
        rematch_after_s: float = 30.0,
    ) -> None:
        self.game = game
        self.window = window
        self.widen_per_s = widen_per_s
        self.rematch_after_s = rematch_after_s
        self._rng = rng or random.Random()
        self._entrants: dict[str, _Entrant] = {}
        self._playing: Counter[str] = Counter()  # ladder matches in progress, also of players who left
        self._live_pairs: Counter[frozenset[str]] = Counter()
        self._last_opponent: dict[str, str] = {}
        self._first_minus_second: Counter[str] = Counter()  # games moved first minus games moved second
        self._last_colour: dict[str, int] = {}

    # --- membership -------------------------------------------------------------------------
    def join(self, name: str, rating: float, now: float, *, capacity: int = 1) -> None:
        """Enter the queue (or update rating and capacity if already in it)."""
        if capacity < 1:
            raise ValueError(f"capacity is at least 1, not {capacity}")
        entrant = self._entrants.get(name)
        if entrant is None:
            self._entrants[name] = _Entrant(name, rating, capacity, now, self._playing[name])
        else:
            entrant.rating, entrant.capacity = rating, capacity

    def leave(self, name: str) -> bool:
        """Leave the queue; its matches in progress go on. False if it was not in it."""
        return self._entrants.pop(name, None) is not None

    def __contains__(self, name: object) -> bool:
        return name in self._entrants

    def members(self) -> list[str]:
        return sorted(self._entrants)

    def waiting(self) -> list[str]:
        """Members with room for another ladder match."""
        return sorted(e.name for e in self._entrants.values() if e.playing < e.capacity)

    def rating_of(self, name: str) -> float | None:
        entrant = self._entrants.get(name)
        return None if entrant is None else entrant.rating

    def set_rating(self, name: str, rating: float) -> None:
        if name in self._entrants:
            self._entrants[name].rating = rating

    # --- matches ------------------------------------------------------------------------------
    def pair(self, now: float, *, can_play: Callable[[str], bool] | None = None) -> list[tuple[str, str]]:
        """New pairings as (first, second); each is counted as a match in progress.
        ``can_play`` may rule members out for now (away, at the server's match limit)."""
        available = sorted(
            (e for e in self._entrants.values() if e.playing < e.capacity and (can_play is None or can_play(e.name))),
            key=lambda e: (e.waiting_since, e.name),
        )
        taken: set[str] = set()
        pairs = []
        for a in available:
            if a.name in taken:
                continue
            partners, weights = [], []
            for b in available:
                if b is a or b.name in taken or self._live_pairs[frozenset((a.name, b.name))]:
                    continue
                spread = self.window + self.widen_per_s * (now - min(a.waiting_since, b.waiting_since))
                gap = abs(a.rating - b.rating)
                if gap > spread or (
                    self._just_played(a.name, b.name)
                    and now - max(a.waiting_since, b.waiting_since) < self.rematch_after_s
                ):
                    continue
                partners.append(b)
                weights.append(math.exp(-2.0 * (gap / spread) ** 2))
            if not partners:
                continue
            b = self._rng.choices(partners, weights)[0]
            taken.update((a.name, b.name))
            pairs.append(self._start(a, b))
        return pairs

    def match_over(self, first: str, second: str, now: float) -> None:
        """A ladder match between them ended: each may be available again from ``now``."""
        self._live_pairs[frozenset((first, second))] -= 1
        self._live_pairs += Counter()  # drop zero counts
        for name in (first, second):
            self._playing[name] -= 1
            entrant = self._entrants.get(name)
            if entrant is not None:
                if entrant.playing >= entrant.capacity:
                    entrant.waiting_since = now
                entrant.playing -= 1
        self._playing += Counter()

    def _just_played(self, a: str, b: str) -> bool:
        return self._last_opponent.get(a) == b or self._last_opponent.get(b) == a

    def _start(self, a: _Entrant, b: _Entrant) -> tuple[str, str]:
        def claim(name: str) -> tuple[int, int]:  # lower moves first
            return self._first_minus_second[name], 0 if self._last_colour.get(name) == 1 else 1

        if claim(a.name) == claim(b.name):
            first, second = (a, b) if self._rng.random() < 0.5 else (b, a)
        else:
            first, second = (a, b) if claim(a.name) < claim(b.name) else (b, a)
        for entrant, colour in ((first, 0), (second, 1)):
            entrant.playing += 1
            self._playing[entrant.name] += 1
            self._last_colour[entrant.name] = colour
            self._first_minus_second[entrant.name] += 1 if colour == 0 else -1
        self._last_opponent[first.name], self._last_opponent[second.name] = second.name, first.name
        self._live_pairs[frozenset((first.name, second.name))] += 1
        return first.name, second.name
