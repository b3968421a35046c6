"""Swiss pairing in the manner of FIDE's Dutch system (Handbook C.04.3), one round at a time.

What it implements, by the rules' own names:

- **Basic rules (C.04.1)**: no two players meet twice (a pairing decided by forfeit counts as a
  meeting: the pair was drawn), and a player gets the pairing-allocated bye at most once. The bye
  goes to the lowest-ranked player (fewest points, then the lowest seed) who can take it and still
  leave the others a pairing; a player who already won a game by forfeit is passed over while
  another can take it (C.04.1 d). A bye scores ``model.BYE_POINTS["swiss"]``, a win's point.
- **Absolute colour criterion (C3)**: two players who both *must* get the same colour never meet.
  A player must get a colour when its colour difference (games moving first − moving second) is
  beyond ±1 or its last two games had the same colour; that colour is then always granted, so no
  one's difference exceeds ±2 and no one gets a colour three times running. Only if a round has no
  pairing at all that way is the criterion dropped for that round (FIDE drops it only for
  topscorers of the last round); no field of a reasonable size comes near it.
- **Score brackets**: players are ranked by points, then seed. Brackets are paired from the top,
  each one's unpaired players *floating down* into the next as "moved-down players", which are
  paired first, each with the highest resident it may meet (a heterogeneous bracket). The rest
  of a bracket is split into S1 (top half) and S2 (bottom half) and S1[i] meets S2[i]; when that
  fails, the search goes through S2's transpositions in the Dutch order (the highest S1 player's
  choices first) and then exchanges between S1 and S2 (an S1 player meets one from S1's bottom).
  A bracket floats as few players as it can (C6), taken from its bottom (C7: the lowest scores
  float), and among as many floaters prefers the choice that denies the fewest players their
  colour (C12), then the one that floats fewest players down who floated down the round before
  (C14). When a bracket cannot be completed, the bracket above takes its next choice (the
  completion criterion, C4), within a budget; failing that the last bracket is merged with the one
  above (FIDE's "collapsed last bracket"), as often as needed.
- **Colour quality (C12)**: within a bracket the search first allows only as many pairs of
  players wanting the same colour as the bracket's preferences force, then one more, then any.
- **Colour allocation (E.1–E.5)**: both preferences when they differ; else the stronger one
  (absolute, strong ±1, mild 0); else the players alternate from the last round in which their
  colours differed; else the higher-ranked player's. Two players without a game: the higher
  ranked gets the colour drawn by lot from the seed on odd boards, the other on even ones.

What it does not: the other float criteria (C15–C21), the topscorer exceptions, the ranking of
every candidate pairing by the whole list of quality criteria (the search takes the first pairing,
in the Dutch order, that meets the criteria above), and acceleration. On random Swisses of 10 and
20 players over 5 rounds its rounds 2–5 have the same pairs as caissify-pairings 0.5.0 (a Dutch
implementation cross-checked against FIDE's endorsed bbpPairings) in 54 and 38 of 80 rounds. That
library, the only maintained one on PyPI, is not used: it took 1.6 s for a round of nine players
and more than 200 s for the second round of 1,000 here. The Dutch system needs a full search in the
worst case; this one bounds its steps per bracket and then floats players down instead, which
keeps a round of 1,000 players far under a second (benchmarks/swiss_pairing.py).

Pairings depend only on the entrants, the outcomes and the seed: the same inputs, the same round.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from arbiter.server.tournaments.model import (
    BYE_POINTS,
    Entrant,
    FormatError,
    Outcome,
    Pairing,
    by_seed,
    check_field,
)

FIRST, SECOND = 0, 1
MILD, STRONG, ABSOLUTE = 1, 2, 3
MIN_STEPS = 4_000  # the search's budget in a bracket of n players: this many candidates looked at, …
STEPS_PER_PLAYER = 40  # … plus this many per player, plus n² (one pass over the bracket per pair) …
BOUNDED_SHARE = 4  # … and a quarter of it while the colour bound holds, so a bound that cannot be kept fails fast
FLOATER_SETS = 24  # how many choices of downfloaters a bracket tries for each number of them
BACKTRACKS = 64  # how many times a round goes back to a bracket above for its next choice


def rounds_for(n_entrants: int) -> int:
    """The number of rounds when the tournament does not set it: ``ceil(log2 n) + 1`` (a clear
    winner, with a round to spare), but at most ``ceil(n / 2)``: up to there a next round always
    has a pairing without repeats (after r rounds of an even field each player has n − 1 − r
    opponents left, at least n/2, and by Dirac's theorem such a graph has a perfect matching; an
    odd field pairs like an even one with the bye as a player). 2 players play 1 round, 6 play 3,
    9 play 5, 1,000 play 11. A longer Swiss can run out: ``pair_round`` then refuses the round."""
    if n_entrants < 2:
        raise FormatError("field_too_small", f"a Swiss needs at least 2 entrants, not {n_entrants}")
    return min(math.ceil(math.log2(n_entrants)) + 1, math.ceil(n_entrants / 2))


@dataclass(eq=False)  # one object per player: compared and hashed by identity
class _Player:
    name: str
    rank: int = 0  # 0 = the highest ranked this round
    seed: int = 0
    points: float = 0.0
    colours: list[int] = field(default_factory=list)  # of its played games, in round order
    opponents: set[str] = field(default_factory=set)
    byes: int = 0
    unplayed_wins: int = 0
    floated: int = 0  # the last round it floated down (met a lower score, or had the bye); 0: never

    preference: tuple[int | None, int] = (None, 0)  # the colour it should get and how strongly (0: none)

    def settle(self) -> None:
        """Its colour preference (FIDE C.04.3 A.6), from its played games' colours."""
        if not self.colours:
            return
        difference = self.colours.count(FIRST) - self.colours.count(SECOND)
        last = self.colours[-1]
        if difference > 1 or (len(self.colours) > 1 and self.colours[-2] == last == FIRST):
            self.preference = SECOND, ABSOLUTE
        elif difference < -1 or (len(self.colours) > 1 and self.colours[-2] == last == SECOND):
            self.preference = FIRST, ABSOLUTE
        elif difference:
            self.preference = (SECOND, STRONG) if difference > 0 else (FIRST, STRONG)
        else:
            self.preference = 1 - last, MILD


