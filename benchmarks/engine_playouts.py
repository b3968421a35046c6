"""Engine hot paths: random playouts per second per game, and a fresh process's warm start.

    python benchmarks/engine_playouts.py [--seconds 2] [GAME ...]

Playouts: numba kernels on one core against the pure-Python reference rules, measured in the same
run (the ratio is the figure to quote on a noisy machine). Start: a new interpreter that imports
the engine and plays one move with the numba cache warm, against a bare interpreter that imports
numpy (the floor any numba process pays), median of several runs.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from arbiter.engine import create_game
from arbiter.engine.bench import DEFAULT_GAMES, bench_game, format_table

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=list(DEFAULT_GAMES))
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()

    rows = [bench_game(create_game(name), seconds=args.seconds) for name in args.games]
    print(format_table(rows))
    subprocess.run([sys.executable, "-c", ENGINE_START], check=True)  # make sure the cache is warm
    engine = median_start_seconds(ENGINE_START, args.runs)
    baseline = median_start_seconds(BASELINE_START, args.runs)
    print(
        f"\nwarm start to first move: {engine:.3f} s median of {args.runs} "
        f"(bare python + numpy: {baseline:.3f} s, ratio {engine / baseline:.2f}x)"
    )


if __name__ == "__main__":
    main()
