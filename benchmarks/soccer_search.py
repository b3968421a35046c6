"""Paper-soccer search speed: steps searched per second and whole turns deep in 200 ms.

    python benchmarks/soccer_search.py [--seconds 0.2] [--repeats 5] [--width 8 --length 10]

Positions: middle games reached by the source's depth-2 player against its depth-1 player after a
few random opening steps (seeded, so every run measures the same positions). On each, the
alpha-beta over whole turns runs under the clock from an empty transposition table; its figures
are the depth of the last completed iteration and steps played per second (every step of every
turn walk, threat check and replay counts). The baseline, measured in the same run on the same
positions, is the source's plain minimax over single steps (no pruning, no table) deepened under
the same clock up to its depth 6: its steps per second show what the turn walks and bookkeeping
cost, and its depth (in steps, of the turn's first step) how far a search without pruning or
whole-turn plies looks in the same time. Medians of ``--repeats`` runs.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from arbiter.bots.soccer.search import TurnSearch
from arbiter.bots.soccer.source import SOURCE_MAX_DEPTH, source_turn
from arbiter.engine import create_game
from arbiter.engine.paper_soccer import PaperSoccerState

OPENING_STEPS = 2


def middle_games(params: dict, count: int, turns: int) -> list[PaperSoccerState]:
    """``count`` positions ``turns`` turns into games of the source's players, each after random opening steps."""
    game = create_game("paper_soccer", params)
    positions = []
    seed = 0
    while len(positions) < count:
        seed += 1
        rng = np.random.default_rng(seed)
        state = game.new_state()
        for _ in range(OPENING_STEPS):
            passing = [d for d in state.legal_actions().tolist() if _passes(state, d)]
            state.play((int(rng.choice(passing)),))
        for number in range(turns):
            if state.is_terminal:
                break
            state.play(tuple(source_turn(state, 2 if number % 2 else 1).steps))
        if not state.is_terminal:
            positions.append(state)
    return positions


def _passes(state: PaperSoccerState, d: int) -> bool:
    trial = state.copy()
    trial.play_action(d)
    return not trial.is_terminal and trial.to_move != state.to_move


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.2, help="clock per search")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--width", type=int, default=8)
    parser.add_argument("--length", type=int, default=10)
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--turns", type=int, default=16, help="turns played before each position")
    args = parser.parse_args()
    params = {"width": args.width, "length": args.length}
    game = create_game("paper_soccer", params)
    positions = middle_games(params, args.positions, turns=args.turns)
    TurnSearch(game).choose(positions[0], max_depth=2)  # compile or load every kernel first
    source_turn(positions[0], 1)

    print(
        f"paper_soccer {params}: {len(positions)} middle-game positions, {args.seconds * 1000:.0f} ms clock, "
        f"median of {args.repeats}"
    )
    print(
        f"{'position':>8} {'steps':>5} {'depth':>5} {'steps/s':>10} {'nodes':>7} | "
        f"{'baseline steps/s':>16} {'baseline depth':>14} {'speed ratio':>11}"
    )
    depths, ratios, rates = [], [], []
    for number, state in enumerate(positions):
        runs = []
        for _ in range(args.repeats):
            search = TurnSearch(game)
            runs.append(search.choose(state, seconds=args.seconds))
        depth = statistics.median(r.depth for r in runs)
        rate = statistics.median(r.steps_searched / r.seconds for r in runs)
        nodes = statistics.median(r.nodes for r in runs)
        baseline = []
        for _ in range(args.repeats):
            began = time.perf_counter()
            turn = source_turn(state, SOURCE_MAX_DEPTH, seconds=args.seconds)
            baseline.append((turn.steps_searched, time.perf_counter() - began, turn.depth))
        base_rate = statistics.median(steps / seconds for steps, seconds, _ in baseline)
        base_depth = statistics.median(depth for _, _, depth in baseline)
        depths.append(depth)
        rates.append(rate)
        ratios.append(rate / base_rate)
        print(
            f"{number:>8} {state.ply:>5} {depth:>5} {rate:>10.3g} {nodes:>7.0f} | "
            f"{base_rate:>16.3g} {base_depth:>14} {rate / base_rate:>11.2f}"
        )
    print(
        f"median depth in {args.seconds * 1000:.0f} ms: {statistics.median(depths)} whole turns "
        f"(min {min(depths)}); median steps/s {statistics.median(rates):.3g}, "
        f"{statistics.median(ratios):.2f}x the plain source minimax's"
    )


if __name__ == "__main__":
    main()
