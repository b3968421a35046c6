"""An independent brute-force solver for k-in-a-row positions, the oracle of the tactics tests.

Plain Python, nothing shared with the bot: a list board, a run-length win check through the
placed cell, and an exhaustive AND-OR minimax (is there a move such that every reply...) with a
ply limit. The only game knowledge it uses is what the rules force within one move:

- a side that can complete a line does so and wins;
- a side facing a completable line must occupy that cell (any other move loses at once), and
  facing two such cells it has lost unless it can win first.

In ``fours_only`` mode the attacker may only play moves that threaten to complete a line next
move: that is the definition of a VCF (victory by continuous fours), so the solver then proves
exactly the claim "wins by continuous fours within n moves" against every defence. In
``threats`` mode the attacker may also play a move after which one more stone in line with it
would leave two completing cells (an open three, or a three beside a four), and may always block
a line the defender could complete (the only move that does not lose): a VCT, victory by
continuous threats, still against every defence.
"""

from __future__ import annotations

DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))
Memo = dict[tuple[tuple[int, ...], int], bool]


class Position:
    """An m×n board (cell = y*m + x) with lines of k; stones 1 (first player) and 2 (second)."""

    def __init__(self, m: int, n: int, k: int, exact: bool, moves: list[int] | None = None) -> None:
        self.m, self.n, self.k, self.exact = m, n, k, exact
        self.board = [0] * (m * n)
        for i, c in enumerate(moves or []):
            assert self.board[c] == 0
            self.board[c] = 1 + i % 2

    @classmethod
    def from_rows(cls, rows: list[str], k: int, exact: bool = False) -> Position:
        """A position from text rows: ``X`` first player, ``O`` second, ``.`` empty."""
        position = cls(len(rows[0]), len(rows), k, exact)
        for y, row in enumerate(rows):
            for x, char in enumerate(row):
                position.board[y * position.m + x] = ".XO".index(char)
        return position

    @property
    def to_move(self) -> int:
        """The stone (1 or 2) of the side to move: players alternate, the first player first."""
        first = self.board.count(1)
        second = self.board.count(2)
        assert first - second in (0, 1), "not a position of alternating play"
        return 1 if first == second else 2

    def completes(self, cell: int, stone: int) -> bool:
        """Whether ``stone`` on the empty ``cell`` makes a winning line (exactly k when exact)."""
        x, y = cell % self.m, cell // self.m
        for dx, dy in DIRECTIONS:
            length = 1
            for sign in (1, -1):
                tx, ty = x + sign * dx, y + sign * dy
                while 0 <= tx < self.m and 0 <= ty < self.n and self.board[ty * self.m + tx] == stone:
                    length += 1
                    tx, ty = tx + sign * dx, ty + sign * dy
            if length == self.k or (length > self.k and not self.exact):
                return True
        return False

    def empty(self) -> list[int]:
        return [c for c, v in enumerate(self.board) if v == 0]

    def line_cells(self, cell: int) -> list[int]:
        """The cells within k-1 steps of ``cell`` along the four lines through it."""
        x, y = cell % self.m, cell // self.m
        out = []
        for dx, dy in DIRECTIONS:
            for step in range(1 - self.k, self.k):
                tx, ty = x + step * dx, y + step * dy
                if step and 0 <= tx < self.m and 0 <= ty < self.n:
                    out.append(ty * self.m + tx)
        return out

    def winning_cells(self, stone: int) -> list[int]:
        """Every empty cell where ``stone`` completes a line (only cells in line with its stones can)."""
        near = {q for c, v in enumerate(self.board) if v == stone for q in self.line_cells(c)}
        return sorted(c for c in near if self.board[c] == 0 and self.completes(c, stone))

    def threatens_two(self, cell: int, stone: int) -> bool:
        """Whether ``stone`` on ``cell`` makes a four, or a threat to make two completing cells at once
        with one more stone in line with ``cell`` (an open three, say).

        Called only when ``stone`` has no completing cell yet, so a completing cell made by the two
        new stones lies in line with one of them.
        """
        lines = self.line_cells(cell)
        if sum(self.board[c] == stone for c in lines) < 2:
            return False  # a four, or an open four one stone later, needs two more stones in line
        if self.threatens(cell, stone):
            return True
        self.board[cell] = stone
        found = False
        for d in lines:
            if self.board[d] == 0:
                self.board[d] = stone
                near = set(lines).union(self.line_cells(d))
                found = sum(self.board[e] == 0 and self.completes(e, stone) for e in near) >= 2
                self.board[d] = 0
                if found:
                    break
        self.board[cell] = 0
        return found

    def threatens(self, cell: int, stone: int) -> bool:
        """Whether ``stone`` on ``cell`` makes a four: a cell that would then complete a line.

        Called only when ``stone`` has no winning cell yet, so a new one lies in line with ``cell``.
        """
        if sum(self.board[c] == stone for c in self.line_cells(cell)) < self.k - 2:
            return False  # a four needs k - 2 more stones in line
        self.board[cell] = stone
        threat = any(self.board[c] == 0 and self.completes(c, stone) for c in self.line_cells(cell))
        self.board[cell] = 0
        return threat


def forced_win(
    position: Position,
    attacker: int,
    plies: int,
    *,
    fours_only: bool = False,
    threats: bool = False,
    mover: int | None = None,
) -> bool:
    """Whether ``attacker`` (1 or 2) wins within ``plies`` plies from here, whoever is to move.

    Plies count every stone from now on, the winning one included: a win in one is 1 ply, a
    move that leaves two winning cells is 3 plies. Exhaustive over every empty cell. ``mover``
    overrides the side to move (default: the one the stone counts say), to ask what a side
    would win if it were its turn.
    """
    memo: Memo = {}
    mode = "fours" if fours_only else "threats" if threats else ""
    return _search(position, mover or position.to_move, attacker, plies, mode, memo)


def _search(position: Position, mover: int, attacker: int, plies: int, mode: str, memo: Memo) -> bool:
    if plies <= 0:
        return False
    key = (tuple(position.board), plies)
    if key in memo:
        return memo[key]
    other = 3 - mover
    own = position.winning_cells(mover)
    theirs = position.winning_cells(other)
    if own:
        result = mover == attacker
    elif len(theirs) >= 2:
        # Only one can be blocked; the other side then completes a line at its next ply.
        result = other == attacker and plies >= 2
    else:
        moves = theirs or position.empty()
        if mover == attacker and mode == "fours":
            moves = [c for c in moves if position.threatens(c, mover)]
        elif mover == attacker and mode == "threats" and not theirs:
            # a three needs five plies to win (three, reply, open four, reply, five); a four needs three
            threat = position.threatens_two if plies >= 5 else position.threatens
            moves = [c for c in moves if threat(c, mover)]
        outcomes = []
        for c in moves:
            position.board[c] = mover
            outcomes.append(_search(position, other, attacker, plies - 1, mode, memo))
            position.board[c] = 0
            if outcomes[-1] == (mover == attacker):
                break  # one winning move for the attacker, or one saving move for the defender, decides
        result = any(outcomes) if mover == attacker else bool(outcomes) and all(outcomes)
    memo[key] = result
    return result


def shortest_forced_win(
    position: Position, attacker: int, max_plies: int, *, fours_only: bool = False, threats: bool = False
) -> int | None:
    """The fewest plies within which ``attacker`` forces a win (odd for the attacker to move), or None."""
    step = 2 if position.to_move == attacker else 1
    start = 1 if position.to_move == attacker else 2
    for plies in range(start, max_plies + 1, step):
        if forced_win(position, attacker, plies, fours_only=fours_only, threats=threats):
            return plies
    return None
