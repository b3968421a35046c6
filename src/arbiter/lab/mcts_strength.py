"""MCTS strength over bigger samples, played in-process (the figures over the real server come from
the ladder): against random in every game, against perfect play in the solved games, against the
source's depth-2 paper soccer player, and against the gomoku alpha-beta bot at equal time per move.

Usage: python -m arbiter.lab.mcts_strength [--sections random,perfect,soccer,gomoku] [--games 200]
       [--budget 0.5] [--gomoku-budgets 0.2,1.0] [--gomoku-games 10]

Against random and perfect, mcts searches a fixed number of simulations per decision (so the
machine's load does not change the result); against the soccer and gomoku bots both sides get the
same time per move. Each line gives wins / draws / losses from mcts's side, its score (a draw
counts half) and a 95% Wilson interval for the score.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Sequence

from tqdm import tqdm

from arbiter.bots.brain import Brain, ThinkRequest
from arbiter.bots.mcts.brain import MctsBrain
from arbiter.bots.registry import brain_class
from arbiter.bots.soccer.brain import SoccerBrain
from arbiter.engine import create_game

RANDOM_SERIES = [
    ("tictactoe", 2000),
    ("tictactoe4", 2000),
    ("vanishing", 2000),
    ("ttt3d", 2000),
    ("qubic", 1000),
    ("gomoku10", 1000),
    ("gomoku", 1000),
    ("paper_soccer", 1000),
]
# game, mcts simulations, games, colours mcts plays (the first-player wins are only a measure as first)
PERFECT_SERIES = [
    ("tictactoe", 3000, (0, 1)),
    ("tictactoe4", 5000, (0, 1)),
    ("vanishing", 50_000, (0,)),
    ("ttt3d", 20_000, (0,)),
]


def play(name: str, players: Sequence[Brain], match: str, seed: int, budget: float) -> int | None:
    """One game between two brains; the winner (0 or 1) or None. Moves are checked by the rules."""
    game = create_game(name)
    state = game.new_state()
    moves: list = []
    while not state.is_terminal:
        request = ThinkRequest(match, name, {}, list(moves), budget, seed=seed)
        move = players[state.to_move].think(request).move
        state.play(game.decode_move(move))
        moves.append(move)
    outcome = state.outcome
    assert outcome is not None  # the game is over
    return outcome.winner


def series(
    name: str, mcts: Brain, opponent: Brain, games: int, *, budget: float, colours: Sequence[int] = (0, 1)
) -> tuple[int, int, int]:
    """(wins, draws, losses) of ``mcts``, alternating the colours it plays."""
    wins = draws = losses = 0
    for index in tqdm(range(games), desc=name, unit="game", disable=None, leave=False):
        me = colours[index % len(colours)]
        players = (mcts, opponent) if me == 0 else (opponent, mcts)
        winner = play(name, players, f"{name}-{index}", index, budget)
        if winner is None:
            draws += 1
        elif winner == me:
            wins += 1
        else:
            losses += 1
        mcts.forget(f"{name}-{index}")
        opponent.forget(f"{name}-{index}")
    return wins, draws, losses


def wilson(score: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson interval for a score fraction over ``games`` games."""
    if games == 0:
        return 0.0, 1.0
    centre = (score + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(score * (1 - score) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def report(label: str, result: tuple[int, int, int], seconds: float) -> None:
    wins, draws, losses = result
    games = wins + draws + losses
    score = (wins + draws / 2) / games
    low, high = wilson(score, games)
    print(
        f"{label:<44} {wins:>4} / {draws:>4} / {losses:>4}   score {100 * score:5.1f}% "
        f"[{100 * low:5.1f}, {100 * high:5.1f}]   {seconds:6.1f} s",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sections", default="random,perfect,soccer,gomoku")
    parser.add_argument("--games", type=int, default=200, help="games per series against random")
    parser.add_argument("--perfect-games", type=int, default=50)
    parser.add_argument("--soccer-games", type=int, default=50)
    parser.add_argument("--budget", type=float, default=0.5, help="seconds per move against the soccer bot")
    parser.add_argument("--gomoku-budgets", default="0.2,1.0")
    parser.add_argument("--gomoku-games", type=int, default=10)
    args = parser.parse_args()
    sections = set(args.sections.split(","))
    print(f"{'series':<44} wins/draws/losses (mcts's side)")

    if "random" in sections:
        random_brain = brain_class("random")()
        for name, simulations in RANDOM_SERIES:
            started = time.perf_counter()
            result = series(name, MctsBrain(simulations=simulations), random_brain, args.games, budget=10.0)
            report(f"{name} vs random ({simulations} sims)", result, time.perf_counter() - started)

    if "perfect" in sections:
        perfect = brain_class("perfect")()
        for name, simulations, colours in PERFECT_SERIES:
            started = time.perf_counter()
            mcts = MctsBrain(simulations=simulations)
            result = series(name, mcts, perfect, args.perfect_games, budget=10.0, colours=colours)
            side = "both sides" if len(colours) == 2 else "first player"
            report(f"{name} vs perfect ({simulations} sims, {side})", result, time.perf_counter() - started)

    if "soccer" in sections:
        source_depth_2 = SoccerBrain(level=3)  # the source's player at depth 2
        started = time.perf_counter()
        result = series("paper_soccer", MctsBrain(), source_depth_2, args.soccer_games, budget=args.budget)
        report(f"paper_soccer vs soccer level 3 ({args.budget} s/move)", result, time.perf_counter() - started)

    if "gomoku" in sections:
        alpha_beta = brain_class("gomoku")()
        for budget in (float(b) for b in args.gomoku_budgets.split(",")):
            started = time.perf_counter()
            result = series("gomoku10", MctsBrain(), alpha_beta, args.gomoku_games, budget=budget)
            report(f"gomoku10 vs gomoku alpha-beta ({budget} s/move)", result, time.perf_counter() - started)


if __name__ == "__main__":
    main()
