"""The VCF probes at the search's leaves: each win they claim is real, and a move that leaves the opponent a
win by fours is scored as lost, checked against the positions of threat_positions.json and the solver."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gomoku_solver import Position, forced_win

from arbiter.bots.gomoku.board import make, unmake
from arbiter.bots.gomoku.brain import LEAF_VCF_NODES
from arbiter.bots.gomoku.search import (
    C_LEAF_VCF,
    C_LEAF_VCF_NODES,
    C_NODES,
    INF,
    LEAF_VCF_FOURS,
    MATE_BOUND,
    WIN,
    leaf_value,
    leaf_vcf,
    static_value,
)
from arbiter.bots.gomoku.searcher import SearchConfig, Searcher
from arbiter.bots.gomoku.vcf import V_NODES, new_vcf_work, vcf

DATA = json.loads((Path(__file__).parent / "threat_positions.json").read_text())
SIZE, K, MAX_PLIES = DATA["size"], DATA["k"], DATA["max_plies"]
ROOMY = 100_000  # a probe budget no position here runs out of
PROBE_PLIES = 2 * LEAF_VCF_FOURS + 1  # a probe's longest line: its fours, their blocks, the five


def searcher_at(moves: list[int], budget: int) -> Searcher:
    """A searcher on ``moves`` whose leaves probe with ``budget`` nodes, deep enough into a search that
    the probes' share of its nodes does not hold them back."""
    searcher = Searcher(SIZE, SIZE, K, False, tt_bits=12)
    searcher.set_position(moves)
    w = searcher.work
    w[C_LEAF_VCF] = budget
    w[C_LEAF_VCF_NODES] = 0
    w[C_NODES] = 1 << 40
    return searcher


def leaf(searcher: Searcher, p: int, ply: int = 0) -> int:
    board = searcher.board
    return int(leaf_value(board.g, board.s, searcher.work, searcher.leaf_vcf_work, p, INF, ply))


def test_the_probes_reach_the_labelled_wins() -> None:
    assert MAX_PLIES <= PROBE_PLIES  # else a label below could lie beyond a probe


@pytest.mark.parametrize("case", DATA["win"], ids=lambda case: f"win-{case['plies']}-{len(case['moves'])}")
def test_a_probe_proves_each_win_by_fours_and_only_real_ones(case: dict) -> None:
    position = Position(SIZE, SIZE, K, False, case["moves"])
    searcher = searcher_at(case["moves"], ROOMY)
    p = searcher.board.to_move
    value = leaf(searcher, p, ply=3)
    assert value > MATE_BOUND
    plies = WIN - 3 - value
    assert case["plies"] <= plies <= PROBE_PLIES
    assert forced_win(position, position.to_move, plies, fours_only=True)


def test_the_level_budget_finds_the_short_wins() -> None:
    """The bot's own budget per probe (LEAF_VCF_NODES) still finds every win of 3 or 5 plies, and most longer ones."""
    found = {}
    for case in DATA["win"]:
        searcher = searcher_at(case["moves"], LEAF_VCF_NODES)
        won = leaf(searcher, searcher.board.to_move) > MATE_BOUND
        found.setdefault(case["plies"], []).append(won)
    assert all(found[3]) and all(found[5])
    assert sum(sum(wins) for wins in found.values()) >= 0.8 * len(DATA["win"])


def test_a_probe_that_finds_nothing_walks_its_tree_once() -> None:
    """After each saving move of the defence positions the attacker has no forced win, and its probe costs
    exactly one pass of the kernel over LEAF_VCF_FOURS fours on a fresh table: no shallower pass first that
    walks the same tree again (as the probes of stop 27 did)."""
    walked = []
    for case in DATA["defence"]:
        moves = [*case["moves"], case["answer"]]
        searcher = searcher_at(moves, ROOMY)
        board = searcher.board
        attacker = board.to_move
        assert leaf_vcf(board.g, board.s, searcher.work, searcher.leaf_vcf_work, attacker) == 0
        one_pass = new_vcf_work(board.cells)
        assert vcf(board.g, board.s, one_pass, attacker, LEAF_VCF_FOURS, 0) == 0
        assert searcher.work[C_LEAF_VCF_NODES] == one_pass[V_NODES]
        walked.append(int(one_pass[V_NODES]))
    assert max(walked) > 1  # some of them have fours to try


@pytest.mark.parametrize("case", DATA["defence"], ids=lambda case: f"defence-{case['answer']}-{len(case['moves'])}")
def test_a_move_that_leaves_the_opponent_a_win_by_fours_is_scored_lost_unless_it_defends(case: dict) -> None:
    """After each move of the defender that is not a four, the attacker's leaf is a proved win, except after
    the one move the solver says saves the game (when that is a four, after every one); the static value alone
    never says so."""
    position = Position(SIZE, SIZE, K, False, case["moves"])
    defender = position.to_move
    searcher = searcher_at(case["moves"], ROOMY)
    board = searcher.board
    g, s, w = board.g, board.s, searcher.work
    p = board.to_move
    lost, unseen = [], 0
    for c in position.empty():
        if position.threatens(c, defender):
            continue  # a four of its own: the attacker must block first, which a leaf does not search
        make(g, s, c, p)
        attacker_value = leaf(searcher, 1 - p, ply=1)
        unseen += static_value(s, w, 1 - p) <= MATE_BOUND
        unmake(g, s)
        if attacker_value > MATE_BOUND:
            lost.append(c)
    quiet = [c for c in position.empty() if not position.threatens(c, defender)]
    assert lost == [c for c in quiet if c != case["answer"]]
    assert unseen == len(quiet)


def test_a_shallow_search_with_probes_finds_only_defences_that_it_misses_without() -> None:
    """Without the root's own VCF checks, two plies with probes at the leaves find more of the saving moves
    than without; where they miss one, the search has proved the position lost whatever it plays (by
    threats the labels do not cover)."""
    found = {ROOMY: 0, 0: 0}
    for case in DATA["defence"]:
        for budget in found:
            searcher = Searcher(SIZE, SIZE, K, False, tt_bits=14)
            searcher.set_position(case["moves"])
            result = searcher.think(SearchConfig(max_depth=2, leaf_vcf=budget))
            found[budget] += result.cell == case["answer"]
            assert budget == 0 or result.cell == case["answer"] or result.score < -MATE_BOUND
    assert found[ROOMY] > found[0]
