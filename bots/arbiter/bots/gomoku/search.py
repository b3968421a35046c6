"""Negamax with alpha-beta over the incremental board, as numba kernels.

The source's design is the skeleton: one negamax function with alpha-beta cut-offs, candidate
moves only near stones, the end of the game read from the last move (here: the sets of fours,
which change only around the last stone), and the pattern score of a move as its ordering —
here the cell's line shapes for both sides (shapes.py), as classical engines order moves.
Around it: a transposition table with bound flags, principal-variation search, killer and
history ordering, late-move reductions, late-move pruning (a non-PV node stops its quiet moves
after the first few, fewer near the leaves), forced-move extensions (a four must be blocked, so a
node facing one has a single reply and costs no depth), and an exact static rule: a side to move
that can make two fours at once has won.

At the horizon, a leaf whose static value does not already reach beta asks the VCF kernel (its
own scratch array and table of failed positions, kept for the match) whether the side to move
wins by continuous fours: a yes is a proof, so the leaf scores as that win, and a move one ply up
that leaves the opponent such a win scores as lost. Each probe has a small node budget, and the
probes of one move together stay under half the search's own nodes, so they cannot eat the clock.
They cost about a ply of depth, and the share, not the budget of each probe, sets that cost: most
probes find nothing in a few nodes, and there are more leaves to probe than the share pays for (a
larger share or unbudgeted probes lost: docs/lab/strength-2026-11-25.md, "VCF probes at the search's
leaves", and docs/lab/strength-2026-11-26.md, stop 28).

Nearer the root (plies 1-2, with depth left to search below), a node first asks the VCT kernel of
vct.py (the root's array and table, kept for the match) whether the side to move wins by fours and
open threes within a few hundred nodes. A yes scores the node as that win: at ply 1 a root move that
leaves the opponent such a win is lost, at ply 2 an opponent's reply that leaves us one is refuted,
both far past the horizon (a VCT line runs to a dozen plies). Those probes stay under an eighth of the
search's nodes; about a quarter of them prove a win in self-play positions, almost all at ply 1. They
run with the root VCT, from about 1.2 s a move (brain.VCT_MIN_SECONDS says why).

Full strength also extends the lines of threes (``C_THREE_EXTENSION``): within two dozen plies of the
root, a node whose opponent threatens an open four has only its defences on the list (as above), and
its reply costs no depth, as the block of a four costs none. A line of open threes is then searched to
its end, whoever makes it: the search sees the opponent's attacks of threes mixed with quiet moves,
which no VCT proves (the ones a classical engine wins with), and its own (docs/lab/strength-2026-11-26.md, stop 31).

Iterative deepening and the clock live in Python (``Searcher``); the kernel checks a deadline,
a node limit and a stop flag every 1024 nodes and unwinds at once when one says stop. The entry
kernels release the GIL (``nogil``), so a worker's main thread can set the stop flag of a search
running in another thread (a ponder, on the opponent's time).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

from arbiter.engine.borrow import borrow

from .board import (
    FOURS,
    S_BOARD,
    S_CAND,
    S_CAND_N,
    S_COMBO,
    S_EVAL,
    S_HASH,
    S_SET_LEN,
    S_SHAPE_EVAL,
    S_STONES,
    THREES,
    double_threat,
    forbidden_for,
    make,
    unmake,
    winning_cells,
)
from .clock import now_ns
from .geometry import G_CELLS, G_COMBO
from .layout import allocate
from .patterns import EVAL_MOVER, EVAL_WAITER
from .shapes import COMBOS, ORDER_BLOCK, ORDER_OWN
from .vcf import ARRAY, GEOMETRY, V_ABORTED, V_LINE_LEN, V_NODE_LIMIT, V_NODES, vcf
from .vct import T_ABORTED, T_DEADLINE_NS, T_LINE, T_NODE_LIMIT, T_NODES, defences, vct

WIN = 1_000_000_000
MATE_BOUND = WIN - 100_000  # scores beyond this are wins (or losses) in a known number of plies
INF = WIN + 1
MAX_PLY = 128

EMPTY, LOWER, UPPER, EXACT = range(4)

# Scalar slots of w.
(
    C_NODES,
    C_NODE_LIMIT,  # 0: none
    C_ABORTED,
    C_GENERATION,  # of the transposition table's entries, 5 bits
    C_SELDEPTH,
    C_WIDTH,  # moves searched at a non-PV node before its quiet ones stop (see NEAR_LEAF_WIDTH), 0: no limit
    C_DEADLINE_NS,  # time.perf_counter_ns() to stop at, 0: none
    C_TT_MASK,
    C_CELLS,
    C_SHAPE_MOVER,  # sixteenths: weight of the mover's shape values in the evaluation
    C_SHAPE_WAITER,  # sixteenths: weight of the other side's
    C_STOP,  # set from another thread to stop a search (a ponder); no search clears it (Searcher.resume does)
    C_LEAF_VCF,  # node budget of each VCF probe at a leaf, 0: no probes
    C_LEAF_VCF_NODES,  # VCF nodes the probes spent in this search
    C_SHALLOW_VCT,  # node budget of each VCT probe at shallow nodes, 0: no probes
    C_SHALLOW_VCT_NODES,  # VCT nodes those probes spent in this search
    C_SHALLOW_VCT_PROBES,  # how many probes ran in this search...
    C_SHALLOW_VCT_WINS,  # ... and how many proved a win
    C_THREE_EXTENSION,  # plies from the root within which a defence against an open three costs no depth, 0: none
) = range(19)
# Offset slots of w's regions.
W_TT, W_KILLERS, W_HISTORY, W_MOVES, W_SCORES = range(19, 24)
W_HEADER = 24

TACTICAL = 6_000  # ordering scores from here up: fours made, threes blocked; never pruned or reduced
KILLER_BONUS = (4_000, 3_000)
HISTORY_CAP = 2_000
# Near the leaves a non-PV node stops its quiet moves sooner: once NEAR_LEAF_WIDTH + WIDTH_PER_PLY · depth
# moves are searched (10 one ply above the leaves, 14 two), or C_WIDTH if fewer; tactical moves, ordered
# first, are always searched. The quiet moves ordered last there rarely change a null-window result, and
# the nodes saved deepen the search, which gained at equal nodes and at equal time
# (docs/lab/strength-2026-11-27.md, stop 39).
NEAR_LEAF_WIDTH = 6
WIDTH_PER_PLY = 4
LEAF_VCF_FOURS = 4  # fours along a probe's line at most
LEAF_VCF_SHARE = 2  # the probes pause while their nodes exceed the search's nodes divided by this...
LEAF_VCF_FLOOR = 2_000  # ... plus this many, so a small search probes too
SHALLOW_VCT_PLIES = 2  # VCT probes at nodes up to this many plies from the root (the root has its own)...
SHALLOW_VCT_DEPTH = 3  # ... with at least this much depth left...
SHALLOW_VCT_MOVES = 6  # ... for a win within this many attacker moves
SHALLOW_VCT_SHARE = 8  # the VCT probes pause while their nodes exceed the search's nodes divided by this...
SHALLOW_VCT_FLOOR = 2_000  # ... plus this many


def new_work(cells: int, tt_bits: int) -> np.ndarray:
    """The search's array ``w``: control slots, transposition table, killers, history, move lists."""
    w = allocate(
        W_HEADER,
        [
            (W_TT, 2 << tt_bits, 0),  # entries of two words, side by side: key, packed data
            (W_KILLERS, MAX_PLY * 2, -1),
            (W_HISTORY, 2 * cells, 0),
            (W_MOVES, MAX_PLY * cells, 0),
            (W_SCORES, MAX_PLY * cells, 0),
        ],
    )
    w[C_TT_MASK] = (1 << tt_bits) - 1
    w[C_CELLS] = cells
    return w


