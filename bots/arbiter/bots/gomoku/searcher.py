"""One decision: forced moves, threat search, then iterative deepening under the clock.

The order of questions is the order of urgency: a five wins at once; an opponent's four must be
blocked; a forced win by continuous fours (VCF), then by fours and open threes (VCT), is played
without searching; if the opponent has a VCF, only the moves that take it away stay on the list
(its VCT is left to the search's VCT probes at ply 1); the rest is the alpha-beta search, deepened
one ply at a time until the clock (or a depth or node limit) says stop. Each threat search has its
own node budget and its own table, kept for the whole match. The brain turns the VCT off below about
1.2 s a move, where it gains nothing (brain.VCT_MIN_SECONDS).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import numpy as np

from .board import FOURS, S_HASH, S_SET_LEN, Board, four_moves, make, unmake, winning_cells
from .evaluation import HAND, Evaluation
from .geometry import RULE_FREE
from .layout import region
from .search import (
    C_ABORTED,
    C_DEADLINE_NS,
    C_GENERATION,
    C_LEAF_VCF,
    C_LEAF_VCF_NODES,
    C_NODE_LIMIT,
    C_NODES,
    C_SELDEPTH,
    C_SHALLOW_VCT,
    C_SHALLOW_VCT_NODES,
    C_SHALLOW_VCT_PROBES,
    C_SHALLOW_VCT_WINS,
    C_SHAPE_MOVER,
    C_SHAPE_WAITER,
    C_STOP,
    C_THREE_EXTENSION,
    C_WIDTH,
    INF,
    MATE_BOUND,
    MAX_PLY,
    W_HISTORY,
    W_KILLERS,
    W_SCORES,
    WIN,
    new_work,
    root_moves,
    search_root,
    tt_move,
)
from .vcf import MAX_FOURS, V_ABORTED, V_NODES, V_STOP, find_vcf, new_vcf_work
from .vct import MAX_VCT_DEPTH, T_NODES, T_STOP, find_vct, new_vct_work

MAX_DEPTH = 60
# No new iteration after this share of the time. One cut short still counts (the root moves it finished,
# the best first), so a late start wastes little and the later share won more games
# (docs/lab/strength-2026-11-26.md, stop 28).
SOFT_TIME_SHARE = 0.75
# Entries of the transposition table (log2; 16 bytes each: 2^22 is 64 MiB). A worker keeps its table from move
# to move, and 2^20 filled up: over the moves of the bot's games against Rapfi the same depth took 0.76 of the
# nodes at 2^22, and as many on an older bot's games (benchmarks/gomoku_table.py, docs/PERFORMANCE.md).
TT_BITS = 22
THREAT_TIME_SHARE = 0.3  # of the time, at most, for the root's threat searches (own wins, the opponent's VCF, checks)
DEFENCE_BUDGET_SHARE = 4  # ... and at most this many times the root VCF node budget
ASPIRATION = 300  # half-width of the root's window around the last iteration's score...
ASPIRATION_DEPTH = 4  # ... from this depth on; a score outside it is searched again with a wider window...
ASPIRATION_GROWTH = 4  # ... this many times wider on the side it failed...
ASPIRATION_MAX = 20_000  # ... and open on that side once wider than this


@dataclass(frozen=True)
class SearchConfig:
    """How hard to think. Limits left at 0 (or None) do not apply; the first limit reached stops."""

    max_depth: int = MAX_DEPTH
    node_limit: int = 0
    time_limit: float | None = None  # seconds for this move
    width: int = 0  # moves searched at non-PV nodes before the quiet ones stop, fewer near the leaves; 0 = all
    root_vcf: int = 0  # node budget of each VCF search at the root (own win, opponent's threat); 0 = none
    vcf_fours: int = MAX_FOURS
    root_vct: int = 0  # node budget of the VCT search for the root's own win; 0 = none
    vct_depth: int = MAX_VCT_DEPTH
    leaf_vcf: int = 0  # node budget of each VCF probe at the search's leaves; 0 = none
    shallow_vct: int = 0  # node budget of each VCT probe at the search's shallow nodes; 0 = none
    three_extension: int = 0  # plies from the root within which a defence against an open three costs no depth
    soft_time_share: float = SOFT_TIME_SHARE  # 1.0: deepen until the deadline cuts an iteration short


@dataclass
class SearchResult:
    """The chosen cell and how it was found."""

    cell: int
    score: int
    depth: int = 0
    seldepth: int = 0
    nodes: int = 0
    vcf_nodes: int = 0  # the root's threat searches
    leaf_vcf_nodes: int = 0  # the VCF probes at the search's leaves
    shallow_vct_nodes: int = 0  # the VCT probes at its shallow nodes...
    shallow_vct_probes: int = 0  # ... how many ran...
    shallow_vct_wins: int = 0  # ... and how many proved a win
    elapsed: float = 0.0
    reason: str = "search"  # centre, five, block, vcf, vct, only, search
    pv: list[int] = field(default_factory=list)

    @property
    def mate_in(self) -> int | None:
        """Plies to a forced result (positive: we win), or None when the score is a judgement."""
        if self.score > MATE_BOUND:
            return WIN - self.score
        if self.score < -MATE_BOUND:
            return -(WIN + self.score)
        return None


class Searcher:
    """The search of one board shape with one evaluation: its tables live as long as the searcher."""

    def __init__(
        self,
        m: int,
        n: int,
        k: int,
        exact: bool,
        *,
        tt_bits: int = TT_BITS,
        evaluation: Evaluation = HAND,
        rule: int = RULE_FREE,
    ) -> None:
        self.shape = (m, n, k, exact)
        self.evaluation = evaluation
        self.rule = rule
        self.board = Board(m, n, k, exact, evaluation, rule)
        self.work = new_work(self.board.cells, tt_bits)
        self.vcf_work = new_vcf_work(self.board.cells)
        self.vct_work = new_vct_work(self.board.cells)
        self.leaf_vcf_work = new_vcf_work(self.board.cells)  # its own: a probe never disturbs the root's
        self._buffer = np.zeros(self.board.cells, dtype=np.int64)
        self._generation = 0

    def set_position(self, cells: list[int]) -> None:
        """Replay ``cells`` (alternate players, first player first) on a fresh board."""
        self.board = Board.from_moves(*self.shape, cells, self.evaluation, self.rule)

    def stop(self) -> None:
        """Make the search running in another thread return within about a thousand nodes, and any
        search after it at once, until ``resume``. Its answer is then worthless; its tables stay sound
        (an aborted search stores nothing)."""
        self.work[C_STOP] = 1
        self.vcf_work[V_STOP] = 1
        self.vct_work[T_STOP] = 1
        self.work[C_ABORTED] = 1  # the alpha-beta kernel reads this one at every node

    def resume(self) -> None:
        """Let searches run again after ``stop``."""
        self.work[C_STOP] = 0
        self.vcf_work[V_STOP] = 0
        self.vct_work[T_STOP] = 0

    def expected_reply(self) -> int | None:
        """The side to move's best move by the transposition table (the last search's principal
        variation), or None when the table does not know the position."""
        move = tt_move(self.work, int(self.board.s[S_HASH]))
        return move if move >= 0 and self.board.stone(move) == 0 else None

    def think(self, config: SearchConfig, seed: int = 0, forbidden: frozenset[int] = frozenset()) -> SearchResult:
        """The move for the side to move in the current position, never one of the ``forbidden`` cells
        (renju's forbidden points for black, from the engine; below the root the board's rule, the
        searcher's ``rule``, keeps black off them). Cell -1 when every move the search weighs is forbidden."""
        start = time.perf_counter_ns()
        deadline = start + int(config.time_limit * 1e9) if config.time_limit else 0
        # Node budgets bound the threat searches on an idle machine, this deadline on a loaded one.
        threat_deadline = start + int(THREAT_TIME_SHARE * (deadline - start)) if deadline else 0
        p = self.board.to_move
        result = self._immediate(p, forbidden)
        g, s = self.board.g, self.board.s
        threat_nodes = 0  # of the searches for our own win, whether or not they find one
        if result is None and config.root_vcf:
            line = find_vcf(g, s, self.vcf_work, p, config.vcf_fours, config.root_vcf, threat_deadline)
            threat_nodes += int(self.vcf_work[V_NODES])
            if line is not None and line[0] not in forbidden:
                result = SearchResult(line[0], WIN - len(line), reason="vcf", pv=line)
        if result is None and config.root_vct:
            line = find_vct(g, s, self.vct_work, p, config.vct_depth, config.root_vct, threat_deadline)
            threat_nodes += int(self.vct_work[T_NODES])
            if line is not None and line[0] not in forbidden:
                # The line is one branch of the proof, so its length is the plies to the win along it.
                result = SearchResult(line[0], WIN - len(line), reason="vct", pv=line)
        if result is None:
            result = self._search(config, seed, p, start, deadline, threat_deadline, forbidden)
        result.vcf_nodes += threat_nodes
        result.elapsed = (time.perf_counter_ns() - start) / 1e9
        return result

    def _immediate(self, p: int, forbidden: frozenset[int]) -> SearchResult | None:
        g, s, cells = self.board.g, self.board.s, self._buffer
        if self.board.stones == 0:
            m, n = self.board.m, self.board.n
            return SearchResult((n // 2) * m + m // 2, 0, reason="centre")
        if s[S_SET_LEN + FOURS + p] > 0:
            wins = [int(c) for c in cells[: winning_cells(g, s, p, cells, 0)] if c not in forbidden]
            if wins:
                return SearchResult(wins[0], WIN - 1, depth=1, reason="five", pv=wins[:1])
        if s[S_SET_LEN + FOURS + 1 - p] > 0:
            blocks = winning_cells(g, s, 1 - p, cells, 0)
            allowed = [int(c) for c in cells[:blocks] if c not in forbidden]
            if allowed:
                score = -(WIN - 2) if blocks >= 2 else 0
                return SearchResult(allowed[0], score, reason="block", pv=allowed[:1])
        return None

    def root_candidates(
        self, config: SearchConfig, seed: int = 0, deadline: int = 0, forbidden: frozenset[int] = frozenset()
    ) -> tuple[list[int], int]:
        """The moves the search weighs at the root, in order (seeded among equals): only refutations of the
        opponent's VCF if it has one. ``deadline`` (perf_counter_ns, 0: none) bounds the checks.

        Returns the moves and the threat-search nodes spent.

        A refutation must touch the threat: it takes a cell of the opponent's winning line, spoils a
        window where the opponent could make a four, or makes a four itself (gaining the move). Those
        candidates are checked one by one, within a node budget and the clock; if none holds, every
        move stays (the position is lost to best play; the search picks the toughest move).

        The opponent's VCT is not looked for here: the search's VCT probes at ply 1 score every root
        move that leaves it one as lost, and holding the root to the moves a budgeted check proved safe
        threw away the good ones it had no time to prove (docs/lab/strength-2026-11-29.md, stop 52).
        """
        g, s, w, v = self.board.g, self.board.s, self.work, self.vcf_work
        p = self.board.to_move
        count = int(root_moves(g, s, w, p, self._buffer))
        scored = [(int(c), int(x)) for c, x in zip(self._buffer[:count], region(w, W_SCORES, count), strict=True)]
        moves = [c for c, _ in scored if c not in forbidden]
        scores = [x for c, x in scored if c not in forbidden]
        moves = _shuffle_ties(moves, scores, seed)
        if not config.root_vcf:
            return moves, 0
        o = 1 - p
        threat = find_vcf(g, s, v, o, config.vcf_fours, config.root_vcf, deadline)
        nodes = int(v[V_NODES])
        if threat is None:
            return moves, nodes
        buffer = self._buffer
        touching = set(threat)
        for side in (p, o):
            touching.update(int(c) for c in buffer[: four_moves(g, s, side, buffer, 0)])
        budget = DEFENCE_BUDGET_SHARE * config.root_vcf
        safe = []
        for c in (c for c in moves if c in touching):
            if nodes > budget or (deadline and time.perf_counter_ns() > deadline):
                break
            make(g, s, c, p)
            # A search cut short by its budget proves nothing: such a move does not count as safe.
            found = find_vcf(g, s, v, o, config.vcf_fours, config.root_vcf, deadline) is not None
            refuted = not found and not v[V_ABORTED]
            nodes += int(v[V_NODES])
            unmake(g, s)
            if refuted:
                safe.append(c)
        return (safe or moves), nodes

    def _search(
        self,
        config: SearchConfig,
        seed: int,
        p: int,
        start: int,
        deadline: int,
        threat_deadline: int,
        forbidden: frozenset[int],
    ) -> SearchResult:
        g, s, w, v, t = self.board.g, self.board.s, self.work, self.leaf_vcf_work, self.vct_work
        moves, vcf_nodes = self.root_candidates(config, seed, threat_deadline, forbidden)
        if not moves:
            return SearchResult(-1, 0, reason="forbidden", vcf_nodes=vcf_nodes)
        if len(moves) == 1:
            return SearchResult(moves[0], 0, reason="only", pv=moves[:1], vcf_nodes=vcf_nodes)
        self._generation = (self._generation + 1) & 0x1F
        w[[C_NODES, C_SELDEPTH, C_LEAF_VCF_NODES, C_SHALLOW_VCT_NODES, C_SHALLOW_VCT_PROBES, C_SHALLOW_VCT_WINS]] = 0
        w[C_ABORTED] = w[C_STOP]
        w[C_LEAF_VCF] = config.leaf_vcf
        w[C_SHALLOW_VCT] = config.shallow_vct
        w[C_THREE_EXTENSION] = config.three_extension
        w[C_GENERATION] = self._generation
        w[C_NODE_LIMIT] = config.node_limit
        w[C_WIDTH] = config.width
        w[C_SHAPE_MOVER] = self.evaluation.shape_mover
        w[C_SHAPE_WAITER] = self.evaluation.shape_waiter
        w[C_DEADLINE_NS] = deadline
        region(w, W_KILLERS, 2 * MAX_PLY)[:] = -1
        region(w, W_HISTORY, 2 * self.board.cells)[:] //= 8
        root = np.array(moves, dtype=np.int64)
        values = np.zeros(len(moves), dtype=np.int64)
        result = SearchResult(moves[0], 0, vcf_nodes=vcf_nodes)
        for depth in range(1, config.max_depth + 1):
            alpha, beta = -INF, INF
            delta = ASPIRATION
            if depth >= ASPIRATION_DEPTH and abs(result.score) < MATE_BOUND:
                alpha, beta = result.score - delta, result.score + delta
            while True:
                best = int(search_root(g, s, w, v, t, root, values, len(moves), depth, p, alpha, beta))
                if best < 0 or w[C_ABORTED] or alpha < values[best] < beta:
                    break
                # Outside the window: widen the failing side only, step by step, as the score moved.
                value = int(values[best])
                delta *= ASPIRATION_GROWTH
                wide_open = delta >= ASPIRATION_MAX or abs(value) >= MATE_BOUND
                if value <= alpha:
                    alpha = -INF if wide_open else value - delta
                else:
                    beta = INF if wide_open else value + delta
            aborted = bool(w[C_ABORTED])
            if best >= 0:
                result.cell = int(root[best])
                result.score = int(values[best])
                if not aborted:
                    result.depth = depth
                order = [best, *(i for i in range(len(moves)) if i != best)]
                root = root[order].copy()
                values = values[order].copy()
            if aborted:
                break
            result.seldepth = int(w[C_SELDEPTH])
            if abs(result.score) > MATE_BOUND and WIN - abs(result.score) <= depth:
                break  # a forced result inside the horizon: deeper search cannot change it
            if deadline and time.perf_counter_ns() - start > config.soft_time_share * (deadline - start):
                break
        result.nodes = int(w[C_NODES])
        result.leaf_vcf_nodes = int(w[C_LEAF_VCF_NODES])
        result.shallow_vct_nodes = int(w[C_SHALLOW_VCT_NODES])
        result.shallow_vct_probes = int(w[C_SHALLOW_VCT_PROBES])
        result.shallow_vct_wins = int(w[C_SHALLOW_VCT_WINS])
        result.pv = self._principal_variation(result.cell, result.depth)
        return result

    def _principal_variation(self, first: int, depth: int) -> list[int]:
        """The expected line, read back from the transposition table."""
        board = self.board
        line = [first]
        board.play(first)
        while len(line) < max(depth, 1):
            move = tt_move(self.work, int(board.s[S_HASH]))
            if move < 0 or board.stone(move) != 0:
                break
            board.play(move)
            line.append(move)
        for _ in line:
            board.undo()
        return line


def _shuffle_ties(moves: list[int], scores: list[int], seed: int) -> list[int]:
    """Moves in score order with equal scores in a seeded random order: varied games, reproducible."""
    rng = random.Random(seed)
    keyed = [(-score, rng.random(), c) for c, score in zip(moves, scores, strict=True)]
    return [c for _, _, c in sorted(keyed)]
