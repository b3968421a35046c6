"""What a window of k cells is worth, by how many stones of one colour it holds.

The search never rescans lines: each window keeps its stone counts, and a window that is still
*live* for a player (no enemy stone in it; with exact five, no own stone just outside it either)
is a pattern of that player, named by how many stones it is missing:

- missing 0: a five (the game is over);
- missing 1: a *four* — one empty cell wins. Fours sharing no completing cell are an open
  four (or a double four): two winning cells, which no single reply covers;
- missing 2: a *three* — one more stone makes a four; a cell that turns two threes of
  different completing cells into fours at once makes an open four (see board.double_threat);
- missing 3 and more: twos and ones, the slow material of position play.

Because an open pattern lies in several overlapping live windows and a closed one in fewer, the
sum over windows already ranks open threes above closed ones, and so on, without naming them.
"""

from __future__ import annotations

import numpy as np

from .evaluation import HAND, Evaluation

EVAL_MOVER, EVAL_WAITER = range(2)


def window_weights(k: int, evaluation: Evaluation = HAND) -> np.ndarray:
    """Rows EVAL_MOVER, EVAL_WAITER, indexed by stones in the window (0..k), from ``evaluation``'s
    weights by stones missing.

    Empty windows and fives weigh 0: an empty window is nobody's pattern yet, and a five ends
    the game before any evaluation.
    """
    table = np.zeros((2, k + 1), dtype=np.int64)
    for row, by_missing in enumerate((evaluation.window_mover, evaluation.window_waiter)):
        for stones in range(1, k):
            table[row, stones] = by_missing[min(k - stones, len(by_missing) - 1)]
    return table
