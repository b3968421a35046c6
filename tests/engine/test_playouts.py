"""Random playouts: the register random stream, the open-step tables, and each fast playout kernel
replayed move by move on the pure-Python reference with the same random numbers.
"""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from arbiter.engine import create_game, mnk
from arbiter.engine import paper_soccer as soccer
from arbiter.engine.base import PLY, REASON, STATUS, STATUS_ONGOING, TO_MOVE, Game, State
from arbiter.engine.bench import kernel_playout_statistics
from arbiter.engine.fastrandom import below, seed_from_numpy
from arbiter.engine.ops import playout, playout_span
from arbiter.engine.reference import reference_state

MASK64 = (1 << 64) - 1


class ReferenceStream:
    """splitmix64 and Lemire's bounded integer, written out with Python integers."""

    def __init__(self, state: int) -> None:
        self.state = state

    def word(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Draw 32-bit words until ``word * n`` is not in the short biased zone; its high half."""
        threshold = (1 << 32) % n
        while True:
            product = (self.word() >> 32) * n
            if product & 0xFFFFFFFF >= threshold:
                return product >> 32


@njit
def stream_seed(seed):
    np.random.seed(seed)
    return seed_from_numpy()


@njit
def seeded_playout(gid, p, s, buffer, seed):
    np.random.seed(seed)
    return playout(gid, p, s, buffer)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(state=st.integers(0, MASK64), n=st.integers(1, 2**32 - 1))
def test_below_matches_the_reference_stream(state: int, n: int) -> None:
    reference = ReferenceStream(state)
    current = state
    for _ in range(3):
        current, value = below(np.uint64(current), n)  # numba hands a uint64 back as a Python int
        assert value == reference.below(n)
        assert 0 <= value < n
        assert current == reference.state


def test_below_is_uniform() -> None:
    current, counts = stream_seed(7), np.zeros(7, dtype=np.int64)
    for _ in range(70_000):
        current, value = below(np.uint64(current), 7)
        counts[value] += 1
    chi_square = float(((counts - 10_000) ** 2 / 10_000).sum())
    assert chi_square < 22.5  # 6 degrees of freedom: p = 0.001


@settings(max_examples=200, derandomize=True, deadline=None)
@given(mask=st.integers(0, 255))
def test_open_step_tables_list_the_clear_bits_in_direction_order(mask: int) -> None:
    directions = [d for d in range(8) if mask >> d & 1]
    assert soccer.OPEN_COUNT[mask] == len(directions)
    assert list(soccer.NTH_OPEN[mask * 8 : mask * 8 + len(directions)]) == directions


def random_start(game: Game, rng: random.Random, plies: int) -> tuple[State, object]:
    """A kernel position and the same reference position, ``plies`` random actions in (fewer if the game ends)."""
    state, reference = game.new_state(), reference_state(game)
    for _ in range(plies):
        if reference.status != STATUS_ONGOING:
            break
        action = rng.choice(reference.legal_actions())
        state.play_action(action)
        reference.play(action)
    return state, reference


def kernel_playout(game: Game, state: State, seed: int) -> np.ndarray:
    s = state.s.copy()
    buffer = np.empty(max(game.max_actions, game.state_size), dtype=np.int64)
    assert seeded_playout(game.gid, game.param_array, s, buffer, seed) == s[STATUS]
    return s


MNK_CASES = [
    ("gomoku", {}),
    ("gomoku", {"exact": True}),
    ("gomoku10", {}),
    ("tictactoe", {}),
    ("mnk", {"m": 7, "n": 4, "k": 4, "exact": True}),
    ("mnk", {"m": 26, "n": 26, "k": 6}),
    ("mnk", {"m": 26, "n": 26, "k": 6, "exact": True}),
    ("mnk", {"m": 2, "n": 9, "k": 4}),  # too thin for the masks to fit in the buffer
    ("mnk", {"m": 9, "n": 1, "k": 3, "exact": True}),
]


@settings(max_examples=150, derandomize=True, deadline=None)
@given(case=st.sampled_from(MNK_CASES), seed=st.integers(0, 2**31), plies=st.integers(0, 30))
def test_mnk_playout_is_the_reference_game_for_the_same_numbers(case: tuple[str, dict], seed: int, plies: int) -> None:
    game = create_game(*case)
    state, reference = random_start(game, random.Random(seed), plies)
    final = kernel_playout(game, state, seed)
    stream = ReferenceStream(int(stream_seed(seed)))
    empties = [c for c, stone in enumerate(reference.board) if stone == 0] if reference.status == STATUS_ONGOING else []
    while empties:
        j = stream.below(len(empties))
        cell = empties[j]
        empties[j] = empties[-1]
        empties.pop()
        reference.play(cell)
        if reference.status != STATUS_ONGOING:
            break
    size = game.cells
    assert list(final[8 : 8 + size]) == reference.board
    assert (final[STATUS], final[REASON]) == (reference.status, reference.reason)
    assert final[PLY] == size - reference.board.count(0)


SOCCER_CASES = [{}, {"stuck": "draw"}, {"width": 4, "length": 4}, {"width": 6, "length": 8, "stuck": "draw"}]


@settings(max_examples=80, derandomize=True, deadline=None)
@given(params=st.sampled_from(SOCCER_CASES), seed=st.integers(0, 2**31), plies=st.integers(0, 40))
def test_soccer_playout_is_the_reference_game_for_the_same_numbers(params: dict, seed: int, plies: int) -> None:
    game = create_game("paper_soccer", params)
    state, reference = random_start(game, random.Random(seed), plies)
    final = kernel_playout(game, state, seed)
    stream = ReferenceStream(int(stream_seed(seed)))
    steps = state.ply
    while reference.status == STATUS_ONGOING:
        legal = reference.legal_actions()
        reference.play(legal[stream.below(len(legal))])
        steps += 1
    x, y = reference.ball
    assert final[soccer.BALL] == (y + 1) * (game.width + 1) + x
    assert (final[STATUS], final[REASON], final[TO_MOVE]) == (reference.status, reference.reason, reference.to_move)
    assert final[PLY] == steps


def test_playout_statistics_count_results_and_plies() -> None:
    wins0, wins1, draws, plies, plies_squared = kernel_playout_statistics(create_game("tictactoe"), 2000)
    assert wins0 + wins1 + draws == 2000
    assert 5 * 2000 <= plies <= 9 * 2000  # a game of tic-tac-toe lasts 5 to 9 plies
    assert plies_squared >= plies**2 / 2000
    assert wins0 > wins1 > draws  # random tic-tac-toe: about 58.5 %, 28.8 %, 12.7 %


def runs_of(line: list[int], stone: int) -> list[int]:
    """Lengths of the maximal runs of ``stone`` along ``line``."""
    runs, length = [], 0
    for value in [*line, 0]:
        if value == stone:
            length += 1
        elif length:
            runs.append(length)
            length = 0
    return runs


@settings(max_examples=400, derandomize=True, deadline=None)
@given(
    line=st.lists(st.integers(0, 2), min_size=1, max_size=26),
    stone=st.integers(1, 2),
    k=st.integers(1, 8),
    exact=st.booleans(),
)
def test_line_mask_wins_finds_the_winning_runs(line: list[int], stone: int, k: int, exact: bool) -> None:
    mask = sum(1 << (i + 32 * (value - 1)) for i, value in enumerate(line) if value)
    expected = any(length == k or (length > k and not exact) for length in runs_of(line, stone))
    assert mnk.line_mask_wins(mask, 32 * (stone - 1), k, exact) == expected


@settings(max_examples=60, derandomize=True, deadline=None)
@given(
    name=st.sampled_from(["gomoku", "gomoku10", "tictactoe", "paper_soccer", "vanishing", "qubic"]),
    seed=st.integers(0, 2**31),
    plies=st.integers(0, 20),
)
def test_a_playout_uses_only_its_span(name: str, seed: int, plies: int) -> None:
    """Slots past ``playout_span`` are neither read nor written: garbage there changes nothing."""
    game = create_game(name)
    state, _ = random_start(game, random.Random(seed), plies)
    span = playout_span(game.gid, game.param_array, len(state.s))
    clean, dirty = state.s.copy(), state.s.copy()
    dirty[span:] = -7
    buffer = np.empty(max(game.max_actions, game.state_size), dtype=np.int64)
    seeded_playout(game.gid, game.param_array, clean, buffer, seed)
    seeded_playout(game.gid, game.param_array, dirty, buffer, seed)
    assert np.array_equal(clean[:span], dirty[:span])
    assert np.array_equal(clean[span:], state.s[span:])
    assert (dirty[span:] == -7).all()
