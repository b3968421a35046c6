"""Engine hot paths: random playouts per second per game, against C, and a fresh process's warm start.

    python benchmarks/engine_playouts.py [--seconds 2] [--rounds 5] [GAME ...]
    python benchmarks/engine_playouts.py renju [--seconds 2] [--rounds 3]   # the renju part alone

Playouts: numba kernels on one core against the pure-Python reference rules, measured in the same
run (the ratio is the figure to quote on a noisy machine). C baseline: for gomoku and paper soccer,
benchmarks/c_baseline/playouts.c (plain C, the same rules, start position and uniform random
moves) is built with the system's C compiler into a temporary folder and run in rounds alternating
with the kernel, both counted in CPU time; the ratio is the median of the rounds. Same work: the
mean playout length and the first player's win rate of both over many playouts, which must agree
within noise. Start: a new interpreter that imports the engine and plays one move with the numba
cache warm, against a bare interpreter that imports numpy (the floor any numba process pays),
median of several runs. Renju: the legal-move generator (which leaves out black's forbidden
points) on positions of random renju games with black to move, against freestyle gomoku's on the
same boards, and the random playouts of both, in the same run.
"""

from __future__ import annotations

import argparse
import math
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from arbiter.engine import create_game
from arbiter.engine.bench import (
    DEFAULT_GAMES,
    bench_game,
    format_table,
    kernel_playout_statistics,
    kernel_playouts_per_second,
)
from arbiter.engine.ops import legal

C_SOURCE = Path(__file__).parent / "c_baseline" / "playouts.c"
C_FLAGS = ["-O2", "-march=native"]
C_GAMES = {"gomoku": "gomoku", "paper_soccer": "soccer"}  # our game name -> the C program's
CHECK_PLAYOUTS = 400_000  # kernel playouts for the same-work check (C's come from its timed rounds)
RENJU_POSITIONS = 200  # black to move, 10 to 60 stones on the board

ENGINE_START = (
    "from arbiter.engine import create_game\n"
    "s = create_game('gomoku').new_state(); s.play((7, 7)); s.legal_actions()\n"
    "from arbiter.engine.ops import playouts"
)
BASELINE_START = "import numpy"


