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
- The draw prefers the games that teach the ratings most: a pair that has met less often than
  the player's other pairs (weight ``(1 + g_typical) / (1 + g_pair)`` to the power ``novelty``,
  ``g`` counting ladder games between the two), and a partner whose rating is less certain
  (its deviation over the initial 350, to the power ``uncertainty``). So every pair in reach keeps
  meeting, and a newcomer is placed quickly. ``novelty = uncertainty = 0`` draws by rating alone.
- No immediate rematch: two players who just played each other are not paired again until both
  have waited ``rematch_after_s`` seconds (so two lone bots still meet again, just not at once).
  Two players never have two ladder matches against each other at the same time.
- Two accounts of one owner (a person and its bot, two bots of one person: ``owner``) are never
  paired: the ladder is rated, and such a game would farm a rating.
- Colours alternate: the player who has had the first move less often (then: who moved second in
  its last game) moves first; a full tie is a coin toss.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from arbiter.server.basics.ratings import INITIAL_DEVIATION  # a newcomer's: the most uncertain a rating is


@dataclass
class _Entrant:
    name: str
    rating: float
    capacity: int
    waiting_since: float
    playing: int = 0
    deviation: float = INITIAL_DEVIATION
    owner: str | None = None  # who answers for the account (players.owner_of)


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
        novelty: float = 4.0,
        uncertainty: float = 1.0,
    ) -> None:
        self.game = game
        self.window = window
        self.widen_per_s = widen_per_s
        self.rematch_after_s = rematch_after_s
        self.novelty = novelty
        self.uncertainty = uncertainty
        self._games: Counter[frozenset[str]] = Counter()  # ladder games started between each pair
        self._rng = rng or random.Random()
        self._entrants: dict[str, _Entrant] = {}
        self._playing: Counter[str] = Counter()  # ladder matches in progress, also of players who left
        self._live_pairs: Counter[frozenset[str]] = Counter()
        self._last_opponent: dict[str, str] = {}
        self._first_minus_second: Counter[str] = Counter()  # games moved first minus games moved second
        self._last_colour: dict[str, int] = {}

    # --- membership -------------------------------------------------------------------------
    def join(
        self,
        name: str,
        rating: float,
        now: float,
        *,
        capacity: int = 1,
        deviation: float = INITIAL_DEVIATION,
        owner: str | None = None,
    ) -> None:
        """Enter the queue (or update rating, deviation and capacity if already in it); ``owner``:
        who answers for the account (None: nobody), never paired with another account of its own."""
        if capacity < 1:
            raise ValueError(f"capacity is at least 1, not {capacity}")
        entrant = self._entrants.get(name)
        if entrant is None:
            self._entrants[name] = _Entrant(name, rating, capacity, now, self._playing[name], deviation, owner)
        else:
            entrant.rating, entrant.capacity, entrant.deviation = rating, capacity, deviation

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

    def capacity_of(self, name: str) -> int:
        """The ladder matches ``name`` plays at once in this queue (0 if not a member)."""
        entrant = self._entrants.get(name)
        return 0 if entrant is None else entrant.capacity

    def rating_of(self, name: str) -> float | None:
        entrant = self._entrants.get(name)
        return None if entrant is None else entrant.rating

    def set_rating(self, name: str, rating: float, deviation: float | None = None) -> None:
        entrant = self._entrants.get(name)
        if entrant is not None:
            entrant.rating = rating
            if deviation is not None:
                entrant.deviation = deviation

    def games_between(self, a: str, b: str) -> int:
        """Ladder games the two have started against each other in this queue."""
        return self._games[frozenset((a, b))]

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
            typical = self._typical_games(a.name)
            for b in available:
                if b is a or b.name in taken or self._live_pairs[frozenset((a.name, b.name))]:
                    continue
                if a.owner is not None and a.owner == b.owner:
                    continue
                deficit = (1 + typical) / (1 + self._games[frozenset((a.name, b.name))])
                spread = self.window + self.widen_per_s * (now - min(a.waiting_since, b.waiting_since))
                spread *= max(1.0, deficit) ** self.novelty  # a pair that met too rarely reaches further
                gap = abs(a.rating - b.rating)
                if gap > spread or (
                    self._just_played(a.name, b.name)
                    and now - max(a.waiting_since, b.waiting_since) < self.rematch_after_s
                ):
                    continue
                partners.append(b)
                novelty = deficit**self.novelty
                uncertainty = (b.deviation / INITIAL_DEVIATION) ** self.uncertainty
                weights.append(math.exp(-2.0 * (gap / spread) ** 2) * novelty * uncertainty)
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

    def _typical_games(self, name: str) -> float:
        """How often ``name`` has met each of the others in the queue, on average."""
        others = [other for other in self._entrants if other != name]
        if not others:
            return 0.0
        return sum(self._games[frozenset((name, other))] for other in others) / len(others)

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
        self._games[frozenset((first.name, second.name))] += 1
        return first.name, second.name
