"""Gomoku strength: in-process series between bots, each pairing over many openings, both colours.

    python -m arbiter.lab.gomoku_strength                          # the default list below
    python -m arbiter.lab.gomoku_strength --pairs 100 --game gomoku10 level=4:nodes=20000 level=1
    python -m arbiter.lab.gomoku_strength --time 0.2 level=4 level=3
    python -m arbiter.lab.gomoku_strength --time 0.2 level=4 /work/main/.venv/bin/python:level=4
    python -m arbiter.lab.gomoku_strength --jobs 2 --time 5 --pairs 200 --balance 100 --spread 3 \
        level=4:nodes=20000 /work/main/.venv/bin/python:level=4:nodes=20000

A player is ``random`` or ``level=N`` with optional ``:depth=D``, ``:nodes=N``, ``:time=S``
options (the gomoku bot's own), optionally after ``PYTHON:``: that player is the gomoku bot of
another checkout, run by that interpreter in a child process (the previous version of the bot,
from the virtualenv of a main worktree), answering the same requests as the bot here. The child
keys its own numba cache by its own sources, so a checkout new to this machine compiles its
kernels first (a minute or two, before any clock starts). Every
opening (three random stones, each beside the last ones, seeded) is played twice with the
colours swapped (arbiter.bots.gomoku.arena). With ``--balance CP`` only openings our search
judges within CP of even are kept, as in the gauntlet, and with ``--spread R`` their stones lie
anywhere within R of the centre instead of touching: from touching stones the side with two wins
most games between equals (``--spread 3 --balance 100`` split them about evenly in stop 29; by stop 38
the side to move won 80% from them, and ``--centre -240 --balance 80`` splits them: gomoku_even.json).
``--save-openings FILE`` writes the balanced openings judged, ``--openings FILE`` plays a file's
(the same stones for every version: src/arbiter/lab/openings/gomoku_balanced.json has 100).
``--jobs N`` plays the series in N processes side by side, each a share of consecutive pairs with
its own players, for node-bound players (a clock would be shared with the other parts). The first
player of a pairing is the one measured:
score = (wins + draws / 2) / games. Each move is thought with ``--time`` seconds of budget;
levels 2 (2 plies) and 3 (a node budget) stop earlier on their own.

The default list is the issue's: full strength against random and against level 1 (the
source's player) on 15×15 and 10×10, and each level against the one below on 15×15. Full
strength gets a node budget against the two weak players so the long series stay short.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import random
import statistics
import subprocess
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from arbiter.bots.brain import Brain, ThinkRequest, ThinkResult
from arbiter.bots.gomoku.arena import Contender, Tally, random_opening, scattered_opening, series
from arbiter.bots.gomoku.brain import LEVELS, GomokuBrain
from arbiter.bots.random_bot import RandomBrain
from arbiter.engine import Game, Move, create_game
from arbiter.engine.numba_cache import environment_for_other_sources
from arbiter.stack.series import elo_difference, wilson_interval, z_value

FULL = f"level={len(LEVELS)}:nodes=20000"
JUDGE_NODES = 5_000  # our bot's search when it judges an opening: ~30 ms, scores steady by then
MAX_DRAWS = 50  # random openings drawn per opening kept before the balance is called too tight
DEFAULT_SERIES = [
    ("gomoku", FULL, "random", 10),
    ("gomoku10", FULL, "random", 10),
    ("gomoku", FULL, "level=1", 100),
    ("gomoku10", FULL, "level=1", 100),
    *(("gomoku", f"level={k + 1}", f"level={k}", 20) for k in range(1, len(LEVELS))),
]


# Run by the other checkout's interpreter: one JSON request a line in, one JSON result a line out.
CHILD = """
import json, sys, time
from arbiter.bots.brain import ThinkRequest
from arbiter.bots.gomoku.brain import GomokuBrain
began = time.perf_counter()
brain = GomokuBrain(int(sys.argv[1]), **json.loads(sys.argv[2]))
brain.warm_up()
print(json.dumps({"warm_seconds": time.perf_counter() - began}), flush=True)
for line in sys.stdin:
    result = brain.think(ThinkRequest(**json.loads(line)))
    print(json.dumps({"move": result.move, "info": result.info}), flush=True)