def median_start_seconds(code: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def build_c_baseline(folder: str) -> tuple[str, str] | None:
    """Compile the C yardstick into ``folder``: (program, compiler description), None without a compiler."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return None
    program = str(Path(folder) / "playouts")
    subprocess.run([compiler, *C_FLAGS, "-o", program, str(C_SOURCE)], check=True)
    version = subprocess.run([compiler, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    return program, f"{compiler} {' '.join(C_FLAGS)} ({version})"


@dataclass
class Tally:
    """Playouts with their results and lengths, to check that two implementations do the same work."""

    playouts: int = 0
    wins0: int = 0
    plies: int = 0
    plies_squared: int = 0

    def add(self, playouts: int, wins0: int, plies: int, plies_squared: int) -> None:
        self.playouts += playouts
        self.wins0 += wins0
        self.plies += plies
        self.plies_squared += plies_squared

    @property
    def mean_plies(self) -> float:
        return self.plies / self.playouts

    @property
    def plies_error(self) -> float:
        variance = self.plies_squared / self.playouts - self.mean_plies**2
        return math.sqrt(variance / self.playouts)

    @property
    def win_rate(self) -> float:
        return self.wins0 / self.playouts

    @property
    def win_error(self) -> float:
        return math.sqrt(self.win_rate * (1 - self.win_rate) / self.playouts)


def run_c(program: str, game: str, seconds: float, seed: int, tally: Tally) -> float:
    """Run the C playouts for ``seconds`` of CPU time; add to ``tally``; return playouts per CPU second."""
    out = subprocess.run([program, game, str(seconds), str(seed)], check=True, capture_output=True, text=True)
    done, elapsed, wins0, _, _, plies, plies_squared = out.stdout.split()
    tally.add(int(done), int(wins0), int(plies), int(plies_squared))
    return int(done) / float(elapsed)


def z_score(a: float, a_error: float, b: float, b_error: float) -> float:
    return abs(a - b) / math.hypot(a_error, b_error)


def compare_with_c(games: list[str], seconds: float, rounds: int) -> None:
    games = [name for name in games if name in C_GAMES]
    if not games:
        return
    with tempfile.TemporaryDirectory() as folder:
        built = build_c_baseline(folder)
        if built is None:
            print("\nno C compiler (cc or gcc) on PATH: C baseline skipped")
            return
        program, compiler = built
        print(f"\nC baseline: {compiler}; one core, CPU time, {rounds} rounds of {seconds:g} s alternating")
        print(f"{'game':<14} {'kernel/s':>12} {'C/s':>12} {'ratio':>7}   rounds")
        checks = []
        for name in games:
            game, c_tally, kernel_rates, c_rates = create_game(name), Tally(), [], []
            for round_ in range(rounds):
                c_rates.append(run_c(program, C_GAMES[name], seconds, round_ + 1, c_tally))
                kernel_rates.append(kernel_playouts_per_second(game, seconds=seconds, clock=time.process_time))
            ratios = [k / c for k, c in zip(kernel_rates, c_rates, strict=True)]
            print(
                f"{name:<14} {statistics.median(kernel_rates):>12,.0f} {statistics.median(c_rates):>12,.0f} "
                f"{statistics.median(ratios):>6.2f}x   {' '.join(f'{r:.2f}' for r in ratios)}"
            )
            count = min(c_tally.playouts, CHECK_PLAYOUTS)
            wins0, _, _, plies, plies_squared = kernel_playout_statistics(game, count)
            kernel_tally = Tally()
            kernel_tally.add(count, int(wins0), int(plies), int(plies_squared))
            checks.append((name, kernel_tally, c_tally))
        print("\nsame work? mean plies and first-player wins (± one standard error); playouts kernel / C")
        print(
            f"{'game':<14} {'playouts':>21} {'plies kernel':>16} {'plies C':>16} {'wins0 kernel':>17} {'wins0 C':>17}"
        )
        for name, kernel, c in checks:
            z = max(
                z_score(kernel.mean_plies, kernel.plies_error, c.mean_plies, c.plies_error),
                z_score(kernel.win_rate, kernel.win_error, c.win_rate, c.win_error),
            )
            verdict = "agree" if z < 4 else "DIFFER"
            print(
                f"{name:<14} {kernel.playouts:>9,} / {c.playouts:>9,}"
                f" {kernel.mean_plies:>9.2f} ± {kernel.plies_error:<4.2f} {c.mean_plies:>9.2f} ± {c.plies_error:<4.2f}"
                f" {kernel.win_rate:>9.2%} ± {kernel.win_error:<5.2%}"
                f" {c.win_rate:>9.2%} ± {c.win_error:<5.2%} {verdict} (largest z {z:.1f})"
            )


@njit(cache=True)
def legal_loop(gid, p, states, out, reps):
    """``ops.legal`` on every state, ``reps`` times over; the total count (so nothing is optimised away)."""
    total = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            total += legal(gid, p, states[i], out)
    return total


def renju_positions(count: int, seed: int = 1) -> tuple[np.ndarray, int]:
    """States of random renju games with black to move (10 to 60 stones), and their forbidden points."""
    game = create_game("renju")
    rng = random.Random(seed)
    states, forbidden = [], 0
    while len(states) < count:
        state = game.new_state()
        stop = 2 * rng.randint(5, 30)
        while not state.is_terminal and state.ply < stop:
            moves = state.legal_moves()
            state.play(moves[rng.randrange(len(moves))])
        if not state.is_terminal:
            states.append(state.s.copy())
            forbidden += len(state.forbidden_points())
    return np.stack(states), forbidden


def compare_renju(seconds: float, rounds: int) -> None:
    renju, gomoku = create_game("renju"), create_game("gomoku")
    states, forbidden = renju_positions(RENJU_POSITIONS)
    out = np.empty(renju.max_actions, dtype=np.int64)
    legal_loop(renju.gid, renju.param_array, states, out, 1)  # compile
    legal_loop(gomoku.gid, gomoku.param_array, states, out, 1)
    print(
        f"\nrenju legal moves: {RENJU_POSITIONS} positions of random renju games, black to move "
        f"({forbidden} forbidden points among them); one core, CPU time, {rounds} alternating rounds"
    )
    rates: dict[str, list[float]] = {"renju": [], "gomoku": []}
    for _ in range(rounds):
        for game in (renju, gomoku):
            reps, elapsed = 1, 0.0
            while elapsed < seconds / 4:
                reps *= 2
                began = time.process_time()
                legal_loop(game.gid, game.param_array, states, out, reps)
                elapsed = time.process_time() - began
            rates[game.name].append(reps * RENJU_POSITIONS / elapsed)
    ratios = [g / r for r, g in zip(rates["renju"], rates["gomoku"], strict=True)]
    print(
        f"legal-move lists/s: renju {statistics.median(rates['renju']):,.0f}, freestyle gomoku "
        f"{statistics.median(rates['gomoku']):,.0f} on the same boards: renju {statistics.median(ratios):.1f}x slower "
        f"(rounds {' '.join(f'{r:.1f}' for r in ratios)})"
    )
    renju_playouts = kernel_playouts_per_second(renju, seconds=seconds, clock=time.process_time)
    gomoku_playouts = kernel_playouts_per_second(gomoku, seconds=seconds, clock=time.process_time)
    print(
        f"random playouts/s from the start: renju {renju_playouts:,.0f}, gomoku {gomoku_playouts:,.0f} "
        f"(renju {gomoku_playouts / renju_playouts:.1f}x slower)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=list(DEFAULT_GAMES))
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--rounds", type=int, default=5, help="alternating kernel / C rounds per game")
    args = parser.parse_args()
    if args.games == ["renju"]:
        compare_renju(args.seconds, args.rounds)
        return

    rows = [bench_game(create_game(name), seconds=args.seconds) for name in args.games]
    print(format_table(rows))
    compare_with_c(args.games, args.seconds, args.rounds)
    compare_renju(args.seconds, args.rounds)
    subprocess.run([sys.executable, "-c", ENGINE_START], check=True)  # make sure the cache is warm
    engine = median_start_seconds(ENGINE_START, args.runs)
    baseline = median_start_seconds(BASELINE_START, args.runs)
    print(
        f"\nwarm start to first move: {engine:.3f} s median of {args.runs} "
        f"(bare python + numpy: {baseline:.3f} s, ratio {engine / baseline:.2f}x)"
    )


if __name__ == "__main__":
    main()
