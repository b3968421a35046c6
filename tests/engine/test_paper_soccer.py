"""Paper soccer rules: kernels against the reference, perft tables, and every edge of the field.

Small fields keep the constructions short: on the 4x4 field the ball starts on (2, 2), the posts
are (1, 0), (3, 0), (1, 4), (3, 4), and the goal points are x = 1..3 at y = -1 and y = 5.
Directions: 0 N, 1 NE, 2 E, 3 SE, 4 S, 5 SW, 6 W, 7 NW (north is y - 1).
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.engine import IllegalMove, MoveFormatError, ParamError, create_game, decode_state
from arbiter.engine import paper_soccer as soccer
from arbiter.engine.base import (
    REASON,
    REASON_GOAL,
    REASON_NONE,
    REASON_STUCK,
    STATUS_DRAW,
    STATUS_ONGOING,
    STATUS_WIN0,
    STATUS_WIN1,
)
from arbiter.engine.perft import perft
from arbiter.engine.reference import reference_state

# Step-level perft (a bounce step counts as one move), computed with the pure-Python reference
# (2.5 minutes for the deepest entry) and frozen; the engine agreed at every depth.
DEFAULT_PERFT = [8, 56, 392, 2720, 17846, 113442, 704404, 4290384, 25780632]
SMALL_PERFT = [8, 56, 270, 1256, 5948, 27552, 123984, 548488, 2380608, 10083992]

PARAM_SETS = [
    {},
    {"width": 4, "length": 4},
    {"width": 6, "length": 8},
    {"stuck": "draw"},
    {"width": 4, "length": 6, "stuck": "draw"},
]


def new(**params) -> soccer.PaperSoccerState:
    return create_game("paper_soccer", params).new_state()


def small(**params) -> soccer.PaperSoccerState:
    return new(width=4, length=4, **params)


def steps(state: soccer.PaperSoccerState, digits: str) -> None:
    """Play single steps (no turn structure), checking each is legal."""
    for digit in digits:
        state.play_action(int(digit))


def turn(state: soccer.PaperSoccerState, digits: str) -> None:
    state.play(state.game.move_from_text(digits))


def legal(state: soccer.PaperSoccerState) -> list[int]:
    return state.legal_actions().tolist()


def clone(reference):
    twin = copy.copy(reference)
    twin.lines = set(reference.lines)
    return twin


def reference_perft(reference, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for step in reference.legal_actions():
        child = clone(reference)
        child.play(step)
        total += reference_perft(child, depth - 1)
    return total


def reference_turns(reference) -> list[tuple[int, ...]]:
    """Every complete turn from ``reference``, depth first in direction order."""
    mover = reference.to_move
    found: list[tuple[int, ...]] = []

    def walk(position, path: tuple[int, ...]) -> None:
        for step in position.legal_actions():
            child = clone(position)
            child.play(step)
            if child.status != STATUS_ONGOING or child.to_move != mover:
                found.append((*path, step))
            else:
                walk(child, (*path, step))

    walk(reference, ())
    return found


# --- against the reference -------------------------------------------------------------------------
@settings(max_examples=100, derandomize=True, deadline=None)
@given(params=st.sampled_from(PARAM_SETS), seed=st.integers(0, 2**32 - 1))
def test_kernels_match_reference_step_by_step(params: dict, seed: int) -> None:
    game = create_game("paper_soccer", params)
    state, reference = game.new_state(), reference_state(game)
    rng = random.Random(seed)
    while True:
        assert legal(state) == reference.legal_actions()
        assert (state.to_move, state.status, int(state.s[REASON])) == (
            reference.to_move,
            reference.status,
            reference.reason,
        )
        assert state.ball == reference.ball
        if reference.status != STATUS_ONGOING:
            break
        step = rng.choice(reference.legal_actions())
        state.play_action(step)
        reference.play(step)


@settings(max_examples=25, derandomize=True, deadline=None)
@given(params=st.sampled_from(PARAM_SETS), seed=st.integers(0, 2**32 - 1))
def test_undo_restores_the_array_exactly(params: dict, seed: int) -> None:
    state = new(**params)
    rng = random.Random(seed)
    snapshots = [state.s.copy()]
    while not state.is_terminal:
        state.play_action(rng.choice(legal(state)))
        snapshots.append(state.s.copy())
    for snapshot in reversed(snapshots[:-1]):
        state.undo_action()
        assert np.array_equal(state.s, snapshot)


@settings(max_examples=15, derandomize=True, deadline=None)
@given(params=st.sampled_from(PARAM_SETS[:3]), seed=st.integers(0, 2**32 - 1), depth=st.integers(0, 12))
def test_legal_turns_match_the_reference(params: dict, seed: int, depth: int) -> None:
    game = create_game("paper_soccer", params)
    state, reference = game.new_state(), reference_state(game)
    rng = random.Random(seed)
    for _ in range(depth):
        if state.is_terminal:
            break
        step = rng.choice(legal(state))
        state.play_action(step)
        reference.play(step)
    before = state.s.copy()
    turns = state.legal_turns(100_000)
    assert np.array_equal(state.s, before)
    assert turns == ([] if state.is_terminal else reference_turns(reference))
    for move in turns[:50]:  # every listed turn is a move play() accepts
        child = state.copy()
        child.play(move)


@pytest.mark.parametrize(("params", "table"), [({}, DEFAULT_PERFT), ({"width": 4, "length": 4}, SMALL_PERFT)])
def test_perft_tables(params: dict, table: list[int]) -> None:
    state = new(**params)
    assert [perft(state, depth) for depth in range(1, len(table) + 1)] == table


def test_reference_agrees_with_the_frozen_tables() -> None:
    assert [reference_perft(reference_state(create_game("paper_soccer")), d) for d in range(1, 6)] == DEFAULT_PERFT[:5]
    small_game = create_game("paper_soccer", {"width": 4, "length": 4})
    assert [reference_perft(reference_state(small_game), d) for d in range(1, 7)] == SMALL_PERFT[:6]


# --- the field's edges -----------------------------------------------------------------------------
def test_start_position() -> None:
    state = new()
    assert state.ball == (4, 5)
    assert (state.to_move, state.status, state.ply) == (0, STATUS_ONGOING, 0)
    assert legal(state) == list(range(8))
    assert not state.touched((4, 5)) and state.touched((0, 3)) and state.touched((3, 0))
    assert not state.touched((4, 0)), "the middle of the goal line carries no pre-drawn line"


def test_bounce_off_the_border_and_no_step_along_it() -> None:
    state = small()
    turn(state, "6")  # (1, 2): untouched, the turn passes
    assert state.to_move == 1
    steps(state, "6")  # (0, 2): a border point bounces
    assert (state.ball, state.to_move) == ((0, 2), 1)
    assert legal(state) == [1, 3], "N and S run along the border, W leaves the field, E is drawn"
    steps(state, "1")  # (1, 1): untouched
    assert state.to_move == 0
    assert state.moves() == [(6,), (6, 1)]


def test_bounce_off_a_point_touched_by_an_earlier_line() -> None:
    state = small()
    turn(state, "0")  # (2, 1)
    turn(state, "2")  # (3, 1)
    steps(state, "5")  # back to the centre, touched by the first line
    assert (state.ball, state.to_move) == ((2, 2), 0)
    steps(state, "6")
    assert (state.ball, state.to_move) == ((1, 2), 1)


def test_crossing_a_drawn_diagonal_is_allowed_and_does_not_bounce() -> None:
    state = small()
    turn(state, "1")  # (3, 1)
    turn(state, "6")  # (2, 1)
    turn(state, "3")  # (3, 2), crossing the first line (2, 2)-(3, 1)
    assert (state.ball, state.to_move) == ((3, 2), 1)


@pytest.mark.parametrize(
    ("setup", "post", "expected"),
    [
        ("07", (1, 0), [1, 2, 4, 5]),  # N runs along the wall, NW leaves, W is border, SE drawn
        ("01", (3, 0), [4, 3, 6, 7]),
        ("45", (1, 4), [0, 7, 2, 3]),
        ("43", (3, 4), [0, 1, 5, 6]),
    ],
)
def test_posts_allow_the_mouth_but_not_the_wall(setup: str, post: tuple[int, int], expected: list[int]) -> None:
    state = small()
    turn(state, setup[0])
    steps(state, setup[1])  # onto the post: a bounce
    assert (state.ball, state.to_move) == (post, 1)
    assert legal(state) == sorted(expected)


def test_along_the_open_goal_line_between_the_posts() -> None:
    state = small()
    turn(state, "0")
    turn(state, "72")  # (1, 0) post, bounce, then E along the mouth to (2, 0): untouched
    assert (state.ball, state.to_move) == ((2, 0), 0)
    assert legal(state) == [0, 1, 2, 3, 4, 5, 7]  # only W, the way it came, is drawn


@pytest.mark.parametrize(("beside", "into_corner"), [((1, 0), 1), ((5, 0), 7), ((1, 4), 3), ((5, 4), 5)])
def test_no_diagonal_from_beside_a_post_into_the_goal_corner(beside: tuple[int, int], into_corner: int) -> None:
    state = new(width=6, length=4)  # centre (3, 2), posts at x = 2 and 4
    toward = {(1, 0): "7", (5, 0): "1", (1, 4): "5", (5, 4): "3"}[beside]
    turn(state, toward)
    steps(state, toward)  # onto the goal line beside the post: a border point, bounce
    assert (state.ball, state.to_move) == (beside, 1)
    assert into_corner not in legal(state)
    before = state.s.copy()
    with pytest.raises(IllegalMove, match="outside the mouth"):
        state.play((into_corner,))
    assert np.array_equal(state.s, before)


@pytest.mark.parametrize(("corner", "steps_in"), [((0, 0), "77"), ((4, 0), "11"), ((4, 4), "33"), ((0, 4), "55")])
@pytest.mark.parametrize(("rule", "status"), [("lose", STATUS_WIN0), ("draw", STATUS_DRAW)])
def test_a_ball_kicked_into_a_corner_is_stuck(corner: tuple[int, int], steps_in: str, rule: str, status: int) -> None:
    state = small(stuck=rule)
    turn(state, steps_in[0])  # the first player to the diagonal next to the corner
    turn(state, steps_in[1])  # the second into the corner: bounce, and the only way out is drawn
    assert state.ball == corner
    assert (state.status, int(state.s[REASON]), state.to_move) == (status, REASON_STUCK, 1)
    assert state.outcome is not None and state.outcome.reason == "stuck"
    assert state.moves() == [(int(steps_in[0]),), (int(steps_in[1]),)]
    with pytest.raises(IllegalMove):
        state.play((3,))


# --- goals -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("setup", "kick", "kicker", "status"),
    [
        ("00", 0, 0, STATUS_WIN0),  # from the middle of the north goal line, straight
        ("00", 1, 0, STATUS_WIN0),  # ... and both diagonals
        ("00", 7, 0, STATUS_WIN0),
        ("727", 1, 0, STATUS_WIN0),  # from the west post (bounce) diagonally into the middle
        ("161", 7, 0, STATUS_WIN0),  # from the east post
        ("425", 4, 1, STATUS_WIN1),  # south goal, middle point, straight and diagonal
        ("425", 3, 1, STATUS_WIN1),
        ("425", 5, 1, STATUS_WIN1),
        ("54", 3, 1, STATUS_WIN1),  # from the south-west post
        ("34", 5, 1, STATUS_WIN1),  # from the south-east post
        ("07", 1, 1, STATUS_WIN0),  # own goal: the second player into the north goal
        ("44", 4, 0, STATUS_WIN1),  # own goal: the first player into the south goal
    ],
)
def test_goals_from_every_goal_line_point(setup: str, kick: int, kicker: int, status: int) -> None:
    state = small()
    steps(state, setup)
    assert state.to_move == kicker
    steps(state, str(kick))
    assert (state.status, int(state.s[REASON])) == (status, REASON_GOAL)
    assert state.to_move == kicker, "a goal ends the game without passing the turn"
    assert state.ball[1] in (-1, 5)
    assert state.legal_actions().size == 0


def test_goal_on_the_default_field_and_replay() -> None:
    state = new()
    for digits in ["0", "0", "0", "0", "0"]:
        turn(state, digits)
    assert (state.ball, state.to_move) == ((4, 0), 1)
    turn(state, "0")  # the second player puts it into the first player's target: own goal
    assert state.outcome is not None and (state.outcome.winner, state.outcome.reason) == (0, "goal")
    replayed = decode_state(state.encode())
    assert np.array_equal(replayed.s, state.s)


# --- turns -----------------------------------------------------------------------------------------
LONG_TURN_SETUP = ["0", "0", "0", "0", "2", "2", "5", "66", "7", "6"]
LONG_TURN = "6131313135"  # (0,1) (1,0) (2,1) (3,0) (4,1) (5,0) (6,1) (7,0) (8,1): all bounce; (7,2) ends it


def test_a_turn_of_ten_steps() -> None:
    state = new()
    for digits in LONG_TURN_SETUP:
        turn(state, digits)
    p, s = state.game.param_array, state.s
    assert (state.ball, state.to_move) == ((1, 1), 0)
    assert soccer.turn_complete(p, s)
    for index, digit in enumerate(LONG_TURN[:-1]):
        steps(state, digit)
        assert state.to_move == 0, f"step {index + 1} bounces"
        assert not soccer.turn_complete(p, s)
        assert soccer.steps_in_turn(p, s) == index + 1
    assert state.ball == (8, 1)
    steps(state, LONG_TURN[-1])
    assert (state.ball, state.to_move) == ((7, 2), 1)
    assert soccer.turn_complete(p, s) and soccer.steps_in_turn(p, s) == 0
    assert state.moves()[-1] == tuple(int(d) for d in LONG_TURN)
    # the same turn as one move, then undone as one move
    other = new()
    for digits in [*LONG_TURN_SETUP, LONG_TURN]:
        turn(other, digits)
    assert np.array_equal(other.s, state.s)
    other.undo()
    assert (other.ball, other.to_move) == ((1, 1), 0)
    assert other.game.move_to_text(other.moves()[-1]) == "6"


def test_kernel_helpers_read_the_position() -> None:
    state = small()
    p, s = state.game.param_array, state.s
    assert tuple(soccer.ball_xy(p, s)) == (2, 2)
    assert (soccer.goal_distance(p, s, 0), soccer.goal_distance(p, s, 1)) == (3, 3)
    assert soccer.legal_mask(p, s) == 0xFF
    steps(state, "0")
    assert (soccer.goal_distance(p, s, 0), soccer.goal_distance(p, s, 1)) == (2, 4)
    assert soccer.is_touched(p, s, 2, 2) and soccer.is_touched(p, s, 2, 1) and not soccer.is_touched(p, s, 3, 1)
    assert soccer.legal_mask(p, s) == 0xFF & ~(1 << 4)


@pytest.mark.parametrize(
    ("setup", "bad_turn", "message"),
    [
        ("0", "7", "incomplete turn"),  # bounces on the post and stops
        ("0", "25", "goes on after it ended"),  # E passes the turn at once
        ("00", "04", "goes on after it ended"),  # a goal ends the game
        ("0", "4", "already drawn"),
        ("6", "60", "along the border"),
        ("6", "66", "leaves the field"),
        ("0", "70", "along the border or a goal wall"),
    ],
)
def test_illegal_turns_leave_the_state_unchanged(setup: str, bad_turn: str, message: str) -> None:
    state = small()
    for digits in setup:
        turn(state, digits)
    before, moves_before = state.s.copy(), state.moves()
    with pytest.raises(IllegalMove, match=message):
        turn(state, bad_turn)
    assert np.array_equal(state.s, before)
    assert state.moves() == moves_before


@pytest.mark.parametrize("wire", [[], [8], [0, -1], [True], ["0"], "01", None, [0] * 71])
def test_malformed_turns_are_format_errors(wire: object) -> None:
    game = create_game("paper_soccer", {"width": 4, "length": 4})
    assert game.max_steps == 70
    with pytest.raises(MoveFormatError):
        game.decode_move(wire)


def test_text_notation() -> None:
    game = create_game("paper_soccer")
    assert game.move_from_text(" 0312 ") == (0, 3, 1, 2)
    assert game.move_to_text((6, 1, 3)) == "613"
    for text in ["", "8", "0 1", "N"]:
        with pytest.raises(MoveFormatError):
            game.move_from_text(text)


def test_transposed_step_orders_share_a_key() -> None:
    a, b = small(), small()
    turn(a, "0")
    turn(a, "2")
    steps(a, "5")  # triangle centre -> (2, 1) -> (3, 1) -> centre
    turn(b, "1")
    turn(b, "6")
    steps(b, "4")  # the same triangle the other way round
    assert (a.ball, a.to_move, b.ball, b.to_move) == ((2, 2), 0, (2, 2), 0)
    assert a.key() == b.key()
    keys = {a.key()}
    for _ in range(3):
        a.undo_action()
        keys.add(a.key())
    assert len(keys) == 4 and a.key() == small().key()


def test_legal_moves_refuse_to_list_too_many_turns(monkeypatch: pytest.MonkeyPatch) -> None:
    state = new()
    for digits in LONG_TURN_SETUP:
        turn(state, digits)
    turns = state.legal_turns(100_000)
    assert len(turns) == 1531 and state.legal_moves() == turns
    assert state.legal_turns(10) == turns[:10]
    monkeypatch.setattr(soccer, "MOVE_LIST_LIMIT", 1000)
    with pytest.raises(soccer.TooManyTurns, match="legal_turns"):
        state.legal_moves()


def test_start_turns_are_the_eight_single_steps() -> None:
    assert new().legal_moves() == [(d,) for d in range(8)]


def test_diagram() -> None:
    state = small()
    turn(state, "0")
    turn(state, "72")
    assert state.diagram() == "\n".join(
        [
            "north goal: player 0 scores here",
            "  + . +",
            "  |   |",
            "+-+-@ +-+",
            "|  \\    |",
            "+ . + . +",
            "|   |   |",
            "+ . + . +",
            "|       |",
            "+ . . . +",
            "|       |",
            "+-+ . +-+",
            "  |   |",
            "  + . +",
            "south goal: player 1 scores here",
            "ball on (2, 0), player 0 to step",
        ]
    )
    steps(state, "0")
    assert state.diagram().splitlines()[-1] == "game over: 1-0 (goal)"


# --- parameters ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "params",
    [{"width": 5}, {"length": 7}, {"width": 2}, {"length": 2}, {"width": 32}, {"stuck": "maybe"}, {"goals": 2}],
)
def test_bad_parameters_are_refused(params: dict) -> None:
    with pytest.raises(ParamError):
        create_game("paper_soccer", params)


def test_parameters_reach_the_kernels() -> None:
    game = create_game("paper_soccer", {"width": "6", "length": "8", "stuck": "draw"})
    assert game.param_array.tolist() == [6, 8, 1]
    assert new().status == STATUS_ONGOING and int(new().s[REASON]) == REASON_NONE
    assert {STATUS_WIN0, STATUS_WIN1} == {1, 2}
