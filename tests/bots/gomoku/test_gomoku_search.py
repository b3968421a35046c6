"""The alpha-beta search against the brute-force solver: the forced wins it claims, and the ones it must see."""

from __future__ import annotations

import numpy as np
import pytest
from gomoku_solver import Position, forced_win
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.bots.gomoku import searcher as searcher_module
from arbiter.bots.gomoku.brain import WIDTH
from arbiter.bots.gomoku.evaluation import FITTED
from arbiter.bots.gomoku.search import (
    C_NODES,
    NEAR_LEAF_WIDTH,
    TACTICAL,
    W_MOVES,
    W_SCORES,
    WIDTH_PER_PLY,
    negamax,
    root_moves,
)
from arbiter.bots.gomoku.searcher import ASPIRATION, ASPIRATION_GROWTH, SearchConfig, Searcher


def searched(cells: list[int], m: int, k: int, exact: bool) -> bool:
    """Whether ``cells`` (played in order) never complete a line and leave a position the bot searches:
    neither side can complete a line at once (a five is played, a four blocked, without a search)."""
    position = Position(m, m, k, exact)
    for i, c in enumerate(cells):
        if position.completes(c, 1 + i % 2):
            return False
        position.board[c] = 1 + i % 2
    return not position.winning_cells(1) and not position.winning_cells(2)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(exact=st.booleans(), k=st.sampled_from([4, 5]), data=st.data())
def test_a_win_in_three_plies_is_seen_and_every_claimed_one_is_real(exact: bool, k: int, data) -> None:
    m = 9
    centre = [y * m + x for y in range(1, 8) for x in range(1, 8)]
    cells = data.draw(st.lists(st.sampled_from(centre), unique=True, min_size=4, max_size=18), label="moves")
    if not searched(cells, m, k, exact):
        return
    position = Position(m, m, k, exact, cells)
    searcher = Searcher(m, m, k, exact, tt_bits=14)
    searcher.set_position(cells)
    result = searcher.think(SearchConfig(max_depth=4))
    mover = position.to_move
    wins_in_three = forced_win(position, mover, 3)
    if wins_in_three:
        assert result.mate_in is not None and 0 < result.mate_in <= 3
    if result.mate_in is not None and 0 < result.mate_in <= 3:
        assert wins_in_three
    if result.mate_in is not None and -4 <= result.mate_in < 0:  # longer losses cost the solver minutes
        assert forced_win(position, 3 - mover, -result.mate_in)


def test_a_root_score_outside_the_aspiration_window_widens_only_the_side_it_failed(monkeypatch) -> None:
    """A position of a logged game whose fifth iteration fails high: the re-search keeps alpha and raises
    beta past the score by a widened step, not to infinity, and the score it settles on lies inside."""
    windows: list[tuple[int, int, int, int]] = []
    kernel = searcher_module.search_root

    def observed(g, s, w, v, t, root, values, count, depth, p, alpha, beta):  # the real kernel, watched
        best = kernel(g, s, w, v, t, root, values, count, depth, p, alpha, beta)
        windows.append((depth, alpha, beta, int(values[best])))
        return best

    monkeypatch.setattr(searcher_module, "search_root", observed)
    searcher = Searcher(15, 15, 5, False, evaluation=FITTED)
    searcher.set_position([100, 110, 156, 95, 97, 111, 112])
    result = searcher.think(SearchConfig(max_depth=5, width=20))
    fifth = [window for window in windows if window[0] == 5]
    assert len(fifth) == 2, f"the position no longer fails once at depth 5 (windows {fifth}): pick another"
    (_, alpha, beta, value), second = fifth
    assert value >= beta  # failed high...
    assert alpha == second[1] and second[2] == value + ASPIRATION * ASPIRATION_GROWTH  # ... so only beta moved
    assert second[1] < second[3] < second[2] and result.score == second[3]


FAILS_LOW = 100_000  # above any evaluation: a node searched with alpha here fails low


def prepared(cells: list[int], width: int) -> Searcher:
    """A full-strength searcher at ``cells`` with the kernel's limits set for ``width`` (by a one-ply think,
    which stores no entry for the position itself)."""
    searcher = Searcher(15, 15, 5, False, tt_bits=16, evaluation=FITTED)
    searcher.set_position(cells)
    searcher.think(SearchConfig(max_depth=1, width=width))
    return searcher


def ordered_moves(searcher: Searcher) -> list[tuple[int, int]]:
    """The position's moves with the ordering scores its node sees, as the kernel generates them."""
    board, w = searcher.board, searcher.work
    count = int(root_moves(board.g, board.s, w, board.to_move, np.zeros(board.cells, dtype=np.int64)))
    moves, scores = w[W_MOVES], w[W_SCORES]
    return list(zip(w[moves : moves + count].tolist(), w[scores : scores + count].tolist(), strict=True))


def nodes(searcher: Searcher, depth: int, alpha: int, beta: int) -> int:
    """The kernel's nodes for one search of the position, ``depth`` plies within (alpha, beta), the node included."""
    board, w = searcher.board, searcher.work
    w[C_NODES] = 0
    negamax(board.g, board.s, w, searcher.leaf_vcf_work, searcher.vct_work, depth, alpha, beta, 0, board.to_move)
    return int(w[C_NODES])


@pytest.mark.parametrize("width", [WIDTH, 12, 8])
def test_near_the_leaves_a_null_window_node_that_fails_low_stops_its_quiet_moves_sooner(width: int) -> None:
    """With no tactical move on the board, a null-window node below every score searches NEAR_LEAF_WIDTH +
    WIDTH_PER_PLY · depth moves (10 at depth 1, 14 at depth 2), or the width if fewer; its children all cut at
    their first move. A node with an open window searches every move."""
    cells = [112, 113, 127]  # two stones each: no four to make, no three to block
    moves = len(ordered_moves(prepared(cells, width)))
    # A fresh searcher for each search: an entry the last one stored would answer the next at once.
    assert nodes(prepared(cells, width), 1, FAILS_LOW, FAILS_LOW + 2) - 1 == moves > NEAR_LEAF_WIDTH + WIDTH_PER_PLY * 2
    for depth in (1, 2):
        kept = min(width, NEAR_LEAF_WIDTH + WIDTH_PER_PLY * depth)
        below = nodes(prepared(cells, width), depth, FAILS_LOW, FAILS_LOW + 1) - 1
        assert below == kept * depth  # at depth 2, one grandchild under each child


def test_a_pruned_node_still_searches_every_tactical_move_past_its_width() -> None:
    """Tactical moves (ordering score from TACTICAL up: fours made, threes blocked) are ordered first and never
    pruned: a null-window node that fails low with a width of one searches every one of them, and not one of its
    quiet moves, however many there are."""
    row = 7 * 15  # black's three on row 7, closed at (7, 4) by white: (7, 8) and (7, 9) make a four
    searcher = prepared([row + 5, row + 4, row + 6, 3 * 15 + 3, row + 7, 11 * 15 + 11], width=1)
    moves = ordered_moves(searcher)
    tactical = [c for c, score in moves if score >= TACTICAL]
    assert {row + 8, row + 9} <= set(tactical) and len(moves) > len(tactical) + 1

    def subtree(c: int) -> int:
        """The nodes of move ``c``'s subtree, searched on its own at the node's null window."""
        searcher.board.play(c)
        count = nodes(searcher, 0, -FAILS_LOW - 1, -FAILS_LOW)
        searcher.board.undo()
        return count

    expected = sum(subtree(c) for c in tactical)
    assert nodes(searcher, 1, FAILS_LOW, FAILS_LOW + 1) - 1 == expected
