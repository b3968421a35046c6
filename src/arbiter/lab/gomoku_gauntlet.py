"""Gomoku gauntlet: our bot against an outside Gomocup (pbrain) engine, from balanced openings, both colours.

    python -m arbiter.lab.gomoku_gauntlet --pairs 50 --time 0.5 -- /work/engines/pbrain-rapfi
    python -m arbiter.lab.gomoku_gauntlet --pairs 20 --node-limits 1000,3000,10000,30000 -- ENGINE [ARGS…]
    python -m arbiter.lab.gomoku_gauntlet --bot level=3 --pairs 2 -- arbiter pbrain gomoku --level 2

The engine is any executable speaking the Gomocup protocol, written after ``--``. Our side is a
player spec of src/arbiter/lab/gomoku_strength.py (``level=N[:depth=D][:nodes=N][:time=S]``, or a
previous version ``PYTHON:level=N``), given ``--time`` seconds a move. The engine gets INFO
timeout_turn of ``--engine-time`` (default ``--time``), no match clock, and the rule of the game
(INFO rule 0: free style on ``gomoku``); with ``--node-limits a,b,c`` it is also held to that
many nodes a move by INFO MAX_NODE (the Yixin-Board extension that Rapfi and Yixin honour; an
engine without it ignores the line and plays to its time), one series per limit, and the node
limit at which we are even is read off the score curve (linear in log nodes between the two
limits where the score crosses 50%).

Openings: three random stones anywhere within ``--spread`` cells of the centre (seeded by
``--seed``; arbiter.bots.gomoku.arena.scattered_opening), kept only when our bot, searching
``JUDGE_NODES`` nodes, scores the position within ``--balance`` centipawns of even
(gomoku_strength.py's ``balanced_openings``), or within it of ``--centre`` CP: the judge underrates
the move, and from within 100 cp of even the side to move wins most games between equals (80% in
docs/lab/strength-2026-11-27.md, G96), from within 80 of -240 about half (G98). ``--spread 0`` draws each stone
beside the last instead (``random_opening``: the side with two stones then wins most games between
equals, even within 300 cp). Since the judge is our own bot, a new version picks other openings
from the same seed: ``--openings FILE`` plays the first ``--pairs`` openings of a file instead, or
the ``--pairs`` after its first ``--skip N`` (``--save-openings FILE`` writes the ones judged;
src/arbiter/lab/openings/gomoku_balanced.json holds 100, seed 3, within 100 cp, spread 3;
gomoku_even.json 200, seed 382, within 80 of -240, where colour decides less; gomoku_even_more.json
300 more the same way, seed 383, one of them also in the first), so versions are
measured on the same stones. Each is played twice, our bot taking the first player's side first,
then the second's. A side that takes longer than its time a move plus ``--grace`` loses on time; an
engine that crashes, hangs or answers an illegal move forfeits the game. Each series prints its score with
the interval, by colour, how games ended, and each side's time, nodes and median depth a move (of the moves it
searched: the depth the engine's last MESSAGE names, Rapfi's nominal one; ours from the search's report).

The engine is spoken to over pipes by the pbrain bridge's own process layer
(arbiter.bots.bridge.process.EngineProcess and the bridge's position commands), the code that
plays it on a server, without the server in between: a node limit is not something a server
match carries, and the gauntlet wants the engine's own answer time, not a websocket's.

``--game-log FILE`` appends one JSON line a game: the engine's node limit, the opening, the colours,
every move, and for each of ours what the search reported (score, depth, nodes, reason), so a lost
game can be replayed and read move by move.
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
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arbiter.bots.brain import ThinkRequest
from arbiter.bots.bridge.engines import MAX_MATCH_MS, position_commands
from arbiter.bots.bridge.process import EngineProcess
from arbiter.bots.client.deciding import GiveUp
from arbiter.bots.gomoku.arena import Contender
from arbiter.engine import Game, IllegalMove, Move, create_game
from arbiter.engine.gomocup import info_rule
from arbiter.lab.gomoku_strength import add_opening_options, check_opening_options, chosen_openings, make_player
from arbiter.lab.strength_report import score_interval, score_text

SETUP_SECONDS = 10.0  # START, RESTART and the warm-up search
# An engine's report of the nodes it searched: "nodes 1234", "Node 305K" (Rapfi), "nodes=1.2M".
NODES_REPORT = re.compile(r"\bnodes?\s*[=:]?\s*(\d+(?:\.\d+)?)([KM]?)\b", re.IGNORECASE)
# ... and of the depth it reached: "depth 4", "Depth 16-32" (Rapfi: nominal depth, then selective depth).
DEPTH_REPORT = re.compile(r"\bdepth\s*[=:]?\s*(\d+)", re.IGNORECASE)


# --- the engine -------------------------------------------------------------------------------
@dataclass
class Limits:
    """What each side gets a move: seconds (ours, the engine's), the grace past them, the engine's nodes."""

    bot_seconds: float
    engine_seconds: float
    grace: float
    engine_nodes: int = 0  # 0: no INFO MAX_NODE


class Engine:
    """One pbrain engine process for the whole gauntlet: STARTed and warmed once, RESTARTed per game,
    replaced when it died (a crash, or a kill after a timeout)."""

    def __init__(self, argv: Sequence[str], game: Game, setup: Sequence[str]) -> None:
        self.argv = list(argv)
        self.game = game
        self.setup = list(setup)  # INFO lines sent once after START
        self.process: EngineProcess | None = None
        self.about = ""
        self.spawned = 0

    async def new_game(self) -> None:
        """An empty board: RESTART, or a new process when the last one died or refused."""
        if self.process is not None and self.process.alive:
            try:
                await self.process.send("RESTART")
                if (await self.process.answer(time.monotonic() + SETUP_SECONDS, expect="ok")).upper() == "OK":
                    self.process.known = []
                    return
            except GiveUp:
                pass
            await self.process.kill()
        try:
            await self._spawn()
        except GiveUp as error:
            raise SystemExit(f"the engine failed before a game: {error}") from None

    async def _spawn(self) -> None:
        process = await EngineProcess.spawn(self.argv)
        self.spawned += 1
        deadline = time.monotonic() + SETUP_SECONDS
        await process.send("ABOUT")
        self.about = await process.answer(deadline, expect="line")
        m, n = self.game.params["m"], self.game.params["n"]
        await process.send(f"START {m}" if m == n else f"RECTSTART {m},{n}")
        if (await process.answer(deadline, expect="ok")).upper() != "OK":
            raise SystemExit(f"{self.argv[0]} refuses a {m}x{n} board")
        # One short search before any game: hash tables allocated, code paged in.
        await process.send(*self.setup, "INFO timeout_turn 200", f"INFO rule {info_rule(self.game)}", "BEGIN")
        await process.answer(time.monotonic() + SETUP_SECONDS, expect="move")
        await process.send("RESTART")
        await process.answer(time.monotonic() + SETUP_SECONDS, expect="ok")
        process.known = []
        self.process = process

    async def move(self, moves: list[Any], limits: Limits) -> tuple[Any, int | None, int | None]:
        """The engine's move in the position ``moves``, and the nodes it says it searched and the depth it
        says it reached (each None when it does not say)."""
        assert self.process is not None
        info = [
            f"INFO timeout_turn {max(1, min(round(limits.engine_seconds * 1000), MAX_MATCH_MS))}",
            "INFO timeout_match 0",
            f"INFO rule {info_rule(self.game)}",
        ]
        if limits.engine_nodes:
            info.append(f"INFO MAX_NODE {limits.engine_nodes}")
        commands = [*info, *position_commands(self.process.known, moves)]
        deadline = time.monotonic() + limits.engine_seconds + limits.grace
        await self.process.send(*commands)
        line = await self.process.answer(deadline, expect="move", resend=commands[len(info) :])
        move = [int(part) for part in line.split(",")]
        self.process.known = [*moves, move]
        return move, reported_nodes(self.process.messages), reported_depth(self.process.messages)

    async def close(self) -> None:
        if self.process is not None:
            await self.process.close()


def last_report(messages: Sequence[str], pattern: re.Pattern[str]) -> re.Match[str] | None:
    """The match of ``pattern`` in the last MESSAGE line that has one."""
    return next((found for found in map(pattern.search, reversed(messages)) if found), None)


def reported_nodes(messages: Sequence[str]) -> int | None:
    """The node count in the last MESSAGE line that gives one, K and M read as thousands and millions."""
    found = last_report(messages, NODES_REPORT)
    return None if found is None else round(float(found[1]) * {"": 1, "K": 1e3, "M": 1e6}[found[2].upper()])


def reported_depth(messages: Sequence[str]) -> int | None:
    """The (nominal) depth in the last MESSAGE line that gives one."""
    found = last_report(messages, DEPTH_REPORT)
    return None if found is None else int(found[1])


# --- games ------------------------------------------------------------------------------------
@dataclass
class GameRecord:
    bot_first: bool
    result: float  # our points: 1, 0.5 or 0
    ending: str  # "five", "full board", "bot time", or the engine's failure (timeout, crash, illegal_move…)
    plies: int
    moves: list[list[int]] = field(default_factory=list)  # every move, the opening's first, as [x, y]
    decisions: dict[int, dict[str, Any]] = field(default_factory=dict)  # ply -> our search's report


@dataclass
class Gauntlet:
    """One series: its games in order, our think times, the engine's reported analyses."""

    games: list[GameRecord] = field(default_factory=list)
    bot_seconds: list[float] = field(default_factory=list)
    bot_nodes: list[int] = field(default_factory=list)
    engine_seconds: list[float] = field(default_factory=list)
    engine_nodes: list[int] = field(default_factory=list)
    bot_depths: list[int] = field(default_factory=list)  # of the moves each side searched (depth 1 or more)
    engine_depths: list[int] = field(default_factory=list)

    def count(self, bot_first: bool | None = None) -> tuple[int, int, int]:
        """W, D, L (ours), over all games or those where we moved first (True) or second (False)."""
        chosen = [g.result for g in self.games if bot_first is None or g.bot_first == bot_first]
        return chosen.count(1.0), chosen.count(0.5), chosen.count(0.0)

    @property
    def score(self) -> float:
        return score_interval(*self.count())[0]


async def play_game(
    game: Game, bot: Contender, engine: Engine, opening: list[Move], bot_first: bool, limits: Limits, seed: int,
    tally: Gauntlet,
) -> GameRecord:  # fmt: skip
    """One game from ``opening``; the engine answers by its process, our bot in this one."""
    await engine.new_game()
    state = game.new_state()
    for move in opening:
        state.play(move)
    bot_side = 0 if bot_first else 1
    record = GameRecord(bot_first, 0.0, "", 0)
    while not state.is_terminal:
        moves = [game.encode_move(m) for m in state.moves()]
        began = time.monotonic()
        if state.to_move == bot_side:
            request = ThinkRequest(f"gauntlet-{seed}", game.name, dict(game.params), moves, bot.budget,
                                   seed=seed * 2 + bot_side, options=bot.options)  # fmt: skip
            result = bot.brain.think(request)
            move = result.move
            took = time.monotonic() - began
            tally.bot_seconds.append(took)
            if "nodes" in result.info:
                tally.bot_nodes.append(result.info["nodes"])
            if result.info.get("depth", 0) >= 1:
                tally.bot_depths.append(result.info["depth"])
            record.decisions[state.ply] = {key: result.info[key] for key in LOGGED if key in result.info}
            if took > limits.bot_seconds + limits.grace:
                return finished(record, 0.0, "bot time", moves)
        else:
            try:
                move, nodes, depth = await engine.move(moves, limits)
            except GiveUp as error:
                return finished(record, 1.0, error.cause, moves)
            tally.engine_seconds.append(time.monotonic() - began)
            if nodes is not None:
                tally.engine_nodes.append(nodes)
            if depth is not None and depth >= 1:
                tally.engine_depths.append(depth)
        try:
            state.play(game.decode_move(move))
        except ValueError as error:  # IllegalMove, or no cell of this board
            if state.to_move == bot_side:
                raise IllegalMove(f"our bot played {move}: {error}") from None
            return finished(record, 1.0, "illegal_move", moves)
    moves = [game.encode_move(m) for m in state.moves()]
    outcome = state.outcome
    if outcome is None or outcome.winner is None:
        return finished(record, 0.5, "full board", moves)
    return finished(record, 1.0 if outcome.winner == bot_side else 0.0, "five", moves)


# Of our search's info, what goes into the game log.
LOGGED = ("score", "mate_in", "depth", "seldepth", "nodes", "reason", "pv", "seconds")


def finished(record: GameRecord, result: float, ending: str, moves: list[Any]) -> GameRecord:
    """``record`` with its result, its ending and the moves played before it ended."""
    record.result, record.ending, record.plies = result, ending, len(moves)
    record.moves = [list(move) for move in moves]
    return record


async def run_gauntlet(
    game: Game, bot: Contender, engine: Engine, openings: list[list[Move]], limits: Limits, seed: int,
    game_log: Path | None = None, first: int = 0,
) -> Gauntlet:  # fmt: skip
    """Every opening twice, our bot first then second (the running count on stderr after each pair),
    each game appended to ``game_log`` as it ends. ``first`` is the first opening's index in its file:
    an opening keeps its index, and so its games' seeds, whichever openings are played with it."""
    tally = Gauntlet()
    for index, opening in enumerate(openings, start=first):
        for bot_first in (True, False):
            game_seed = seed * 100_003 + index * 2 + int(not bot_first)
            record = await play_game(game, bot, engine, opening, bot_first, limits, game_seed, tally)
            tally.games.append(record)
            if game_log is not None:
                entry = {"engine_nodes": limits.engine_nodes, "engine_seconds": limits.engine_seconds,
                         "bot_seconds": limits.bot_seconds, "opening": index, "opening_plies": len(opening),
                         "bot_first": bot_first, "result": record.result, "ending": record.ending,
                         "moves": record.moves, "decisions": record.decisions}  # fmt: skip
                with game_log.open("a") as log:
                    log.write(json.dumps(entry) + "\n")
        wins, draws, losses = tally.count()
        print(f"  pair {index - first + 1}/{len(openings)}: W{wins} D{draws} L{losses}", file=sys.stderr, flush=True)
    return tally


# --- the score curve --------------------------------------------------------------------------
def even_nodes(curve: Sequence[tuple[int, float]]) -> float | None:
    """The node limit at which our score crosses 50%, linear in log(nodes) between the two limits
    around the first crossing (the curve sorted by nodes); None when it never crosses."""
    points = sorted(curve)
    for index, (n1, s1) in enumerate(points):
        if s1 == 0.5:
            return float(n1)
        if index and (points[index - 1][1] - 0.5) * (s1 - 0.5) < 0:
            n0, s0 = points[index - 1]
            fraction = (s0 - 0.5) / (s0 - s1)
            return math.exp(math.log(n0) + fraction * (math.log(n1) - math.log(n0)))
    return None


def report(label: str, tally: Gauntlet) -> str:
    """One line: the score with its interval, by colour, how games ended, time used."""
    w1, d1, l1 = tally.count(True)
    w2, d2, l2 = tally.count(False)
    endings = Counter(record.ending for record in tally.games)
    nodes = "".join(
        f", {side} {statistics.mean(counts):,.0f} nodes a move"
        for side, counts in (("bot", tally.bot_nodes), ("engine", tally.engine_nodes))
        if counts
    )
    if tally.bot_depths and tally.engine_depths:
        nodes += (
            f", median depth bot {statistics.median(tally.bot_depths):g},"
            f" engine {statistics.median(tally.engine_depths):g}"
        )
    return (
        f"{label:<14} {len(tally.games):>4} games  {score_text(*tally.count())}  "
        f"(first W/D/L {w1}/{d1}/{l1}, second {w2}/{d2}/{l2}; "
        f"losses on time: bot {endings['bot time']}, engine {endings['timeout']}; "
        f"endings {dict(sorted(endings.items()))}; "
        f"{statistics.mean(record.plies for record in tally.games):.0f} plies a game; "
        f"bot {statistics.mean(tally.bot_seconds or [0]) * 1000:.0f} ms a move (max "
        f"{max(tally.bot_seconds or [0]) * 1000:.0f}), engine {statistics.mean(tally.engine_seconds or [0]) * 1000:.0f}"
        f" ms (max {max(tally.engine_seconds or [0]) * 1000:.0f}){nodes})"
    )


async def gauntlet(args: argparse.Namespace, engine_argv: list[str]) -> None:
    game = create_game(args.game)
    bot = make_player(args.bot, args.time)
    bot.brain.warm_up()  # in-process or another checkout's child: warm before the first clock
    began = time.perf_counter()
    openings = chosen_openings(args, game)
    assert openings is not None  # the gauntlet always has a --balance
    source = args.openings if args.openings is not None else f"within {args.balance} cp of {args.centre}"
    print(f"{len(openings)} openings {source} ({time.perf_counter() - began:.0f} s)", flush=True)
    setup = [f"INFO max_memory {args.engine_memory}", *(f"INFO {line}" for line in args.engine_info)]
    engine = Engine(engine_argv, game, setup)
    try:
        await engine.new_game()
        print(f"engine: {' '.join(engine_argv)} ({engine.about})", flush=True)
        engine_time = args.engine_time if args.engine_time is not None else args.time
        node_limits = [int(part) for part in args.node_limits.split(",")] if args.node_limits else [0]
        curve = []
        for nodes in node_limits:
            began = time.perf_counter()
            limits = Limits(args.time, engine_time, args.grace, nodes)
            tally = await run_gauntlet(game, bot, engine, openings, limits, args.seed, args.game_log, args.skip)
            label = f"{nodes:,} nodes" if nodes else f"{engine_time:g} s a move"
            print(f"{report(label, tally)} {time.perf_counter() - began:.0f} s", flush=True)
            curve.append((nodes, tally.score))
        if args.node_limits:
            even = even_nodes(curve)
            if even is None:
                side = "above" if curve[0][1] > 0.5 else "below"
                print(f"even: not within {node_limits[0]:,}-{node_limits[-1]:,} nodes (score {side} 50% throughout)")
            else:
                print(f"even at about {even:,.0f} nodes a move")
    finally:
        await engine.close()


def split_engine_command(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """A script's own arguments, and the engine's command written after ``--`` (SystemExit without one)."""
    arguments = list(argv)
    if "--" not in arguments:
        raise SystemExit("write the engine's command after --, e.g. -- /path/to/pbrain-engine")
    split = arguments.index("--")
    if split == len(arguments) - 1:
        raise SystemExit("no engine command after --")
    return arguments[:split], arguments[split + 1 :]


def main(argv: Sequence[str] | None = None) -> None:
    own, engine_argv = split_engine_command(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="level=4", help="our player (a gomoku_strength.py spec)")
    parser.add_argument("--game", default="gomoku", help="a five-in-a-row game: gomoku, gomoku10, …")
    parser.add_argument("--pairs", type=int, default=50, help="openings, each played with both colours")
    parser.add_argument("--time", type=float, default=0.5, help="our seconds a move")
    parser.add_argument("--engine-time", type=float, help="the engine's seconds a move (default: --time)")
    parser.add_argument("--grace", type=float, default=0.1, help="seconds past the time a move before it is lost")
    parser.add_argument("--node-limits", help="a,b,c: one series per INFO MAX_NODE limit, and where we are even")
    parser.add_argument("--balance", type=int, default=100, help="largest opening score kept (centipawns)")
    parser.add_argument("--spread", type=int, default=3, help="opening stones within this of the centre, 0 touching")
    parser.add_argument("--engine-memory", type=int, default=0, help="INFO max_memory in bytes (0: no limit)")
    parser.add_argument("--engine-info", action="append", default=[], metavar="'KEY VALUE'",
                        help="an INFO line sent once to the engine, e.g. 'THREAD_NUM 1' (repeatable)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game-log", type=Path, metavar="FILE", help="append each game as a JSON line to FILE")
    add_opening_options(parser)
    args = parser.parse_args(own)
    if args.spread < 0:
        parser.error("--spread takes a distance of 0 or more")
    check_opening_options(parser, args, judged=True)
    asyncio.run(gauntlet(args, engine_argv))


if __name__ == "__main__":
    main()
