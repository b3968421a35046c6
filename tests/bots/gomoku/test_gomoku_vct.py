"""The VCT kernel (vct.py) against slow pure-Python references and the independent solver.

Its move generators are checked cell by cell against a plain reading of the board; every win it
claims is proved by the solver's exhaustive threats mode (every defence tried); its table, kept
across searches, never changes an answer.
"""

from __future__ import annotations

import random
import time

import numpy as np
from gomoku_solver import Position, forced_win
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.bots.gomoku.board import Board
from arbiter.bots.gomoku.geometry import DIRECTIONS
from arbiter.bots.gomoku.vcf import MAX_FOURS, V_ABORTED, V_NODES, find_vcf, new_vcf_work
from arbiter.bots.gomoku.vct import MAX_VCT_DEPTH, T_ABORTED, T_NODES, defences, find_vct, new_vct_work, threat_moves

SIZE, K = 9, 5


def random_walk(rng: random.Random, moves: int) -> list[int] | None:
    """Cells of a random game on SIZE×SIZE, each beside a stone already down; None if a line completes."""
    position = Position(SIZE, SIZE, K, False)
    cells: list[int] = []
    for _ in range(moves):
        near = {
            (y + dy) * SIZE + x + dx
            for c in cells
            for x, y in [(c % SIZE, c // SIZE)]
            for dx in (-1, 0, 1)
            for dy in (-1, 0, 1)
            if 0 <= x + dx < SIZE and 0 <= y + dy < SIZE
        } - set(cells)
        cell = rng.choice(sorted(near)) if cells else SIZE * SIZE // 2
        if position.completes(cell, position.to_move):
            return None
        position.board[cell] = position.to_move
        cells.append(cell)
    if position.winning_cells(1) or position.winning_cells(2):
        return None
    return cells


def fives_through(board: list[int], cell: int, stone: int, dx: int, dy: int) -> list[int]:
    """Empty cells on the line through ``cell`` (holding ``stone``) that would complete k through it."""
    out = []
    for step in range(1 - K, K):
        x, y = cell % SIZE + step * dx, cell // SIZE + step * dy
        if step == 0 or not (0 <= x < SIZE and 0 <= y < SIZE) or board[y * SIZE + x] != 0:
            continue
        board[y * SIZE + x] = stone
        run = 1
        for sign in (1, -1):
            tx, ty = cell % SIZE + sign * dx, cell // SIZE + sign * dy
            while 0 <= tx < SIZE and 0 <= ty < SIZE and board[ty * SIZE + tx] == stone:
                run += 1
                tx, ty = tx + sign * dx, ty + sign * dy
        board[y * SIZE + x] = 0
        if run >= K:
            out.append(y * SIZE + x)
    return out


def reference_threat(board: list[int], cell: int, stone: int) -> bool:
    """Whether ``stone`` on ``cell`` makes, along one line, a four or a stone short of an open four."""
    board[cell] = stone
    found = False
    for dx, dy in DIRECTIONS:
        if fives_through(board, cell, stone, dx, dy):
            found = True
            break
        for step in range(1 - K, K):
            x, y = cell % SIZE + step * dx, cell // SIZE + step * dy
            if step and 0 <= x < SIZE and 0 <= y < SIZE and board[y * SIZE + x] == 0:
                board[y * SIZE + x] = stone
                found = len(fives_through(board, cell, stone, dx, dy)) >= 2
                board[y * SIZE + x] = 0
                if found:
                    break
        if found:
            break
    board[cell] = 0
    return found


def reference_defences(position: Position, attacker: int) -> set[int]:
    """The defender's four-making cells and every empty cell of a window holding k-2 of the attacker's stones."""
    defender = 3 - attacker
    out = {c for c in position.empty() if position.threatens(c, defender)}
    for dx, dy in DIRECTIONS:
        for c in range(SIZE * SIZE):
            cells = [(c // SIZE + i * dy) * SIZE + c % SIZE + i * dx for i in range(K)]
            if not all(0 <= c % SIZE + i * dx < SIZE and 0 <= c // SIZE + i * dy < SIZE for i in range(K)):
                continue
            stones = [position.board[q] for q in cells]
            if stones.count(attacker) == K - 2 and defender not in stones:
                out.update(q for q in cells if position.board[q] == 0)
    return out


@settings(derandomize=True, max_examples=80, deadline=None)
@given(seed=st.integers(0, 10**6), moves=st.integers(4, 24))
def test_threat_moves_and_defences_match_a_plain_reading_of_the_board(seed: int, moves: int) -> None:
    cells = random_walk(random.Random(seed), moves)
    if cells is None:
        return
    board = Board.from_moves(SIZE, SIZE, K, False, cells)
    position = Position(SIZE, SIZE, K, False, cells)
    out = np.zeros(2 * SIZE * SIZE, dtype=np.int64)
    for p in (0, 1):
        count = threat_moves(board.g, board.s, p, out, 0, SIZE * SIZE)
        listed = [int(c) for c in out[:count]]
        assert len(set(listed)) == count
        candidates = board.candidates()
        assert set(listed) == {c for c in candidates if reference_threat(position.board, c, p + 1)}
        values = out[SIZE * SIZE : SIZE * SIZE + count]
        assert all(values[i] >= values[i + 1] for i in range(count - 1))  # best first
        count = defences(board.g, board.s, p, out, 0)
        assert sorted(int(c) for c in out[:count]) == sorted(reference_defences(position, p + 1))


@settings(derandomize=True, max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), moves=st.integers(6, 22))
def test_every_win_claimed_is_proved_and_the_table_never_changes_an_answer(seed: int, moves: int) -> None:
    cells = random_walk(random.Random(seed), moves)
    if cells is None:
        return
    position = Position(SIZE, SIZE, K, False, cells)
    for attacker in (0, 1):
        fresh = new_vct_work(SIZE * SIZE)
        line = find_vct(*_tracks(cells), fresh, attacker, 1, 0)
        again = find_vct(*_tracks(cells), fresh, attacker, 1, 0)  # the table now holds the answer
        assert (line is None) == (again is None)
        if line is None:
            continue
        # one attacker move of threats, then the win: at most five plies, against every defence
        assert forced_win(position, attacker + 1, 5, threats=True, mover=attacker + 1)
        assert line[0] in position.empty()


def _tracks(cells: list[int]) -> tuple[np.ndarray, np.ndarray]:
    board = Board.from_moves(SIZE, SIZE, K, False, cells)
    return board.g, board.s


def test_a_deadline_stops_both_threat_searches() -> None:
    """A node budget is no time limit on a loaded machine, so both searches also read the clock:
    one started after its deadline stops at its first node, and a deadline far off changes no answer (the line
    found may differ: a search leaves the board's candidate lists in another order)."""
    rng = random.Random(3)
    checked = 0
    while checked < 20:
        cells = random_walk(rng, rng.randrange(8, 30))
        if cells is None:
            continue
        g, s = _tracks(cells)
        far = time.perf_counter_ns() + 60 * 10**9
        for attacker in (0, 1):
            t = new_vct_work(SIZE * SIZE)
            late = find_vct(g, s, t, attacker, MAX_VCT_DEPTH, 0, deadline_ns=1)
            assert late is None and t[T_ABORTED] == 1 and t[T_NODES] == 1
            unbounded = find_vct(g, s, new_vct_work(SIZE * SIZE), attacker, 3, 20_000)
            timed = find_vct(g, s, new_vct_work(SIZE * SIZE), attacker, 3, 20_000, deadline_ns=far)
            assert (timed is None) == (unbounded is None)
            v = new_vcf_work(SIZE * SIZE)
            late = find_vcf(g, s, v, attacker, MAX_FOURS, 0, deadline_ns=1)
            assert late is None and v[V_ABORTED] == 1 and v[V_NODES] == 1
            unbounded = find_vcf(g, s, new_vcf_work(SIZE * SIZE), attacker, MAX_FOURS, 0)
            timed = find_vcf(g, s, new_vcf_work(SIZE * SIZE), attacker, MAX_FOURS, 0, deadline_ns=far)
            assert (timed is None) == (unbounded is None)
        checked += 1


def test_a_long_threat_search_ends_at_its_deadline() -> None:
    """A VCT with no node budget that would run for 50,000 nodes and more stops within a few ms of its deadline."""
    rng = random.Random(5)
    cells = None
    for _ in range(30):  # the 30th walk of this seed: 30 stones where the first player's VCT search is long
        cells = random_walk(rng, 30)
    assert cells is not None
    g, s = _tracks(cells)
    t = new_vct_work(SIZE * SIZE)
    find_vct(g, s, t, 0, MAX_VCT_DEPTH, 50_000)
    assert t[T_ABORTED] == 1, "the position's search should outlast the node budget"
    t = new_vct_work(SIZE * SIZE)
    began = time.perf_counter_ns()
    find_vct(g, s, t, 0, MAX_VCT_DEPTH, 0, deadline_ns=began + 20_000_000)
    took_ms = (time.perf_counter_ns() - began) / 1e6
    assert t[T_ABORTED] == 1 and 20 <= took_ms < 20 + 250  # a clock reading every 512 nodes; a busy machine may lag