def pair_round(
    entrants: list[Entrant],
    outcomes: Iterable[Outcome],
    round: int,
    *,
    seed: int,
    withdrawn: frozenset[str] = frozenset(),
    openings: int = 0,
) -> list[Pairing]:
    """The pairings of round ``round`` (1-based), given the outcomes of every earlier round.

    Withdrawn players are not paired. ``openings``: how many balanced openings there are; each
    board gets one, drawn from the seed and the round (0: every game from the empty board).
    FormatError when an earlier round is unfinished or names a stranger, or no pairing exists.
    """
    check_field(entrants)
    players = _histories(entrants, outcomes, round)
    active = [p for p in players.values() if p.name not in withdrawn]
    if len(active) < 2:
        raise FormatError("field_too_small", f"round {round} has {len(active)} players left to pair")
    active.sort(key=lambda p: (-p.points, p.seed, p.name))
    for rank, player in enumerate(active):
        player.rank = rank
        player.settle()
    pairs, bye = _pair_with_bye(active)
    return _boards(pairs, bye, round, seed=seed, openings=openings)


def _histories(entrants: list[Entrant], outcomes: Iterable[Outcome], round: int) -> dict[str, _Player]:
    players = {e.name: _Player(e.name, seed=i) for i, e in enumerate(by_seed(entrants))}
    before: dict[str, float] = {}
    current = 0
    for outcome in sorted(outcomes, key=lambda o: o.pairing.round):
        pairing = outcome.pairing
        if not 1 <= pairing.round < round:
            raise FormatError("bad_round", f"an outcome of round {pairing.round} cannot pair round {round}")
        for name in pairing.players:
            if name not in players:
                raise FormatError("unknown_player", f"{name} of round {pairing.round} has not entered")
        if pairing.round != current:  # the points before this round, for who floated in it
            current, before = pairing.round, {name: p.points for name, p in players.items()}
        black = players[pairing.black]
        if pairing.white is None:
            black.byes += 1
            black.points += BYE_POINTS["swiss"]
            black.floated = pairing.round
            continue
        if outcome.score is None:
            raise FormatError("round_unfinished", f"round {pairing.round} board {pairing.board} has no result yet")
        white = players[pairing.white]
        if before[black.name] != before[white.name]:
            (black if before[black.name] > before[white.name] else white).floated = pairing.round
        black.opponents.add(white.name)
        white.opponents.add(black.name)
        black.points += outcome.score
        white.points += 1.0 - outcome.score
        if outcome.forfeit is not None:  # unplayed: no colour (C.04.1 e), but a point without play
            winner = black if outcome.score == 1.0 else white if outcome.score == 0.0 else None
            if winner is not None:
                winner.unplayed_wins += 1
            continue
        black.colours.append(FIRST)
        white.colours.append(SECOND)
    return players


