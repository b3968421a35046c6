"""The source document's player: plain minimax over single steps, one step chosen at a time.

Document 004 searches steps, not turns: its depth ``d`` looks ``d + 1`` steps ahead (depth 0
judges each legal step by the heuristic alone; depth 2 "can check at most three steps"). Because
a bounce keeps the move, it does not alternate max and min by ply: a step after which the same
player moves again is scored by that player's own best continuation, and a step that passes the
move by the opponent's best continuation with its sign flipped (the author's
``eval(pos, p1) = -eval(pos, p2)``). Every position at the depth limit is judged by the source's
heuristic (``evaluation.source_heuristic``) for the player who stepped into it, with the number of
steps from the search's root. There is no pruning, no table and no clock.

A turn is built as the author's program plays it: choose the best step, play it, and while the
same player is still to move search again from there (the step count restarting at the new root),
until the turn passes or the game ends. Ties go to the first step in the mover's forward-first
order (north, then clockwise, turned around for the second player), which is why "it most often
chooses the way straight ahead".

A goal is worth ±100,000 and, under ``stuck="draw"`` (the source's rule), a bounce onto a point with
no free direction is a draw (0); under ``stuck="lose"`` it loses for the stuck mover. Under the
normal heuristic those values too lose 1 per step from the root.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import int64, njit

from arbiter.engine import State
from arbiter.engine.base import HEADER, STATUS, STATUS_DRAW, STATUS_ONGOING, STATUS_WIN0, TO_MOVE
from arbiter.engine.paper_soccer import play, turn_complete, undo

from .clock import now_ns
from .evaluation import GOAL_SCORE, source_heuristic

CLOSED = HEADER + 1
BALL = HEADER
SOURCE_MAX_DEPTH = 6  # the deepest the document tried
# The forward-first order of each mover: 0 N, 1 NE ... for the first player, 4 S, 5 SW ... for the second.
FORWARD_ORDER = np.array([[0, 1, 2, 3, 4, 5, 6, 7], [4, 5, 6, 7, 0, 1, 2, 3]], dtype=np.int64)
NO_STEP = -(1 << 40)

CHECK_EVERY = 4096  # steps between two readings of the clock
# counters: steps played, the step chosen at the root, the deadline (perf_counter_ns, 0: none),
# the step count of the next clock reading, and whether the clock stopped the search
K_STEPS, K_CHOICE, K_DEADLINE, K_NEXT_CHECK, K_ABORTED = range(5)
SOURCE_SIGNATURE = int64(int64[::1], int64[::1], int64, int64, int64, int64[::1])


@njit(SOURCE_SIGNATURE, cache=True)
def source_minimax(p, s, depth, steps, weakened, counters):
    """The value of ``s`` for its mover (the game on): the best of its steps, searched ``depth`` more steps.

    ``steps`` is how many steps ``s`` lies after the search's root; at the root (0) the chosen step,
    the first of the best in forward order, is left in ``counters[K_CHOICE]``. Past the deadline it
    unwinds with ``counters[K_ABORTED]`` set.
    """
    mover = s[TO_MOVE]
    order = FORWARD_ORDER[mover]
    best = NO_STEP
    for i in range(8):
        d = order[i]
        if (s[CLOSED + s[BALL]] >> d) & 1:
            continue
        play(p, s, d)
        counters[K_STEPS] += 1
        if counters[K_DEADLINE] != 0 and counters[K_STEPS] >= counters[K_NEXT_CHECK]:
            counters[K_NEXT_CHECK] = counters[K_STEPS] + CHECK_EVERY
            if now_ns() >= counters[K_DEADLINE]:
                counters[K_ABORTED] = 1
        if counters[K_ABORTED]:
            undo(p, s)
            return 0
        status = s[STATUS]
        if status != STATUS_ONGOING:
            if status == STATUS_DRAW:
                value = 0
            elif status == STATUS_WIN0 + mover:
                value = GOAL_SCORE
            else:
                value = -GOAL_SCORE
            if not weakened:
                value -= steps + 1
        elif depth == 0:
            value = source_heuristic(p, s, mover, steps + 1, weakened)
        elif s[TO_MOVE] == mover:
            value = source_minimax(p, s, depth - 1, steps + 1, weakened, counters)
        else:
            value = -source_minimax(p, s, depth - 1, steps + 1, weakened, counters)
        undo(p, s)
        if counters[K_ABORTED]:
            return 0
        if value > best:
            best = value
            if steps == 0:
                counters[K_CHOICE] = d
    return best


@dataclass
class SourceTurn:
    steps: list[int]
    steps_searched: int
    depth: int  # the shallowest depth a step of the turn was chosen at (below the asked one: the clock)


def source_turn(state: State, depth: int, *, weakened: bool = False, seconds: float | None = None) -> SourceTurn:
    """The whole turn the source's player makes from ``state`` (left unchanged).

    The document's player has no clock. Ours searches each step at depths 0, 1, … up to ``depth``
    and, when ``seconds`` would run out, keeps the deepest choice completed (each step of a turn
    may use half the time left): at depth 6 a turn full of bounces can take longer than a move is given.
    """
    if not 0 <= depth <= SOURCE_MAX_DEPTH:
        raise ValueError(f"the source's depth is 0..{SOURCE_MAX_DEPTH}, not {depth}")
    p = state.game.param_array
    if state.is_terminal or not turn_complete(p, state.s):
        raise ValueError("the source's player needs a position between two turns of a game in progress")
    deadline = time.perf_counter_ns() + int(seconds * 1e9) if seconds is not None else 0
    s = state.s.copy()
    mover = int(s[TO_MOVE])
    counters = np.zeros(5, dtype=np.int64)
    steps: list[int] = []
    shallowest = depth
    while True:
        now = time.perf_counter_ns()
        for tried in range(depth + 1) if deadline else (depth,):
            counters[K_DEADLINE] = now + (deadline - now) // 2 if deadline and tried > 0 else 0
            counters[K_NEXT_CHECK] = counters[K_STEPS]
            counters[K_ABORTED] = 0
            source_minimax(p, s, tried, 0, int(weakened), counters)
            if counters[K_ABORTED]:
                shallowest = min(shallowest, tried - 1)
                break
            choice = int(counters[K_CHOICE])
        play(p, s, choice)
        steps.append(choice)
        if s[STATUS] != STATUS_ONGOING or s[TO_MOVE] != mover:
            return SourceTurn(steps, int(counters[K_STEPS]), shallowest)
