"""The incremental tracks against a from-scratch recount, and the threat questions against the solver."""

from __future__ import annotations

import numpy as np
import pytest
from board_walks import random_walk
from gomoku_solver import Position
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.bots.gomoku.board import (
    FOURS,
    S_BOARD,
    S_CAND,
    S_CAND_N,
    S_CAND_POS,
    S_COMBO,
    S_EVAL,
    S_HASH,
    S_HEADER,
    S_LINE_CODE,
    S_MOVES,
    S_NEAR,
    S_SET_LEN,
    S_SET_POS,
    S_SETS,
    S_STAMP,
    S_UNDO_TOP,
    S_WIN,
    THREES,
    WIN_STRIDE,
    Board,
    double_threat,
    four_moves,
    make,
    make_windows,
    unmake_windows,
    winning_cells,
)
from arbiter.bots.gomoku.geometry import G_WINDOWS, G_ZOB, NEAR_RADIUS, window_cells
from arbiter.bots.gomoku.layout import region
from arbiter.bots.gomoku.patterns import EVAL_MOVER, EVAL_WAITER, window_weights


def recount(board: Board) -> dict:
    """Every track computed from the stones alone, by the definitions."""
    m, n, k, exact = board.m, board.n, int(board.g[2]), bool(board.g[3])
    stones = [board.stone(c) for c in range(board.cells)]
    codes = []
    for w in range(int(board.g[G_WINDOWS])):
        cells = window_cells(board.g, w)
        first, last = cells[0], cells[-1]
        step_x = (last % m - first % m) // (k - 1)
        step_y = (last // m - first // m) // (k - 1)
        ends = []
        for x, y in ((first % m - step_x, first // m - step_y), (last % m + step_x, last // m + step_y)):
            ends.append(stones[y * m + x] if 0 <= x < m and 0 <= y < n else 0)
        row = []
        for p in range(2):
            own = sum(stones[c] == p + 1 for c in cells)
            enemy = sum(stones[c] == 2 - p for c in cells)
            bordered = exact and (p + 1) in ends
            row.append(-1 if enemy or bordered else own)
        codes.append(row)
    weights = window_weights(k)
    evals = np.zeros((2, 2), dtype=np.int64)
    sets = {row: [] for row in range(4)}
    for w, row in enumerate(codes):
        for p, code in enumerate(row):
            if code > 0:
                evals[EVAL_MOVER, p] += weights[EVAL_MOVER, code]
                evals[EVAL_WAITER, p] += weights[EVAL_WAITER, code]
            if code == k - 1:
                sets[FOURS + p].append(w)
            if code == k - 2:
                sets[THREES + p].append(w)
    near = set()
    for c, v in enumerate(stones):
        if v:
            for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
                for r in range(-NEAR_RADIUS, NEAR_RADIUS + 1):
                    x, y = c % m + r * dx, c // m + r * dy
                    if 0 <= x < m and 0 <= y < n and stones[y * m + x] == 0:
                        near.add(y * m + x)
    zobrist = region(board.g, G_ZOB, 2 * board.cells)
    key = 0
    for c, v in enumerate(stones):
        if v:
            key ^= int(zobrist[(v - 1) * board.cells + c])
    return {"codes": codes, "evals": evals, "sets": sets, "candidates": sorted(near), "hash": key}


def assert_consistent(board: Board) -> None:
    expected = recount(board)
    assert board.window_codes().tolist() == expected["codes"]
    assert board.s[S_EVAL : S_EVAL + 4].reshape(2, 2).tolist() == expected["evals"].tolist()
    for row in range(4):
        assert board.set_windows(row) == sorted(expected["sets"][row])
    assert board.candidates() == expected["candidates"]
    assert int(board.s[S_HASH]) == np.int64(expected["hash"])


shapes = st.tuples(st.integers(5, 9), st.integers(5, 9), st.integers(4, 6), st.booleans()).filter(
    lambda t: t[2] <= max(t[0], t[1])
)


@settings(derandomize=True, max_examples=40, deadline=None)
@given(shape=shapes, data=st.data())
def test_tracks_match_a_recount_through_moves_and_undos(shape, data) -> None:
    m, n, k, exact = shape
    board = Board(m, n, k, exact)
    fresh = board.s.copy()
    for _ in random_walk(board, data, 40):
        assert_consistent(board)
    while board.stones:
        board.undo()
    assert_consistent(board)
    assert int(board.s[S_UNDO_TOP]) == 0  # every placement's record popped by its removal
    assert board.window_codes().tolist() == Board(m, n, k, exact).window_codes().tolist()
    assert int(board.s[S_HASH]) == int(fresh[S_HASH])


def live_words(board: Board) -> np.ndarray:
    """Every word of the tracks a kernel reads: the window sets, candidates and moves up to their lengths, every
    other region whole; not the scratch stamps, nor the undo stack (its record of a move taken back stays behind)."""
    s, cells, windows = board.s, board.cells, int(board.g[G_WINDOWS])
    sets = region(s, S_SETS, 4 * windows).reshape(4, windows)
    return np.concatenate(
        [
            np.delete(s[:S_HEADER], [S_STAMP, S_UNDO_TOP]),
            region(s, S_BOARD, cells),
            region(s, S_WIN, windows * WIN_STRIDE),
            *(sets[row, : int(s[S_SET_LEN + row])] for row in range(4)),
            region(s, S_SET_POS, 4 * windows),
            region(s, S_NEAR, cells),
            region(s, S_CAND, int(s[S_CAND_N])),
            region(s, S_CAND_POS, cells),
            region(s, S_MOVES, board.stones),
            region(s, S_LINE_CODE, 2 * 4 * cells),
            region(s, S_COMBO, 2 * cells),
        ]
    )


@settings(derandomize=True, max_examples=30, deadline=None)
@given(shape=shapes, data=st.data())
def test_a_move_taken_back_leaves_the_tracks_exactly_as_they_were(shape, data) -> None:
    """Not only the same position: the same order of window sets and candidates, so a search never depends on the
    moves it tried before (its move order among equal scores comes from those lists)."""
    m, n, k, exact = shape
    board = Board(m, n, k, exact)
    for _ in random_walk(board, data, 30):
        for c in range(0, board.cells, 3):
            if board.stone(c) == 0:
                before = live_words(board)
                board.play(c)
                board.undo()
                assert np.array_equal(live_words(board), before), f"cell {c} after {board.stones} stones"


def window_words(s: np.ndarray, board: Board) -> np.ndarray:
    """What the VCF reads: the stones, the windows and their sets of fours and threes, the window sums, the hash."""
    windows = int(board.g[G_WINDOWS])
    sets = region(s, S_SETS, 4 * windows).reshape(4, windows)
    return np.concatenate(
        [
            s[[S_HASH, S_EVAL, S_EVAL + 1, S_EVAL + 2, S_EVAL + 3]],
            s[S_SET_LEN : S_SET_LEN + 4],
            region(s, S_BOARD, board.cells),
            region(s, S_WIN, windows * WIN_STRIDE),
            *(sets[row, : int(s[S_SET_LEN + row])] for row in range(4)),
            region(s, S_SET_POS, 4 * windows),
        ]
    )


@settings(derandomize=True, max_examples=30, deadline=None)
@given(shape=shapes, data=st.data())
def test_a_placement_of_the_windows_alone_keeps_them_as_make_does_and_lifts_cleanly(shape, data) -> None:
    """make_windows (the VCF's placement) leaves the windows, their sets and the hash as make() does, and after
    unmake_windows every track is exactly as before, down to the order of the lists."""
    m, n, k, exact = shape
    board = Board(m, n, k, exact)
    g = board.g
    for _ in random_walk(board, data, 30):
        empty = [c for c in range(board.cells) if board.stone(c) == 0]
        if not empty:
            continue
        cells = data.draw(st.lists(st.sampled_from(empty), min_size=1, max_size=4, unique=True), label="fours")
        before = live_words(board)
        made = board.s.copy()
        for i, c in enumerate(cells):
            make(g, made, c, (board.to_move + i) % 2)
            make_windows(g, board.s, c, (board.to_move + i) % 2)
            assert np.array_equal(window_words(board.s, board), window_words(made, board))
        for _ in cells:
            unmake_windows(g, board.s)
        assert np.array_equal(live_words(board), before)


def threat_answers(board: Board, p: int) -> tuple[list[int], list[int], int]:
    buffer = np.zeros(board.cells, dtype=np.int64)
    wins = sorted(int(c) for c in buffer[: winning_cells(board.g, board.s, p, buffer, 0)])
    fours = sorted(int(c) for c in buffer[: four_moves(board.g, board.s, p, buffer, 0)])
    return wins, fours, int(double_threat(board.g, board.s, p))


@settings(derandomize=True, max_examples=60, deadline=None)
@given(shape=shapes, data=st.data())
def test_threat_questions_agree_with_the_solver(shape, data) -> None:
    m, n, k, exact = shape
    cells = data.draw(st.lists(st.integers(0, m * n - 1), unique=True, max_size=min(m * n, 24)), label="moves")
    board = Board.from_moves(m, n, k, exact, cells)
    position = Position(m, n, k, exact, cells)
    for p in range(2):
        stone = p + 1
        wins, fours, double = threat_answers(board, p)
        assert wins == position.winning_cells(stone)
        if wins:
            continue  # four_moves and double_threat are asked only when p cannot win at once
        assert fours == [c for c in position.empty() if position.threatens(c, stone)]
        doubles = []
        for c in fours:
            position.board[c] = stone
            if len(position.winning_cells(stone)) >= 2:
                doubles.append(c)
            position.board[c] = 0
        assert (double in doubles) if doubles else double == -1


@pytest.mark.parametrize("exact", [False, True])
def test_an_overline_is_no_pattern_under_exact_five(exact: bool) -> None:
    # X X X X . X on a row: the gap makes six in a row, a win only when five-or-more wins.
    position = Position.from_rows([".........", "XXXX.X...", "OOO.O....", "........."], k=5, exact=exact)
    cells = [c for c, v in enumerate(position.board) if v == 1]
    enemy = [c for c, v in enumerate(position.board) if v == 2]
    moves = [c for pair in zip(cells, enemy, strict=False) for c in pair] + cells[len(enemy) :]
    board = Board.from_moves(9, 4, 5, exact, moves)
    wins, _, _ = threat_answers(board, 0)
    assert wins == ([] if exact else [13])  # the gap is x=4, y=1
    assert position.winning_cells(1) == wins
