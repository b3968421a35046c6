"""Game-generic numba kernels: one entry point per operation, dispatched on the game's ``gid``.

Search code written against these (perft, random playouts, MCTS) works for every game without a
Python call per node. Each game module provides ``legal(p, s, out)``, ``play(p, s, action)``,
``undo(p, s)`` and ``playout(p, s, buffer)`` over its own state layout; this module only routes.
To add a game, give it the next ``gid`` and add a branch to each function below.
"""

import numpy as np
from numba import njit

from . import five, mnk, paper_soccer, ttt3d, vanishing

GID_MNK = 0
GID_VANISHING = 1
GID_TTT3D = 2
GID_SOCCER = 3
GID_FIVE = 4


@njit(cache=True)
def legal(gid, p, s, out):
    """Legal actions of ``s`` into ``out``; returns the count (0 when the game is over)."""
    if gid == GID_MNK:
        return mnk.legal(p, s, out)
    if gid == GID_VANISHING:
        return vanishing.legal(p, s, out)
    if gid == GID_TTT3D:
        return ttt3d.legal(p, s, out)
    if gid == GID_SOCCER:
        return paper_soccer.legal(p, s, out)
    if gid == GID_FIVE:
        return five.legal(p, s, out)
    raise ValueError("unknown game id")


@njit(cache=True)
def play(gid, p, s, action):
    """Play a legal action on ``s`` in place."""
    if gid == GID_MNK:
        mnk.play(p, s, action)
    elif gid == GID_VANISHING:
        vanishing.play(p, s, action)
    elif gid == GID_TTT3D:
        ttt3d.play(p, s, action)
    elif gid == GID_SOCCER:
        paper_soccer.play(p, s, action)
    elif gid == GID_FIVE:
        five.play(p, s, action)
    else:
        raise ValueError("unknown game id")


@njit(cache=True)
def undo(gid, p, s):
    """Take back the last action of ``s``."""
    if gid == GID_MNK:
        mnk.undo(p, s)
    elif gid == GID_VANISHING:
        vanishing.undo(p, s)
    elif gid == GID_TTT3D:
        ttt3d.undo(p, s)
    elif gid == GID_SOCCER:
        paper_soccer.undo(p, s)
    elif gid == GID_FIVE:
        mnk.undo(p, s)  # the same board and stack, and p starts with m, n
    else:
        raise ValueError("unknown game id")


@njit(cache=True)
def playout(gid, p, s, buffer):
    """Play uniformly random actions on ``s`` in place to the end; return the final status."""
    if gid == GID_MNK:
        return mnk.playout(p, s, buffer)
    if gid == GID_TTT3D:
        return ttt3d.playout(p, s, buffer)
    if gid == GID_SOCCER:
        return paper_soccer.playout(p, s, buffer)
    if gid == GID_VANISHING:
        return vanishing.playout(p, s, buffer)
    if gid == GID_FIVE:
        return five.playout(p, s, buffer)
    raise ValueError("unknown game id")


@njit(cache=True)
def playout_span(gid, p, size):
    """The leading state slots ``playout`` reads or writes; ``size`` (the whole state) unless the game
    says fewer. A playout from a copy needs only these copied: the rest (move records) it ignores."""
    if gid == GID_MNK:
        return mnk.playout_span(p)
    if gid == GID_FIVE:
        return mnk.playout_span(p)  # the same board and stack
    if gid == GID_SOCCER:
        return paper_soccer.playout_span(p)
    return size


@njit(cache=True)
def perft(gid, p, s, depth, max_actions):
    """Action sequences of exactly ``depth`` from ``s`` that pass through no terminal position.

    Iterative (an explicit stack) so the kernel can be cached without an explicit signature.
    """
    if depth == 0:
        return 1
    actions = np.empty((depth, max_actions), dtype=np.int64)
    counts = np.zeros(depth, dtype=np.int64)
    nexts = np.zeros(depth, dtype=np.int64)
    counts[0] = legal(gid, p, s, actions[0])
    level = 0
    total = 0
    while True:
        if level == depth - 1:
            total += counts[level]
            nexts[level] = counts[level]
        if nexts[level] < counts[level]:
            play(gid, p, s, actions[level, nexts[level]])
            nexts[level] += 1
            level += 1
            counts[level] = legal(gid, p, s, actions[level])
            nexts[level] = 0
            continue
        if level == 0:
            return total
        level -= 1
        undo(gid, p, s)


@njit(cache=True)
def playouts(gid, p, s, count, state_buffer, action_buffer, seed):
    """Run ``count`` random playouts from ``s`` (left unchanged); return [wins0, wins1, draws].

    Each copies only the slots the game's playout uses into ``state_buffer`` (under a third of
    paper soccer's state, half of gomoku's): the whole copy was a fifth of a paper-soccer playout.
    """
    np.random.seed(seed)
    tally = np.zeros(3, dtype=np.int64)
    span = playout_span(gid, p, len(s))
    for _ in range(count):
        state_buffer[:span] = s[:span]
        status = playout(gid, p, state_buffer, action_buffer)
        tally[status - 1] += 1
    return tally
