"""Alpha-beta over whole turns, deepened one turn at a time under the clock.

One ply of this search is a whole turn: a node lists its distinct turns (``turns.py``) and
searches each, so a bounce never costs depth and the side to move changes at every ply, as in
an ordinary negamax. Around that:

- **Transposition table** keyed by the position's Zobrist key at the turn boundary, storing the
  score with its bound (exact, lower after a cut, upper after failing low), the depth it was
  searched to, and the end key of the best turn, which is tried first when the node comes back
  (at the root, in the next iteration). Win and loss scores are stored relative to the node so
  they stay true wherever the position recurs. Positions never repeat (every step draws a line),
  so a stored score does not depend on the path.
- **Move ordering**: the table's turn, then the others by our judgement of the position they
  leave (picked one at a time, so a cut-off saves the sorting).
- **Pruning at once**: a node whose mover can score is a win without a search; turns that lose on
  the spot (an own goal, getting stuck under ``stuck="lose"``) are dropped, and one draw-by-stuck
  turn stands for all under ``stuck="draw"``.
- **The horizon** (depth 1): each turn is judged by our evaluation unless it hands the opponent a
  goal in their next turn, which is checked with ``can_score`` in the order of the judgement;
  the first turn without such a goal is the best, so only a few are checked.
- **Principal variation search**: after the first turn, the others are tried with a null window
  and searched again only if they beat it.
- **Late move reductions**: from the ``LATE_TURN``-th turn in the order on (and at nodes at least
  three turns from the horizon) that null-window try is one turn shallower, two from the
  ``VERY_LATE_TURN``-th; a turn that beats the window is searched again at full depth. Positions
  with hundreds of distinct turns are common, and this is what lets the search go four or five
  turns deep in 200 ms: at the same clock it wins 55% of its games against itself without it.

- **A lost position**: when every turn lets the opponent score at once, the search cannot tell
  the turns apart, but an opponent that searches less deep may miss a goal that takes a long
  chain of bounces; the turn played is the one whose shortest goal for the opponent is longest
  (``hardest_turn``).

Scores: ``WIN - ply`` for a goal (or an opponent stuck under ``stuck="lose"``) at search ply
``ply`` from the root, so a quicker win scores higher and a later loss less badly; 0 for a draw.

The search is recursive with an explicit numba signature (a recursive kernel cached without one
crashes on load). The clock is read every ``CHECK_EVERY`` steps; a search past its deadline
unwinds with ``ctl[C_ABORTED]`` set.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import int64, njit

from arbiter.engine import State
from arbiter.engine.base import HASH
from arbiter.engine.borrow import borrow
from arbiter.engine.paper_soccer import PaperSoccerGame, turn_complete, undo

from .clock import now_ns
from .evaluation import evaluate, goal_distances
from .turns import (
    C_NODE_CAP,
    C_STEPS,
    C_THREAT_CAP,
    C_TRUNCATED,
    C_TURN_CAP,
    CTL_FIELDS,
    FALLBACK_DRAW,
    FALLBACK_NONE,
    M_FALLBACK,
    M_FALLBACK_NODE,
    M_FALLBACK_STEP,
    M_TURNS,
    M_WIN_NODE,
    M_WIN_STEP,
    META_FIELDS,
    U_KEY,
    U_NODE,
    U_SCORE,
    U_STEP,
    can_score,
    generate_turns,
    goal_steps,
    new_visited,
    play_turn,
    turn_steps,
)

WIN = 1_000_000
MATE_BOUND = WIN - 10_000  # scores beyond this are forced results
INFINITY = WIN + 1
MAX_PLY = 64  # search plies (turns) the work arrays hold
CHECK_EVERY = 4096  # steps between two readings of the clock
EXACT, LOWER, UPPER = 1, 2, 3
LATE_TURN = 3  # turns from this one in the order on are searched less deep first (late move reduction)
VERY_LATE_TURN = 12  # and from this one on, two turns less deep
SOFT_TIME_SHARE = 0.4  # no new iteration after this share of the time: it would rarely finish
LOST_GOAL_LIMIT = 16  # longest scoring turn of the opponent's looked for in a lost position
LOST_STEPS = 400_000  # steps shared by those looks, at least LOST_STEPS_MIN per turn
LOST_STEPS_MIN = 1_000

# ctl slots after the turn walks' own (turns.C_*)
C_NODES = CTL_FIELDS - 12  # search nodes (positions at a turn boundary)
C_DEADLINE = CTL_FIELDS - 11  # perf_counter_ns to stop at, 0: none
C_NEXT_CHECK = CTL_FIELDS - 10
C_ABORTED = CTL_FIELDS - 9
C_ROOT_KIND = CTL_FIELDS - 8  # ROOT_* below
C_ROOT_NODE = CTL_FIELDS - 7
C_ROOT_STEP = CTL_FIELDS - 6
C_ROOT_DONE = CTL_FIELDS - 5  # root turns searched completely in this iteration
C_TT_HITS = CTL_FIELDS - 4
C_THREAT_CHECKS = CTL_FIELDS - 3
ROOT_NONE, ROOT_TURN, ROOT_WIN, ROOT_FALLBACK = 0, 1, 2, 3


@njit(cache=True, inline="always")
def _to_table(score, ply):
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


@njit(cache=True, inline="always")
def _from_table(score, ply):
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


@njit(cache=True, inline="always")
def _store(tt, key, depth, score, bound, best_key, ply):
    slot = key & (tt.shape[1] - 1)
    tt[0, slot] = key
    tt[1, slot] = ((_to_table(score, ply) + INFINITY) << 12) | (depth << 2) | bound
    tt[2, slot] = best_key


@njit(cache=True, inline="always")
def _root_choice(ctl, ply, kind, node, step):
    if ply == 0:
        ctl[C_ROOT_KIND] = kind
        ctl[C_ROOT_NODE] = node
        ctl[C_ROOT_STEP] = step


@njit(cache=True, inline="always")
def _swap(turns, ply, i, j):
    for field in range(4):
        held = turns[ply, field, i]
        turns[ply, field, i] = turns[ply, field, j]
        turns[ply, field, j] = held


NEGAMAX_SIGNATURE = int64(
    int64[::1],  # p
    int64[::1],  # s
    int64,  # depth
    int64,  # alpha
    int64,  # beta
    int64,  # ply
    int64[:, :, ::1],  # tree
    int64[:, :, ::1],  # turns
    int64[:, ::1],  # meta
    int64[:, ::1],  # visited
    int64[:, ::1],  # walk
    int64[:, ::1],  # tt
    int64[:, ::1],  # dist
    int64[::1],  # ctl
)


@njit(NEGAMAX_SIGNATURE, cache=True)
def negamax(p, s, depth, alpha, beta, ply, tree, turns, meta, visited, walk, tt, dist, ctl):
    """The score of ``s`` (a turn boundary, game on) for the side to move, ``depth`` turns deep, fail-soft."""
    # no reference counting in the recursion (arbiter.engine.borrow)
    p, s, tree, turns, meta, visited = borrow(p), borrow(s), borrow(tree), borrow(turns), borrow(meta), borrow(visited)
    walk, tt, dist, ctl = borrow(walk), borrow(tt), borrow(dist), borrow(ctl)
    ctl[C_NODES] += 1
    if ctl[C_STEPS] >= ctl[C_NEXT_CHECK]:
        ctl[C_NEXT_CHECK] = ctl[C_STEPS] + CHECK_EVERY
        if ctl[C_DEADLINE] != 0 and now_ns() >= ctl[C_DEADLINE]:
            ctl[C_ABORTED] = 1
    if ctl[C_ABORTED]:
        return 0
    key = s[HASH]
    slot = key & (tt.shape[1] - 1)
    table_turn = 0
    if tt[0, slot] == key:
        data = tt[1, slot]
        table_turn = tt[2, slot]
        if ply > 0 and (data >> 2) & 1023 >= depth:
            ctl[C_TT_HITS] += 1
            value = _from_table((data >> 12) - INFINITY, ply)
            bound = data & 3
            if bound == EXACT:
                return value
            if bound == LOWER and value >= beta:
                return value
            if bound == UPPER and value <= alpha:
                return value

    if generate_turns(p, s, ply, tree, turns, meta, visited, walk, ctl, dist, depth > 1):
        _root_choice(ctl, ply, ROOT_WIN, meta[ply, M_WIN_NODE], meta[ply, M_WIN_STEP])
        _store(tt, key, 1023, WIN - ply, EXACT, 0, ply)
        return WIN - ply
    count = meta[ply, M_TURNS]
    fallback = meta[ply, M_FALLBACK]
    best = -INFINITY
    if fallback != FALLBACK_NONE:
        best = 0 if fallback == FALLBACK_DRAW else -(WIN - ply)
        _root_choice(ctl, ply, ROOT_FALLBACK, meta[ply, M_FALLBACK_NODE], meta[ply, M_FALLBACK_STEP])
    if count == 0:
        _store(tt, key, 1023, best, EXACT, 0, ply)
        return best
    original_alpha = alpha
    if best > alpha:
        alpha = best
        if alpha >= beta:
            _store(tt, key, depth, best, LOWER, 0, ply)
            return best
    best_key = 0

    table_first = False
    if depth > 1 and table_turn != 0:
        for i in range(count):
            if turns[ply, U_KEY, i] == table_turn:
                _swap(turns, ply, 0, i)
                table_first = True
                break

    for i in range(count):
        if i > 0 or not table_first:
            top = i
            for j in range(i + 1, count):
                if turns[ply, U_SCORE, j] > turns[ply, U_SCORE, top]:
                    top = j
            if top != i:
                _swap(turns, ply, i, top)
        if depth == 1 and turns[ply, U_SCORE, i] <= best:
            break  # the bounds of the rest are beaten: none of them can be better
        node = turns[ply, U_NODE, i]
        last = turns[ply, U_STEP, i]
        played = play_turn(p, s, tree, ply, node, last, walk)
        ctl[C_STEPS] += played
        if depth == 1:
            value = -evaluate(p, s, dist, walk[2:])
            if value > best:
                ctl[C_THREAT_CHECKS] += 1
                if can_score(p, s, visited, walk, ctl):
                    value = -(WIN - ply - 1)
        elif i == 0:
            value = -negamax(p, s, depth - 1, -beta, -alpha, ply + 1, tree, turns, meta, visited, walk, tt, dist, ctl)
        else:
            reduction = 0
            if depth >= 3 and i >= LATE_TURN:
                reduction = 2 if depth >= 4 and i >= VERY_LATE_TURN else 1
            value = -negamax(
                p,
                s,
                depth - 1 - reduction,
                -alpha - 1,
                -alpha,
                ply + 1,
                tree,
                turns,
                meta,
                visited,
                walk,
                tt,
                dist,
                ctl,
            )
            if reduction and value > alpha:
                value = -negamax(
                    p, s, depth - 1, -alpha - 1, -alpha, ply + 1, tree, turns, meta, visited, walk, tt, dist, ctl
                )
            if alpha < value < beta:
                value = -negamax(
                    p, s, depth - 1, -beta, -alpha, ply + 1, tree, turns, meta, visited, walk, tt, dist, ctl
                )
        for _ in range(played):
            undo(p, s)
        if ctl[C_ABORTED]:
            return 0
        if ply == 0:
            ctl[C_ROOT_DONE] += 1
        if value > best:
            best = value
            best_key = turns[ply, U_KEY, i]
            _root_choice(ctl, ply, ROOT_TURN, node, last)
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    break

    bound = EXACT
    if best <= original_alpha:
        bound = UPPER
    elif best >= beta:
        bound = LOWER
    _store(tt, key, depth, best, bound, best_key, ply)
    return best


@njit(cache=True)
def search_root(p, s, depth, tree, turns, meta, visited, walk, tt, dist, ctl, deadline):
    """One iteration: search ``s`` ``depth`` turns deep until ``deadline`` (perf_counter_ns, 0: none).

    The choice is left in ``ctl[C_ROOT_*]``; ``ctl[C_ABORTED]`` tells whether the clock cut it short.
    """
    ctl[C_DEADLINE] = deadline
    ctl[C_ABORTED] = 0
    ctl[C_ROOT_DONE] = 0
    ctl[C_ROOT_KIND] = 0
    ctl[C_NEXT_CHECK] = ctl[C_STEPS]
    return negamax(p, s, depth, -INFINITY, INFINITY, 0, tree, turns, meta, visited, walk, tt, dist, ctl)


@njit(cache=True)
def hardest_turn(p, s, tree, turns, meta, walk, limit, cap):
    """The index, in ``turns[0]``, of the root turn that leaves the opponent's goal hardest to find.

    For a position where every turn lets the opponent score at once: the search sees no
    difference between them, but an opponent that does not search as deep may miss a goal that
    takes a long chain of bounces. A turn whose goal takes the most steps (``goal_steps``; none
    found within ``limit`` steps, or not decided within ``cap``, counts as the most) is chosen,
    and among those the best by its score in the list.
    """
    best = 0
    best_steps = -1
    best_score = 0
    for i in range(meta[0, M_TURNS]):
        played = play_turn(p, s, tree, 0, turns[0, U_NODE, i], turns[0, U_STEP, i], walk)
        steps = goal_steps(p, s, limit, cap, walk)
        for _ in range(played):
            undo(p, s)
        if steps <= 0:
            steps = limit + 1
        score = turns[0, U_SCORE, i]
        if steps > best_steps or (steps == best_steps and score > best_score):
            best, best_steps, best_score = i, steps, score
    return best


@dataclass
class SearchResult:
    """The chosen turn and how it was found."""

    steps: list[int]
    score: int
    depth: int  # turns deep of the last completed iteration (0: answered without a search)
    nodes: int
    steps_searched: int
    seconds: float
    root_turns: int
    reason: str  # win (a goal this turn), only (one turn), search, lost (every turn lets the opponent score)

    @property
    def proven(self) -> str | None:
        """ "win" or "loss" when the score is a forced result, None when it is a judgement."""
        if self.score > MATE_BOUND:
            return "win"
        if self.score < -MATE_BOUND:
            return "loss"
        return None


class TurnSearch:
    """The search of one field: its work arrays and transposition table live as long as it does.

    ``node_cap``/``turn_cap`` limit each turn walk (see ``turns.py``); ``threat_cap`` limits the
    walk that looks for a goal at the horizon; the table has ``2 ** tt_bits`` entries.
    """

    def __init__(
        self,
        game: PaperSoccerGame,
        *,
        tt_bits: int = 19,
        node_cap: int = 4096,
        turn_cap: int = 1024,
        threat_cap: int = 512,
    ) -> None:
        self.game = game
        self.p = game.param_array
        self.dist = goal_distances(game)
        self.tree = np.zeros((MAX_PLY, 2, node_cap), dtype=np.int64)
        self.turns = np.zeros((MAX_PLY, 4, turn_cap), dtype=np.int64)
        self.meta = np.zeros((MAX_PLY, META_FIELDS), dtype=np.int64)
        self.visited = new_visited(node_cap, turn_cap)
        self.walk = np.zeros((4, max(game.max_steps + 2, game.points)), dtype=np.int64)
        self.tt = np.zeros((3, 1 << tt_bits), dtype=np.int64)
        self.ctl = np.zeros(CTL_FIELDS, dtype=np.int64)
        self.ctl[C_NODE_CAP] = node_cap
        self.ctl[C_TURN_CAP] = turn_cap
        self.ctl[C_THREAT_CAP] = threat_cap

    def choose(self, state: State, *, max_depth: int | None = None, seconds: float | None = None) -> SearchResult:
        """Deepen one turn at a time until ``max_depth`` or the clock (``seconds``; None: no clock).

        Without ``max_depth`` no iteration starts after ``SOFT_TIME_SHARE`` of the time, since it
        would rarely finish; with it, ``seconds`` only cuts short an iteration that would overrun.
        An iteration the clock cuts short still counts if it finished searching at least the
        previous best turn (searched first), since its best is then the better informed.
        """
        if state.is_terminal or not turn_complete(self.p, state.s):
            raise ValueError("the search needs a position between two turns of a game in progress")
        started = time.perf_counter_ns()
        deadline = started + int(seconds * 1e9) if seconds is not None else 0
        s = state.s.copy()
        ctl = self.ctl
        ctl[C_NODES] = 0
        ctl[C_STEPS] = 0
        ctl[C_TRUNCATED] = 0
        soft_stop = max_depth is None
        max_depth = MAX_PLY - 1 if max_depth is None else max(1, min(max_depth, MAX_PLY - 1))
        best: list[int] = []
        score = 0
        depth_done = 0
        reason = "search"
        for depth in range(1, max_depth + 1):
            value = search_root(
                self.p,
                s,
                depth,
                self.tree,
                self.turns,
                self.meta,
                self.visited,
                self.walk,
                self.tt,
                self.dist,
                ctl,
                deadline if depth > 1 else 0,
            )
            aborted = bool(ctl[C_ABORTED])
            if aborted and ctl[C_ROOT_DONE] == 0:
                break
            best = turn_steps(self.tree, 0, int(ctl[C_ROOT_NODE]), int(ctl[C_ROOT_STEP]))
            if aborted:
                break
            score, depth_done = int(value), depth
            root_turns = int(self.meta[0, M_TURNS])
            if ctl[C_ROOT_KIND] == ROOT_WIN:
                reason = "win"
                break
            if root_turns == 1 and self.meta[0, M_FALLBACK] == FALLBACK_NONE:
                reason = "only"
                break
            if abs(score) > MATE_BOUND:
                break
            elapsed = time.perf_counter_ns() - started
            if deadline and soft_stop and elapsed > SOFT_TIME_SHARE * (deadline - started):
                break
        root_turns = int(self.meta[0, M_TURNS])
        if reason == "search" and score <= -(WIN - 1) and root_turns > 0:
            cap = max(LOST_STEPS_MIN, LOST_STEPS // root_turns)
            index = hardest_turn(self.p, s, self.tree, self.turns, self.meta, self.walk, LOST_GOAL_LIMIT, cap)
            best = turn_steps(self.tree, 0, int(self.turns[0, U_NODE, index]), int(self.turns[0, U_STEP, index]))
            reason = "lost"
        return SearchResult(
            steps=best,
            score=score,
            depth=depth_done,
            nodes=int(ctl[C_NODES]),
            steps_searched=int(ctl[C_STEPS]),
            seconds=(time.perf_counter_ns() - started) / 1e9,
            root_turns=root_turns,
            reason=reason,
        )