# --- limits -----------------------------------------------------------------------------------


@njit(cache=True)
def _check_limits(w):
    out_of_nodes = w[C_NODE_LIMIT] > 0 and w[C_NODES] >= w[C_NODE_LIMIT]
    if out_of_nodes or w[C_STOP] or (w[C_DEADLINE_NS] > 0 and now_ns() >= w[C_DEADLINE_NS]):
        w[C_ABORTED] = 1


# --- transposition table ----------------------------------------------------------------------


@njit(cache=True)
def _score_to_tt(score, ply):
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


@njit(cache=True)
def _score_from_tt(score, ply):
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


@njit(cache=True)
def tt_store(w, key, depth, bound, score, move, ply):
    """Keep an entry unless the slot holds a deeper one of the same search for another position."""
    slot = w[W_TT] + 2 * (key & w[C_TT_MASK])
    old = w[slot + 1]
    old_depth = (old >> 48) & 0xFF
    old_generation = (old >> 58) & 0x1F
    generation = w[C_GENERATION] & 0x1F
    if w[slot] == key or old_generation != generation or depth + 1 >= old_depth:
        packed = (_score_to_tt(score, ply) + (1 << 31)) & 0xFFFFFFFF
        packed |= (move + 1) << 32
        packed |= min(depth + 1, 255) << 48
        packed |= bound << 56
        packed |= generation << 58
        w[slot] = key
        w[slot + 1] = packed


