"""Gomoku evaluation tuning: fit the evaluation's weights to game results ("Texel tuning").

    python -m arbiter.lab.gomoku_tune                                  # the committed fit (docs/lab/README.md)
    python -m arbiter.lab.gomoku_tune --games 20 --nodes 300 --out /tmp/fit.json   # a quick run

Here in the lab beside gomoku_strength.py: like the strength series it plays games in-process
and prints measurements; its one product is the data file the bot loads
(arbiter/bots/gomoku/fitted_eval.json), which the strength series then decide on.

1. Games: self-play of the bot (``--level``, by default full strength with the package's fitted
   evaluation, or the one in ``--player``) at a node budget (``--nodes``; nodes, not time, so the
   games do not depend on the machine's load) from seeded random openings of 3 to 5 touching stones.
   ``--data`` keeps the games' moves, so a second fit (other features or penalty) skips the games.
2. Positions: every position after the opening that the search would evaluate statically (no four
   for either side, no open four to make for the side to move), labelled with the game's result
   for the side to move (1 win, 1/2 draw, 0 loss).
3. Features: the evaluation is linear in counts read off the board (``raw_features``): each side's
   live windows by stones missing from k, each side's empty cells' line shapes (per direction),
   combination bonuses and pair classes (a cell's two strongest shapes). ``--features`` picks the
   design: one cell table for both sides ("tied"), the mover's and the waiter's apart ("split"), or
   split with a value per pair class ("pairs"). ``kernel_value`` recomputes the search's static value
   from the counts (the tests check it against the kernel).
4. Fit: minimise the mean logistic loss between sigmoid(eval / K) and the result, with an L2 penalty
   pulling the (standardised) weights towards the hand-set ones (pair values towards 0). K is first
   chosen so the hand-set evaluation fits best (so the fitted weights stay in its units: the search's
   margins, such as the aspiration window, keep their meaning). Games, not positions, are split into
   training and test sets, so positions of one game never sit on both sides; the test loss is printed
   before and after.
5. Output: the fitted weights as an Evaluation in JSON (``--out``), with how they were made.

The loss ranks fits of one design, not designs: a design with a lower held-out loss has played weaker
(docs/lab/strength-2026-11-29.md, stop 50), so any new fit is kept only after a strength series says so.

Everything is seeded: the same arguments (and the same player's evaluation) give the same games,
positions and weights.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from arbiter.bots.gomoku.arena import Contender, play_game, random_opening
from arbiter.bots.gomoku.board import FOURS, S_BOARD, S_SET_LEN, THREES, Board, double_threat
from arbiter.bots.gomoku.brain import GomokuBrain
from arbiter.bots.gomoku.evaluation import FITTED_PATH, HAND, Evaluation, load, to_json
from arbiter.bots.gomoku.geometry import G_K
from arbiter.bots.gomoku.layout import region
from arbiter.bots.gomoku.shapes import BLOCK1, COMBOS, FIVE, FLEX4, PAIRS, SHAPES, combo_bonus, combo_shapes, pair_class
from arbiter.engine import Game, create_game

BUCKETS = 6  # windows by stones missing: 0 (never counted), 1, 2, 3, 4, 5 and more (Evaluation.window_*)
BONUSES = 3  # win, four-three, double three (shapes.WIN_BONUS ...)
# Columns of the raw features of one side: windows by missing, then shapes NONE..FIVE, then bonuses,
# then pair classes (shapes.pair_class, 0 included).
CELL = BUCKETS  # where a side's cell counts start
SIDE = BUCKETS + SHAPES + BONUSES + PAIRS
# The designs the fit may use (``design``): "tied", one table of cell values for both sides (the
# mover's shapes and bonuses minus the waiter's); "split", the mover's and the waiter's each their
# own; "pairs", split plus a value per pair class for each side.
FEATURES = ("tied", "split", "pairs")
WINDOW_COLUMNS = BUCKETS - 1
SHAPE_COLUMNS = FLEX4 - BLOCK1 + 1
PAIR_COLUMNS = PAIRS - 1


# --- features ---------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def combo_counts() -> np.ndarray:
    """[COMBOS, SHAPES + BONUSES + PAIRS]: a cell's shapes (per direction), bonus and pair class by its
    combination index.

    A cell with a FIVE counts nothing: it is worth nothing in the evaluation (shapes.combo_tables).
    """
    table = np.zeros((COMBOS, SHAPES + BONUSES + PAIRS), dtype=np.int64)
    for index in range(COMBOS):
        shapes = combo_shapes(index)
        if FIVE in shapes:
            continue
        for shape in shapes:
            table[index, shape] += 1
        bonus = combo_bonus(shapes)
        if bonus:
            table[index, SHAPES + bonus - 1] = 1
        table[index, SHAPES + BONUSES + pair_class(shapes)] = 1
    return table


def raw_features(board: Board) -> np.ndarray:
    """[2, SIDE] for the side to move (row 0) and the other (row 1): the counts the evaluation weighs."""
    k = int(board.g[G_K])
    codes = board.window_codes()
    combos = board.combos()
    empty = region(board.s, S_BOARD, board.cells) == 0
    p = board.to_move
    out = np.zeros((2, SIDE), dtype=np.int64)
    for row, q in enumerate((p, 1 - p)):
        by_stones = np.bincount(codes[:, q][codes[:, q] > 0], minlength=k + 1)
        for n in range(1, k):
            out[row, min(k - n, BUCKETS - 1)] += by_stones[n]
        out[row, CELL:] = combo_counts()[combos[q][empty]].sum(axis=0)
    return out


def cell_weights(evaluation: Evaluation, waiter: bool) -> np.ndarray:
    """[SIDE - CELL]: what each cell count of the raw features is worth to the mover or the waiter."""
    return np.array([*evaluation.cell_values(waiter), *evaluation.pair_values(waiter, PAIRS)])


def kernel_value(raw: np.ndarray, evaluation: Evaluation) -> int:
    """The search's static value (search.static_value) recomputed from the raw features."""
    windows = int(raw[0, :BUCKETS] @ np.array(evaluation.window_mover)) - int(
        raw[1, :BUCKETS] @ np.array(evaluation.window_waiter)
    )
    mover, waiter = (int(raw[row, CELL:] @ cell_weights(evaluation, bool(row))) for row in range(2))
    return windows + (evaluation.shape_mover * mover - evaluation.shape_waiter * waiter) // 16


