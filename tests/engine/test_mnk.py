"""m,n,k rules: wins and the exact-k rule, keys, bad moves and parameters, notation, presets (perft, the
kernels against the reference and undo for every placement game: test_placement_games.py)."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.engine import IllegalMove, MoveFormatError, ParamError, create_game
from arbiter.engine.base import STATUS_DRAW, STATUS_ONGOING, STATUS_WIN0, STATUS_WIN1, State


def test_transposed_move_orders_share_a_key() -> None:
    game = create_game("gomoku")
    a, b = game.new_state(), game.new_state()
    for move in [(7, 7), (8, 8), (6, 6), (9, 9)]:
        a.play(move)
    for move in [(6, 6), (9, 9), (7, 7), (8, 8)]:
        b.play(move)
    assert a.key() == b.key()
    b.undo()
    assert a.key() != b.key()


def test_wins_in_every_direction_and_overlines() -> None:
    for line in (
        [(x, 3) for x in range(5)],
        [(3, y) for y in range(5)],
        [(i, i) for i in range(5)],
        [(i, 6 - i) for i in range(5)],
    ):
        state = create_game("gomoku10").new_state()
        filler = iter((x, 9) for x in range(10))
        for move in line:
            state.play(move)
            if not state.is_terminal:
                state.play(next(filler))
        assert state.status == STATUS_WIN0
        assert state.outcome is not None and state.outcome.reason == "line"


def _play_line_with_gap_filled_last(exact: bool) -> int:
    """Black builds xxxx_x on row 0 then fills the gap: a six, which wins only without ``exact``."""
    state = create_game("gomoku", {"exact": exact}).new_state()
    for black, white in zip(
        [(0, 0), (1, 0), (2, 0), (3, 0), (5, 0)], [(0, 5), (2, 5), (4, 5), (6, 5), (8, 5)], strict=True
    ):
        state.play(black)
        state.play(white)
    state.play((4, 0))
    return state.status


def test_exact_five_overline_does_not_win() -> None:
    assert _play_line_with_gap_filled_last(exact=False) == STATUS_WIN0
    assert _play_line_with_gap_filled_last(exact=True) == STATUS_ONGOING


def test_full_board_is_a_draw() -> None:
    state = create_game("tictactoe").new_state()
    for move in [(0, 0), (1, 1), (2, 2), (0, 1), (2, 1), (2, 0), (0, 2), (1, 2), (1, 0)]:
        state.play(move)
    assert state.status == STATUS_DRAW
    assert state.outcome is not None and state.outcome.result == "1/2-1/2"


def test_second_player_win() -> None:
    state = create_game("tictactoe").new_state()
    for move in [(0, 0), (1, 0), (2, 2), (1, 1), (0, 2), (1, 2)]:
        state.play(move)
    assert state.status == STATUS_WIN1


def test_illegal_moves_leave_the_state_unchanged() -> None:
    state = create_game("tictactoe").new_state()
    state.play((1, 1))
    before = state.s.copy()
    with pytest.raises(IllegalMove):
        state.play((1, 1))
    with pytest.raises(MoveFormatError):
        state.play((3, 0))
    with pytest.raises(MoveFormatError):
        create_game("tictactoe").decode_move([1, "a"])
    assert np.array_equal(state.s, before)
    for move in [(0, 0), (1, 0), (2, 2), (1, 2)]:
        state.play(move)
    assert state.is_terminal
    with pytest.raises(IllegalMove):
        state.play((2, 2))


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("mnk", {"m": 3, "n": 3, "k": 4}, "larger than the board"),
        ("mnk", {"m": 0}, "at least 1"),
        ("mnk", {"size": 3}, "unknown parameter"),
        ("mnk", {"exact": "maybe"}, "true or false"),
        ("tictactoe", {"m": 4}, "fixes m=3"),
        ("checkers", {}, "unknown game"),
    ],
)
def test_bad_parameters_are_named(name: str, params: dict, message: str) -> None:
    with pytest.raises(ParamError, match=message):
        create_game(name, params)


def test_text_notation_round_trips() -> None:
    game = create_game("gomoku")
    assert game.move_to_text((7, 7)) == "h8"
    assert game.move_from_text("h8") == (7, 7)
    with pytest.raises(MoveFormatError):
        game.move_from_text("z99")
    with pytest.raises(MoveFormatError):
        game.move_from_text("8h")


def test_encode_decode_state_replays_the_position() -> None:
    from arbiter.engine import decode_state

    state = create_game("gomoku", {"exact": True}).new_state()
    for move in [(7, 7), (7, 8), (8, 8)]:
        state.play(move)
    copy = decode_state(state.encode())
    assert np.array_equal(copy.s, state.s)
    assert copy.game == state.game


def test_a_preset_accepts_its_own_fixed_values_in_any_spelling() -> None:
    assert create_game("tictactoe", {"m": "3", "k": 3}).params["m"] == 3
    assert create_game("qubic", {"n": "4"}).params["n"] == 4


WIRE_VALUES = st.one_of(
    st.lists(st.integers(-2, 6), min_size=2, max_size=2),
    st.lists(st.integers(-2, 6), max_size=3),
    st.tuples(st.integers(0, 4), st.integers(0, 4)),
    st.lists(st.one_of(st.booleans(), st.text(max_size=1), st.floats(0, 4), st.none()), min_size=2, max_size=2),
    st.integers(),
    st.none(),
)


def general_play_wire(state: State, wire: object) -> list[int]:
    """The base class's path, for comparison."""
    move = state.game.decode_move(wire)
    state.play(move)
    return state.game.encode_move(move)


@settings(max_examples=300, deadline=None)
@given(
    prefix=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3)), max_size=14),
    wires=st.lists(WIRE_VALUES, max_size=6),
)
def test_the_servers_lean_move_path_agrees_with_the_general_one(prefix: list, wires: list) -> None:
    """MnkState.play_wire (the server's one call per move) answers as decode + play + encode would:
    the same wire value back, or the same error with the state unchanged; undo works after it."""
    game = create_game("mnk", {"m": 5, "n": 4, "k": 3})
    lean, general = game.new_state(), game.new_state()
    for cell in prefix:
        for state in (lean, general):
            with contextlib.suppress(IllegalMove):
                state.play(cell)
    for wire in wires:
        outcomes = []
        for state, play in ((lean, type(lean).play_wire), (general, general_play_wire)):
            try:
                outcomes.append(("ok", play(state, wire)))
            except (IllegalMove, MoveFormatError) as error:
                outcomes.append((type(error).__name__, None))
        assert outcomes[0] == outcomes[1]
        assert np.array_equal(lean.s, general.s)
    while lean.ply:
        lean.undo()
    assert not lean.s.any()
