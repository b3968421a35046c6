"""The distinct turns of a paper-soccer position, listed by a depth-first walk over its steps.

A turn is a chain of bounce steps closed by one step that passes the move or ends the game, so
the number of step *sequences* explodes with every bounce point. Most of them are the same turn:
two orders that draw the same segments and stop on the same point leave the same position, which
the engine's Zobrist key (``s[HASH]``) identifies. The walk keeps a set of the keys it has met
this turn — the positions in the middle of the turn as well as at its end — and never enters one
twice, so it visits each distinct intermediate position once and lists each distinct turn once.

Each position reached is stored as a node of a small tree (its parent node and the step into it),
so a turn is just (the node its last step starts from, that step), and its steps are read back by
walking up the tree. Directions are tried towards the goal the mover attacks first, so that when
a limit cuts the walk short the turns kept are the forward ones, and a goal is found early.

What the walk reports besides the ordinary turns (the ones that pass the move):

- a turn that scores: the walk stops at once, since the mover wins with it;
- turns that end the game otherwise — an own goal, or a bounce onto a point with every direction
  drawn (*stuck*): with ``stuck="lose"`` both lose, with ``stuck="draw"`` being stuck is a draw.
  All of them are worth the same, so only one is kept (a draw before a loss) as the *fallback*:
  the search plays it only when it is worth more than every ordinary turn.

Limits: at most ``node_cap`` positions in the middle of a turn and ``turn_cap`` turns per walk.
A walk that hits one keeps what it found and counts the position as truncated.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from arbiter.engine.base import HASH, HEADER, STATUS, STATUS_DRAW, STATUS_ONGOING, STATUS_WIN0, TO_MOVE
from arbiter.engine.paper_soccer import play, undo

from .evaluation import evaluate, placement

CLOSED = HEADER + 1
BALL = HEADER

# Directions in the order the walk tries them: towards the goal the mover attacks first.
STEP_ORDER = np.array([[0, 1, 7, 2, 6, 3, 5, 4], [4, 3, 5, 2, 6, 1, 7, 0]], dtype=np.int64)

# tree[ply, field, node]
T_PARENT, T_STEP = 0, 1
# turns[ply, field, turn]
U_NODE, U_STEP, U_KEY, U_SCORE = 0, 1, 2, 3
# meta[ply, field]
M_TURNS, M_NODES, M_FALLBACK, M_FALLBACK_NODE, M_FALLBACK_STEP, M_WIN_NODE, M_WIN_STEP, M_TRUNCATED = range(8)
META_FIELDS = 8
FALLBACK_NONE, FALLBACK_DRAW, FALLBACK_LOSS = 0, 1, 2

# ctl[field]: counters and limits shared by the walks and the search
C_STAMP = 0  # walks so far: the visited set's generation stamp
C_STEPS = 1  # steps played by walks and searches
C_NODE_CAP = 2
C_TURN_CAP = 3
C_THREAT_CAP = 4  # intermediate positions a can_score walk may visit
C_TRUNCATED = 5  # walks cut short by a limit
CTL_FIELDS = 32  # the search uses the slots after these


def new_visited(node_cap: int, turn_cap: int) -> np.ndarray:
    """The visited set of a walk: ``[keys, stamps]``, a power of two at least four times the caps."""
    size = 1
    while size < 4 * (node_cap + turn_cap):
        size *= 2
    return np.zeros((2, size), dtype=np.int64)


@njit(cache=True, inline="always")
def _visit(visited, key, stamp):
    """Add ``key`` to this walk's set (entries of older walks count as empty); False if already in it."""
    mask = visited.shape[1] - 1
    slot = (key ^ (key >> 29)) & mask
    while visited[1, slot] == stamp:
        if visited[0, slot] == key:
            return False
        slot = (slot + 1) & mask
    visited[0, slot] = key
    visited[1, slot] = stamp
    return True


@njit(cache=True)
def generate_turns(p, s, ply, tree, turns, meta, visited, walk, ctl, dist, exact):
    """List the distinct turns of ``s`` (turn complete, game on) into ``tree``/``turns``/``meta[ply]``.

    Returns True, with the scoring turn in ``meta[ply, M_WIN_*]`` and nothing else listed, when the
    mover can score. Each listed turn has its end key and a score from the mover's view: with
    ``exact``, our judgement of the position it leaves, else only its ``placement`` part (an upper
    bound of the judgement, far cheaper). ``walk`` is scratch of four rows, each as long as the
    longest turn and the field's point count. ``s`` is left unchanged.
    """
    mover = s[TO_MOVE]
    stamp = ctl[C_STAMP] + 1
    ctl[C_STAMP] = stamp
    node_cap = ctl[C_NODE_CAP]
    turn_cap = ctl[C_TURN_CAP]
    order = STEP_ORDER[mover]
    tree[ply, T_PARENT, 0] = -1
    tree[ply, T_STEP, 0] = -1
    nodes = 1
    count = 0
    fallback = FALLBACK_NONE
    won = False
    truncated = False
    depth = 0
    walk[0, 0] = 0
    walk[1, 0] = 0
    steps = 0
    while True:
        tried = walk[0, depth]
        if tried == 8:
            if depth == 0:
                break
            undo(p, s)
            depth -= 1
            continue
        walk[0, depth] = tried + 1
        d = order[tried]
        if (s[CLOSED + s[BALL]] >> d) & 1:
            continue
        play(p, s, d)
        steps += 1
        node = walk[1, depth]
        status = s[STATUS]
        if status != STATUS_ONGOING:
            undo(p, s)
            if status == STATUS_WIN0 + mover:
                meta[ply, M_WIN_NODE] = node
                meta[ply, M_WIN_STEP] = d
                won = True
                break
            kind = FALLBACK_DRAW if status == STATUS_DRAW else FALLBACK_LOSS
            if fallback == FALLBACK_NONE or kind < fallback:
                fallback = kind
                meta[ply, M_FALLBACK_NODE] = node
                meta[ply, M_FALLBACK_STEP] = d
            continue
        if s[TO_MOVE] != mover:
            if _visit(visited, s[HASH], stamp):
                turns[ply, U_NODE, count] = node
                turns[ply, U_STEP, count] = d
                turns[ply, U_KEY, count] = s[HASH]
                turns[ply, U_SCORE, count] = -(evaluate(p, s, dist, walk[2:]) if exact else placement(s, dist))
                count += 1
            undo(p, s)
            if count == turn_cap:
                truncated = True
                break
            continue
        if not _visit(visited, s[HASH], stamp):
            undo(p, s)
            continue
        if nodes == node_cap:
            truncated = True
            undo(p, s)
            continue
        tree[ply, T_PARENT, nodes] = node
        tree[ply, T_STEP, nodes] = d
        depth += 1
        walk[0, depth] = 0
        walk[1, depth] = nodes
        nodes += 1
    for _ in range(depth):
        undo(p, s)
    ctl[C_STEPS] += steps
    if truncated:
        ctl[C_TRUNCATED] += 1
    meta[ply, M_TURNS] = count
    meta[ply, M_NODES] = nodes
    meta[ply, M_FALLBACK] = fallback
    meta[ply, M_TRUNCATED] = truncated
    return won


