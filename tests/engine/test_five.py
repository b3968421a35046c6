"""Renju and caro: kernels against the reference, perft, hand-checked forbidden points, caro's blocks.

Positions are written in the engine's text notation (column letter, then the row counted from the
top: ``h8`` is the centre of 15×15). Each renju case names the published explanation whose example
it sets out; the explanations draw their examples as pictures, so the coordinates here are ours, a
position that shows the same shape, and every expectation was checked by hand and is checked again
against the reference rules (which reason from RIF's definitions in another way than the kernels).

Sources:
- RIF: The International Rules of Renju (RIF 1996, corrected 1998), renju.net/study/rifrules.php:
  article 3 (three, four, straight four, double-three, double-four, overline), 9.2 and 9.3.
- GF: gomokufive.com/articles/renju-forbidden-moves/ (open and split threes, blocked threes,
  double-four on one line, overline, the five that overrides).
- RIN: renju.in/en/pravila/vvedenie-v-pravila-rendzyu-foly/ (fouls: 4×3 allowed; 4×3×3, 4×4×3
  and every fork of more than two forbidden; the long row).
- SE: cs.stackexchange.com/questions/159169 ("Checking forbidden moves in Renju": a diagonal that
  is no three, one end blocked and the other end's completion an overline).
- LUDII: ludii.games/forums/showthread.php?tid=87 (R. Coulom: ``o.xxx..x`` is no three; a five is
  always legal; whether three stones are a three depends on the legality of the points, recursively).
- BRD: boardoor.com/games/gomoku ("A move that creates exactly five in a row is always legal").
- PISK: Piskvork (Gomocup's manager), source/game.cpp: the caro rule (rules 8 and 9).
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.engine import IllegalMove, ParamError, create_game
from arbiter.engine.base import STATUS_DRAW, STATUS_ONGOING, STATUS_WIN0, STATUS_WIN1
from arbiter.engine.five import FiveState
from arbiter.engine.perft import perft
from arbiter.engine.reference import reference_state

# White's stones that pad a position to black's count: far from every pattern, never five.
FILLERS = ["a15", "c15", "e15", "g15", "i15", "k15", "m15", "o15", "a13", "c13", "e13", "g13", "i13", "k13"]

# (name, source, black, white, point, what the point is for black)
POSITIONS = [
    ("open threes crossing", "RIF 3, 9.3", ["i8", "j8", "h9", "h10"], [], "h8", "double-three"),
    ("diagonal threes crossing", "RIF 3, 9.3", ["i9", "j10", "g9", "f10"], [], "h8", "double-three"),
    ("row and diagonal threes", "RIF 9.3", ["i8", "j8", "i9", "j10"], [], "h8", "double-three"),
    ("split three and open three", "GF 3a", ["i8", "k8", "h9", "h10"], [], "h8", "double-three"),
    ("two split threes", "GF 3a", ["i8", "k8", "h10", "h11"], [], "h8", "double-three"),
    ("split three, the stone joining from the far side", "GF 3a", ["h8", "i8", "k9", "k10"], [], "k8", "double-three"),
    ("diagonal split three and row three", "GF 3a", ["i9", "k11", "i8", "j8"], [], "h8", "double-three"),
    ("three blocked at one end is no three", "GF 3a", ["i8", "j8", "h9", "h10"], ["k8"], "h8", None),
    ("column three blocked at one end", "GF 3a", ["h9", "h10", "i8", "j8"], ["h11"], "h8", None),
    ("split three blocked at one end", "GF 3a", ["j8", "k8", "h9", "h10"], ["l8"], "h8", None),
    (
        "a white stone one point beyond still leaves a three",
        "RIF 3",
        ["i8", "j8", "h9", "h10"],
        ["l8"],
        "h8",
        "double-three",
    ),
    ("three by the edge still has a straight four", "RIF 3", ["b8", "c8", "d9", "d10"], [], "d8", "double-three"),
    ("three against the edge is no three", "RIF 3", ["a8", "b8", "c9", "c10"], [], "c8", None),
    ("o.xxx..x is no three", "LUDII", ["g8", "i8", "l8", "h9", "h10"], ["e8"], "h8", None),
    (
        "no three: one end blocked, the other's completion an overline",
        "SE",
        ["i9", "j10", "m13", "i8", "j8"],
        ["f6"],
        "h8",
        None,
    ),
    (
        "the same diagonal without the far stone is a three",
        "SE",
        ["i9", "j10", "i8", "j8"],
        ["f6"],
        "h8",
        "double-three",
    ),
    ("two closed fours", "RIF 3, 9.3", ["i8", "j8", "k8", "h9", "h10", "h11"], ["g8", "h7"], "h8", "double-four"),
    ("two straight fours", "RIF 9.3", ["i8", "j8", "k8", "h9", "h10", "h11"], [], "h8", "double-four"),
    ("two split fours", "GF 4", ["e8", "f8", "g8", "i9", "i10", "i12"], [], "i8", "double-four"),
    ("double-four on one line: x.xxx.x", "GF 4, RIF 3", ["e8", "g8", "i8", "k8"], [], "h8", "double-four"),
    ("double-four on one line: xx.xx.xx", "GF 4", ["e8", "f8", "i8", "k8", "l8"], [], "h8", "double-four"),
    ("double-four on one line: xxx.x.xxx", "GF 4", ["e8", "f8", "g8", "k8", "l8", "m8"], [], "i8", "double-four"),
    ("four-three is allowed", "RIN", ["i8", "j8", "k8", "h9", "h10"], ["g8"], "h8", None),
    ("straight four and three are allowed", "RIN", ["i8", "j8", "k8", "h9", "h10"], [], "h8", None),
    (
        "four-three-three is a double-three",
        "RIN",
        ["i8", "j8", "k8", "h9", "h10", "i9", "j10"],
        ["g8"],
        "h8",
        "double-three",
    ),
    (
        "four-four-three is a double-four",
        "RIN",
        ["i8", "j8", "k8", "h9", "h10", "h11", "i9", "j10"],
        ["g8", "h7"],
        "h8",
        "double-four",
    ),
    ("three-three-three", "RIN", ["i8", "j8", "h9", "h10", "i9", "j10"], [], "h8", "double-three"),
    ("six in a row", "RIF 9.3, RIN", ["e8", "f8", "g8", "i8", "j8"], [], "h8", "overline"),
    ("seven in a row", "RIN", ["d8", "e8", "f8", "g8", "i8", "j8"], [], "h8", "overline"),
    ("six on a diagonal", "RIN", ["d4", "e5", "f6", "g7", "i9"], [], "h8", "overline"),
    ("six in a column, filling a gap", "RIN", ["h5", "h6", "h8", "h9", "h10"], [], "h7", "overline"),
    ("overline with a three beside it", "RIF 9.3", ["e8", "f8", "g8", "i8", "j8", "h9", "h10"], [], "h8", "overline"),
    ("exactly five is no overline", "RIF 9.2", ["d8", "e8", "f8", "g8", "j8"], [], "h8", None),
    (
        "five overrides an overline",
        "LUDII, BRD",
        ["e8", "f8", "g8", "i8", "j8", "h4", "h5", "h6", "h7"],
        [],
        "h8",
        None,
    ),
    (
        "five overrides a double-four",
        "RIF 9.2, LUDII",
        ["h4", "h5", "h6", "h7", "i8", "j8", "k8", "i9", "j10", "k11"],
        ["g8", "g7"],
        "h8",
        None,
    ),
    (
        "five overrides a double-three",
        "RIF 9.2, BRD",
        ["h4", "h5", "h6", "h7", "i8", "j8", "i9", "j10"],
        [],
        "h8",
        None,
    ),
    (
        "a three whose only straight-four point is forbidden is no three",
        "RIF 3, LUDII",
        ["i8", "j8", "h9", "h10", "i7", "j7", "i6", "j5"],
        ["h12"],
        "h8",
        None,
    ),
    (
        "the same three with both straight-four points",
        "RIF 3, LUDII",
        ["i8", "j8", "h9", "h10", "i7", "j7", "i6", "j5"],
        [],
        "h8",
        "double-three",
    ),
    (
        "a three whose straight-four point is a legal four-three",
        "RIF 3, LUDII",
        ["i8", "j8", "h9", "h10", "i7", "j7"],
        ["h12"],
        "h8",
        "double-three",
    ),
    (
        "a three whose straight-four point makes a five is no three",
        "RIF 3",
        ["i8", "j8", "h9", "h10", "d7", "e7", "f7", "g7"],
        ["h12"],
        "h8",
        None,
    ),
]

# Two levels deep (RIF 3 applied twice; the position came from a search over random ones, the analysis
# is ours): g8 makes a diagonal three (e6 _ g8 h9, completed at f7, a legal single four) and a column
# three (g8 _ g10 g11) whose only straight-four point is g9. g9 would make that four, a row-9 three
# completed only at e9, and a diagonal three (completed at d6, a legal single four). e9 would make a
# straight four on row 9 and a four e9 f8 _ h6 i5: a double-four. So g9's row is no three, g9 is a
# legal four-three, and g8 a double-three. Without i5, e9 is a legal four-three, g9 a four-three-three,
# and g8 makes one three.
DEEP_BLACK = ["i5", "j5", "k5", "e6", "h6", "e7", "f8", "j8", "f9", "h9", "k9", "g10", "g11", "k11"]
DEEP_WHITE = ["f5", "g5", "f6", "i6", "j6", "k6", "e8", "i8", "j9", "f10", "k10", "h11", "i11", "j11"]
DEEP_POSITIONS: list[tuple[str, str, list[str], list[str], str, str | None]] = [
    ("a three two levels deep", "RIF 3", DEEP_BLACK, DEEP_WHITE, "g8", "double-three"),
    ("the same without i5", "RIF 3", ["a1" if c == "i5" else c for c in DEEP_BLACK], DEEP_WHITE, "g8", None),
]


def position(black: list[str], white: list[str], params: dict | None = None) -> FiveState:
    """Black to move with these stones (white padded with ``FILLERS``), played alternately."""
    game = create_game("five", params)
    state = game.new_state()
    white = list(white) + [c for c in FILLERS if c not in black and c not in white][: len(black) - len(white)]
    assert len(white) == len(black)
    for b, w in zip(black, white, strict=True):
        state.play(game.move_from_text(b))
        state.play(game.move_from_text(w))
    assert isinstance(state, FiveState)
    return state


def reference_of(state: FiveState):
    reference = reference_state(state.game)
    for i, (x, y) in enumerate(state.moves()):
        reference.board[y * state.game.params["m"] + x] = 1 + i % 2
    return reference


@pytest.mark.parametrize(
    ("name", "source", "black", "white", "point", "kind"),
    POSITIONS + DEEP_POSITIONS,
    ids=[p[0] for p in POSITIONS + DEEP_POSITIONS],
)
def test_hand_checked_renju_positions(name, source, black, white, point, kind) -> None:
    state = position(black, white)
    game = state.game
    move = game.move_from_text(point)
    assert state.forbidden_kind(move) == kind
    assert reference_of(state).forbidden(move[1] * 15 + move[0]) == kind
    assert (move in state.forbidden_points()) == (kind is not None)
    assert (move in state.legal_moves()) == (kind is None)
    if kind is None:
        return
    before = state.s.copy()
    with pytest.raises(IllegalMove, match=f"forbidden for black \\({kind}\\)"):
        state.play(move)
    with pytest.raises(IllegalMove):
        state.play_wire(list(move))
    assert np.array_equal(state.s, before)


def test_at_least_forty_renju_positions() -> None:
    assert len(POSITIONS) + len(DEEP_POSITIONS) >= 40
    assert {p[5] for p in POSITIONS} == {None, "double-three", "double-four", "overline"}


def test_the_five_that_overrides_wins_and_blacks_overline_never_does() -> None:
    state = position(["e8", "f8", "g8", "i8", "j8", "h4", "h5", "h6", "h7"], [])
    state.play((7, 7))
    assert state.status == STATUS_WIN0


def test_white_has_no_forbidden_points_and_wins_with_an_overline() -> None:
    game = create_game("renju")
    state = game.new_state()
    for black, white in [
        ("a1", "e8"),
        ("c1", "f8"),
        ("e1", "g8"),
        ("g1", "i8"),
        ("i1", "j8"),
        ("k1", "h9"),
        ("m1", "h10"),
    ]:
        state.play(game.move_from_text(black))
        state.play(game.move_from_text(white))
    state.play(game.move_from_text("o3"))
    assert state.to_move == 1 and state.forbidden_points() == []
    assert state.forbidden_kind((7, 7)) is None
    state.play((7, 7))  # e8..j8: six white stones
    assert state.status == STATUS_WIN1


# --- caro ---------------------------------------------------------------------------------------
CARO = [  # (name, params, black, white, the last black move, whether it wins)
    ("open five", {}, ["d8", "e8", "f8", "g8"], ["a1", "a3", "a5", "a7"], "h8", True),
    ("five blocked at one end", {}, ["d8", "e8", "f8", "g8"], ["c8", "a3", "a5", "a7"], "h8", True),
    ("five blocked at both ends", {}, ["d8", "e8", "f8", "g8"], ["c8", "i8", "a5", "a7"], "h8", False),
    ("five against the edge", {}, ["a8", "b8", "c8", "d8"], ["o1", "o3", "o5", "o7"], "e8", True),
    (
        "five against the edge and a stone: the edge is no block",
        {},
        ["a8", "b8", "c8", "d8"],
        ["f8", "o3", "o5", "o7"],
        "e8",
        True,
    ),
    (
        "five in a corner column against both edges",
        {"m": 5, "n": 5},
        ["a1", "a2", "a3", "a4"],
        ["c1", "c3", "e2", "e4"],
        "a5",
        True,
    ),
    ("diagonal five blocked at both ends", {}, ["e5", "f6", "g7", "h8"], ["d4", "j10", "a5", "a7"], "i9", False),
    (
        "overline blocked at both ends wins",
        {},
        ["d8", "e8", "f8", "g8", "i8"],
        ["c8", "j8", "a5", "a7", "a9"],
        "h8",
        True,
    ),
    (
        "overline with exact: no win",
        {"exact": True},
        ["d8", "e8", "f8", "g8", "i8"],
        ["a1", "a3", "a5", "a7", "a9"],
        "h8",
        False,
    ),
    ("exact five open at one end", {"exact": True}, ["d8", "e8", "f8", "g8"], ["c8", "a3", "a5", "a7"], "h8", True),
    (
        "exact five blocked at both ends",
        {"exact": True},
        ["d8", "e8", "f8", "g8"],
        ["c8", "i8", "a5", "a7"],
        "h8",
        False,
    ),
    (
        "blocked row, open column at once",
        {},
        ["d8", "e8", "f8", "g8", "h4", "h5", "h6", "h7"],
        ["c8", "i8", "a5", "a7", "a9", "a11", "a13", "o15"],
        "h8",
        True,
    ),
]


@pytest.mark.parametrize(("name", "params", "black", "white", "last", "wins"), CARO, ids=[c[0] for c in CARO])
def test_caro_blocks(name, params, black, white, last, wins) -> None:
    game = create_game("five", {"rule": "caro", **params})
    state = game.new_state()
    for b, w in zip(black, white, strict=True):
        state.play(game.move_from_text(b))
        state.play(game.move_from_text(w))
    assert state.forbidden_points() == []  # caro has none
    state.play(game.move_from_text(last))
    assert state.status == (STATUS_WIN0 if wins else STATUS_ONGOING)
    reference = reference_of(state)
    assert reference._has_win(1) == wins


def test_white_five_blocked_by_black_at_both_ends_does_not_win() -> None:
    game = create_game("caro")
    state = game.new_state()
    for b, w in [("c8", "d8"), ("i8", "e8"), ("a1", "f8"), ("a3", "g8"), ("a5", "h8")]:
        state.play(game.move_from_text(b))
        state.play(game.move_from_text(w))
    assert state.status == STATUS_ONGOING


# --- parameters, perft, random games ------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("five", {"rule": "renju", "exact": True}, "caro only"),
        ("five", {"rule": "gomoku"}, "one of renju, caro"),
        ("five", {"m": 4}, "at least 5"),
        ("renju", {"m": 19}, "fixes m=15"),
        ("caro", {"rule": "renju"}, "fixes rule=caro"),
    ],
)
def test_bad_parameters_are_named(name: str, params: dict, message: str) -> None:
    with pytest.raises(ParamError, match=message):
        create_game(name, params)


# From the start no forbidden point and no line can appear within three plies.
START_PERFT = [225, 225 * 224, 225 * 224 * 223]
# Black to move with forbidden points about (the four-four-three position above), computed with the
# kernels and frozen; its first ply, and two plies of a 7×7 one, checked against the reference.
MIDDLE = (["i8", "j8", "k8", "h9", "h10", "h11", "i9", "j10"], ["g8", "h7"])
MIDDLE_PERFT = [204, 42432, 8579026]
SMALL = (
    ["c3", "d3", "e3", "b4", "b5", "b6", "c4", "d5"],
    ["a3", "b2", "a7", "c7", "e7", "g7", "g1", "e1"],
    {"m": 7, "n": 7},
)
SMALL_PERFT = [30, 960, 27673]


@pytest.mark.parametrize("name", ["renju", "caro"])
def test_perft_from_the_start(name: str) -> None:
    state = create_game(name).new_state()
    assert [perft(state, d) for d in range(1, 4)] == START_PERFT


def test_perft_with_forbidden_points_about() -> None:
    state = position(*MIDDLE)
    assert state.forbidden_points()
    assert [perft(state, d) for d in range(1, 4)] == MIDDLE_PERFT
    small = position(*SMALL)
    assert small.forbidden_points()
    assert [perft(small, d) for d in range(1, 4)] == SMALL_PERFT


def reference_perft(reference, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for action in reference.legal_actions():
        child = copy.deepcopy(reference)
        child.play(action)
        total += reference_perft(child, depth - 1)
    return total


def test_reference_agrees_with_the_perft_tables() -> None:
    assert reference_perft(reference_of(position(*MIDDLE)), 1) == MIDDLE_PERFT[0]
    assert reference_perft(reference_of(position(*SMALL)), 2) == SMALL_PERFT[1]


PARAM_SETS = [
    {"m": 7, "n": 7},
    {"m": 9, "n": 9},
    {"m": 9, "n": 6},
    {"m": 7, "n": 7, "rule": "caro"},
    {"m": 6, "n": 7, "rule": "caro", "exact": True},
]


@settings(max_examples=15, derandomize=True, deadline=None)
@given(params=st.sampled_from(PARAM_SETS), seed=st.integers(0, 2**32 - 1))
def test_kernels_match_reference(params: dict, seed: int) -> None:
    """Random games, the legal cells (forbidden points left out) and the outcome after every move."""
    game = create_game("five", params)
    state, reference = game.new_state(), reference_state(game)
    rng = random.Random(seed)
    while True:
        assert list(state.legal_actions()) == reference.legal_actions()
        assert (state.to_move, state.status, int(state.s[4])) == (reference.to_move, reference.status, reference.reason)
        if reference.status != STATUS_ONGOING:
            break
        action = rng.choice(reference.legal_actions())
        state.play(state._action_to_move(action))
        reference.play(action)


def test_random_renju_games_meet_forbidden_points() -> None:
    """The random games above are no empty check: on small boards black runs into forbidden points."""
    seen = 0
    for seed in range(20):
        state = create_game("five", {"m": 9, "n": 9}).new_state()
        rng = random.Random(seed)
        while not state.is_terminal:
            seen += len(state.forbidden_points())
            state.play(state._action_to_move(int(rng.choice(list(state.legal_actions())))))
    assert seen > 20


@settings(max_examples=20, derandomize=True, deadline=None)
@given(params=st.sampled_from(PARAM_SETS), seed=st.integers(0, 2**32 - 1))
def test_undo_restores_exactly(params: dict, seed: int) -> None:
    state = create_game("five", params).new_state()
    rng = random.Random(seed)
    snapshots = [state.s.copy()]
    while not state.is_terminal:
        state.play(rng.choice(state.legal_moves()))
        snapshots.append(state.s.copy())
    for snapshot in reversed(snapshots[:-1]):
        state.undo()
        assert np.array_equal(state.s, snapshot)


def test_a_black_with_only_forbidden_points_left_draws() -> None:
    """6×6, two empty points, both overlines for black: black cannot move, and the game is drawn."""
    game = create_game("five", {"m": 6, "n": 6})
    state = game.new_state()
    rows = ["XXX.XX", "XXX.XX", "OOXOOO", "OXOOOX", "OOXOOX", "XOXOOO"]
    black = [(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "X"]
    white = [(x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "O"]
    assert len(black) == len(white)
    for b, w in zip(black, white, strict=True):
        state.play(b)
        state.play(w)
    assert state.status == STATUS_DRAW and state.outcome is not None and state.outcome.reason == "stuck"
