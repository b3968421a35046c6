"""src/arbiter/lab/gomoku_tune.py: the features it fits are what the kernel evaluates, the fit recovers known
weights, and the script runs end to end (a few games, seconds) into an evaluation the bot loads."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from arbiter.bots.gomoku import evaluation as evaluations
from arbiter.bots.gomoku.board import Board
from arbiter.bots.gomoku.brain import LEVELS
from arbiter.bots.gomoku.evaluation import HAND, Evaluation
from arbiter.bots.gomoku.search import C_SHAPE_MOVER, C_SHAPE_WAITER, new_work, static_value
from arbiter.bots.gomoku.shapes import PAIRS
from arbiter.engine import create_game
from arbiter.lab import gomoku_tune as tune


def random_evaluation(
    rng: np.random.Generator, shape_mover: int, shape_waiter: int, features: str = "tied"
) -> Evaluation:
    """Random weights; with "split" the waiter's cell values differ from the mover's, with "pairs" pair values too."""

    def values(count: int) -> tuple[int, ...]:
        return tuple(int(v) for v in rng.integers(-500, 5000, size=count))

    waiter_cell = () if features == "tied" else (0, *values(8), 0, *values(3))
    mover_pairs, waiter_pairs = ((0, *values(PAIRS - 1)), (0, *values(PAIRS - 1))) if features == "pairs" else ((), ())
    return Evaluation(
        name="random",
        window_mover=(0, *values(5)),
        window_waiter=(0, *values(5)),
        shape=(0, *values(8), 0),
        win=int(rng.integers(0, 5000)),
        four_three=int(rng.integers(0, 5000)),
        double_three=int(rng.integers(0, 5000)),
        shape_mover=shape_mover,
        shape_waiter=shape_waiter,
        waiter_cell=waiter_cell,
        mover_pairs=mover_pairs,
        waiter_pairs=waiter_pairs,
    )


def random_positions(evaluation: Evaluation, k: int, exact: bool, seed: int) -> list[Board]:
    """Positions of 0 to 40 random stones in the board's middle (so every shape turns up), fives included."""
    rng = np.random.default_rng(seed)
    boards = []
    for _ in range(40):
        board = Board(15, 15, k, exact, evaluation)
        middle = [y * 15 + x for y in range(3, 12) for x in range(3, 12)]
        for c in rng.permutation(middle)[: rng.integers(0, 41)]:
            board.play(int(c))
        boards.append(board)
    return boards


def kernel(board: Board) -> int:
    w = new_work(board.cells, 4)
    w[C_SHAPE_MOVER] = board.evaluation.shape_mover
    w[C_SHAPE_WAITER] = board.evaluation.shape_waiter
    return int(static_value(board.s, w, board.to_move))


@pytest.mark.parametrize(("k", "exact"), [(5, False), (5, True), (6, False)])
@pytest.mark.parametrize(("shape_mover", "shape_waiter"), [(8, 8), (16, 16), (1, 1), (12, 5)])
@pytest.mark.parametrize("features", tune.FEATURES)
def test_the_features_weighed_are_the_kernels_evaluation(
    k: int, exact: bool, shape_mover: int, shape_waiter: int, features: str
) -> None:
    evaluation = random_evaluation(np.random.default_rng(shape_mover * 100 + k), shape_mover, shape_waiter, features)
    values = []
    for board in random_positions(evaluation, k, exact, seed=k + 7 * shape_waiter):
        raw = tune.raw_features(board)
        assert tune.kernel_value(raw, evaluation) == kernel(board)
        if features != "tied" or shape_mover == shape_waiter:
            # Linear in the design's columns, up to the kernel's rounding down of the shape sum.
            assert kernel(board) == np.floor(tune.design(raw, features) @ tune.parameters(evaluation, features) + 1e-9)
        values.append(kernel(board))
    assert len(set(values)) > 30  # the positions differ: the check can fail


def test_the_hand_evaluation_is_the_kernels_and_levels_1_to_3_keep_it() -> None:
    for board in random_positions(HAND, 5, False, seed=3):
        assert tune.kernel_value(tune.raw_features(board), HAND) == kernel(board)
    assert all(LEVELS[level].evaluation is HAND for level in (1, 2, 3))


def test_full_strength_plays_the_committed_fit() -> None:
    stored = json.loads(evaluations.FITTED_PATH.read_text())
    assert LEVELS[4].evaluation == evaluations.FITTED == evaluations.from_json(stored["evaluation"])
    assert stored["fit"]["test_after"] < stored["fit"]["test_before"]  # it fits held-out games better