def _pair_with_bye(active: list[_Player]) -> tuple[list[tuple[_Player, _Player]], _Player | None]:
    for relax in (False, True):  # the absolute colour criterion is dropped only when nothing else pairs
        if len(active) % 2 == 0:
            pairs = _pair_all(active, relax)
            if pairs is not None:
                return pairs, None
            continue
        lowest_first = sorted(active, key=lambda p: -p.rank)
        candidates = [p for p in lowest_first if not p.byes and not p.unplayed_wins]
        candidates += [p for p in lowest_first if not p.byes and p.unplayed_wins]
        for bye in candidates:
            pairs = _pair_all([p for p in active if p is not bye], relax)
            if pairs is not None:
                return pairs, bye
    raise FormatError("no_pairing", "no pairing of this round meets the rules: every pair has met or every bye is used")


def _pair_all(players: list[_Player], relax: bool) -> list[tuple[_Player, _Player]] | None:
    """Every player paired, bracket by bracket from the top; when a bracket cannot be completed
    the one above tries its next choice (FIDE's completion criterion), within a budget, and after
    that the last bracket collapses into the one above until it pairs."""
    groups = [list(g) for _, g in itertools.groupby(players, key=lambda p: p.points)]
    round_ = max((p.floated for p in players), default=0) + 1
    while True:
        pairs = _descend(groups, 0, [], relax, [BACKTRACKS], round_)
        if pairs is not None or len(groups) == 1:
            return pairs
        groups = [*groups[:-2], groups[-2] + groups[-1]]


def _descend(
    groups: list[list[_Player]], i: int, floaters: list[_Player], relax: bool, budget: list[int], round_: int
) -> list[tuple[_Player, _Player]] | None:
    bracket = sorted(floaters + groups[i], key=lambda p: p.rank)
    last = i == len(groups) - 1
    for pairs, down in _options(bracket, min(p.points for p in groups[i]), last=last, relax=relax, round_=round_):
        if last:
            return pairs
        rest = _descend(groups, i + 1, down, relax, budget, round_)
        if rest is not None:
            return pairs + rest
        budget[0] -= 1
        if budget[0] <= 0:
            return None
    return None