@njit(cache=True)
def can_score(p, s, visited, walk, ctl):
    """Whether the side to move (turn complete, game on) has a turn that scores; ``s`` unchanged.

    The same walk as generate_turns, following bounces only, limited to ``ctl[C_THREAT_CAP]``
    intermediate positions (a threat hidden deeper than that goes unseen).
    """
    mover = s[TO_MOVE]
    stamp = ctl[C_STAMP] + 1
    ctl[C_STAMP] = stamp
    cap = ctl[C_THREAT_CAP]
    order = STEP_ORDER[mover]
    nodes = 0
    depth = 0
    walk[0, 0] = 0
    found = False
    steps = 0
    while True:
        tried = walk[0, depth]
        if tried == 8:
            if depth == 0:
                break
            undo(p, s)
            depth -= 1
            continue
        walk[0, depth] = tried + 1
        d = order[tried]
        if (s[CLOSED + s[BALL]] >> d) & 1:
            continue
        play(p, s, d)
        steps += 1
        status = s[STATUS]
        if status != STATUS_ONGOING or s[TO_MOVE] != mover:
            undo(p, s)
            if status == STATUS_WIN0 + mover:
                found = True
                break
            continue
        if nodes == cap or not _visit(visited, s[HASH], stamp):
            undo(p, s)
            continue
        nodes += 1
        depth += 1
        walk[0, depth] = 0
    for _ in range(depth):
        undo(p, s)
    ctl[C_STEPS] += steps
    return found


@njit(cache=True)
def goal_steps(p, s, limit, cap, walk):
    """The fewest steps of a turn by which the side to move (turn complete, game on) scores; ``s`` unchanged.

    0 when no turn of at most ``limit`` steps scores, -1 when the walk gave up after ``cap`` steps
    without deciding. An iterative deepening over the bounce steps, with no visited set, so that
    the first goal found is one of the shortest: a lost position is defended best by leaving the
    goal that is hardest to find, and a long chain of bounces is easy to miss.
    """
    mover = s[TO_MOVE]
    order = STEP_ORDER[mover]
    steps = 0
    for bound in range(1, limit + 1):
        depth = 0
        walk[0, 0] = 0
        found = False
        gave_up = False
        cut = False  # some bounce was not followed for the bound: a deeper bound may find more
        while True:
            tried = walk[0, depth]
            if tried == 8:
                if depth == 0:
                    break
                undo(p, s)
                depth -= 1
                continue
            walk[0, depth] = tried + 1
            d = order[tried]
            if (s[CLOSED + s[BALL]] >> d) & 1:
                continue
            play(p, s, d)
            steps += 1
            status = s[STATUS]
            if status == STATUS_WIN0 + mover:
                found = True
            elif steps >= cap:
                gave_up = True
            elif status == STATUS_ONGOING and s[TO_MOVE] == mover:
                if depth + 1 < bound:
                    depth += 1
                    walk[0, depth] = 0
                    continue
                cut = True
            undo(p, s)
            if found or gave_up:
                break
        for _ in range(depth):
            undo(p, s)
        if found:
            return bound
        if gave_up:
            return -1
        if not cut:
            return 0
    return 0


@njit(cache=True)
def play_turn(p, s, tree, ply, node, last, walk):
    """Play the turn that ends with step ``last`` from tree node ``node`` of ``tree[ply]``; return its length."""
    length = 0
    while node > 0:
        walk[0, length] = tree[ply, T_STEP, node]
        node = tree[ply, T_PARENT, node]
        length += 1
    for i in range(length - 1, -1, -1):
        play(p, s, walk[0, i])
    play(p, s, last)
    return length + 1


def turn_steps(tree: np.ndarray, ply: int, node: int, last: int) -> list[int]:
    """The steps of the turn ending with ``last`` from tree node ``node``, first step first."""
    steps = [int(last)]
    while node > 0:
        steps.append(int(tree[ply, T_STEP, node]))
        node = int(tree[ply, T_PARENT, node])
    return steps[::-1]
