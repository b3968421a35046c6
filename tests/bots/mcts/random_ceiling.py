"""The most any player can score against a uniformly random opponent on an n×n, k-in-a-row board.

An oracle for the strength targets "≥ x % against random": the best response to a player who
picks every empty cell with equal chance is an expectimax, maximising over one's own moves and
averaging over the opponent's. Its value is the expected score (win 1, draw ½, loss 0) of the best
possible player, so no bot can beat it on average. The *sound* ceiling allows only moves that keep
the position's exact (minimax) value: the best a player can do against random without ever
risking a loss against anyone, which is what a bot that does not know its opponent must aim for.
Plain Python, nothing shared with the engine: bit boards, a line check by masks, and positions
folded over the board's 8 symmetries.

    python tests/bots/mcts/random_ceiling.py 3 3      # tic-tac-toe: instant
    python tests/bots/mcts/random_ceiling.py 4 4      # 4×4, four in a row: about five minutes
"""

from __future__ import annotations

import sys
from fractions import Fraction


class Ceiling:
    """Expectimax against a uniform opponent on an n×n board with lines of k (no overline rule)."""

    def __init__(self, n: int, k: int, *, exact: bool = False) -> None:
        self.n = n
        self.full = (1 << n * n) - 1
        self.lines = [
            sum(1 << (r + i * dr) * n + c + i * dc for i in range(k))
            for r in range(n)
            for c in range(n)
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1))
            if 0 <= r + (k - 1) * dr < n and 0 <= c + (k - 1) * dc < n
        ]
        self.one = Fraction(1) if exact else 1.0
        self._tables = [self._table(permutation) for permutation in self._symmetries()]
        self._exact_values: dict[int, int] = {}

    def value(self, me: int, *, sound: bool = False) -> Fraction | float:
        """The best expected score of player ``me`` (0 moves first, 1 second) from the empty board;
        ``sound``: playing only moves that keep the exact value."""
        memo: dict[int, Fraction | float] = {}
        return self._value(0, 0, 0, me, sound, memo)

    # --- the search ------------------------------------------------------------------------------
    def _children(self, first: int, second: int, to_move: int):
        """(first, second, outcome for the mover: 1 won, 0 drawn, None going on) after each move."""
        empty = self.full & ~(first | second)
        while empty:
            bit = empty & -empty
            empty ^= bit
            a, b = (first | bit, second) if to_move == 0 else (first, second | bit)
            if self._won(a if to_move == 0 else b):
                yield a, b, 1
            else:
                yield a, b, 0 if a | b == self.full else None

    def _value(self, first: int, second: int, to_move: int, me: int, sound: bool, memo: dict) -> Fraction | float:
        key = self._canonical(first, second)
        if key in memo:
            return memo[key]
        target = self._exact(first, second, to_move) if sound and to_move == me else None
        results = []
        for a, b, outcome in self._children(first, second, to_move):
            if target is not None and (outcome if outcome is not None else -self._exact(a, b, 1 - to_move)) != target:
                continue  # a move that gives up value: unsound against a player who is not random
            if outcome == 1:
                results.append(self.one if to_move == me else 0 * self.one)
            elif outcome == 0:
                results.append(self.one / 2)
            else:
                results.append(self._value(a, b, 1 - to_move, me, sound, memo))
        value = max(results) if to_move == me else sum(results) / len(results)
        memo[key] = value
        return value

    def _exact(self, first: int, second: int, to_move: int) -> int:
        """The minimax value for the side to move: 1 win, 0 draw, -1 loss."""
        key = self._canonical(first, second)
        if key not in self._exact_values:
            best = -1
            for a, b, outcome in self._children(first, second, to_move):
                best = max(best, outcome if outcome is not None else -self._exact(a, b, 1 - to_move))
                if best == 1:
                    break
            self._exact_values[key] = best
        return self._exact_values[key]

    def _won(self, stones: int) -> bool:
        return any(stones & line == line for line in self.lines)

    # --- symmetry --------------------------------------------------------------------------------
    def _symmetries(self) -> list[list[int]]:
        """The 8 rotations and reflections of the square, as cell permutations."""
        n = self.n
        permutations = []
        for turns in range(4):
            for mirror in (False, True):
                permutation = []
                for cell in range(n * n):
                    r, c = divmod(cell, n)
                    for _ in range(turns):
                        r, c = c, n - 1 - r
                    if mirror:
                        c = n - 1 - c
                    permutation.append(r * n + c)
                permutations.append(permutation)
        return permutations

    def _table(self, permutation: list[int]) -> list[list[int]]:
        """The permutation applied to a bit board one byte at a time: one lookup per byte."""
        cells = len(permutation)
        tables = []
        for offset in range(0, cells, 8):
            table = [0] * 256
            for byte in range(256):
                for bit in range(8):
                    if byte >> bit & 1 and offset + bit < cells:
                        table[byte] |= 1 << permutation[offset + bit]
            tables.append(table)
        return tables

    def _apply(self, tables: list[list[int]], stones: int) -> int:
        out = 0
        for i, table in enumerate(tables):
            out |= table[stones >> 8 * i & 255]
        return out

    def _canonical(self, first: int, second: int) -> int:
        shift = self.n * self.n
        return min((self._apply(t, first) << shift) | self._apply(t, second) for t in self._tables)


def main() -> None:
    n, k = (int(arg) for arg in sys.argv[1:3])
    ceiling = Ceiling(n, k)
    print(f"{n}x{n}, {k} in a row, against a uniform random player: best expected score")
    for sound in (False, True):
        first, second = ceiling.value(0, sound=sound), ceiling.value(1, sound=sound)
        label = "sound (exact value kept)" if sound else "any play"
        print(f"  {label:<25} first {first:.2%}, second {second:.2%}, both colours {(first + second) / 2:.2%}")


if __name__ == "__main__":
    main()