_SHAPES = slice(CELL + BLOCK1, CELL + FLEX4 + 1)
_BONUSES = slice(CELL + SHAPES, CELL + SHAPES + BONUSES)
_PAIRS = slice(CELL + SHAPES + BONUSES + 1, SIDE)


def design(raw: np.ndarray, features: str) -> np.ndarray:
    """[..., columns]: the linear features of raw features [..., 2, SIDE] for one of FEATURES (see ``parameters``)."""
    mover, waiter = raw[..., 0, :], raw[..., 1, :]
    columns = [mover[..., 1:BUCKETS], -waiter[..., 1:BUCKETS]]
    if features == "tied":
        columns += [(mover - waiter)[..., _SHAPES], (mover - waiter)[..., _BONUSES]]
    else:
        columns += [mover[..., _SHAPES], mover[..., _BONUSES], -waiter[..., _SHAPES], -waiter[..., _BONUSES]]
    if features == "pairs":
        columns += [mover[..., _PAIRS], -waiter[..., _PAIRS]]
    return np.concatenate(columns, axis=-1).astype(np.float64)


def parameters(evaluation: Evaluation, features: str) -> np.ndarray:
    """The evaluation as the weights of ``design``'s columns (cell values times their side's weight)."""

    def cells(waiter: bool) -> list[float]:
        scale = (evaluation.shape_waiter if waiter else evaluation.shape_mover) / 16
        values = evaluation.cell_values(waiter)
        return [scale * v for v in (*values[BLOCK1 : FLEX4 + 1], *values[SHAPES:])]

    def pairs(waiter: bool) -> list[float]:
        scale = (evaluation.shape_waiter if waiter else evaluation.shape_mover) / 16
        return [scale * v for v in evaluation.pair_values(waiter, PAIRS)[1:]]

    theta = [*evaluation.window_mover[1:], *evaluation.window_waiter[1:], *cells(False)]
    if features == "tied":
        if cells(False) != cells(True):
            raise ValueError("the tied design needs the same weighted cell values for the mover and the waiter")
    else:
        theta += cells(True)
    if features == "pairs":
        theta += pairs(False) + pairs(True)
    return np.array(theta, dtype=np.float64)


