"""``perfect``: exact play of the small games — tic-tac-toe 3×3 and 4×4, 3×3×3, vanishing tic-tac-toe.

It never turns a won or drawn position into a worse result, wins as fast as possible, and when
lost delays the loss as long as possible. Scores count from the side to move: a win finished when
``q`` stones have been placed scores ``WIN - q``, a loss ``-(WIN - q)``, a draw 0, so the sooner win
and the later loss score higher.

**Placement games** (m,n,k with at most 16 cells, the 3×3×3 cube) are solved by a negamax with
alpha-beta over bitboards (one bit per cell, a line is a mask). Its transposition table stores,
with each score, the *kind* of bound it is — exact, lower (the search failed high) or upper (it
failed low) — since a score found with a window is only a bound outside it (reusing it as exact is
the classic memoisation bug of alpha-beta). The key is the pair of stone masks itself, so two
positions never share an entry, and because a position's stone count is its ply, a stored
distance-to-win is the same along every path. Exact shortcuts keep the tree small: a side with a
winning cell wins at once; facing two threats it loses in two; facing one it must block it.
The cube is a first-player win in 7 plies (0.01 s); 4×4 is a draw (about 0.2 s cold). Every
solve here is that quick, so the brain answers exactly whatever the time budget.

**Vanishing tic-tac-toe** has cycles (stones vanish), so its graph is not a tree and a searched
draw can depend on the path (repetition). It is solved instead by retrograde analysis over its
whole position space — the standing stones in age order plus the side to move, about 140,000
positions — giving each a value and a distance to the end under unlimited play. The draw rules
are then applied exactly at the root: a move that completes a repetition or reaches the ply
limit is a draw, and a win (or loss) of distance ``d`` counts only if it fits under the ply limit
(the winner can force it in ``d`` plies and the loser can hold out exactly that long, so a later
one is a draw). Repetition cannot spoil a winning line the bot plays: along it the distance
strictly falls, so no position repeats, and every earlier position of a game the bot has played
had a different value (the bot keeps draws drawn), so none of the line's positions occurred before.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import int64, njit

from arbiter.engine import Game, Move, State
from arbiter.engine.base import HEADER

from .brain import Brain, ThinkRequest, ThinkResult

WIN = 1000
INFINITY = WIN + 1
EXACT, LOWER, UPPER = 1, 2, 3
HASH_MULTIPLIER = -7046029254386353131  # 0x9E3779B97F4A7C15 as a signed 64-bit value
MAX_CELLS = 32  # two stone masks share one 64-bit key

# --- placement games on bitboards -----------------------------------------------------------------


@njit(cache=True)
def winning_cells(mine, occupied, lines):
    """The empty cells where one more stone of ``mine`` completes a line, as a mask."""
    cells = 0
    for line in lines:
        rest = line & ~mine
        if rest != 0 and rest & (rest - 1) == 0 and rest & occupied == 0:
            cells |= rest
    return cells


@njit(cache=True, inline="always")
def lowest_cell(mask):
    cell = 0
    while (mask >> cell) & 1 == 0:
        cell += 1
    return cell


NEGAMAX_SIGNATURE = int64(
    int64, int64, int64, int64, int64, int64, int64[::1], int64[::1], int64[::1], int64[::1], int64[::1]
)


@njit(NEGAMAX_SIGNATURE, cache=True)
def negamax(me, opp, full, stones, alpha, beta, lines, order, tt_keys, tt_data, stats):
    """The score of the side to move (stones ``me``) with the window (alpha, beta), fail-soft.

    The position has no line yet. ``stones`` is the number of stones on the board. A TT entry
    packs ``(score + INFINITY) << 8 | (best cell + 1) << 2 | bound``.
    """
    stats[0] += 1
    occupied = me | opp
    if occupied == full:
        return 0
    if winning_cells(me, occupied, lines) != 0:
        return WIN - (stones + 1)
    threats = winning_cells(opp, occupied, lines)
    if threats & (threats - 1) != 0:  # two threats: block one, lose to the other
        return -(WIN - (stones + 2))
    ceiling = WIN - (stones + 3)  # the fastest win left: our next move cannot win
    if ceiling < beta:
        beta = ceiling
        if alpha >= beta:
            return ceiling
    mask = len(tt_keys) - 1
    key = me | (opp << 32)
    slot = ((key * HASH_MULTIPLIER) >> 24) & mask
    tt_cell = -1
    if tt_keys[slot] == key:
        data = tt_data[slot]
        bound = data & 3
        value = (data >> 8) - INFINITY
        tt_cell = ((data >> 2) & 63) - 1
        if bound == EXACT:
            return value
        if bound == LOWER and value > alpha:
            alpha = value
        elif bound == UPPER and value < beta:
            beta = value
        if alpha >= beta:
            return value
    window_low = alpha
    best = -INFINITY
    best_cell = -1
    for i in range(-1, len(order)):
        if i < 0:  # the forced block, else the table's best cell, first
            if threats != 0:
                cell = lowest_cell(threats)
            elif tt_cell >= 0:
                cell = tt_cell
            else:
                continue
        else:
            if threats != 0:
                break
            cell = order[i]
            if cell == tt_cell:
                continue
        bit = 1 << cell
        if occupied & bit:
            continue
        score = -negamax(opp, me | bit, full, stones + 1, -beta, -alpha, lines, order, tt_keys, tt_data, stats)
        if score > best:
            best = score
            best_cell = cell
            if score > alpha:
                alpha = score
                if alpha >= beta:
                    break
    bound = EXACT
    if best <= window_low:
        bound = UPPER
    elif best >= beta:
        bound = LOWER
    tt_keys[slot] = key
    tt_data[slot] = ((best + INFINITY) << 8) | ((best_cell + 1) << 2) | bound
    return best


@njit(cache=True)
def best_cell(me, opp, full, stones, lines, order, tt_keys, tt_data, stats):
    """[score, cell] of the best move for ``me`` (position without a line, at least one empty cell).

    Ties go to the earliest cell of ``order``; facing two threats it still blocks one of them.
    """
    occupied = me | opp
    wins = winning_cells(me, occupied, lines)
    if wins != 0:
        return np.array([WIN - (stones + 1), lowest_cell(wins)])
    threats = winning_cells(opp, occupied, lines)
    if threats != 0:
        cell = lowest_cell(threats)
        bit = 1 << cell
        score = -negamax(opp, me | bit, full, stones + 1, -INFINITY, INFINITY, lines, order, tt_keys, tt_data, stats)
        return np.array([score, cell])
    alpha = -INFINITY
    chosen = -1
    for cell in order:
        bit = 1 << cell
        if occupied & bit:
            continue
        score = -negamax(opp, me | bit, full, stones + 1, -INFINITY, -alpha, lines, order, tt_keys, tt_data, stats)
        if score > alpha:
            alpha = score
            chosen = cell
    return np.array([alpha, chosen])


@njit(cache=True)
def first_forcing_cell(me, opp, full, stones, lines, order, tt_keys, tt_data, stats):
    """The lowest-numbered cell from which ``me`` forces a win, or -1 (position without a line)."""
    occupied = me | opp
    for cell in range(len(order)):
        bit = 1 << cell
        if occupied & bit:
            continue
        if winning_cells(me, occupied, lines) & bit:
            return cell
        # The opponent's value after the move, searched with the window (-1, 0): below 0 is a loss.
        if negamax(opp, me | bit, full, stones + 1, -1, 0, lines, order, tt_keys, tt_data, stats) < 0:
            return cell
    return -1


def mnk_lines(m: int, n: int, k: int) -> list[int]:
    """Masks of every k cells in a row on an m×n board (cell = y*m + x)."""
    lines = set()
    for y, x, (dx, dy) in itertools.product(range(n), range(m), ((1, 0), (0, 1), (1, 1), (1, -1))):
        cells = [(x + i * dx, y + i * dy) for i in range(k)]
        if all(0 <= cx < m and 0 <= cy < n for cx, cy in cells):
            lines.add(sum(1 << (cy * m + cx) for cx, cy in cells))
    return sorted(lines)


def cube_lines(n: int) -> list[int]:
    """Masks of the full lines of an n×n×n cube (cell = z*n*n + y*n + x)."""
    directions = [d for d in itertools.product((-1, 0, 1), repeat=3) if d > (0, 0, 0)]
    lines = set()
    for (x, y, z), (dx, dy, dz) in itertools.product(itertools.product(range(n), repeat=3), directions):
        cells = [(x + i * dx, y + i * dy, z + i * dz) for i in range(n)]
        if all(0 <= c < n for cell in cells for c in cell):
            lines.add(sum(1 << (cz * n * n + cy * n + cx) for cx, cy, cz in cells))
    return sorted(lines)


class LineSolver:
    """Exact solver of one placement game's geometry, with its transposition table kept between calls.

    The table holds only facts about positions (bounds on their exact scores), so it stays valid
    across moves, matches and puzzles.
    """

    def __init__(self, cells: int, lines: list[int]) -> None:
        if cells > MAX_CELLS:
            raise ValueError(f"at most {MAX_CELLS} cells fit the solver's key, not {cells}")
        self.cells = cells
        self.lines = np.asarray(lines, dtype=np.int64)
        degree = [sum(1 for line in lines if line >> c & 1) for c in range(cells)]
        self.order = np.asarray(sorted(range(cells), key=lambda c: -degree[c]), dtype=np.int64)
        self.full = (1 << cells) - 1
        size = 1 << (12 if cells <= 9 else 20)
        self.tt_keys = np.full(size, -1, dtype=np.int64)
        self.tt_data = np.zeros(size, dtype=np.int64)
        self.stats = np.zeros(1, dtype=np.int64)

    def has_line(self, mask: int) -> bool:
        return any(line & mask == line for line in self.lines.tolist())

    def best(self, me: int, opp: int) -> tuple[int, int]:
        """(score, cell) of an optimal move for the side owning ``me``."""
        stones = (me | opp).bit_count()
        score, cell = best_cell(
            me, opp, self.full, stones, self.lines, self.order, self.tt_keys, self.tt_data, self.stats
        )
        return int(score), int(cell)

    def first_forcing_cell(self, me: int, opp: int) -> int:
        """The first cell (lowest index) from which ``me``, to move, forces a win; -1 if none."""
        stones = (me | opp).bit_count()
        return int(
            first_forcing_cell(
                me, opp, self.full, stones, self.lines, self.order, self.tt_keys, self.tt_data, self.stats
            )
        )


def masks_from_board(board: np.ndarray) -> tuple[int, int]:
    """(first player's mask, second player's mask) of a flat board of 0, 1, 2."""
    first = sum(1 << c for c in np.flatnonzero(board == 1).tolist())
    second = sum(1 << c for c in np.flatnonzero(board == 2).tolist())
    return first, second


# --- vanishing tic-tac-toe: retrograde analysis -----------------------------------------------------
# A position's code lists the standing cells newest first, one decimal digit each (cell + 1), so
# codes are below 10**6; its index is code * 2 + side to move. Values: 0 draw, 1 win, 2 loss.
VANISHING_STANDING = 6
VANISHING_LINES = np.array(mnk_lines(3, 3, 3), dtype=np.int64)
VALUE_DRAW, VALUE_WIN, VALUE_LOSS = 0, 1, 2


@njit(cache=True)
def _vanishing_children(code, out_codes):
    """Write the codes after each legal move to ``out_codes``; return (count, any move wins)."""
    used = 0
    length = 0
    rest = code
    while rest > 0:
        used |= 1 << (rest % 10 - 1)
        rest //= 10
        length += 1
    count = 0
    wins = False
    for cell in range(9):
        if used & (1 << cell):
            continue
        kept = code % 100000 if length == VANISHING_STANDING else code
        child = kept * 10 + cell + 1
        mine = 0
        digits = child
        for i in range(5):
            if i % 2 == 0 and digits % 10 > 0:
                mine |= 1 << (digits % 10 - 1)
            digits //= 10
        for line in VANISHING_LINES:
            if mine & line == line:
                wins = True
        out_codes[count] = child
        count += 1
    return count, wins


@njit(cache=True)
def build_vanishing_table():
    """(value, distance) of every position, indexed by code * 2 + side to move."""
    size = 2 * 1000000
    value = np.zeros(size, dtype=np.int8)
    distance = np.zeros(size, dtype=np.int16)
    seen = np.zeros(size, dtype=np.bool_)
    positions = np.empty(1 << 18, dtype=np.int64)
    children = np.empty(9, dtype=np.int64)
    positions[0] = 0
    seen[0] = True
    total = 1
    head = 0
    while head < total:  # every position reachable from the empty board, in breadth-first order
        index = positions[head]
        head += 1
        count, wins = _vanishing_children(index // 2, children)
        if wins:
            value[index] = VALUE_WIN
            distance[index] = 1
        for i in range(count):
            child = children[i] * 2 + 1 - index % 2
            if not seen[child] and not _completes_line(children[i]):
                seen[child] = True
                positions[total] = child
                total += 1
    depth = 1
    quiet_rounds = 0
    while quiet_rounds < 2:
        depth += 1
        changed = False
        for p in range(total):
            index = positions[p]
            if value[index] != VALUE_DRAW:
                continue
            count, _ = _vanishing_children(index // 2, children)
            if depth % 2 == 0:  # a loss: every move reaches a win for the opponent (found earlier)
                lost = True
                for i in range(count):
                    if value[children[i] * 2 + 1 - index % 2] != VALUE_WIN:
                        lost = False
                        break
                if lost:
                    value[index] = VALUE_LOSS
                    distance[index] = depth
                    changed = True
            else:  # a win: some move reaches a loss found in the previous round
                for i in range(count):
                    child = children[i] * 2 + 1 - index % 2
                    if value[child] == VALUE_LOSS and distance[child] == depth - 1:
                        value[index] = VALUE_WIN
                        distance[index] = depth
                        changed = True
                        break
        quiet_rounds = 0 if changed else quiet_rounds + 1
    return value, distance


@njit(cache=True)
def _completes_line(code):
    """Whether the newest stone's owner (digits 0, 2, 4 of ``code``) stands on a full line."""
    mine = 0
    for i in range(5):
        if i % 2 == 0 and code % 10 > 0:
            mine |= 1 << (code % 10 - 1)
        code //= 10
    for line in VANISHING_LINES:  # noqa: SIM110 (numba compiles no generator expressions)
        if mine & line == line:
            return True
    return False


