"""Reference renju and caro rules, straight from the definitions (RIF article 3; see ``five.py``).

Where the kernels reason about the runs touching the new stone, this enumerates windows: a five is
five black in a row with no black just outside; a four is the set of four black stones (the new one
among them) of a five-cell window whose fifth cell, filled, makes a five (two windows with the same
four stones are one straight four); a three is a line on which *some* empty point, legal for black
and making no five, turns it into a straight four through the new stone. Every line through the
point is read whole from the board, and the win is found by rescanning every run of the mover.
"""

from __future__ import annotations

from ..base import (
    REASON_BOARD_FULL,
    REASON_LINE,
    REASON_NONE,
    REASON_STUCK,
    STATUS_DRAW,
    STATUS_ONGOING,
    Game,
)
from ..five import MAX_DEPTH

DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))
BLACK, WHITE = 1, 2


class ReferenceFive:
    def __init__(self, m: int, n: int, rule: str, exact: bool) -> None:
        self.m, self.n, self.rule, self.exact = m, n, rule, exact
        self.board = [0] * (m * n)
        self.to_move = 0
        self.status = STATUS_ONGOING
        self.reason = REASON_NONE

    # --- the board as lines ---------------------------------------------------------------------
    def _at(self, x: int, y: int) -> int:
        if 0 <= x < self.m and 0 <= y < self.n:
            return self.board[y * self.m + x]
        return -1

    def _line(self, cell: int, dx: int, dy: int) -> tuple[list[int], int]:
        """The cells of the whole board line through ``cell`` along (dx, dy), and ``cell``'s index in it."""
        x, y = cell % self.m, cell // self.m
        while self._at(x - dx, y - dy) != -1:
            x, y = x - dx, y - dy
        cells = []
        while self._at(x, y) != -1:
            cells.append(y * self.m + x)
            x, y = x + dx, y + dy
        return cells, cells.index(cell)

    # --- RIF's terms, for black, on the current board -----------------------------------------------
    def _is_five_window(self, line: list[int], start: int) -> bool:
        """Black on ``line[start:start + 5]`` and not on either cell just outside it."""
        inside = all(self.board[c] == BLACK for c in line[start : start + 5])
        outside = [line[i] for i in (start - 1, start + 5) if 0 <= i < len(line)]
        return inside and all(self.board[c] != BLACK for c in outside)

    def _windows(self, line: list[int], i: int) -> range:
        return range(max(0, i - 4), min(i, len(line) - 5) + 1)

    def _has_five(self, cell: int) -> bool:
        for dx, dy in DIRECTIONS:
            line, i = self._line(cell, dx, dy)
            if any(self._is_five_window(line, start) for start in self._windows(line, i)):
                return True
        return False

    def _has_overline(self, cell: int) -> bool:
        for dx, dy in DIRECTIONS:
            line, i = self._line(cell, dx, dy)
            for start in range(max(0, i - 5), min(i, len(line) - 6) + 1):
                if all(self.board[c] == BLACK for c in line[start : start + 6]):
                    return True
        return False

    def _four_stones(self, line: list[int], i: int) -> list[frozenset[int]]:
        """For each five-cell window through ``line[i]`` that its one empty cell completes to a five:
        the window's four black stones (a straight four appears twice, from its two windows)."""
        found = []
        for start in self._windows(line, i):
            window = line[start : start + 5]
            empty = [c for c in window if self.board[c] == 0]
            if len(empty) != 1 or sum(self.board[c] == BLACK for c in window) != 4:
                continue
            self.board[empty[0]] = BLACK
            if self._is_five_window(line, start):
                found.append(frozenset(c for c in window if c != empty[0]))
            self.board[empty[0]] = 0
        return found

    def _fours(self, line: list[int], i: int) -> set[frozenset[int]]:
        """The fours through ``line[i]``: each as its four black stones."""
        return set(self._four_stones(line, i))

    def _has_straight_four(self, line: list[int], i: int, through: int) -> bool:
        """Four black stones, ``line[i]`` and ``through`` among them, that two different points
        complete to a five."""
        stones = self._four_stones(line, i)
        return any(stones.count(four) >= 2 and through in four for four in stones)

    def _straight_four_points(self, line: list[int], i: int) -> list[int]:
        """The empty points of ``line`` that make a straight four through ``line[i]`` and themselves,
        and no five anywhere: where a three through ``line[i]`` would be completed."""
        points = []
        for point in line:
            if self.board[point] != 0:
                continue
            self.board[point] = BLACK
            if self._has_straight_four(line, i, point) and not self._has_five(point):
                points.append(point)
            self.board[point] = 0
        return points

    def forbidden(self, cell: int, depth: int = 0) -> str | None:
        """Why black may not play the empty ``cell`` (RIF 9.2, 9.3), or None."""
        self.board[cell] = BLACK
        try:
            if self._has_five(cell):
                return None
            if self._has_overline(cell):
                return "overline"
            lines = [self._line(cell, dx, dy) for dx, dy in DIRECTIONS]
            if sum(len(self._fours(line, i)) for line, i in lines) >= 2:
                return "double-four"
            completions = [self._straight_four_points(line, i) for line, i in lines]
            if sum(bool(points) for points in completions) < 2:
                return None
            threes = 0
            for points in completions:  # a line is a three if black may play one of its points
                if any(depth >= MAX_DEPTH or self.forbidden(point, depth + 1) is None for point in points):
                    threes += 1
            return "double-three" if threes >= 2 else None
        finally:
            self.board[cell] = 0

    # --- the game -------------------------------------------------------------------------------
    def legal_actions(self) -> list[int]:
        if self.status != STATUS_ONGOING:
            return []
        empty = [c for c, v in enumerate(self.board) if v == 0]
        if self.rule == "renju" and self.to_move == 0:
            return [c for c in empty if self.forbidden(c) is None]
        return empty

    def play(self, cell: int) -> None:
        assert cell in self.legal_actions()
        stone = self.to_move + 1
        self.board[cell] = stone
        self.to_move = 1 - self.to_move
        if self._has_win(stone):
            self.status, self.reason = stone, REASON_LINE
        elif all(self.board):
            self.status, self.reason = STATUS_DRAW, REASON_BOARD_FULL
        elif (
            self.rule == "renju"
            and self.to_move == 0
            and all(self.forbidden(c) for c, v in enumerate(self.board) if not v)
        ):
            self.status, self.reason = STATUS_DRAW, REASON_STUCK

    def _has_win(self, stone: int) -> bool:
        """Every maximal run of ``stone`` on the board, judged by the rule."""
        for y in range(self.n):
            for x in range(self.m):
                for dx, dy in DIRECTIONS:
                    if self._at(x - dx, y - dy) == stone or self._at(x, y) != stone:
                        continue  # not the start of a run
                    length = 0
                    while self._at(x + length * dx, y + length * dy) == stone:
                        length += 1
                    if self._run_wins(
                        stone, length, self._at(x - dx, y - dy), self._at(x + length * dx, y + length * dy)
                    ):
                        return True
        return False

    def _run_wins(self, stone: int, length: int, before: int, after: int) -> bool:
        if self.rule == "renju":
            return length == 5 or (length > 5 and stone == WHITE)
        if length > 5:
            return not self.exact
        return length == 5 and not (before == after == 3 - stone)


def new_state(game: Game) -> ReferenceFive:
    p = game.params
    return ReferenceFive(p["m"], p["n"], p["rule"], p["exact"])