def evaluation_from(theta: np.ndarray, name: str, features: str) -> Evaluation:
    """Weights of ``design``'s columns as an Evaluation: windows rounded, cell values kept in sixteenths."""
    windows = [int(v) for v in np.rint(theta[: 2 * WINDOW_COLUMNS])]
    cells = [int(v) for v in np.rint(16 * theta[2 * WINDOW_COLUMNS :])]
    side = SHAPE_COLUMNS + BONUSES

    def cell_values(at: int) -> tuple[int, ...]:
        return (0, *cells[at : at + SHAPE_COLUMNS], 0, *cells[at + SHAPE_COLUMNS : at + side])

    mover = cell_values(0)
    pairs_at = 2 * side
    return Evaluation(
        name=name,
        window_mover=(0, *windows[:WINDOW_COLUMNS]),
        window_waiter=(0, *windows[WINDOW_COLUMNS:]),
        shape=mover[:SHAPES],
        win=mover[SHAPES],
        four_three=mover[SHAPES + 1],
        double_three=mover[SHAPES + 2],
        shape_mover=1,
        shape_waiter=1,
        waiter_cell=() if features == "tied" else cell_values(side),
        mover_pairs=(0, *cells[pairs_at : pairs_at + PAIR_COLUMNS]) if features == "pairs" else (),
        waiter_pairs=(0, *cells[pairs_at + PAIR_COLUMNS :]) if features == "pairs" else (),
    )


# --- data -------------------------------------------------------------------------------------


@dataclass
class Positions:
    """Quiet positions with their raw features, the result for the side to move, and their game."""

    raw: np.ndarray  # [positions, 2, SIDE]
    result: np.ndarray  # [positions]: 1 win, 0.5 draw, 0 loss
    game: np.ndarray  # [positions]: index of the game


def quiet(board: Board) -> bool:
    """Whether the search would evaluate this position statically (no four, no open four to make)."""
    s, p = board.s, board.to_move
    if s[S_SET_LEN + FOURS] or s[S_SET_LEN + FOURS + 1]:
        return False
    return not (s[S_SET_LEN + THREES + p] >= 2 and double_threat(board.g, s, p) >= 0)


@dataclass
class Games:
    """Self-play games as played: every move (cells, concatenated), each game's length, opening and result."""

    cells: np.ndarray  # [moves of all games]: y * m + x, game after game
    length: np.ndarray  # [games]: moves in each game, its opening included
    opening: np.ndarray  # [games]: stones of its opening
    winner: np.ndarray  # [games]: 0 the first player, 1 the second, -1 a draw

    def moves(self, index: int) -> np.ndarray:
        start = int(self.length[:index].sum())
        return self.cells[start : start + int(self.length[index])]

    @classmethod
    def read(cls, path: Path) -> Games:
        with np.load(path) as stored:
            return cls(*(stored[name] for name in ("cells", "length", "opening", "winner")))

    @classmethod
    def joined(cls, parts: list[Games]) -> Games:
        """The games of several runs, one after another (a fit on more, or deeper, games)."""
        return cls(*(np.concatenate([getattr(part, name) for part in parts]) for name in vars(parts[0])))


def game_positions(game: Game, cells: np.ndarray, opening: int, winner: int) -> Positions:
    """The quiet positions of one game after its opening, labelled with the result (winner -1: a draw)."""
    m, n, k, exact = (game.params[name] for name in ("m", "n", "k", "exact"))
    board = Board(m, n, k, exact)
    raws, results = [], []
    for ply, c in enumerate(cells):
        if ply >= opening and quiet(board):
            raws.append(raw_features(board))
            results.append(0.5 if winner < 0 else float(winner == board.to_move))
        board.play(int(c))
    raw = np.array(raws, dtype=np.int64).reshape(-1, 2, SIDE)
    return Positions(raw, np.array(results, dtype=np.float64), np.zeros(len(results), dtype=np.int64))


