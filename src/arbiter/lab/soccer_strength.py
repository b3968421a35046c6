"""Paper-soccer strength: in-process matches between bots, each pairing over many openings.

    python -m arbiter.lab.soccer_strength                      # the ladder: every level against the one below,
                                                              # full strength against random and the source
    python -m arbiter.lab.soccer_strength --games 60 --time 0.1 level=6 source:depth=2
    python -m arbiter.lab.soccer_strength --stuck draw --width 6 --length 8 level=5 level=4

A player is ``random``, ``level=N`` (the soccer bot at level N) or ``source:depth=D[:weakened]`` (the
source's step minimax). Games come in pairs: each opening (``--opening`` random single steps
that pass the turn, seeded) is played twice with the colours swapped, so neither side profits
from a lucky opening or from moving first. The first player of a pairing is the one measured:
its score is (wins + draws / 2) / games. The baseline of the run is the first pairing of the
default list, full strength against random, whose score should be 100%.

Each turn is thought with ``--time`` seconds of budget (the 200 ms of online arenas by default,
shorter for long series); fixed-depth levels ignore it.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
from tqdm import tqdm

from arbiter.bots.brain import Brain, ThinkRequest
from arbiter.bots.random_bot import RandomBrain
from arbiter.bots.soccer.brain import LEVELS, SoccerBrain
from arbiter.engine import create_game
from arbiter.engine.paper_soccer import PaperSoccerState

DEFAULT_PAIRINGS = [
    (f"level={len(LEVELS)}", "random"),
    (f"level={len(LEVELS)}", "source:depth=2"),
    *((f"level={k + 1}", f"level={k}") for k in range(1, len(LEVELS))),
]
MAX_TURNS = 1_000  # a game cannot last longer: every step draws a line, and fields have fewer


def make_player(spec: str) -> Brain:
    """A brain from a spec: random, level=N, source:depth=D[:weakened]."""
    if spec == "random":
        return RandomBrain()
    if spec.startswith("level="):
        return SoccerBrain(int(spec.split("=", 1)[1]))
    if spec.startswith("source:depth="):
        parts = spec.split(":")
        options: dict[str, Any] = {"style": "source", "depth": int(parts[1].split("=", 1)[1])}
        if len(parts) > 2 and parts[2] == "weakened":
            options["heuristic"] = "weakened"
        return SoccerBrain(**options)
    raise SystemExit(f"unknown player {spec!r}: use random, level=N or source:depth=D[:weakened]")


def random_opening(state: PaperSoccerState, steps: int, rng: np.random.Generator) -> None:
    """Play ``steps`` random one-step turns (steps onto untouched points), while there are such steps."""
    for _ in range(steps):
        passing = [d for d in state.legal_actions().tolist() if _passes(state, d)]
        if not passing:
            return
        state.play((int(rng.choice(passing)),))


def _passes(state: PaperSoccerState, d: int) -> bool:
    trial = state.copy()
    trial.play_action(d)
    return not trial.is_terminal and trial.to_move != state.to_move


@dataclass
class Tally:
    wins: int = 0
    draws: int = 0
    losses: int = 0
    think_seconds: list[float] = field(default_factory=list)
    depths: list[int] = field(default_factory=list)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + self.draws / 2) / max(self.games, 1)


def play_game(
    game,
    players: tuple[Brain, Brain],
    opening: list[tuple[int, ...]],
    budget: float,
    tally: Tally,
    measured: int,
    match_id: str,
) -> int | None:
    """One game from ``opening``; returns the winner (0, 1) or None for a draw. Checks every turn is legal."""
    state = game.new_state()
    for move in opening:
        state.play(move)
    for _ in range(MAX_TURNS):
        if state.is_terminal:
            break
        mover = state.to_move
        request = ThinkRequest(match_id, game.family, dict(game.params), [list(m) for m in state.moves()], budget)
        began = time.perf_counter()
        result = players[mover].think(request)
        if mover == measured:
            tally.think_seconds.append(time.perf_counter() - began)
            if "depth" in result.info:
                tally.depths.append(int(result.info["depth"]))
        state.play(game.decode_move(result.move))  # raises IllegalMove on an illegal turn
    outcome = state.outcome
    assert outcome is not None, "a game ran past MAX_TURNS"
    return outcome.winner


def run_pairing(
    first: str, second: str, games: int, budget: float, params: dict, opening_steps: int, seed: int
) -> Tally:
    game = create_game("paper_soccer", params)
    players = (make_player(first), make_player(second))
    for player in players:
        player.warm_up()
    tally = Tally()
    for pair in tqdm(range((games + 1) // 2), desc=f"{first} v {second}", unit="pair", disable=None, leave=False):
        rng = np.random.default_rng([seed, pair])
        start = game.new_state()
        random_opening(cast(PaperSoccerState, start), opening_steps, rng)
        opening = start.moves()
        for measured in (0, 1):
            seats = players if measured == 0 else (players[1], players[0])
            winner = play_game(game, seats, opening, budget, tally, measured, f"{pair}-{measured}")
            if winner is None:
                tally.draws += 1
            elif winner == measured:
                tally.wins += 1
            else:
                tally.losses += 1
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("players", nargs="*", help="two player specs (default: the whole ladder)")
    parser.add_argument("--games", type=int, default=40, help="games per pairing (even)")
    parser.add_argument("--time", type=float, default=0.2, help="seconds of budget per turn")
    parser.add_argument("--width", type=int, default=8)
    parser.add_argument("--length", type=int, default=10)
    parser.add_argument("--stuck", choices=("lose", "draw"), default="lose")
    parser.add_argument("--opening", type=int, default=2, help="random single-step turns before the bots play")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.players and len(args.players) != 2:
        raise SystemExit("give two players, or none for the whole ladder")
    pairings = [tuple(args.players)] if args.players else DEFAULT_PAIRINGS
    params = {"width": args.width, "length": args.length, "stuck": args.stuck}
    print(
        f"paper_soccer {params}, {args.games} games per pairing, {args.time * 1000:.0f} ms per turn, "
        f"{args.opening}-step random openings, seed {args.seed}"
    )
    print(
        f"{'player':>22} {'opponent':>18} {'won':>4} {'drawn':>5} {'lost':>4} {'score':>6} "
        f"{'median ms':>9} {'median depth':>12}"
    )
    for first, second in pairings:
        began = time.perf_counter()
        tally = run_pairing(first, second, args.games, args.time, params, args.opening, args.seed)
        median_ms = statistics.median(tally.think_seconds) * 1000 if tally.think_seconds else 0.0
        median_depth = statistics.median(tally.depths) if tally.depths else 0
        print(
            f"{first:>22} {second:>18} {tally.wins:>4} {tally.draws:>5} {tally.losses:>4} {tally.score:>6.0%} "
            f"{median_ms:>9.1f} {median_depth:>12}   ({time.perf_counter() - began:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
