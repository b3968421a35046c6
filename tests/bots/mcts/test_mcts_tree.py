"""The node arena and the UCT / MCTS-Solver kernels: visit accounting, proofs, re-rooting, growth."""

from __future__ import annotations

import functools
import random

import numpy as np
import pytest

from arbiter.bots.mcts.tree import (
    ACTION,
    DRAW,
    FIRST_CHILD,
    GATHERED,
    LOSS,
    MEAN,
    MOVER,
    N_CHILDREN,
    N_LEGAL,
    NEXT_SIBLING,
    NO_NODE,
    ORDER_STRIDE,
    PARENT,
    POLICY_LIGHT,
    POLICY_RANDOM,
    PROVEN,
    UNKNOWN,
    VISITS,
    WIN,
    ChildStats,
    Tree,
    best_child,
    seed_random,
)
from arbiter.engine import State, create_game
from arbiter.engine.base import HEADER

GAMES = ["tictactoe", "tictactoe4", "gomoku10", "vanishing", "ttt3d", "paper_soccer"]


def children_of(tree: Tree, node: int) -> list[int]:
    out = []
    child = int(tree.nodes[FIRST_CHILD][node])
    while child != NO_NODE:
        out.append(child)
        child = int(tree.nodes[NEXT_SIBLING][child])
    return out


def check_tree(tree: Tree, *, solver: bool, fresh: bool = True) -> None:
    """Every structural invariant of the arena, walking from the root with the real rules
    (``fresh``: a tree never re-rooted, whose unreachable slots gather_children alone left)."""
    nodes = tree.nodes
    seen = 0
    stack: list[tuple[int, State]] = [(0, tree.position.copy())]
    while stack:
        node, state = stack.pop()
        seen += 1
        kids = children_of(tree, node)
        assert nodes[N_CHILDREN][node] == len(kids)
        assert 0.0 <= nodes[MEAN][node] <= 1.0
        if kids:
            legal = state.legal_actions().tolist()
            assert nodes[N_LEGAL][node] == len(legal)
            actions = [int(nodes[ACTION][k]) for k in kids]
            assert len(set(actions)) == len(actions) and set(actions) <= set(legal)
            child_visits = sum(int(nodes[VISITS][k]) for k in kids)
            if node == 0:
                assert nodes[VISITS][node] >= child_visits
            elif not solver:
                # one visit created the node, every later one went on to exactly one child
                assert nodes[VISITS][node] == 1 + child_visits
            else:  # a visit may also stop at the node once it is proven
                assert nodes[VISITS][node] >= 1 + child_visits
        if nodes[ORDER_STRIDE][node] == GATHERED and len(kids) > 1:  # side by side, in sibling order
            assert nodes[N_CHILDREN][node] == nodes[N_LEGAL][node]
            assert kids == list(range(kids[0], kids[0] + len(kids)))
        for kid in kids:
            assert nodes[PARENT][kid] == node
            assert nodes[MOVER][kid] == state.to_move
            after = state.copy()
            after.play_action(int(nodes[ACTION][kid]))
            if after.is_terminal and solver:
                winner = after.outcome.winner
                expected = DRAW if winner is None else (WIN if winner == state.to_move else LOSS)
                assert nodes[PROVEN][kid] == expected
            stack.append((kid, after))
    # the slots a gathered node's children left behind are the only ones unreachable
    assert seen == tree.used - left_behind(tree) if fresh else seen <= tree.used


def left_behind(tree: Tree) -> int:
    """Slots emptied by gather_children: a gathered node's children moved out of as many."""
    nodes = tree.nodes
    used = tree.used
    gathered = (nodes[ORDER_STRIDE][:used] == GATHERED) & (nodes[N_LEGAL][:used] > 1)
    reachable = set()
    stack = [0]
    while stack:
        node = stack.pop()
        reachable.add(node)
        stack.extend(children_of(tree, node))
    return int(sum(int(nodes[N_CHILDREN][node]) for node in np.flatnonzero(gathered) if node in reachable))