def tt_move(w: np.ndarray, key: int) -> int:
    """The stored best move for the position with hash ``key``, or -1 (Python side: PV display)."""
    slot = int(w[W_TT]) + 2 * (key & int(w[C_TT_MASK]))
    if int(w[slot]) != key:
        return -1
    return ((int(w[slot + 1]) >> 32) & 0xFFFF) - 1


# --- evaluation -------------------------------------------------------------------------------


@njit(cache=True)
def static_value(s, w, p):
    """The score for ``p`` to move: window patterns plus both sides' cell shapes, each with its weight.

    The windows count material (how many stones each live line holds, the mover's weighing more);
    the shapes add what the windows cannot see, such as a cell that would make a four and a three
    at once.
    """
    o = 1 - p
    windows = s[S_EVAL + 2 * EVAL_MOVER + p] - s[S_EVAL + 2 * EVAL_WAITER + o]
    shapes = (
        w[C_SHAPE_MOVER] * s[S_SHAPE_EVAL + 2 * EVAL_MOVER + p]
        - w[C_SHAPE_WAITER] * s[S_SHAPE_EVAL + 2 * EVAL_WAITER + o]
    )
    return windows + shapes // 16


@njit(cache=True)
def leaf_vcf(g, s, w, v, p):
    """Plies to the five if ``p``, to move, is proved to win by continuous fours within the probe's budget, else 0.

    Only the side to move's own fours are tried: a probe is a proof or nothing, never a judgement.
    One depth-first pass of up to LEAF_VCF_FOURS fours: the line it proves need not be the shortest,
    but most probes find nothing, and a first pass of two fours before it would make each of those
    walk its shallow tree twice: one pass proves more wins in the same share (docs/lab/strength-2026-11-26.md, stop 28).
    """
    v[V_NODES] = 0
    v[V_ABORTED] = 0
    v[V_LINE_LEN] = 0
    v[V_NODE_LIMIT] = w[C_LEAF_VCF]
    found = vcf(g, s, v, p, LEAF_VCF_FOURS, 0)
    w[C_LEAF_VCF_NODES] += v[V_NODES]
    return v[V_LINE_LEN] if found else 0


