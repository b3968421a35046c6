"""Random-playout throughput of the kernels and of the pure-Python reference, in one run."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit

from .base import PLY, STATUS_ONGOING, Game
from .ops import playout, playout_span, playouts
from .reference import reference_state

DEFAULT_GAMES = ("tictactoe", "tictactoe4", "gomoku10", "gomoku", "vanishing", "ttt3d", "paper_soccer")


@dataclass(frozen=True)
class BenchRow:
    game: str
    kernel_per_s: float
    reference_per_s: float

    @property
    def ratio(self) -> float:
        return self.kernel_per_s / self.reference_per_s


def kernel_playouts_per_second(
    game: Game, *, seconds: float, seed: int = 1, clock: Callable[[], float] = time.perf_counter
) -> float:
    """Playouts per second of ``clock`` (wall time by default) of the numba kernel on one core
    (compiled and warmed first). ``time.process_time`` counts only this process's CPU time, which
    other jobs on a shared machine do not inflate."""
    start = game.new_state().s
    state_buffer = np.empty_like(start)
    action_buffer = np.empty(max(game.max_actions, game.state_size), dtype=np.int64)
    playouts(game.gid, game.param_array, start, 10, state_buffer, action_buffer, seed)  # compile + warm
    batch, done, elapsed = 64, 0, 0.0
    began = clock()
    while elapsed < seconds:
        playouts(game.gid, game.param_array, start, batch, state_buffer, action_buffer, seed + done)
        done += batch
        elapsed = clock() - began
        batch = min(batch * 2, 1 << 16) if elapsed < seconds / 4 else batch
    return done / elapsed


@njit(cache=True)
def playout_statistics(gid, p, s, count, state_buffer, action_buffer, seed):
    """``count`` random playouts from ``s``: [wins0, wins1, draws, plies, plies squared].

    Needs a game whose playout leaves ``PLY`` at the final ply (m,n,k and paper soccer do).
    """
    np.random.seed(seed)
    totals = np.zeros(5, dtype=np.int64)
    span = playout_span(gid, p, len(s))
    for _ in range(count):
        state_buffer[:span] = s[:span]
        totals[playout(gid, p, state_buffer, action_buffer) - 1] += 1
        plies = state_buffer[PLY] - s[PLY]
        totals[3] += plies
        totals[4] += plies * plies
    return totals


def kernel_playout_statistics(game: Game, count: int, seed: int = 1) -> np.ndarray:
    """[wins0, wins1, draws, plies, plies squared] over ``count`` kernel playouts from the start."""
    start = game.new_state().s
    action_buffer = np.empty(max(game.max_actions, game.state_size), dtype=np.int64)
    return playout_statistics(game.gid, game.param_array, start, count, np.empty_like(start), action_buffer, seed)


def reference_playouts_per_second(game: Game, *, seconds: float, seed: int = 1) -> float:
    """Playouts per second of the pure-Python reference rules."""
    rng = random.Random(seed)
    done = 0
    began = time.perf_counter()
    while True:
        state = reference_state(game)
        while state.status == STATUS_ONGOING:
            state.play(rng.choice(state.legal_actions()))
        done += 1
        elapsed = time.perf_counter() - began
        if elapsed >= seconds:
            return done / elapsed


def bench_game(game: Game, *, seconds: float = 1.0) -> BenchRow:
    return BenchRow(
        game.name,
        kernel_playouts_per_second(game, seconds=seconds),
        reference_playouts_per_second(game, seconds=seconds),
    )


def format_table(rows: list[BenchRow]) -> str:
    lines = [f"{'game':<14} {'kernel/s':>12} {'reference/s':>12} {'ratio':>8}"]
    for row in rows:
        lines.append(f"{row.game:<14} {row.kernel_per_s:>12,.0f} {row.reference_per_s:>12,.1f} {row.ratio:>7,.0f}x")
    return "\n".join(lines)
