"""Gomoku judge: our bot's moves scored by an outside pbrain engine, on the positions of logged games.

    python -m arbiter.lab.gomoku_gauntlet --pairs 50 --game-log games.jsonl -- /path/to/pbrain-engine
    python -m arbiter.lab.gomoku_judge --log games.jsonl level=4 PYTHON:level=4 -- /path/to/pbrain-engine

A series of games scores a version within about ten points either way over 100 games, and most
games are decided by a few moves. The judge looks at the moves instead. Every position where our
bot was to move in the logged games (``gomoku_gauntlet.py --game-log``), and where the engine does
not already see the game decided (its evaluation within ``--decided``), is given to each player
(a gomoku_strength.py spec, ``--time`` seconds a move). The engine, held to ``--nodes`` a move
(INFO MAX_NODE; with one thread its answer is the same every time), evaluates the position before
the move and after it. A move's loss is how much worse the engine finds the position after the
move than before (its own best), never below 0 and at most ``--cap``; a move into a forced loss is
one after which the engine sees a forced win for the other side.

For each player: the mean and median loss, the moves into a forced loss, the moves the engine
would have played, and against the first player, move by move on the same positions, the mean
difference of the losses with its standard error (the baseline measured in the same run).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import re
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from arbiter.bots.brain import ThinkRequest
from arbiter.bots.gomoku.arena import Contender
from arbiter.engine import Game, create_game
from arbiter.lab.gomoku_gauntlet import Engine, Limits, split_engine_command
from arbiter.lab.gomoku_strength import make_player

# An engine's evaluation in its MESSAGE lines: "Eval -130", "Eval +M19" (Rapfi), "score 35" (ours).
EVALUATION = re.compile(r"\b(?:eval|ev|score)\s*[=:]?\s*([+-]?)(M?)(\d+)\b", re.IGNORECASE)
MATE = 30_000  # a forced win in n plies reads as MATE - n; anything beyond FORCED is a forced result
FORCED = MATE - 1_000
MAX_FORCED = 4  # answers without an evaluation followed, at most, before the engine is called silent


def engine_value(messages: Sequence[str]) -> int | None:
    """The last evaluation (side to move's view) the engine printed; a mate in n as ±(MATE - n), a
    score past FORCED (an engine that prints its wins as huge numbers) as ±MATE."""
    for message in reversed(messages):
        found = EVALUATION.findall(message)
        if found:
            sign, mate, digits = found[-1]
            value = MATE - int(digits) if mate else min(int(digits), MATE)
            return -value if sign == "-" else value
    return None


@dataclass
class Judged:
    """One player's moves: the loss of each (in the order of the positions) and how many were the engine's."""

    name: str
    losses: list[int] = field(default_factory=list)
    forced_losses: int = 0
    engines_move: int = 0


class Judge:
    """The engine's evaluations, each position asked once (players often choose the same move)."""

    def __init__(self, engine: Engine, nodes: int) -> None:
        self.engine = engine
        self.limits = Limits(bot_seconds=0.0, engine_seconds=60.0, grace=10.0, engine_nodes=nodes)
        self.known: dict[str, tuple[int, list[int]]] = {}

    async def evaluate(self, game: Game, moves: list[list[int]], forced: int = MAX_FORCED) -> tuple[int, list[int]]:
        """The engine's evaluation for the side to move after ``moves``, and its move.

        An engine answers a five, or the block of one, without a search and without an evaluation: then the
        value is the position's after its move (negated), a five being a win at once."""
        key = json.dumps(moves)
        if key not in self.known:
            await self.engine.new_game()
            move, _, _ = await self.engine.move(moves, self.limits)
            assert self.engine.process is not None
            value = engine_value(self.engine.process.messages)
            if value is None:
                outcome = self.outcome(game, [*moves, move])
                if outcome is not None:
                    value = -outcome
                elif forced > 0:
                    value = -(await self.evaluate(game, [*moves, move], forced - 1))[0]
                else:
                    raise SystemExit(f"{self.engine.argv[0]} printed no evaluation (MESSAGE ... eval N)")
            self.known[key] = (value, list(move))
        return self.known[key]

    @staticmethod
    def outcome(game: Game, moves: list[list[int]]) -> int | None:
        """For the side to move after ``moves``: -MATE after a five, 0 on a full board, None while the game goes on."""
        state = game.new_state()
        for played in moves:
            state.play(game.decode_move(played))
        if state.outcome is None:
            return None
        return 0 if state.outcome.winner is None else -MATE

    async def after(self, game: Game, moves: list[list[int]], move: list[int]) -> int:
        """The engine's evaluation for the other side after ``move``."""
        outcome = self.outcome(game, [*moves, move])
        if outcome is not None:
            return outcome
        return (await self.evaluate(game, [*moves, move]))[0]


def positions_of(logs: Sequence[Path]) -> list[list[list[int]]]:
    """The moves before each of our decisions in the logged games, in the order of the logs."""
    positions: list[list[list[int]]] = []
    for path in logs:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            try:
                logged = json.loads(line)
                plies = sorted(int(ply) for ply in logged["decisions"])
                positions.extend(logged["moves"][:ply] for ply in plies)
            except (ValueError, KeyError, TypeError):
                raise SystemExit(f"{path}:{number}: not a game of gomoku_gauntlet.py --game-log") from None
    return positions


async def judge(args: argparse.Namespace, engine_argv: list[str]) -> None:
    positions = positions_of(args.log)  # a bad log stops the script before anything starts
    game = create_game(args.game)
    players: list[Contender] = [make_player(spec, args.time) for spec in args.players]
    for player in players:
        player.brain.warm_up()
    engine = Engine(engine_argv, game, [f"INFO {line}" for line in args.engine_info])
    scorer = Judge(engine, args.nodes)
    began = time.perf_counter()
    try:
        await engine.new_game()
        print(f"engine: {' '.join(engine_argv)} ({engine.about}), {args.nodes:,} nodes a position", flush=True)
        kept = []
        for moves in positions:
            value, best = await scorer.evaluate(game, moves)
            if abs(value) <= args.decided:
                kept.append((moves, value, best))
        print(f"{len(kept)} positions undecided by the engine ({time.perf_counter() - began:.0f} s)", flush=True)
        results = [Judged(player.label) for player in players]
        for index, (moves, before, best) in enumerate(kept):
            for player, judged in zip(players, results, strict=True):
                request = ThinkRequest(f"judge-{index}", game.name, dict(game.params), moves, player.budget,
                                       seed=index, options=player.options)  # fmt: skip
                move = list(player.brain.think(request).move)
                after = await scorer.after(game, moves, move)
                judged.losses.append(min(max(before + after, 0), args.cap))  # after: the opponent's view
                judged.forced_losses += after > FORCED
                judged.engines_move += move == best
    finally:
        await engine.close()
    for judged in results:
        print(report(judged, results[0]), flush=True)
    print(f"({time.perf_counter() - began:.0f} s)")


def report(judged: Judged, baseline: Judged) -> str:
    """One player's line: mean and median loss, forced losses, the engine's moves, the difference to the baseline."""
    count = len(judged.losses)
    line = (
        f"{judged.name:<36} {count} moves  mean loss {statistics.mean(judged.losses or [0]):6.1f}  "
        f"median {statistics.median(judged.losses or [0]):5.0f}  into a forced loss {judged.forced_losses:3d}  "
        f"the engine's move {judged.engines_move:3d}"
    )
    if judged is not baseline and count > 1:
        differences = [a - b for a, b in zip(judged.losses, baseline.losses, strict=True)]
        error = statistics.stdev(differences) / math.sqrt(count)
        line += f"  vs {baseline.name}: {statistics.mean(differences):+.1f} ± {error:.1f}"
    return line


def main(argv: Sequence[str] | None = None) -> None:
    own, engine_argv = split_engine_command(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("players", nargs="+", help="gomoku_strength.py specs; the first is the baseline")
    parser.add_argument(
        "--log", type=Path, action="append", required=True, help="a gomoku_gauntlet.py --game-log file (repeatable)"
    )
    parser.add_argument("--game", default="gomoku", help="the game the logs were played on")
    parser.add_argument("--time", type=float, default=0.5, help="each player's seconds a move")
    parser.add_argument("--nodes", type=int, default=200_000, help="the engine's nodes a position (INFO MAX_NODE)")
    parser.add_argument("--decided", type=int, default=1_500, help="leave out positions the engine scores beyond this")
    parser.add_argument("--cap", type=int, default=3_000, help="largest loss counted for one move")
    parser.add_argument("--engine-info", action="append", default=["THREAD_NUM 1"], metavar="'KEY VALUE'",
                        help="an INFO line sent once to the engine (default: THREAD_NUM 1; repeatable)")  # fmt: skip
    args = parser.parse_args(own)
    missing = [str(path) for path in args.log if not path.is_file()]
    if missing:
        parser.error(f"no such game log: {', '.join(missing)}")
    if args.time <= 0 or args.nodes < 1 or args.cap < 1:
        parser.error("--time, --nodes and --cap take positive numbers")
    asyncio.run(judge(args, engine_argv))


if __name__ == "__main__":
    main()
