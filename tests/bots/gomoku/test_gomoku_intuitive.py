"""Level 1 is the source's intuitive player: G+Q per move, its three constraints, best score played."""

from __future__ import annotations

import pytest
from gomoku_solver import Position
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.bots.brain import ThinkRequest
from arbiter.bots.gomoku.board import Board
from arbiter.bots.gomoku.brain import GomokuBrain
from arbiter.bots.gomoku.intuitive import g_value, line_length, q_value

STEPS = ((1, 0), (0, 1), (1, 1), (1, -1))


@pytest.mark.parametrize("w", range(3, 27))
def test_g_and_q_meet_the_three_constraints(w: int) -> None:
    g, q = g_value, q_value
    # (1) completing a line beats any move that does not, even scoring in all four directions
    assert g(w) > 4 * g(w - 1) + 4 * q(w)
    # (2) blocking a line one short of winning beats every non-winning own move (hence the 4)
    assert q(w) > 4 * g(w - 1) + 4 * q(w - 1)
    # (3) one longer line beats several shorter ones
    for j in range(1, w):
        assert g(j + 1) > 4 * g(j) + 4 * q(j)
        assert q(j + 1) > 4 * q(j) + 4 * g(j - 1)
    assert g(0) == q(0) == 0


def moves_from_rows(rows: list[str]) -> list[int]:
    """Cells of the rows' stones in an alternating order, first player first."""
    position = Position.from_rows(rows, k=5)
    xs = [c for c, v in enumerate(position.board) if v == 1]
    os = [c for c, v in enumerate(position.board) if v == 2]
    assert len(xs) - len(os) in (0, 1)
    return [c for pair in zip(xs, os, strict=False) for c in pair] + xs[len(os) :]


def board_from_rows(rows: list[str], k: int, exact: bool = False) -> Board:
    return Board.from_moves(len(rows[0]), len(rows), k, exact, moves_from_rows(rows))


def test_the_sources_example_on_seven_by_seven_to_four() -> None:
    # X to play the centre: horizontally k = 1, k' = 1; vertically k = 4, k' = 0;
    # on the \ diagonal k = 0 (no room) and k' = 4; on the / diagonal k = 2, k' = 0.
    board = board_from_rows(
        ["O.....O", ".O.X...", "..O.X..", "O......", "...X...", ".X.X.O.", "...X..."],
        k=4,
    )
    centre = 3 * 7 + 3
    own = [line_length(board.g, board.s, centre, d, 1) for d in range(4)]
    theirs = [line_length(board.g, board.s, centre, d, 2) for d in range(4)]
    assert own == [1, 4, 0, 2]
    assert theirs == [1, 0, 4, 0]


def reference_score(position: Position, cell: int, stone: int) -> int:
    """G+Q of the move, computed here from the source's definitions with exact integers."""
    w, m, n = position.k, position.m, position.n
    total = 0
    for dx, dy in STEPS:
        for who, value in ((stone, g_value), (3 - stone, q_value)):
            room, length = 1, 1
            for sign in (1, -1):
                x, y = cell % m + sign * dx, cell // m + sign * dy
                run = True
                while 0 <= x < m and 0 <= y < n and position.board[y * m + x] in (0, who):
                    room += 1
                    if run and position.board[y * m + x] == who:
                        length += 1
                    else:
                        run = False
                    x, y = x + sign * dx, y + sign * dy
            if room < w:
                continue
            if length > w:
                length = 0 if position.exact else w
            total += value(length)
    return total


def near_cells(position: Position) -> list[int]:
    m, n = position.m, position.n
    out = set()
    for c, v in enumerate(position.board):
        if v:
            for dx, dy in STEPS:
                for r in (-2, -1, 1, 2):
                    x, y = c % m + r * dx, c // m + r * dy
                    if 0 <= x < m and 0 <= y < n and position.board[y * m + x] == 0:
                        out.add(y * m + x)
    return sorted(out)


def level1_move(game: str, params: dict, cells: list[int], m: int, seed: int = 0) -> int:
    request = ThinkRequest("t", game, params, [[c % m, c // m] for c in cells], budget=1.0, seed=seed)
    x, y = GomokuBrain(level=1).think(request).move
    return y * m + x


def game_is_on(cells: list[int], exact: bool) -> bool:
    """Whether no move of ``cells`` (played in order) completed a line."""
    position = Position(10, 10, 5, exact)
    for i, c in enumerate(cells):
        if position.completes(c, 1 + i % 2):
            return False
        position.board[c] = 1 + i % 2
    return True


@settings(derandomize=True, max_examples=40, deadline=None)
@given(exact=st.booleans(), data=st.data())
def test_level_1_plays_a_move_with_the_best_g_plus_q(exact: bool, data) -> None:
    cells = data.draw(st.lists(st.integers(0, 99), unique=True, min_size=1, max_size=30), label="moves")
    if not game_is_on(cells, exact):
        return
    position = Position(10, 10, 5, exact, cells)
    seed = data.draw(st.integers(0, 99), label="seed")
    chosen = level1_move("gomoku10", {"exact": exact}, cells, 10, seed)
    scores = {c: reference_score(position, c, position.to_move) for c in near_cells(position)}
    assert chosen in scores
    assert scores[chosen] == max(scores.values())


def choose(rows: list[str]) -> tuple[int, dict[int, int]]:
    """Level 1's cell on a 10×10 board, and the reference G+Q of every candidate."""
    cells = moves_from_rows(rows)
    position = Position(10, 10, 5, False, cells)
    scores = {c: reference_score(position, c, position.to_move) for c in near_cells(position)}
    return level1_move("gomoku10", {}, cells, 10), scores


def test_level_1_completes_a_line_rather_than_block_one() -> None:
    # X to move completes five at c3 or h3; O's four on row 5 would complete at e5.
    chosen, scores = choose([".........."] * 2 + ["...XXXX...", "..........", "OOOO......"] + [".........."] * 5)
    assert chosen in (22, 27)
    assert scores[22] > scores[44]


def test_level_1_blocks_a_four_rather_than_build_lines_in_every_direction() -> None:
    # X's best own move, f6, makes threes in all four directions; O's four on row 9 wins at e9.
    rows = [
        "O........O",
        "O........O",
        "..........",
        "...X.X.X..",
        "....XXX...",
        "...XX.....",
        "..........",
        "..........",
        "OOOO......",
        "..........",
    ]
    chosen, scores = choose(rows)
    assert chosen == 84
    assert scores[84] > scores[55] > 0


def test_level_1_prefers_one_longer_line_to_a_fork_of_shorter_ones() -> None:
    # b2..d2 extends to a four at a2 or e2; f7 makes threes in three directions at once.
    rows = [
        ".........O",
        ".XXX......",
        "..........",
        "..........",
        "...X.X....",
        "....XX....",
        "...XX.....",
        "O........O",
        "O........O",
        "O.O....O.O",
    ]
    chosen, scores = choose(rows)
    assert chosen in (10, 14)
    assert scores[10] > scores[65] > 0
