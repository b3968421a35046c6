"""What ``arbiter bridge stdio`` adds to a program's own time per move, in the same run.

The same program answers the same positions of one game two ways, medians per move:

1. a direct pipe: the turn line, built beforehand, written to the program and its answer read
   back (the baseline: the program's own time and the pipe's);
2. the bridge's process pool (``StdioPool.think``): the position played on from the match's last
   one, the turn line built (clocks, budget, diagram, the legal moves) and written, the answer
   read, parsed and checked for legality, as the bridge does for every move.

The program is the tests' first-legal program (tests/bots/stdio_programs: cell games only), or
any program of the line protocol given after ``--`` (a starter kit for paper soccer); the
opponent's moves are random, the program's its own.

    python benchmarks/stdio_bridge.py [--game gomoku] [--moves 40] [-- PROGRAM …]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from arbiter.bots.brain import ThinkRequest
from arbiter.bots.bridge.stdio import StdioPool, StdioProcess, check_answer, position_of, turn_line
from arbiter.engine import create_game

TEST_PROGRAM = [sys.executable, str(Path(__file__).resolve().parents[1] / "tests/bots/stdio_programs/first_legal.py")]
CLOCK = {"remaining_ms": 60_000, "opponent_ms": 60_000, "initial_ms": 60_000, "increment_ms": 0}


async def positions(argv: list[str], game: str, moves: int) -> list[tuple[str, list[Any]]]:
    """The matches and move lists the program is asked about, game after game until there are
    ``moves``: a random opponent's move, then the program's own."""
    process = await StdioProcess.start(argv)
    rng, asked = random.Random(3), []
    try:
        for match in (f"m{number}" for number in range(moves)):
            state, history = create_game(game).new_state(), []
            while len(asked) < moves and not state.is_terminal:
                move = state.game.encode_move(rng.choice(state.legal_moves()))
                state.play(state.game.decode_move(move))
                history.append(move)
                if state.is_terminal:
                    break
                asked.append((match, list(history)))
                request = ThinkRequest(match, game, {}, list(history), 1.0, clock=CLOCK)
                line = await process.ask(turn_line(request, state, 5000), time.monotonic() + 5)
                answer, _ = check_answer(line, state, "p")
                state.play(state.game.decode_move(answer))
                history.append(answer)
            if len(asked) == moves:
                break
    finally:
        await process.close()
    return asked


async def direct_pipe(argv: list[str], game: str, asked: list[tuple[str, list[Any]]]) -> list[float]:
    requests = [ThinkRequest(match, game, {}, history, 1.0, clock=CLOCK) for match, history in asked]
    lines = [turn_line(request, position_of(game, {}, request.moves), 5000) for request in requests]
    process = await StdioProcess.start(argv)
    times = []
    try:
        for turn in lines:
            began = time.perf_counter()
            json.loads(await process.ask(turn, time.monotonic() + 5))
            times.append(time.perf_counter() - began)
    finally:
        await process.close()
    return times


async def bridge_pool(argv: list[str], game: str, asked: list[tuple[str, list[Any]]]) -> list[float]:
    pool = StdioPool(argv, slots=1)
    await pool.start([game])
    times = []
    try:
        for match, history in asked:
            request = ThinkRequest(match, game, {}, history, 1.0, deadline=time.monotonic() + 5, clock=CLOCK)
            began = time.perf_counter()
            await pool.think(request)
            times.append(time.perf_counter() - began)
    finally:
        await pool.close()
    return times


async def run(argv: list[str], game: str, moves: int) -> None:
    asked = await positions(argv, game, moves)
    direct = await direct_pipe(argv, game, asked)
    pooled = await bridge_pool(argv, game, asked)
    base = statistics.median(direct)
    print(f"program {Path(argv[-1]).name}, {game}, {len(asked)} moves each, median per move")
    print(f"{'path':<28} {'ms':>8} {'added ms':>9} {'ratio':>7}")
    for name, times in (("direct pipe (baseline)", direct), ("bridge process pool", pooled)):
        median = statistics.median(times)
        print(f"{name:<28} {median * 1000:>8.3f} {(median - base) * 1000:>9.3f} {median / base:>6.2f}×")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="gomoku")
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("program", nargs="*", help="the program's command (default: the tests' first-legal program)")
    args = parser.parse_args()
    asyncio.run(run(args.program or TEST_PROGRAM, args.game, args.moves))


if __name__ == "__main__":
    main()