def quiet_positions(game: Game, games: Games) -> Positions:
    """The quiet positions of all ``games``, each tagged with its game's index."""
    parts = []
    for index in range(len(games.length)):
        part = game_positions(game, games.moves(index), int(games.opening[index]), int(games.winner[index]))
        part.game[:] = index
        parts.append(part)
    return Positions(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("raw", "result", "game")))


def collect(
    game: Game, games: int, nodes: int, seed: int, level: int = 4, evaluation: Evaluation | None = None
) -> Games:
    """Self-play games of ``level`` (with ``evaluation`` if given) at ``nodes`` a move from seeded random openings."""
    rng = random.Random(seed)
    brain = GomokuBrain(level, nodes=nodes)
    if evaluation is not None:
        brain.settings = replace(brain.settings, evaluation=evaluation)
    player = Contender("self", brain, budget=60.0)  # the node budget binds, not the clock
    m = game.params["m"]
    cells: list[int] = []
    length: list[int] = []
    opening: list[int] = []
    winner: list[int] = []
    started = time.perf_counter()
    for index in range(games):
        stones = random_opening(game, rng.randint(3, 5), rng)
        record = play_game(game, player, player, stones, seed * 100_003 + index)
        cells.extend(y * m + x for x, y in record.moves)
        length.append(len(record.moves))
        opening.append(len(stones))
        winner.append(-1 if record.winner is None else record.winner)
        if (index + 1) % 50 == 0:
            print(f"  {index + 1} games, {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    return Games(*(np.array(values, dtype=np.int64) for values in (cells, length, opening, winner)))


# --- fit --------------------------------------------------------------------------------------


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(x, -500, 500)))


def loss(x: np.ndarray, y: np.ndarray, theta: np.ndarray, k: float) -> float:
    """Mean logistic loss (cross-entropy against the result) of sigmoid(x·theta / k)."""
    q = np.clip(sigmoid(x @ theta / k), 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(q) + (1 - y) * np.log(1 - q)))


def best_k(x: np.ndarray, y: np.ndarray, theta: np.ndarray) -> float:
    """The scale K at which ``theta`` fits best: a golden-section search over log K."""
    lo, hi = np.log(1.0), np.log(1e5)
    ratio = (np.sqrt(5) - 1) / 2
    for _ in range(60):
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if loss(x, y, theta, float(np.exp(a))) < loss(x, y, theta, float(np.exp(b))):
            hi = b
        else:
            lo = a
    return float(np.exp((lo + hi) / 2))


def fit(x: np.ndarray, y: np.ndarray, theta0: np.ndarray, k: float, l2: float) -> np.ndarray:
    """Weights minimising loss + l2·|standardised (theta - theta0)|², by Newton's method.

    Columns that never vary in the data (such as fours, absent from quiet positions) keep theta0.
    Standardising (each column by its spread) makes one penalty fit weights of very different sizes.
    """
    spread = x.std(axis=0)
    active = spread > 0
    z = x[:, active] / spread[active]
    beta0 = theta0[active] * spread[active] / k
    beta = beta0.copy()
    fixed = x[:, ~active] @ theta0[~active] / k
    for _ in range(50):
        q = sigmoid(z @ beta + fixed)
        gradient = z.T @ (q - y) / len(y) + 2 * l2 * (beta - beta0)
        hessian = (z * (q * (1 - q))[:, None]).T @ z / len(y) + 2 * l2 * np.eye(len(beta))
        step = np.linalg.solve(hessian, gradient)
        beta -= step
        if np.max(np.abs(step)) < 1e-9:
            break
    theta = theta0.copy()
    theta[active] = beta * k / spread[active]
    return theta


