"""Single and double round robins from the Berger tables (FIDE Handbook C.05, Annex 1).

Every round is known up front. The players get their pairing numbers by lot, drawn from the
tournament's ``seed`` (FIDE: "the pairing numbers are drawn by lot"), so the same seed gives the
same schedule. With an odd field a dummy takes the last number and whoever meets it has a bye.

Berger's construction, for ``n`` numbers (``n`` even; the dummy makes it so): round 1 pairs
``1–n, 2–(n−1), …, n/2–(n/2+1)``, the first named moving first; each next round adds ``n/2`` to
every number except ``n`` (modulo ``n − 1``, in ``1 … n−1``), and ``n`` moves second in odd rounds,
first in even ones. Each player then moves first ``n/2`` or ``n/2 − 1`` times: over a single round
robin ``|first − second| ≤ 1`` for everyone (a player of an odd field, whose bye takes one round,
too).

A double round robin plays the table twice, the second cycle with every game's colours swapped,
and (as Gomocup does) both games of a pair start from the same balanced opening, so an opening
that favours one side favours each player once. Openings are dealt to the pairs by the seed,
as evenly as there are openings (each index before any is used twice).
"""

from __future__ import annotations

import random

from arbiter.server.tournaments.model import Entrant, FormatError, Pairing, by_seed, check_field


def berger_rounds(n: int) -> list[list[tuple[int, int]]]:
    """The Berger table of ``n`` (even) numbers, 1-based: per round, ``(first, second)`` per board."""
    half, m = n // 2, n - 1
    base = [(k + 1, n - k) for k in range(1, half)]  # the boards other than the one of number n
    rounds = []
    for r in range(m):

        def shift(x: int, r: int = r) -> int:
            return (x - 1 + r * half) % m + 1

        mover = shift(1)
        boards = [(mover, n) if r % 2 == 0 else (n, mover)]
        boards += [(shift(a), shift(b)) for a, b in base]
        rounds.append(boards)
    return rounds


def schedule(entrants: list[Entrant], *, double: bool, seed: int, openings: int) -> list[Pairing]:
    """Every game of the round robin, round by round (a double: the second cycle after the first).

    ``openings`` is how many balanced openings there are to start from (0: every game from the
    empty board). A bye is a pairing with ``white=None`` on the round's last board.
    """
    check_field(entrants)
    if openings < 0:
        raise FormatError("bad_openings", f"the number of openings is at least 0, not {openings}")
    rng = random.Random(seed)
    names = [e.name for e in by_seed(entrants)]
    rng.shuffle(names)  # the drawing of lots for the pairing numbers
    numbers: list[str | None] = [*names, None] if len(names) % 2 else list(names)
    table = berger_rounds(len(numbers))
    dealt = _deal_openings(table, openings, rng)
    pairings = []
    cycles = (False, True) if double else (False,)
    for cycle, swapped in enumerate(cycles):
        for r, boards in enumerate(table):
            round_number = cycle * len(table) + r + 1
            games, byes = [], []
            for a, b in boards:
                first, second = numbers[a - 1], numbers[b - 1]
                if first is None or second is None:
                    byes.append(first or second)
                    continue
                if swapped:
                    first, second = second, first
                games.append((first, second, dealt[frozenset((a, b))]))
            for board, (first, second, opening) in enumerate(games, 1):
                pairings.append(Pairing(round_number, board, first, second, opening))
            pairings += [Pairing(round_number, len(games) + 1, name, None, None) for name in byes if name]
    return pairings


def _deal_openings(
    table: list[list[tuple[int, int]]], openings: int, rng: random.Random
) -> dict[frozenset[int], int | None]:
    """An opening index per pair of numbers: a shuffled deck of the openings, reshuffled when used up."""
    pairs = [frozenset(board) for boards in table for board in boards]
    if openings <= 0:
        return dict.fromkeys(pairs)
    deck: list[int] = []
    dealt: dict[frozenset[int], int | None] = {}
    for pair in pairs:
        if not deck:
            deck = list(range(openings))
            rng.shuffle(deck)
        dealt[pair] = deck.pop()
    return dealt