def _options(
    bracket: list[_Player], resident: float, *, last: bool, relax: bool, round_: int
) -> Iterator[tuple[list[tuple[_Player, _Player]], list[_Player]]]:
    """The bracket's pairings with their downfloaters, best first: as few floaters as can be (C6);
    for as many, the fewest players denied their colour (C12), then the fewest floating down again
    after floating down last round (C14), then the Dutch order (floaters from the bottom)."""
    counts = [0] if last else range(len(bracket) % 2, len(bracket) + 1, 2)
    wanted = [p.preference[0] for p in bracket]
    surplus = abs(wanted.count(FIRST) - wanted.count(SECOND)) - wanted.count(None)
    for count in counts:
        best = max(0, surplus - count) // 2  # no choice of floaters can do better
        later = []
        sets = max(2, FLOATER_SETS * 20 // len(bracket))  # a large bracket weighs fewer choices: each is a search
        for index, floating in enumerate(itertools.islice(itertools.combinations(reversed(bracket), count), sets)):
            chosen = set(floating)
            found = _pair_even([p for p in bracket if p not in chosen], resident, relax)
            if found is None:
                continue
            denied, pairs = found
            again = sum(p.floated == round_ - 1 for p in floating)
            down = sorted(floating, key=lambda p: p.rank)
            if denied == best and not again:
                yield pairs, down
            else:
                later.append(((denied, again, index), pairs, down))
        for _, pairs, down in sorted(later, key=lambda option: option[0]):
            yield pairs, down


def _pair_even(
    players: list[_Player], resident: float, relax: bool
) -> tuple[int, list[tuple[_Player, _Player]]] | None:
    """A pairing of all of ``players`` in the Dutch order denying as few their colour as the search
    finds, with that number, or None."""
    if not players:
        return 0, []
    wanted = [p.preference[0] for p in players]
    surplus = max(0, abs(wanted.count(FIRST) - wanted.count(SECOND)) - wanted.count(None)) // 2
    for allowed in (surplus, surplus + 1, len(players)):
        budget = MIN_STEPS + STEPS_PER_PLAYER * len(players) + len(players) ** 2
        pairs = _Search(
            players, resident, relax, allowed, budget if allowed >= len(players) else budget // BOUNDED_SHARE
        ).run()
        if pairs is not None:
            return sum(_same_wish(a, b) for a, b in pairs), pairs
    return None


class _Search:
    """A depth-first search over the bracket's pairings, in the order the Dutch system tries them,
    within a step budget."""

    def __init__(self, players: list[_Player], resident: float, relax: bool, allowed: int, steps: int) -> None:
        self.players = players
        self.moved_down = [p for p in players if p.points > resident]
        self.residents = [p for p in players if p.points <= resident]
        self.for_moved_down = self.residents + self.moved_down  # a moved-down player's candidates, in order
        self.relax = relax
        self.allowed = allowed  # how many pairs of players wanting the same colour may be made
        self.steps = steps
        self.paired: set[str] = set()

    def run(self) -> list[tuple[_Player, _Player]] | None:
        stack: list[tuple[_Player, list[_Player], int, list[_Player] | None]] = []
        pairs: list[tuple[_Player, _Player]] = []
        violations = 0
        order: list[_Player] | None = None
        frame = self._next(order)
        while frame is not None:
            player, candidates, start, order = frame
            chosen = None
            for i in range(start, len(candidates)):
                other = candidates[i]
                self.steps -= 1  # a step: one candidate looked at
                if other is player or other.name in self.paired or not self._may_meet(player, other):
                    continue
                clash = _same_wish(player, other)
                if clash and violations >= self.allowed:
                    continue
                chosen = i
                break
            if self.steps <= 0:
                return None
            if chosen is None:  # back to the previous choice
                if not stack:
                    return None
                player, candidates, start, order = stack.pop()
                a, b = pairs.pop()
                violations -= _same_wish(a, b)
                self.paired -= {a.name, b.name}
                frame = (player, candidates, start + 1, order)
                continue
            other = candidates[chosen]
            stack.append((player, candidates, chosen, order))
            pairs.append((player, other))
            violations += _same_wish(player, other)
            self.paired |= {player.name, other.name}
            if len(self.paired) == len(self.players):
                return pairs
            frame = self._next(order)
        return None

    def _next(self, order: list[_Player] | None) -> tuple[_Player, list[_Player], int, list[_Player] | None] | None:
        """The next player to pair, its candidates in order, from the first; ``order``: the
        homogeneous part's order of candidates (S2, then S1 from its bottom), fixed when it starts."""
        player = next((p for p in self.moved_down if p.name not in self.paired), None)
        if player is not None:
            return player, self.for_moved_down, 0, order
        free = [p for p in self.residents if p.name not in self.paired]
        if not free:
            return None
        if order is None:  # the homogeneous remainder starts: S1 is its top half, S2 the rest
            middle = len(free) // 2
            order = free[middle:] + free[:middle][::-1]
        return free[0], order, 0, order

    def _may_meet(self, a: _Player, b: _Player) -> bool:
        if b.name in a.opponents:
            return False
        if self.relax:
            return True
        (colour_a, strength_a), (colour_b, strength_b) = a.preference, b.preference
        return not (strength_a == strength_b == ABSOLUTE and colour_a == colour_b)


def _same_wish(a: _Player, b: _Player) -> bool:
    colour = a.preference[0]
    return colour is not None and colour == b.preference[0]


def _colours(high: _Player, low: _Player, board: int, lot: int) -> tuple[_Player, _Player]:
    """(first mover, second mover) of a pair, ``high`` the higher ranked (FIDE C.04.3 E)."""
    (want_h, strength_h), (want_l, strength_l) = high.preference, low.preference
    if want_h is None and want_l is None:
        colour = lot if board % 2 else 1 - lot
    elif want_l is None or (want_h is not None and want_h != want_l):
        colour = want_h if want_h is not None else 0
    elif want_h is None:
        colour = 1 - want_l
    elif strength_h != strength_l:
        colour = want_h if strength_h > strength_l else 1 - want_l
    else:
        colour = want_h
        for mine, theirs in zip(reversed(high.colours), reversed(low.colours), strict=False):
            if mine != theirs:
                colour = 1 - mine  # alternate from the last round their colours differed
                break
    return (high, low) if colour == FIRST else (low, high)


def _boards(
    pairs: list[tuple[_Player, _Player]], bye: _Player | None, round: int, *, seed: int, openings: int
) -> list[Pairing]:
    """Boards ordered by the pair's higher score, then their total, then the higher rank (FIDE)."""
    ordered = sorted(
        ((a, b) if a.rank < b.rank else (b, a) for a, b in pairs),
        key=lambda pair: (-pair[0].points, -(pair[0].points + pair[1].points), pair[0].rank),
    )
    lot = random.Random(seed).randrange(2)  # the colour drawn for the top seed, once per tournament
    dealer = random.Random(f"{seed}:{round}")
    out = []
    for board, (high, low) in enumerate(ordered, 1):
        first, second = _colours(high, low, board, lot)
        opening = dealer.randrange(openings) if openings > 0 else None
        out.append(Pairing(round, board, first.name, second.name, opening))
    if bye is not None:
        out.append(Pairing(round, len(ordered) + 1, bye.name, None, None))
    return out