def split(positions: Positions, test_share: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Boolean masks (train, test) over the positions, drawing whole games for the test set."""
    games = np.unique(positions.game)
    rng = np.random.default_rng(seed)
    test_games = rng.choice(games, size=max(1, round(test_share * len(games))), replace=False)
    test = np.isin(positions.game, test_games)
    return ~test, test


@dataclass(frozen=True)
class Report:
    evaluation: Evaluation
    k: float
    train_before: float
    train_after: float
    test_before: float
    test_after: float
    positions: int
    test_positions: int


def tune(positions: Positions, *, features: str, l2: float, test_share: float, seed: int) -> Report:
    """Fit the weights of ``features`` to ``positions``; the losses before (hand weights) and after, on both splits."""
    x = design(positions.raw, features)
    y = positions.result
    train, test = split(positions, test_share, seed)
    theta0 = parameters(HAND, features)  # the waiter's cell values as the mover's, pair values 0
    k = best_k(x[train], y[train], theta0)
    theta = fit(x[train], y[train], theta0, k, l2)
    evaluation = evaluation_from(theta, "fitted", features)
    rounded = parameters(evaluation, features)  # the weights as written (rounded), for honest losses
    return Report(
        evaluation,
        k,
        loss(x[train], y[train], theta0, k),
        loss(x[train], y[train], rounded, k),
        loss(x[test], y[test], theta0, k),
        loss(x[test], y[test], rounded, k),
        len(y),
        int(test.sum()),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="gomoku", help="the m,n,k game the games are played on")
    parser.add_argument("--games", type=int, default=1600, help="self-play games")
    parser.add_argument("--nodes", type=int, default=6000, help="search nodes a move in the games")
    parser.add_argument("--level", type=int, default=4, help="the bot's level playing the games")
    parser.add_argument("--player", type=Path, help="an evaluation (JSON, as --out writes) for the games' player")
    parser.add_argument("--seed", type=int, default=19)
    parser.add_argument("--features", choices=FEATURES, default="pairs", help="the design fitted (see FEATURES)")
    parser.add_argument("--l2", type=float, default=1e-3, help="penalty on the standardised change of the weights")
    parser.add_argument("--test-share", type=float, default=0.2, help="share of the games held out")
    parser.add_argument(
        "--data",
        type=Path,
        nargs="+",
        help="the games (.npz): read if it exists, else played and written; several files, each written"
        " before, are read together",
    )
    parser.add_argument("--out", type=Path, default=FITTED_PATH, help="where the fitted evaluation goes (JSON)")
    args = parser.parse_args()
    game = create_game(args.game)
    data: list[Path] = args.data or []
    if data and all(path.exists() for path in data):
        games = Games.joined([Games.read(path) for path in data])
    elif len(data) > 1:
        missing = ", ".join(str(path) for path in data if not path.exists())
        parser.error(f"--data: {missing} not found (several files are only read, never written)")
    else:
        player = load(args.player) if args.player else None
        games = collect(game, args.games, args.nodes, args.seed, args.level, player)
        if data:
            np.savez_compressed(data[0], **vars(games))
    positions = quiet_positions(game, games)
    report = tune(positions, features=args.features, l2=args.l2, test_share=args.test_share, seed=args.seed)
    print(f"{positions.game.max() + 1} games, {report.positions} quiet positions ({report.test_positions} held out)")
    print(f"K = {report.k:.1f} (the hand weights' best fit on the training split)")
    print(f"loss on training: {report.train_before:.4f} hand, {report.train_after:.4f} fitted")
    print(f"loss on test:     {report.test_before:.4f} hand, {report.test_after:.4f} fitted")
    for name, value in vars(report.evaluation).items():
        print(f"  {name}: {value}")
    made = {
        name: getattr(args, name)
        for name in ("game", "games", "nodes", "level", "seed", "features", "l2", "test_share")
    }
    made["games"] = len(games.length)  # as fitted: a file read may hold another count than --games
    if len(data) > 1:  # several runs' games, fitted together: which
        made["data"] = [path.name for path in data]
    fitted = {name: getattr(report, name) for name in ("k", "train_before", "train_after", "test_before", "test_after")}
    written = {
        "evaluation": to_json(report.evaluation),
        "fit": {**made, "positions": report.positions, "test_positions": report.test_positions, **fitted},
    }
    args.out.write_text(json.dumps(written, indent=1) + "\n")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