@njit(cache=True)
def leaf_value(g, s, w, v, p, beta, ply):
    """A leaf's value for ``p`` to move: the static value, or a win if it falls short of beta and a probe proves one."""
    value = static_value(s, w, p)
    if (
        value < beta
        and w[C_LEAF_VCF] > 0
        and s[S_SET_LEN + THREES + p] > 0
        and w[C_LEAF_VCF_NODES] <= w[C_NODES] // LEAF_VCF_SHARE + LEAF_VCF_FLOOR
    ):
        plies = leaf_vcf(g, s, w, v, p)
        if plies > 0:
            return WIN - ply - plies
    return value


@njit(cache=True)
def shallow_vct(g, s, w, t, p):
    """Plies to the five at most if ``p``, to move, is proved to win by threats within the probe's budget, else 0.

    The VCT kernel of vct.py with the root's array ``t``: its table of proved wins and failed depths is
    kept for the match, so a position probed before costs a lookup. Deepened one attacker move at a
    time, as at the root, so a short win is found before the budget goes to a long search. A win within
    ``d`` attacker moves (its blocks of counter-fours included) ends in a five, a four or an open four: at
    most 2d + 3 plies, whatever the defender plays (the kernel's line is only the last branch it proved).
    """
    t[T_NODES] = 0
    t[T_ABORTED] = 0
    t[T_NODE_LIMIT] = w[C_SHALLOW_VCT]
    t[T_DEADLINE_NS] = w[C_DEADLINE_NS]
    plies = 0
    for d in range(1, SHALLOW_VCT_MOVES + 1):
        if vct(g, s, t, p, d, 0, 0):
            plies = 2 * d + 3
            break
        if t[T_ABORTED]:
            break
    w[C_SHALLOW_VCT_NODES] += t[T_NODES]
    w[C_SHALLOW_VCT_PROBES] += 1
    if plies > 0:
        w[C_SHALLOW_VCT_WINS] += 1
    return plies


# --- move generation --------------------------------------------------------------------------


@njit(cache=True)
def threatened(g, s, o):
    """Whether ``o`` threatens an open four next move (the other side's moves are then only its defences)."""
    return s[S_SET_LEN + THREES + o] >= 2 and double_threat(g, s, o) >= 0


@njit(cache=True)
def generate(g, s, w, p, ply, restricted):
    """Moves for ``p`` into the ply's move list, ordering scores alongside; returns the count.

    When the opponent threatens an open four next move (``restricted``, from ``threatened``), only
    moves that make a four or stand in one of the opponent's threes can matter: any other move
    leaves the threat where it was. The list is then restricted to those, and the caller does not
    prune it further.
    """
    o = 1 - p
    cells = w[C_CELLS]
    moves = w[W_MOVES] + ply * cells
    scores = w[W_SCORES] + ply * cells
    if restricted:
        count = defences(g, s, o, w, moves)
    else:
        count = s[S_CAND_N]
        cand = s[S_CAND]
        for i in range(count):
            w[moves + i] = s[cand + i]
    k0 = w[w[W_KILLERS] + 2 * ply]
    k1 = w[w[W_KILLERS] + 2 * ply + 1]
    history = w[W_HISTORY] + p * cells
    own = s[S_COMBO] + p * cells
    theirs = s[S_COMBO] + o * cells
    make_value = g[G_COMBO] + ORDER_OWN * COMBOS
    block_value = g[G_COMBO] + ORDER_BLOCK * COMBOS
    for i in range(count):
        c = w[moves + i]
        score = g[make_value + s[own + c]] + g[block_value + s[theirs + c]]
        if c == k0:
            score += KILLER_BONUS[0]
        elif c == k1:
            score += KILLER_BONUS[1]
        w[scores + i] = score + min(w[history + c], HISTORY_CAP)
    return count


# --- the search -------------------------------------------------------------------------------


_NEGAMAX = types.int64(
    GEOMETRY, ARRAY, ARRAY, ARRAY, ARRAY, types.int64, types.int64, types.int64, types.int64, types.int64
)


