"""What a renju move costs the server for black's forbidden points (sent with ``moved``): per position.

    .venv/bin/python benchmarks/forbidden_points.py [--positions 200] [--rounds 5]

On positions of random renju games with black to move (10 to 60 stones, fixed seed), the time of
``Match.forbidden()`` (the empty cells renju's legal-move list leaves out, then why for each) against
the baseline in the same run: asking the engine about every empty cell (``forbidden_points`` and
``forbidden_kind``). Thread CPU time, the median of ``--rounds`` passes over all the positions.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from arbiter.engine import create_game
from arbiter.engine.five import FiveState
from arbiter.server.basics.clock import ClockSpec
from arbiter.server.play.match import Match


def positions(count: int, seed: int = 1) -> list[Match]:
    """Matches opened on random renju games' positions with black to move."""
    rng = random.Random(seed)
    game = create_game("renju")
    out: list[Match] = []
    while len(out) < count:
        state, stones = game.new_state(), 2 * rng.randrange(5, 31)
        while state.ply < stones and not state.is_terminal:
            state.play(rng.choice(state.legal_moves()))
        if state.is_terminal:
            continue
        match = Match("bench", game, ClockSpec(60_000))
        match.open_with([list(move) for move in state.moves()])
        out.append(match)
    return out


def every_cell(match: Match) -> list[dict[str, object]]:
    state = match.state
    assert isinstance(state, FiveState)
    return [{"move": list(move), "kind": state.forbidden_kind(move)} for move in state.forbidden_points()]


def microseconds(run: Callable[[Match], object], matches: list[Match]) -> float:
    start = time.thread_time()
    for match in matches:
        run(match)
    return (time.thread_time() - start) / len(matches) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    matches = positions(args.positions)
    assert all(m.forbidden() == every_cell(m) for m in matches)  # the same points, the same reasons
    points = sum(len(m.forbidden()) for m in matches)
    server, baseline = [], []
    for _ in range(args.rounds):
        server.append(microseconds(Match.forbidden, matches))
        baseline.append(microseconds(every_cell, matches))
    ours, theirs = statistics.median(server), statistics.median(baseline)
    print(f"{len(matches)} positions of random renju games, black to move, {points} forbidden points among them")
    print(f"Match.forbidden(): {ours:.1f} µs a position; every cell asked: {theirs:.1f} µs ({ours / theirs:.3f}x)")


if __name__ == "__main__":
    main()
