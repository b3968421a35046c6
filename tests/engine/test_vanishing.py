"""Vanishing tic-tac-toe: kernels against the reference, the vanishing rule, the draw rules, exact
position keys, and the seed's claim about the openings checked by exhaustive search (perft: test_placement_games.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from arbiter.engine import IllegalMove, MoveFormatError, ParamError, create_game
from arbiter.engine import vanishing as kernels
from arbiter.engine.base import (
    HASH,
    PLY,
    REASON,
    REASON_LINE,
    REASON_MOVE_LIMIT,
    REASON_REPETITION,
    STATUS,
    STATUS_DRAW,
    STATUS_ONGOING,
    STATUS_WIN0,
    TO_MOVE,
)
from arbiter.engine.ops import playouts
from arbiter.engine.reference import reference_state

# Six stones, the first player to move (the perft tables start from it too: test_placement_games.py).
MID_MOVES = [(1, 1), (0, 0), (2, 0), (0, 2), (0, 1), (2, 1)]
# Eight cells played in a loop: neither player's four cells hold a line, so the same six stones in
# the same age order come back every eight plies.
CYCLE = [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1), (1, 2), (0, 2)]

PARAM_SETS = [{}, {"ply_limit": 30, "repetition": 2}, {"ply_limit": 12, "repetition": 0}, {"repetition": 4}]


def play_moves(state, moves) -> None:
    for move in moves:
        state.play(move)


def choose(state, choice: int) -> int:
    """Pick a legal action; choice 3 replays the cell of eight plies ago, which tends to loop."""
    legal = [int(a) for a in state.legal_actions()]
    if choice == 3 and state.ply >= 8:
        looping = state._move_to_actions(state.moves()[state.ply - 8])[0]
        if looping in legal:
            return looping
    return legal[choice % len(legal)]


@settings(max_examples=150, derandomize=True, deadline=None)
@given(params=st.sampled_from(PARAM_SETS), pattern=st.lists(st.integers(0, 3), min_size=1, max_size=30))
def test_kernels_match_reference_and_keys_identify_positions(params: dict, pattern: list[int]) -> None:
    """Whole games, each ply choosing by the pattern read in a loop (loops in play come naturally)."""
    game = create_game("vanishing", params)
    state, reference = game.new_state(), reference_state(game)
    key_of: dict[tuple, int] = {}
    position_of: dict[int, tuple] = {}
    while True:
        assert list(state.legal_actions()) == reference.legal_actions()
        assert (state.to_move, state.status, int(state.s[REASON])) == (
            reference.to_move,
            reference.status,
            reference.reason,
        )
        position = reference.position()
        assert key_of.setdefault(position, state.key()) == state.key()
        assert position_of.setdefault(state.key(), position) == position
        if reference.status != STATUS_ONGOING:
            break
        action = choose(state, pattern[state.ply % len(pattern)])
        state.play(state._action_to_move(action))
        reference.play(action)


@settings(max_examples=60, derandomize=True, deadline=None)
@given(params=st.sampled_from(PARAM_SETS), choices=st.lists(st.integers(0, 3), max_size=80))
def test_undo_restores_the_array_exactly(params: dict, choices: list[int]) -> None:
    state = create_game("vanishing", params).new_state()
    snapshots = [state.s.copy()]
    for choice in choices:
        if state.is_terminal:
            break
        state.play(state._action_to_move(choose(state, choice)))
        snapshots.append(state.s.copy())
    for snapshot in reversed(snapshots[:-1]):
        state.undo()
        assert np.array_equal(state.s, snapshot)
    assert not state.s.any()


def test_the_stone_about_to_vanish_still_blocks_its_square() -> None:
    state = create_game("vanishing").new_state()
    play_moves(state, MID_MOVES)
    assert state.next_to_vanish() == 4  # the first stone, b2
    assert list(state.legal_actions()) == [1, 7, 8]
    before = state.s.copy()
    with pytest.raises(IllegalMove):
        state.play((1, 1))
    assert np.array_equal(state.s, before)
    state.play((1, 0))
    assert state.board().tolist() == [[2, 1, 1], [1, 0, 2], [2, 0, 0]]
    assert state.next_to_vanish() == 0  # now the second player's oldest, a1


def test_a_line_through_the_vanished_stone_does_not_count() -> None:
    moves = [(0, 0), (1, 1), (1, 0), (2, 2), (0, 2), (1, 2), (2, 0)]  # the last fills row a1 b1 c1
    vanishing = create_game("vanishing").new_state()
    play_moves(vanishing, moves)
    assert vanishing.status == STATUS_ONGOING
    assert vanishing.board()[0].tolist() == [0, 1, 1]
    tictactoe = create_game("tictactoe").new_state()
    play_moves(tictactoe, moves)
    assert tictactoe.status == STATUS_WIN0


def test_a_line_after_a_vanishing_wins() -> None:
    state = create_game("vanishing").new_state()
    play_moves(state, [(0, 0), (1, 1), (1, 0), (2, 2), (0, 2), (1, 2), (2, 0), (0, 1)])
    assert state.status == STATUS_ONGOING
    state.play((1, 1))  # b2 was the second player's, freed by its fourth stone; b1 vanishes now
    assert (state.status, int(state.s[REASON])) == (STATUS_WIN0, REASON_LINE)
    assert state.board().tolist() == [[0, 0, 1], [2, 1, 0], [1, 2, 2]]


@pytest.mark.parametrize(("repetition", "draw_ply"), [(2, 14), (3, 22), (4, 30)])
def test_repetition_draws_on_the_nth_occurrence(repetition: int, draw_ply: int) -> None:
    state = create_game("vanishing", {"repetition": repetition}).new_state()
    first_six_stones = None
    for ply in range(draw_ply):
        assert state.status == STATUS_ONGOING
        if ply == 6:
            first_six_stones = state.key()
        state.play(CYCLE[ply % 8])
    assert state.status == STATUS_DRAW
    assert state.outcome is not None and state.outcome.reason == "repetition"
    assert state.key() == first_six_stones  # the position after ply 6, for the n-th time


def test_without_repetition_the_ply_limit_ends_the_loop() -> None:
    state = create_game("vanishing", {"repetition": 0, "ply_limit": 40}).new_state()
    for ply in range(40):
        assert state.status == STATUS_ONGOING
        state.play(CYCLE[ply % 8])
    assert (state.status, int(state.s[REASON])) == (STATUS_DRAW, REASON_MOVE_LIMIT)
    assert list(state.legal_actions()) == []


def test_ply_limit_draws_but_a_line_on_the_last_ply_still_wins() -> None:
    state = create_game("vanishing", {"ply_limit": 5}).new_state()
    play_moves(state, [(0, 0), (0, 1), (1, 0), (1, 1), (2, 2)])
    assert (state.status, int(state.s[REASON])) == (STATUS_DRAW, REASON_MOVE_LIMIT)
    state.undo()
    state.play((2, 0))
    assert (state.status, int(state.s[REASON])) == (STATUS_WIN0, REASON_LINE)


def test_age_order_is_part_of_the_key() -> None:
    game = create_game("vanishing")
    a, b = game.new_state(), game.new_state()
    play_moves(a, [(0, 0), (1, 1), (2, 2)])
    play_moves(b, [(2, 2), (1, 1), (0, 0)])
    assert (a.board() == b.board()).all()
    assert a.key() != b.key()  # the same stones, but a different one vanishes first
    c = game.new_state()
    play_moves(c, CYCLE[:6])
    d = c.copy()
    play_moves(d, CYCLE[6:] + CYCLE[:6])
    assert d.ply == 14 and d.key() == c.key()
    play_moves(d, CYCLE[6:7])
    assert d.key() != c.key()


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"ply_limit": -1}, "at least 1"),
        ({"ply_limit": 0}, "at least 1"),
        ({"ply_limit": 10**6}, "at most"),
        ({"repetition": 1}, "repetition=1"),
        ({"repetition": -2}, "at least 0"),
        ({"size": 4}, "unknown parameter"),
        ({"ply_limit": "many"}, "integer"),
    ],
)
def test_bad_parameters_are_refused(params: dict, message: str) -> None:
    with pytest.raises(ParamError, match=message):
        create_game("vanishing", params)


def test_moves_use_the_mnk_cells_and_notation() -> None:
    game = create_game("vanishing")
    assert game.move_to_text((2, 0)) == "c1"
    assert game.move_from_text("b3") == (1, 2)
    for bad in ("d1", "a4", "1a", ""):
        with pytest.raises(MoveFormatError):
            game.move_from_text(bad)
    with pytest.raises(MoveFormatError):
        game.decode_move([3, 0])


def test_diagram_marks_the_stone_that_vanishes_next() -> None:
    state = create_game("vanishing").new_state()
    play_moves(state, MID_MOVES)
    assert state.diagram() == "    a b c\n  1 O . X\n  2 X x O\n  3 O . ."


def test_kernel_playouts_end_every_game() -> None:
    for params in PARAM_SETS:
        game = create_game("vanishing", params)
        start = game.new_state().s
        tally = playouts(game.gid, game.param_array, start, 2000, np.empty_like(start), np.empty(9, np.int64), 7)
        assert tally.sum() == 2000
        assert tally[0] > tally[1] > 0  # random play still favours the first player
        assert not start.any()


@njit
def seeded_playout(p, s, free, seed):
    np.random.seed(seed)
    return kernels.playout(p, s, free)


@njit
def seeded_playout_through_play(p, s, free, seed):
    """The plain playout the fast one replaces: the same random draws from the same free-cell list
    (a stone takes a free cell's slot, the stone that vanishes gives it back), each ply by ``play``."""
    np.random.seed(seed)
    count = kernels.legal(p, s, free)
    while s[STATUS] == STATUS_ONGOING:
        i = np.random.randint(0, count)
        ply = s[PLY]
        vanishing = s[kernels.STACK + ply - kernels.STANDING] if ply >= kernels.STANDING else -1
        kernels.play(p, s, free[i])
        if vanishing >= 0:
            free[i] = vanishing
        else:
            count -= 1
            free[i] = free[count]
    return s[STATUS]


PLAYOUT_PARAM_SETS = [*PARAM_SETS, {"ply_limit": 16, "repetition": 2}, {"ply_limit": 1}, {"ply_limit": 7}]


def playout_starts(game, rng: np.random.Generator, count: int) -> list:
    """The start, MID_MOVES, one ply before each of the first repetitions of CYCLE (a third of
    the playouts from there complete it), and random positions up to 40 plies in."""
    starts = [game.new_state()]
    for moves in (MID_MOVES, [CYCLE[ply % 8] for ply in range(13)], [CYCLE[ply % 8] for ply in range(21)]):
        state = game.new_state()
        for move in moves:
            if not state.is_terminal:
                state.play(move)
        if not state.is_terminal:
            starts.append(state)
    while len(starts) < count:
        state = game.new_state()
        for _ in range(rng.integers(0, 40)):
            if state.is_terminal:
                break
            state.play_action(int(rng.choice(state.legal_actions())))
        starts.append(state)
    return starts


def test_fast_playout_leaves_the_state_play_leaves_and_draws_the_same_moves() -> None:
    """From many positions and seeds, the fast playout's final array equals (1) replaying its moves
    (read from the array's move stack) through ``State.play_action`` from the same position, (2) the
    play-based playout with the same random draws; and the reference rules agree on the outcome."""
    rng = np.random.default_rng(11)
    free = np.empty(9, dtype=np.int64)
    reasons = set()
    for params in PLAYOUT_PARAM_SETS:
        game = create_game("vanishing", params)
        p = game.param_array
        for start in playout_starts(game, rng, 12):
            for seed in range(40):
                fast = start.s.copy()
                status = seeded_playout(p, fast, free, seed)
                slow = start.s.copy()
                assert seeded_playout_through_play(p, slow, free, seed) == status
                assert np.array_equal(fast, slow)
                replay, reference = start.copy(), reference_state(game)
                for ply, action in enumerate(fast[kernels.STACK : kernels.STACK + fast[PLY]].tolist()):
                    if ply >= start.ply:
                        replay.play_action(action)
                    reference.play(action)
                assert np.array_equal(replay.s, fast)
                assert (reference.status, reference.reason) == (status, int(fast[REASON]))
                reasons.add(int(fast[REASON]))
    assert reasons >= {REASON_LINE, REASON_REPETITION, REASON_MOVE_LIMIT}


@njit
def compare_playouts(p, start, seeds, free):
    """Seeds 0 .. seeds-1 through both playouts from ``start``: [final arrays that differ, then
    the number of games that ended for each reason]."""
    out = np.zeros(8, dtype=np.int64)
    for seed in range(seeds):
        fast = start.copy()
        seeded_playout(p, fast, free, seed)
        slow = start.copy()
        seeded_playout_through_play(p, slow, free, seed)
        out[0] += not (fast == slow).all()
        out[1 + fast[REASON]] += 1
    return out


@pytest.mark.parametrize(
    ("params", "cycle_plies"),
    [({}, 0), ({"repetition": 2}, 0), ({"repetition": 2}, 6), ({"repetition": 2}, 7), ({"repetition": 4}, 13)],
)
def test_fast_playout_equals_play_based_playout_over_many_seeds(params: dict, cycle_plies: int) -> None:
    """Many more seeds than above, from the start and a few plies into CYCLE, so that games that end
    by repetition are common enough: a position's first occurrence before or during the playout."""
    game = create_game("vanishing", params)
    state = game.new_state()
    play_moves(state, [CYCLE[ply % 8] for ply in range(cycle_plies)])
    tally = compare_playouts(game.param_array, state.s, 30_000, np.empty(9, dtype=np.int64))
    assert tally[0] == 0
    assert tally[1 + REASON_LINE] > 25_000
    if params.get("repetition") == 2:
        assert tally[1 + REASON_REPETITION] > 20  # about 1 game in 500


def solve_from_start() -> tuple[int, dict[int, int]]:
    """Every position reachable from the start, found breadth first through the kernels, and the
    game-theoretic value of each (1 the side to move wins, -1 it loses, 0 neither can force a win,
    i.e. endless play), by retrograde analysis: cycles make a plain recursive search unsound."""
    game = create_game("vanishing", {"ply_limit": 20, "repetition": 0})
    p = game.param_array
    start = game.new_state().s
    children: dict[int, list[int | None]] = {}  # None stands for a move that wins at once
    frontier = [start]
    children[int(start[HASH])] = []
    out = np.empty(9, dtype=np.int64)
    while frontier:
        following = []
        for s in frontier:
            edges = children[int(s[HASH])]
            for action in out[: kernels.legal(p, s, out)].copy():
                child = s.copy()
                kernels.play(p, child, action)
                assert child[STATUS] in (STATUS_ONGOING, s[TO_MOVE] + 1)  # only the mover can win
                if child[STATUS] != STATUS_ONGOING:
                    edges.append(None)
                    continue
                key = int(child[HASH])
                edges.append(key)
                if key not in children:
                    children[key] = []
                    following.append(child)
        frontier = following
    value = {key: 1 for key, edges in children.items() if None in edges}
    parents: dict[int, list[int]] = {key: [] for key in children}
    unresolved = {key: len(edges) for key, edges in children.items()}
    for key, edges in children.items():
        for child in edges:
            if child is not None:
                parents[child].append(key)
    queue = list(value)
    while queue:
        key = queue.pop()
        for parent in parents[key]:
            if parent in value:
                continue
            if value[key] == -1:
                value[parent] = 1
                queue.append(parent)
            else:
                unresolved[parent] -= 1
                if unresolved[parent] == 0:
                    value[parent] = -1
                    queue.append(parent)
    openings = children[int(start[HASH])]  # every cell is legal at the start, in order
    return len(children), {cell: value.get(key, 0) for cell, key in enumerate(openings)}


def test_seed_claim_edge_openings_win_corner_and_centre_draw() -> None:
    positions, after_opening = solve_from_start()
    # The count also shows that keys never collide (two positions sharing one would merge): an
    # independent pure-Python enumeration of positions as stone tuples finds the same number.
    assert positions == 116_074
    # Values are for the side to move after the opening, the second player.
    assert {cell: after_opening[cell] for cell in (1, 3, 5, 7)} == {1: -1, 3: -1, 5: -1, 7: -1}
    assert {cell: after_opening[cell] for cell in (0, 2, 4, 6, 8)} == {0: 0, 2: 0, 4: 0, 6: 0, 8: 0}