@njit(_NEGAMAX, cache=True, nogil=True)
def negamax(g, s, w, v, t, depth, alpha, beta, ply, p):
    """The value of the position for ``p`` to move, searched ``depth`` plies within (alpha, beta).

    ``v`` is the scratch array of the VCF probes at the leaves, ``t`` the VCT kernel's array (the
    probes at shallow nodes).
    """
    w[C_NODES] += 1
    if (w[C_NODES] & 1023) == 0:
        _check_limits(w)
    if w[C_ABORTED]:
        return 0
    if ply > w[C_SELDEPTH]:
        w[C_SELDEPTH] = ply
    o = 1 - p
    if s[S_SET_LEN + FOURS + p] > 0:
        return WIN - ply - 1  # a five next move
    if s[S_STONES] == g[G_CELLS]:
        return 0
    cells = w[C_CELLS]
    moves = w[W_MOVES] + ply * cells
    if s[S_SET_LEN + FOURS + o] > 0:
        if winning_cells(g, s, o, w, moves) >= 2 or forbidden_for(g, s, p, w[moves]):
            return -(WIN - ply - 2)  # two fives to block, or (renju) the one block is black's forbidden point
        if ply >= MAX_PLY - 2:
            return static_value(s, w, p)
        make(g, s, w[moves], p)  # the only reply: forced, so it costs no depth
        value = -negamax(g, s, w, v, t, depth, -beta, -alpha, ply + 1, o)
        unmake(g, s)
        return value
    if s[S_SET_LEN + THREES + p] >= 2 and double_threat(g, s, p) >= 0:
        return WIN - ply - 3  # an open (or double) four now, a five after any reply
    if depth <= 0 or ply >= MAX_PLY - 2:
        return leaf_value(g, s, w, v, p, beta, ply)

    key = s[S_HASH]
    slot = w[W_TT] + 2 * (key & w[C_TT_MASK])
    hash_move = -1
    if w[slot] == key:
        data = w[slot + 1]
        hash_move = ((data >> 32) & 0xFFFF) - 1
        if ((data >> 48) & 0xFF) - 1 >= depth:
            score = _score_from_tt((data & 0xFFFFFFFF) - (1 << 31), ply)
            bound = (data >> 56) & 0x3
            if bound == EXACT or (bound == LOWER and score >= beta) or (bound == UPPER and score <= alpha):
                return score

    if (
        w[C_SHALLOW_VCT] > 0
        and ply <= SHALLOW_VCT_PLIES
        and depth >= SHALLOW_VCT_DEPTH
        and w[C_SHALLOW_VCT_NODES] <= w[C_NODES] // SHALLOW_VCT_SHARE + SHALLOW_VCT_FLOOR
    ):
        plies = shallow_vct(g, s, w, t, p)
        if plies > 0:
            value = WIN - ply - plies
            tt_store(w, key, depth, EXACT, value, t[t[T_LINE]], ply)
            return value

    alpha_in = alpha
    best = -INF
    best_move = -1
    # Facing an open three, the side to move has only its few defences: near the root, like a four's
    # block, the reply costs no depth, so a line of threes is searched to its end.
    restricted = threatened(g, s, o)
    child = depth if restricted and ply < w[C_THREE_EXTENSION] else depth - 1
    if hash_move >= 0 and s[s[S_BOARD] + hash_move] == 0 and not forbidden_for(g, s, p, hash_move):
        # The table's move first, before paying for move generation: it often cuts at once.
        make(g, s, hash_move, p)
        best = -negamax(g, s, w, v, t, child, -beta, -alpha, ply + 1, o)
        unmake(g, s)
        if w[C_ABORTED]:
            return 0
        best_move = hash_move
        if best > alpha:
            alpha = best
        if alpha >= beta:
            tt_store(w, key, depth, LOWER, best, best_move, ply)
            return best

    count = generate(g, s, w, p, ply, restricted)
    scores = w[W_SCORES] + ply * cells
    prune = w[C_WIDTH] > 0 and not restricted and beta - alpha == 1
    width = min(w[C_WIDTH], NEAR_LEAF_WIDTH + WIDTH_PER_PLY * depth)  # moves searched before quiet ones stop
    searched = 0 if best_move < 0 else 1
    for i in range(count):
        pick = i  # selection, not a sort: most nodes cut off after a move or two
        for j in range(i + 1, count):
            if w[scores + j] > w[scores + pick]:
                pick = j
        c = w[moves + pick]
        score = w[scores + pick]
        w[moves + pick] = w[moves + i]
        w[scores + pick] = w[scores + i]
        w[moves + i] = c
        w[scores + i] = score
        if c == hash_move:
            continue
        quiet = score < TACTICAL
        if prune and quiet and searched >= width:
            break
        if forbidden_for(g, s, p, c):
            continue
        make(g, s, c, p)
        if searched == 0:
            value = -negamax(g, s, w, v, t, child, -beta, -alpha, ply + 1, o)
        else:
            reduced = depth >= 3 and searched >= 3 and quiet and not restricted
            value = -negamax(g, s, w, v, t, child - 1 if reduced else child, -alpha - 1, -alpha, ply + 1, o)
            if reduced and value > alpha:
                value = -negamax(g, s, w, v, t, child, -alpha - 1, -alpha, ply + 1, o)
            if alpha < value < beta:
                value = -negamax(g, s, w, v, t, child, -beta, -alpha, ply + 1, o)
        unmake(g, s)
        searched += 1
        if w[C_ABORTED]:
            return 0
        if value > best:
            best = value
            best_move = c
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    if quiet:
                        killers = w[W_KILLERS] + 2 * ply
                        if w[killers] != c:
                            w[killers + 1] = w[killers]
                            w[killers] = c
                        w[w[W_HISTORY] + p * cells + c] += depth * depth
                    break
    if best_move < 0:
        # Every move was a forbidden point (renju's black): facing an open three the attacker makes its
        # open four, then five; else (never met in play) the position is judged as it stands.
        best = -(WIN - ply - 4) if restricted else static_value(s, w, p)
    if best <= alpha_in:
        bound = UPPER
    elif best >= beta:
        bound = LOWER
    else:
        bound = EXACT
    tt_store(w, key, depth, bound, best, best_move, ply)
    return best