def fresh_tree(name: str, moves: list[int] = (), **kwargs) -> Tree:
    state = create_game(name).new_state()
    for action in moves:
        state.play_action(action)
    return Tree(state, max_nodes=kwargs.pop("max_nodes", 1_000_000), **kwargs)


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("policy", [POLICY_LIGHT, POLICY_RANDOM])
def test_visits_add_up(name: str, policy: int) -> None:
    seed_random(7)
    tree = fresh_tree(name)
    done, _ = tree.search(3000, exploration=1.0, solver=False, policy=policy)
    assert done == 3000
    assert tree.root_visits == 3000
    assert sum(c.visits for c in tree.children()) == 3000
    check_tree(tree, solver=False)


def test_wide_nodes_have_their_children_side_by_side() -> None:
    seed_random(5)
    tree = fresh_tree("gomoku10")
    tree.search(20_000, exploration=0.3, solver=False, policy=POLICY_LIGHT)
    assert tree.nodes[ORDER_STRIDE][0] == GATHERED
    gathered = [k for k in children_of(tree, 0) if tree.nodes[ORDER_STRIDE][k] == GATHERED]
    assert gathered  # the root's busiest children too
    assert left_behind(tree) >= 100 * (1 + len(gathered)) - len(gathered) - 1
    check_tree(tree, solver=False)


@pytest.mark.parametrize("name", GAMES)
def test_solver_tree_is_consistent(name: str) -> None:
    seed_random(3)
    tree = fresh_tree(name)
    tree.search(3000, exploration=1.0, solver=True, policy=POLICY_LIGHT)
    check_tree(tree, solver=True)


# --- the solver against exact values ----------------------------------------------------------
@functools.cache
def tictactoe_value(board: tuple[int, ...], player: int) -> int:
    """Exact value for ``player`` to move (+1 win, 0 draw, -1 loss), plain memoised minimax."""
    lines = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
    best = -2
    empty = [c for c in range(9) if board[c] == 0]
    if not empty:
        return 0
    for cell in empty:
        after = (*board[:cell], player + 1, *board[cell + 1 :])
        if any(all(after[i] == player + 1 for i in line) for line in lines):
            return 1
        best = max(best, -tictactoe_value(after, 1 - player) if len(empty) > 1 else 0)
    return best