def test_the_fit_recovers_known_weights_and_scale() -> None:
    rng = np.random.default_rng(5)
    x = np.column_stack([rng.poisson(3.0, 4000), -rng.poisson(2.0, 4000), rng.normal(0, 5, 4000), np.zeros(4000)])
    truth = np.array([120.0, 80.0, -30.0, 7.0])
    k = 400.0
    y = tune.sigmoid(x @ truth / k)  # soft labels: the expected results, so recovery is exact
    assert tune.best_k(x, y, truth) == pytest.approx(k, rel=1e-3)
    start = np.array([10.0, 10.0, 10.0, 7.0])
    fitted = tune.fit(x, y, start, k, l2=1e-9)
    assert fitted == pytest.approx(truth, rel=1e-3)  # the constant column keeps its start value
    assert tune.loss(x, y, fitted, k) < tune.loss(x, y, start, k)
    pulled = tune.fit(x, y, start, k, l2=10.0)  # a strong penalty keeps the weights near the start
    assert np.abs(pulled - start).max() < np.abs(fitted - start).max() / 5


@pytest.mark.parametrize("features", tune.FEATURES)
def test_written_weights_round_trip_through_the_design(features: str) -> None:
    windows = [6000, 400, 30, 4, 1, 2500, 100, 15, 2, 1]
    cells = [0.5, 1.25, 2, 9, 7, 30, 25, 300, 300, 200, 100.0]
    theta = np.array(
        windows
        + cells
        + {"tied": [], "split": cells[::-1], "pairs": cells[::-1] + [0.25 * i for i in range(42)]}[features]
    )
    evaluation = tune.evaluation_from(theta, "x", features)
    assert (evaluation.shape_mover, evaluation.shape_waiter) == (1, 1)
    assert tune.parameters(evaluation, features) == pytest.approx(theta)
    assert evaluations.from_json(json.loads(json.dumps(evaluations.to_json(evaluation)))) == evaluation
    assert len(tune.design(np.zeros((2, tune.SIDE), dtype=np.int64), features)) == len(theta)


def test_positions_are_quiet_labelled_and_reproducible() -> None:
    game = create_game("gomoku10")
    games = tune.collect(game, 3, nodes=300, seed=4)
    assert np.array_equal(games.cells, tune.collect(game, 3, nodes=300, seed=4).cells)
    assert games.length.sum() == len(games.cells) and (games.opening >= 3).all()
    first = tune.quiet_positions(game, games)
    again = tune.quiet_positions(game, games)
    assert np.array_equal(first.raw, again.raw) and np.array_equal(first.result, again.result)
    assert set(first.game.tolist()) == {0, 1, 2}
    assert not first.raw[:, :, 1].any()  # no four (a window missing one stone) on either side
    assert set(first.result.tolist()) <= {0.0, 0.5, 1.0}
    for game_index in range(3):  # the side to move alternates: a decided game labels both ways
        assert set(first.result[first.game == game_index].tolist()) in ({0.5}, {0.0, 1.0})


def test_the_script_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "fit.json"
    data = tmp_path / "games.npz"
    command = [sys.executable, "-m", "arbiter.lab.gomoku_tune", "--game", "gomoku10", "--games", "8",
               "--nodes", "300", "--seed", "3", "--data", str(data), "--out", str(out)]  # fmt: skip
    printed = subprocess.run(command, capture_output=True, text=True, check=True, timeout=120).stdout
    assert "8 games" in printed and "loss on test:" in printed
    fitted = evaluations.load(out)
    assert fitted.name == "fitted" and json.loads(out.read_text())["fit"]["positions"] > 0
    assert data.exists()
    rerun = subprocess.run(command, capture_output=True, text=True, check=True, timeout=120).stdout  # from the data
    assert rerun == printed and evaluations.load(out) == fitted
    script = [sys.executable, "-m", "arbiter.lab.gomoku_tune", "--game", "gomoku10", "--out", str(out)]
    more = tmp_path / "more.npz"
    subprocess.run([*script, "--games", "8", "--nodes", "300", "--seed", "4", "--data", str(more)],
                   capture_output=True, check=True, timeout=120)  # fmt: skip
    together = subprocess.run([*script, "--data", str(data), str(more)],
                              capture_output=True, text=True, check=True, timeout=120).stdout  # fmt: skip
    assert "16 games" in together  # both runs' games, fitted together
    assert json.loads(out.read_text())["fit"]["data"] == ["games.npz", "more.npz"]
    missing = subprocess.run([*script, "--data", str(data), str(tmp_path / "none.npz")],
                             capture_output=True, text=True, timeout=120)  # fmt: skip
    assert missing.returncode == 2 and "none.npz not found" in missing.stderr
    Board(10, 10, 5, False, replace(fitted, name="check")).play(44)  # the bot's tables build from it