@njit(cache=True, nogil=True)
def search_root(g, s, w, v, t, root, values, count, depth, p, alpha, beta):
    """Search each root move to ``depth`` (PVS) within (alpha, beta); returns the best index, -1 if aborted first.

    ``values`` gets each finished move's value (exact for the best when it lies inside the
    window, a bound otherwise).
    """
    # no reference counting in the recursion (arbiter.engine.borrow)
    g, s, w, v, t = borrow(g), borrow(s), borrow(w), borrow(v), borrow(t)
    o = 1 - p
    best = -INF
    best_index = -1
    for i in range(count):
        make(g, s, root[i], p)
        if i == 0:
            value = -negamax(g, s, w, v, t, depth - 1, -beta, -alpha, 1, o)
        else:
            value = -negamax(g, s, w, v, t, depth - 1, -alpha - 1, -alpha, 1, o)
            if alpha < value < beta:
                value = -negamax(g, s, w, v, t, depth - 1, -beta, -alpha, 1, o)
        unmake(g, s)
        if w[C_ABORTED]:
            break
        values[i] = value
        if value > best:
            best = value
            best_index = i
            if value > alpha:
                alpha = value
    return best_index


@njit(cache=True)
def root_moves(g, s, w, p, out):
    """The root's moves in pattern order (restricted when facing an open-four threat); returns how many."""
    count = generate(g, s, w, p, 0, threatened(g, s, 1 - p))
    for i in range(count):
        out[i] = w[w[W_MOVES] + i]
    return count