def random_positions(count: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        state = create_game("tictactoe").new_state()
        moves = []
        for _ in range(rng.randint(2, 6)):
            action = rng.choice(state.legal_actions().tolist())
            state.play_action(action)
            moves.append(action)
            if state.is_terminal:
                break
        if not state.is_terminal:
            positions.append(moves)
    return positions


@pytest.mark.parametrize("moves", random_positions(25, seed=5))
def test_solver_proves_exact_tictactoe_values(moves: list[int]) -> None:
    seed_random(11)
    tree = fresh_tree("tictactoe", moves)
    done, _ = tree.search(200_000, exploration=1.0, solver=True, policy=POLICY_LIGHT)
    assert tree.root_proven != UNKNOWN, f"not proven after {done} simulations"
    board = tuple(int(v) for v in tree.position.s[HEADER : HEADER + 9])
    exact = tictactoe_value(board, tree.position.to_move)
    assert tree.root_proven == {1: WIN, 0: DRAW, -1: LOSS}[exact]
    choice = best_child(tree.children())
    after = tree.position.copy()
    after.play_action(choice.action)
    if after.is_terminal:
        assert exact == 1
    else:  # the chosen move keeps the exact value
        assert -tictactoe_value(tuple(int(v) for v in after.s[HEADER : HEADER + 9]), after.to_move) == exact


def test_solver_proves_a_loss_against_a_double_threat() -> None:
    # x on 0, 8 and 6 threatens 3 (0-3-6) and 7 (6-7-8); o (4, 2) has no win and cannot block both
    seed_random(2)
    tree = fresh_tree("tictactoe", [0, 4, 8, 2, 6])
    tree.search(100_000, exploration=1.0, solver=True, policy=POLICY_LIGHT)
    assert tree.root_proven == LOSS


def test_mate_in_one_is_proven_at_once() -> None:
    seed_random(4)
    tree = fresh_tree("tictactoe", [0, 3, 1, 4])  # x: a1 b1, o: a2 b2; x to move wins at c1 (2)
    done, _ = tree.search(100_000, exploration=1.0, solver=True, policy=POLICY_LIGHT)
    assert tree.root_proven == WIN
    assert best_child(tree.children()).action == 2
    assert done <= 9


# --- re-rooting and growth --------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_advance_keeps_the_subtree_of_the_move_played(name: str) -> None:
    seed_random(9)
    tree = fresh_tree(name)
    tree.search(5000, exploration=1.0, solver=True, policy=POLICY_LIGHT)
    chosen = best_child(tree.children())
    child = next(k for k in children_of(tree, 0) if tree.nodes[ACTION][k] == chosen.action)
    grandchildren = sorted((int(tree.nodes[ACTION][g]), int(tree.nodes[VISITS][g])) for g in children_of(tree, child))
    expected_position = tree.position.copy()
    expected_position.play_action(chosen.action)
    assert tree.advance(chosen.action)
    assert np.array_equal(tree.position.s, expected_position.s)
    assert tree.root_visits == chosen.visits
    assert sorted((c.action, c.visits) for c in tree.children()) == grandchildren
    assert tree.nodes[MOVER][0] == tree.position.to_move
    assert tree.used == tree._subtree_size(0)  # compacted: no slot left behind
    check_tree(tree, solver=True, fresh=False)
    before = tree.root_visits
    tree.search(1000, exploration=1.0, solver=True, policy=POLICY_LIGHT)
    assert tree.root_visits == before + 1000 or tree.root_proven != UNKNOWN
    check_tree(tree, solver=True, fresh=False)


def test_advance_to_an_unexplored_action_starts_afresh() -> None:
    tree = fresh_tree("gomoku")
    tree.search(50, exploration=1.0, solver=True, policy=POLICY_LIGHT)
    explored = {c.action for c in tree.children()}
    unexplored = next(a for a in range(225) if a not in explored)
    assert not tree.advance(unexplored)
    assert tree.used == 1 and tree.root_visits == 0
    assert tree.position.ply == 1


def test_a_proven_root_is_seen_from_the_side_to_move_after_advancing() -> None:
    seed_random(6)
    tree = fresh_tree("tictactoe", [0, 4, 8])  # o to move; x threatens nothing yet, o must not lose
    tree.search(200_000, exploration=1.0, solver=True, policy=POLICY_LIGHT)
    assert tree.root_proven == DRAW
    losing = next(c for c in tree.children() if c.proven == LOSS)  # a corner reply loses for o
    tree.advance(losing.action)
    assert tree.root_proven == WIN  # ... so x, now to move, wins


def test_the_arena_grows_and_stops_growing_at_its_cap() -> None:
    seed_random(8)
    tree = fresh_tree("gomoku10", capacity=64, max_nodes=1000)
    done, _ = tree.search(3000, exploration=1.0, solver=False, policy=POLICY_LIGHT)
    assert done == 3000
    assert tree.capacity == 1000 and tree.used == 1000
    assert tree.root_visits == 3000  # past the cap, simulations go on from the leaves they reach
    assert sum(c.visits for c in tree.children()) == 3000


def test_best_child_prefers_proofs_then_visits() -> None:
    rows = [ChildStats(0, 500, 300.0, UNKNOWN), ChildStats(1, 20, 20.0, WIN), ChildStats(2, 900, 10.0, LOSS)]
    assert best_child(rows).action == 1
    rows = [ChildStats(0, 500, 300.0, UNKNOWN), ChildStats(2, 900, 10.0, LOSS), ChildStats(3, 499, 400.0, DRAW)]
    assert best_child(rows).action == 0
    rows = [ChildStats(0, 5, 0.0, LOSS), ChildStats(1, 9, 0.0, LOSS)]
    assert best_child(rows).action == 1
    with pytest.raises(ValueError):
        best_child([])
