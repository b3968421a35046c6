"""The VCT probes at the search's shallow nodes: each win they claim is real, the opponent's win by threats
one ply below the root makes the search defend, and the probes stay within their share of the search's nodes.
Checked against the positions of vct_positions.json (the side to move wins by threats, not by fours) and the
independent solver's exhaustive threats mode."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from gomoku_solver import Position, forced_win

from arbiter.bots.brain import ThinkRequest
from arbiter.bots.gomoku.brain import LEVELS, SHALLOW_VCT_NODES, GomokuBrain
from arbiter.bots.gomoku.search import (
    C_DEADLINE_NS,
    C_NODES,
    C_SHALLOW_VCT,
    C_SHALLOW_VCT_NODES,
    C_SHALLOW_VCT_PROBES,
    C_SHALLOW_VCT_WINS,
    INF,
    MATE_BOUND,
    SHALLOW_VCT_FLOOR,
    SHALLOW_VCT_SHARE,
    WIN,
    root_moves,
    search_root,
    shallow_vct,
)
from arbiter.bots.gomoku.searcher import SearchConfig, Searcher
from arbiter.bots.gomoku.vcf import MAX_FOURS, find_vcf
from arbiter.bots.gomoku.vct import T_LINE, T_NODES
from arbiter.engine import create_game

DATA = json.loads((Path(__file__).parent / "vct_positions.json").read_text())
SIZE, K = DATA["size"], DATA["k"]
ROOMY = 100_000  # a probe budget no position here runs out of
# Fifteen-by-fifteen middle games (from benchmarks/gomoku_search.py's positions), for the budget.
MIDDLE_GAMES = [
    [111, 125, 84, 95, 80, 81, 109, 110, 140, 126, 124, 94, 142, 96, 97, 92, 93, 78, 62],
    [114, 127, 140, 111, 159, 129, 128, 142, 112, 95, 79, 96, 126, 98, 97, 154, 144, 160, 116],
]


def probe(moves: list[int], budget: int) -> tuple[int, int, Searcher]:
    """The probe of the side to move on ``moves``: (plies along its proof or 0, its first move, the searcher)."""
    searcher = Searcher(SIZE, SIZE, K, False, tt_bits=12)
    searcher.set_position(moves)
    board, w, t = searcher.board, searcher.work, searcher.vct_work
    w[C_SHALLOW_VCT] = budget
    w[C_DEADLINE_NS] = 0
    plies = int(shallow_vct(board.g, board.s, w, t, board.to_move))
    return plies, int(t[t[T_LINE]]), searcher


@pytest.mark.parametrize("case", DATA["vct"], ids=lambda case: f"vct-{len(case['moves'])}")
def test_a_probe_proves_each_win_by_threats_and_the_solver_agrees(case: dict) -> None:
    """The probe finds the labelled win; after its first move the attacker still wins by threats within the
    rest of the plies it claims, against every defence the solver tries."""
    plies, first, searcher = probe(case["moves"], ROOMY)
    assert plies >= case["plies"]
    w = searcher.work
    assert (w[C_SHALLOW_VCT_PROBES], w[C_SHALLOW_VCT_WINS]) == (1, 1) and w[C_SHALLOW_VCT_NODES] > 0
    position = Position(SIZE, SIZE, K, False, case["moves"])
    attacker = position.to_move
    assert first in position.empty()
    position.board[first] = attacker
    assert forced_win(position, attacker, plies - 1, threats=True, mover=3 - attacker)


def test_a_probe_out_of_budget_proves_nothing_and_a_second_probe_costs_a_lookup() -> None:
    """One node is too few to prove a win; once proved, the win is in the match's table: one node again."""
    case = DATA["vct"][0]
    plies, _, _ = probe(case["moves"], 1)
    assert plies == 0
    plies, _, searcher = probe(case["moves"], ROOMY)
    assert plies > 0
    board, w, t = searcher.board, searcher.work, searcher.vct_work
    w[C_SHALLOW_VCT_NODES] = 0
    assert shallow_vct(board.g, board.s, w, t, board.to_move) > 0
    assert w[C_SHALLOW_VCT_NODES] <= plies  # along the table's moves, one node an attacker move at most


def saves(moves: list[int], cell: int) -> bool:
    """Whether the defender's ``cell`` leaves the attacker no win by threats within five plies (solver)."""
    position = Position(SIZE, SIZE, K, False, [*moves, cell])
    return not forced_win(position, position.to_move, 5, threats=True)


def root_values(moves: list[int], budget: int, depth: int) -> dict[int, int]:
    """Each root move's value (a bound for all but the first) by a ``depth``-ply search whose shallow nodes probe
    with ``budget`` nodes, with no root threat search, no leaf probes, and the probes' share not holding them back."""
    searcher = Searcher(SIZE, SIZE, K, False, tt_bits=14)
    searcher.set_position(moves)
    searcher.think(SearchConfig(max_depth=1, shallow_vct=budget))  # sets the search's slots
    board, w = searcher.board, searcher.work
    w[C_NODES] = 1 << 40
    root = np.zeros(board.cells, dtype=np.int64)
    count = root_moves(board.g, board.s, w, board.to_move, root)
    values = np.zeros(count, dtype=np.int64)
    args = (searcher.leaf_vcf_work, searcher.vct_work, root, values, count, depth, board.to_move, -INF, INF)
    assert search_root(board.g, board.s, w, *args) >= 0
    return {int(c): int(value) for c, value in zip(root[:count], values, strict=True)}