"""


class ChildBrain(Brain):
    """The gomoku bot of another checkout, thinking in a child process of that checkout's Python.

    The child warms its kernels as it starts and then says so; ``warm_up`` waits for that line, so a
    caller that warms its players before the first clock (as the gauntlet does) does not time the
    child's start-up as its first move (that cost a first game on time: docs/lab/strength-2026-11-26.md, stop 33). The
    child keys its own numba cache: in the folder keyed for this checkout's sources it could load
    kernels cached there for other sources at its paths (docs/lab/strength-2026-11-29.md, stop 51).
    """

    name = "gomoku"
    takes_options = True

    def __init__(self, python: str, level: int, options: dict[str, Any]) -> None:
        super().__init__(level)
        self.python = python
        self.child = subprocess.Popen(
            [python, "-c", CHILD, str(level), json.dumps(options)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd="/",
            env=environment_for_other_sources(),  # its own numba cache, keyed by its own sources
        )
        self.warm_seconds: float | None = None  # the child's start-up, once warm_up has read it

    def warm_up(self) -> None:
        """Wait until the child has warmed its kernels; SystemExit if it ended instead."""
        if self.warm_seconds is not None:
            return
        assert self.child.stdout is not None
        line = self.child.stdout.readline()
        if not line:
            raise SystemExit(f"the child bot ({self.python}) ended before it was ready: see its error above")
        self.warm_seconds = float(json.loads(line)["warm_seconds"])

    @classmethod
    def plays(cls, game: Game) -> bool:
        return GomokuBrain.plays(game)

    def think(self, request: ThinkRequest) -> ThinkResult:
        self.warm_up()  # the ready line comes first, whoever asked for it
        assert self.child.stdin is not None and self.child.stdout is not None
        self.child.stdin.write(json.dumps(dataclasses.asdict(request)) + "\n")
        self.child.stdin.flush()
        answer = json.loads(self.child.stdout.readline())
        return ThinkResult(answer["move"], answer["info"])


def judge_score(game: Game, opening: list[Move]) -> int:
    """The opening's score for the side to move, by a judge of its own (a judge's table is kept from one
    position to the next, so a shared one would make each score depend on the openings judged before)."""
    moves = [game.encode_move(move) for move in opening]
    judge = GomokuBrain(nodes=JUDGE_NODES)
    return int(judge.think(ThinkRequest("judge", game.name, dict(game.params), moves, budget=60.0)).info["score"])


def balanced_openings(
    game: Game, count: int, seed: int, balance: int, spread: int = 0, centre: int = 0
) -> list[list[Move]]:
    """``count`` distinct three-stone openings whose score (side to move) lies within ``balance`` of ``centre``.

    ``spread`` 0: touching stones (``arena.random_opening``); else stones anywhere within ``spread``
    of the centre (``arena.scattered_opening``). Touching stones within 300 cp still gave the first
    player 34 of 40 games between equals, scattered ones (3, within 100 cp) 15-17 of 40
    (docs/lab/strength-2026-11-26.md, B1-B5).
    The judge underrates the move itself: by stop 38, from scattered openings within 100 cp the side to
    move won 80% of the games between level 4 at 40,000 and 20,000 nodes, and within 80 of -240 about half
    (docs/lab/strength-2026-11-27.md, G96-G98): ``centre`` moves the window. Each opening is scored by ``judge_score``.
    """
    rng = random.Random(seed)
    kept: list[list[Move]] = []
    for _ in range(count * MAX_DRAWS):
        opening = scattered_opening(game, 3, spread, rng) if spread else random_opening(game, 3, rng)
        if opening in kept:
            continue
        if abs(judge_score(game, opening) - centre) <= balance:
            kept.append(opening)
            if len(kept) == count:
                return kept
    raise SystemExit(f"only {len(kept)} of {count} openings within {balance} cp of {centre}: widen --balance")


def save_openings(path: Path, game: Game, openings: list[list[Move]], made: dict[str, Any]) -> None:
    """Write ``openings`` with how they were made: a file any later version plays unchanged (the
    judge of ``balanced_openings`` is our own bot, so the same seed picks other openings once it changes)."""
    stones = [[game.encode_move(move) for move in opening] for opening in openings]
    document = {"game": game.name, "made": made, "openings": stones}
    path.write_text(json.dumps(document, indent=None, separators=(",", ":")) + "\n")


def load_openings(path: Path, game: Game, pairs: int, skip: int = 0) -> list[list[Move]]:
    """``pairs`` openings of a file ``save_openings`` wrote for ``game``, from its opening ``skip + 1``
    on; SystemExit saying what is wrong."""
    try:
        document = json.loads(path.read_text())
        named, stored = document["game"], document["openings"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise SystemExit(f"{path}: not an openings file ({error})") from None
    if named != game.name:
        raise SystemExit(f"{path}: openings of {named!r}, not of {game.name!r}")
    if len(stored) < skip + pairs:
        asked = f"the {pairs} pairs asked" + (f" after the {skip} skipped" if skip else "")
        raise SystemExit(f"{path}: {len(stored)} openings, fewer than {asked}")
    openings = []
    for index, stones in enumerate(stored[skip : skip + pairs], start=skip):
        state = game.new_state()
        try:
            opening = [game.decode_move(move) for move in stones]
            for move in opening:
                state.play(move)
        except Exception as error:  # the rules' own refusal, whatever its type
            raise SystemExit(f"{path}: opening {index + 1} is not legal on {game.name} ({error})") from None
        openings.append(opening)
    return openings


def make_player(spec: str, budget: float) -> Contender:
    """A contender from a spec: random, or [PYTHON:]level=N[:depth=D][:nodes=N][:time=S]."""
    python = None
    if ":level=" in spec and not spec.startswith("level="):
        python, _, spec = spec.partition(":")
    if spec == "random":
        return Contender(spec, RandomBrain(), budget)
    head, *rest = spec.split(":")
    if not head.startswith("level="):
        raise SystemExit(f"unknown player {spec!r}: use random or level=N[:depth=D][:nodes=N][:time=S]")
    options: dict[str, float | int] = {}
    for part in rest:
        name, _, value = part.partition("=")
        options[name] = float(value) if name == "time" else int(value)
    level = int(head.split("=", 1)[1])
    if python:
        return Contender(f"{python}:{spec}", ChildBrain(python, level, options), budget)
    return Contender(spec, GomokuBrain(level, **options), budget)


def chosen_openings(args: argparse.Namespace, game: Game) -> list[list[Move]] | None:
    """The openings ``--openings`` reads, or ``--balance`` judges (and ``--save-openings`` keeps); None: random ones."""
    if args.openings is not None:
        return load_openings(args.openings, game, args.pairs, args.skip)
    if args.balance is None:
        return None
    openings = balanced_openings(game, args.pairs, args.seed, args.balance, args.spread, args.centre)
    if args.save_openings is not None:
        made = {
            "seed": args.seed,
            "balance": args.balance,
            "centre": args.centre,
            "spread": args.spread,
            "judge_nodes": JUDGE_NODES,
        }
        save_openings(args.save_openings, game, openings, made)
    return openings


def add_opening_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--openings", type=Path, metavar="FILE", help="play the openings of FILE (--save-openings)")
    parser.add_argument(
        "--save-openings", type=Path, metavar="FILE", help="write the balanced openings judged, for later --openings"
    )
    parser.add_argument(
        "--skip", type=int, default=0, metavar="N", help="with --openings: pass over the file's first N openings"
    )
    parser.add_argument(
        "--centre",
        type=int,
        default=0,
        metavar="CP",
        help="judged openings lie within --balance of CP (the side to move's score), not of 0",
    )


def check_opening_options(parser: argparse.ArgumentParser, args: argparse.Namespace, judged: bool) -> None:
    """Refuse what cannot be meant: a file read and openings judged at once, or a save of nothing judged."""
    if args.openings is not None and args.save_openings is not None:
        parser.error("--openings reads a file, --save-openings writes one: give one of them")
    if args.save_openings is not None and not judged:
        parser.error("--save-openings keeps judged openings: give --balance too")
    if args.skip < 0:
        parser.error(f"--skip takes a count of 0 or more, not {args.skip}")
    if args.skip and args.openings is None:
        parser.error("--skip passes over a file's openings: give --openings too")
    if args.centre and (args.openings is not None or not judged):
        parser.error("--centre moves the window of judged openings: give --balance, not --openings")


def play_part(
    game: str, a: str, b: str, budget: float, seed: int, openings: list[list[Move]], first_pair: int
) -> Tally:
    """One part of a series in this process: its own players, warm before any clock, on ``openings``."""
    players = make_player(a, budget), make_player(b, budget)
    for player in players:
        player.brain.warm_up()  # before any clock: the first move times the search, not the start-up
    return series(game, *players, len(openings), seed=seed, openings=openings, first_pair=first_pair)


def play_series(
    game: str, a: str, b: str, pairs: int, budget: float, seed: int, openings: list[list[Move]] | None, jobs: int = 1
) -> Tally:
    """``pairs`` pairs of ``a`` against ``b``, split into ``jobs`` parts of consecutive pairs played side by side.

    Each part runs in its own process with its own players. The games are seeded as one series would
    seed them, but each part's bots keep their tables from game to game within the part only: with
    node-bound players the result depends on ``jobs`` and not on the machine's load.
    """
    if openings is None:  # drawn here as series would draw them, then dealt to the parts
        rng = random.Random(seed)
        openings = [random_opening(create_game(game), 3, rng) for _ in range(pairs)]
    if len(openings) < pairs:
        raise ValueError(f"{pairs} pairs asked for, {len(openings)} openings given")
    openings = openings[:pairs]
    if jobs == 1:
        return play_part(game, a, b, budget, seed, openings, 0)
    bounds = [round(pairs * j / jobs) for j in range(jobs + 1)]
    parts = [(bounds[j], bounds[j + 1]) for j in range(jobs) if bounds[j + 1] > bounds[j]]
    # fork: each part finds play_part among the modules it inherits, even when this file was loaded from a path.
    with ProcessPoolExecutor(len(parts), mp_context=multiprocessing.get_context("fork")) as pool:
        futures = [pool.submit(play_part, game, a, b, budget, seed, openings[lo:hi], lo) for lo, hi in parts]
        return Tally.merged([future.result() for future in futures])


def run(
    game: str, a: str, b: str, pairs: int, budget: float, seed: int, openings: list[list[Move]] | None, jobs: int = 1
) -> None:
    began = time.perf_counter()
    tally = play_series(game, a, b, pairs, budget, seed, openings, jobs)
    think = statistics.mean(tally.think_seconds) if tally.think_seconds else 0.0
    low, high = wilson_interval(tally.wins + tally.draws / 2, tally.games, z_value())
    elo = ""
    if low > 0 and high < 1 and 0 < tally.score < 1:
        elo = f"Elo {elo_difference(tally.score):+.0f} [{elo_difference(low):+.0f}, {elo_difference(high):+.0f}]"
    print(
        f"{game:<9} {a:<22} vs {b:<22} {tally.games:>4} games  W{tally.wins:<4} D{tally.draws:<3} "
        f"L{tally.losses:<4} score {tally.score:6.1%} [95% {low:.1%}-{high:.1%}] {elo} "
        f"(wins first/second {tally.wins_as_first}/"
        f"{tally.wins_as_second}, {statistics.mean(tally.lengths):.0f} moves a game, "
        f"{think * 1000:.0f} ms a move, {time.perf_counter() - began:.0f} s)",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("players", nargs="*", help="two player specs; none: the default list")
    parser.add_argument("--game", default="gomoku", help="gomoku, gomoku10, ... (with two players)")
    parser.add_argument("--pairs", type=int, default=20, help="openings, each played twice (with two players)")
    parser.add_argument("--time", type=float, default=0.2, help="seconds of budget per move")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="parts of the series played side by side, one process each (with two players); use node-bound"
        " players, as --time is wall time and parts share the cores",
    )
    parser.add_argument(
        "--balance", type=int, metavar="CP", help="openings judged within CP of even (as the gauntlet's), not random"
    )
    parser.add_argument(
        "--spread", type=int, default=0, help="with --balance: stones within this of the centre, 0 touching"
    )
    add_opening_options(parser)
    args = parser.parse_args()
    if args.spread < 0 or (args.spread and args.balance is None):
        parser.error("--spread takes a distance of 0 or more, and only with --balance")
    check_opening_options(parser, args, judged=args.balance is not None)
    if args.openings is not None and args.balance is not None:
        parser.error("--openings plays a file's openings: --balance and --spread judge new ones")
    if args.jobs < 1:
        parser.error(f"--jobs takes a count of 1 or more, not {args.jobs}")
    if args.jobs > 1 and not args.players:
        parser.error("--jobs splits a series of two players")
    if args.players:
        if len(args.players) != 2:
            raise SystemExit("name two players, or none for the default list")
        openings = chosen_openings(args, create_game(args.game))
        run(args.game, args.players[0], args.players[1], args.pairs, args.time, args.seed, openings, args.jobs)
        return
    if args.openings is not None or args.save_openings is not None or args.balance is not None:
        parser.error("--openings, --save-openings and --balance are for a series of two players")
    for game, a, b, pairs in DEFAULT_SERIES:
        run(game, a, b, pairs, args.time, args.seed, None)


if __name__ == "__main__":
    main()
