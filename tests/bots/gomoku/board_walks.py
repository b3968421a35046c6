"""Random stones and undos on a gomoku Board, drawn by hypothesis: what the incremental tables are
checked along (test_gomoku_board.py, test_gomoku_shapes.py)."""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import strategies as st

from arbiter.bots.gomoku.board import Board


def random_walk(board: Board, data: st.DataObject, max_steps: int) -> Iterator[None]:
    """Play or undo at random, up to ``max_steps`` times, yielding after each step."""
    for _ in range(data.draw(st.integers(1, max_steps), label="steps")):
        empty = [c for c in range(board.cells) if board.stone(c) == 0]
        if board.stones and (not empty or data.draw(st.integers(0, 3), label="undo?") == 0):
            board.undo()
        elif empty:
            board.play(data.draw(st.sampled_from(empty), label="cell"))
        yield