def test_the_opponents_win_by_threats_one_ply_down_scores_more_moves_lost() -> None:
    """Each labelled position one ply earlier (the defender's last stone taken back): the defender is to move
    and the attacker threatens its win by threats. A four-ply search with the shallow probes scores every move
    lost that it scores lost without them, and more besides: the wins of seven plies and more past the move
    that its horizon does not reach. (Each probe's claim is a proof: the tests above and test_gomoku_vct
    check the kernel's wins against the solver; the solver is too slow for these longer ones.)"""
    added = 0
    for case in DATA["vct"]:
        moves = case["moves"][:-1]
        probed, plain = root_values(moves, ROOMY, 4), root_values(moves, 0, 4)
        lost_plain = {c for c, value in plain.items() if value < -MATE_BOUND}
        lost_probed = {c for c, value in probed.items() if value < -MATE_BOUND}
        assert lost_plain <= lost_probed
        added += len(lost_probed - lost_plain)
        assert all(WIN + probed[c] - 1 >= 7 for c in lost_probed - lost_plain)
    assert added >= 20


def test_the_opponents_win_by_threats_one_ply_down_makes_the_search_defend() -> None:
    """In the same positions, four plies of search with the shallow probes (no root threat search, no leaf
    probes) play a move the solver says saves the game, or know the position lost."""
    for case in DATA["vct"]:
        moves = case["moves"][:-1]
        searcher = Searcher(SIZE, SIZE, K, False, tt_bits=14)
        searcher.set_position(moves)
        result = searcher.think(SearchConfig(max_depth=4, shallow_vct=ROOMY))
        assert result.score < -MATE_BOUND or saves(moves, result.cell)


@pytest.mark.parametrize("moves", MIDDLE_GAMES)
def test_the_probes_stay_within_their_share_of_the_search(moves: list[int]) -> None:
    """However many shallow nodes there are, the probes pause once their nodes pass the search's over
    SHALLOW_VCT_SHARE plus SHALLOW_VCT_FLOOR: at most one probe's budget beyond that."""
    searcher = Searcher(15, 15, 5, False, tt_bits=16)
    searcher.set_position(moves)
    result = searcher.think(SearchConfig(node_limit=60_000, shallow_vct=SHALLOW_VCT_NODES))
    assert result.shallow_vct_probes > 0
    assert result.shallow_vct_nodes <= result.nodes // SHALLOW_VCT_SHARE + SHALLOW_VCT_FLOOR + SHALLOW_VCT_NODES + 1


def test_only_full_strength_probes_and_only_with_the_root_vct() -> None:
    """Levels 1-3 never probe; level 4 probes with the root VCT, from a second of search on."""
    for level in (1, 2, 3):
        assert LEVELS[level].config(1.0).shallow_vct == 0
    assert LEVELS[4].config(0.9).shallow_vct == 0
    assert LEVELS[4].config(1.0).shallow_vct == SHALLOW_VCT_NODES


@pytest.mark.parametrize(("budget", "vct"), [(1.0, False), (1.25, True)])
def test_the_root_vct_runs_from_a_move_of_more_than_a_second(budget: float, vct: bool) -> None:
    """Through the brain, as a series or a server match asks it: a 1 s move leaves the search 0.845 s
    (TIME_SHARE), below the VCT's second, so neither the root VCT nor the probes run (the probes come
    only with it); a 1.25 s move (1.06 s of search) runs both."""
    brain = GomokuBrain(4)
    brain.warm_up()
    moves = [[cell % 15, cell // 15] for cell in MIDDLE_GAMES[0]]
    game = create_game("gomoku")
    result = brain.think(ThinkRequest("vct", game.name, dict(game.params), moves, budget))
    assert result.info["reason"] == "search" and (result.info["shallow_vct_nodes"] > 0) == vct


def test_the_root_keeps_every_move_against_a_win_by_threats_and_the_probes_defend() -> None:
    """In the same positions, with the root's threat searches on as well: the root holds its moves to the
    refutations of the opponent's VCF only, never of a VCT, so every move stays for the search (a VCT check
    within a budget drops the good moves it has no time to prove: docs/lab/strength-2026-11-29.md, G167-G172), and the
    probes at ply 1 make the search defend all the same."""
    kept_all = 0
    for case in DATA["vct"]:
        moves = case["moves"][:-1]
        searcher = Searcher(SIZE, SIZE, K, False, tt_bits=14)
        searcher.set_position(moves)
        board = searcher.board
        config = SearchConfig(max_depth=4, root_vcf=10_000, root_vct=ROOMY, shallow_vct=ROOMY)
        every = np.zeros(board.cells, dtype=np.int64)
        count = int(root_moves(board.g, board.s, searcher.work, board.to_move, every))
        opponent = 1 - board.to_move
        if find_vcf(board.g, board.s, searcher.vcf_work, opponent, MAX_FOURS, 10_000) is None:
            assert sorted(searcher.root_candidates(config)[0]) == sorted(every[:count].tolist())
            kept_all += 1
        result = searcher.think(config)
        assert result.score < -MATE_BOUND or saves(moves, result.cell)
    assert kept_all >= len(DATA["vct"]) // 2


def test_the_root_threat_nodes_reported_include_our_own_search_that_found_nothing() -> None:
    """``vcf_nodes`` (the root's threat searches) counts our own VCT even when it finds no win: here the root
    runs that search alone (no VCF, so no check against the opponent's), and the report is its nodes."""
    searcher = Searcher(15, 15, 5, False, tt_bits=16)
    searcher.set_position(MIDDLE_GAMES[0])
    result = searcher.think(SearchConfig(max_depth=2, root_vct=5_000))
    assert result.reason == "search"
    assert result.vcf_nodes == int(searcher.vct_work[T_NODES]) > 0