@functools.cache
def vanishing_table() -> tuple[np.ndarray, np.ndarray]:
    """The retrograde table, built once per process (about 0.1 s once compiled)."""
    return build_vanishing_table()


def vanishing_index(state: State) -> int:
    """The table index of a vanishing tic-tac-toe position."""
    code = 0
    for x, y in state.moves()[-VANISHING_STANDING:]:
        code = code * 10 + y * 3 + x + 1
    return code * 2 + state.to_move


# --- the brain ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Evaluation:
    """A move's exact worth for the mover: ``score`` as above, ``plies`` until the game ends."""

    score: int
    plies: int | None
    nodes: int = 0

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {"value": "draw", "score": self.score, "nodes": self.nodes}
        if self.score:
            info.update(value="win" if self.score > 0 else "loss", plies=self.plies)
        return info


def line_geometry(game: Game) -> tuple[int, list[int]]:
    """(cells, line masks) of a placement game the solver plays."""
    if game.family == "mnk":
        m, n, k = game.params["m"], game.params["n"], game.params["k"]
        return m * n, mnk_lines(m, n, k)
    n = game.params["n"]
    return n**3, cube_lines(n)


class PerfectBrain(Brain):
    name = "perfect"

    def __init__(self, level: int | None = None, **options: Any) -> None:
        super().__init__(level, **options)
        self._solvers: dict[Game, LineSolver] = {}

    @classmethod
    def plays(cls, game: Game) -> bool:
        params = game.params
        if game.family == "mnk":
            m, n, k = params["m"], params["n"], params["k"]
            return m * n <= 16 and (not params["exact"] or k == max(m, n))
        if game.family == "ttt3d":
            return params["n"] == 3
        return game.family == "vanishing"

    def solver(self, game: Game) -> LineSolver:
        """The game's solver, created on first use and kept (with its table) for later moves."""
        if game not in self._solvers:
            self._solvers[game] = LineSolver(*line_geometry(game))
        return self._solvers[game]

    def think(self, request: ThinkRequest) -> ThinkResult:
        state = request.position()
        if not self.plays(state.game):
            raise ValueError(f"perfect does not play {state.game!r}")
        if state.game.family == "vanishing":
            action, evaluation = self._vanishing_choice(state)
        else:
            action, evaluation = self._line_choice(state)
        return ThinkResult(state.game.encode_move(action_move(state, action)), evaluation.describe())

    def _line_choice(self, state: State) -> tuple[int, Evaluation]:
        solver = self.solver(state.game)
        first, second = masks_from_board(state.s[HEADER : HEADER + solver.cells])
        me, opp = (first, second) if state.to_move == 0 else (second, first)
        nodes_before = int(solver.stats[0])
        score, cell = solver.best(me, opp)
        plies = WIN - abs(score) - state.ply if score else None
        return cell, Evaluation(score, plies, int(solver.stats[0]) - nodes_before)

    def _vanishing_choice(self, state: State) -> tuple[int, Evaluation]:
        value, distance = vanishing_table()
        limit = state.game.params["ply_limit"]
        best: tuple[int, Evaluation] | None = None
        for action in state.legal_actions().tolist():
            child = state.copy()
            child.play_action(action)
            evaluation = self._vanishing_outcome(child, value, distance, limit, state.ply)
            if best is None or evaluation.score > best[1].score:
                best = (action, evaluation)
        assert best is not None
        return best

    @staticmethod
    def _vanishing_outcome(child: State, value: np.ndarray, distance: np.ndarray, limit: int, ply: int) -> Evaluation:
        """The exact worth, for the player who just moved, of reaching ``child``."""
        if child.is_terminal:
            outcome = child.outcome
            assert outcome is not None  # a terminal state has one
            return Evaluation(WIN - (ply + 1), 1) if outcome.winner is not None else Evaluation(0, None)
        index = vanishing_index(child)
        plies = 1 + int(distance[index])
        if value[index] == VALUE_DRAW or ply + plies > limit:
            return Evaluation(0, None)
        if value[index] == VALUE_LOSS:  # the opponent, to move there, loses
            return Evaluation(WIN - (ply + plies), plies)
        return Evaluation(-(WIN - (ply + plies)), plies)

    def warm_up(self) -> None:
        from arbiter.engine import create_game

        super().warm_up()
        for name in ("tictactoe", "ttt3d", "vanishing"):
            state = create_game(name).new_state()
            for action in (4, 0, 8):
                state.play_action(action)
            self.think(ThinkRequest("warm-up", name, {}, [list(m) for m in state.moves()], 1.0))
        LineSolver(9, mnk_lines(3, 3, 3)).first_forcing_cell(0b000000011, 0b000011000)


def action_move(state: State, action: int) -> Move:
    """The move that plays ``action`` (a placement game's move is one action)."""
    trial = state.copy()
    trial.play_action(action)
    return trial.moves()[-1]
