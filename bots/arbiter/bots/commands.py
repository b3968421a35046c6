"""Bot tools: ``arbiter winning-move`` (POJ 1568 by exact search) and ``arbiter bot`` (run or list bots)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import click

from arbiter.cli.errors import fail, parse_options
from arbiter.cli.logs import log_options

if TYPE_CHECKING:
    from arbiter.bots.perfect import LineSolver

POJ_SIDE = 4


class PuzzleFormatError(ValueError):
    """Input that is not a sequence of ``?`` + four board lines, ended by ``$``."""


def parse_puzzles(lines: Iterable[str]) -> list[list[str]]:
    """The boards of a POJ 1568 input, each as four rows of ``x``, ``o`` and ``.``.

    Blank lines are skipped; anything else out of place is a PuzzleFormatError naming the line.
    """
    boards: list[list[str]] = []
    current: list[str] | None = None
    ended = False
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line:
            continue
        if ended:
            raise PuzzleFormatError(f"line {number}: {line!r} after the final '$'")
        if current is None:
            if line == "$":
                ended = True
            elif line == "?":
                current = []
            else:
                raise PuzzleFormatError(f"line {number}: expected '?' or '$', not {line!r}")
            continue
        if len(line) != POJ_SIDE or set(line) - set("xo."):
            raise PuzzleFormatError(f"line {number}: a board row is 4 of 'x', 'o', '.', not {line!r}")
        current.append(line)
        if len(current) == POJ_SIDE:
            boards.append(current)
            current = None
    if current is not None:
        raise PuzzleFormatError(f"the input ends inside a board ({len(current)} of 4 rows)")
    if not ended:
        raise PuzzleFormatError("the input does not end with a '$' line")
    return boards


def winning_square(solver: LineSolver, rows: list[str]) -> str:
    """``(r,c)`` of the first square (row-major) from which x, to move, forces a win; else ``#####``.

    A board that already holds a line is over, so no move can win it.
    """
    text = "".join(rows)
    x = sum(1 << i for i, c in enumerate(text) if c == "x")
    o = sum(1 << i for i, c in enumerate(text) if c == "o")
    if solver.has_line(x) or solver.has_line(o):
        return "#####"
    cell = solver.first_forcing_cell(x, o)
    return "#####" if cell < 0 else f"({cell // POJ_SIDE},{cell % POJ_SIDE})"


@click.command("winning-move")
def winning_move() -> None:
    """Solve POJ 1568 "Find the Winning Move" from stdin, by exact search.

    The input repeats a '?' line and four board rows of 'x', 'o' and '.', and ends with '$'. For
    each board, with x to move, print the first square in row-major order from which x forces a
    win on 4x4 four-in-a-row, as (row,col), or ##### when there is none.
    """
    try:
        boards = parse_puzzles(sys.stdin)
    except PuzzleFormatError as error:
        fail(str(error))
    from arbiter.bots.perfect import LineSolver, mnk_lines

    solver = LineSolver(POJ_SIDE * POJ_SIDE, mnk_lines(POJ_SIDE, POJ_SIDE, POJ_SIDE))
    for rows in boards:
        click.echo(winning_square(solver, rows))


@click.command()
@click.argument("name", required=False)
@click.option("--list", "list_bots", is_flag=True, help="List the bots and the games each plays, then exit.")
@click.option("--server", metavar="URL[,URL…]",
              help="The server's websocket address, e.g. ws://127.0.0.1:8765/; a cluster's nodes separated by "
              "commas (the bot moves to the next when its node goes).")  # fmt: skip
@click.option("--token", envvar="ARBITER_TOKEN", metavar="TOKEN", help="The bot's token (or $ARBITER_TOKEN).")
@click.option("--token-file", type=click.Path(dir_okay=False), help="Read the token from this file instead.")
@click.option("--games", metavar="G1,G2", help="Games to play (default: every game the bot plays).")
@click.option("--ladder", is_flag=True, help="Join the ladder queue of each game.")
@click.option("--tournament", "tournaments", multiple=True, metavar="NAME",
              help="Enter this open tournament (repeat for several); its games come as they are due.")  # fmt: skip
@click.option("--workers", type=click.IntRange(1, 256), help="Worker processes (default: the number of cores).")
@click.option(
    "--level",
    type=int,
    help="The strength level when a challenge names none, and on the ladder (default: the strongest).",
)
@click.option(
    "--depth", type=click.IntRange(0), help="Search at most this deep: plies for gomoku, whole turns for soccer."
)
@click.option(
    "--time",
    type=click.FloatRange(0, min_open=True),
    metavar="SECONDS",
    help="Think at most this long per move, within the clock (gomoku, soccer).",
)
@click.option("--nodes", type=click.IntRange(1), help="Stop each search after this many nodes (gomoku).")
@click.option(
    "--option",
    "options",
    multiple=True,
    metavar="KEY=VALUE",
    help="Any brain option, e.g. exploration=0.5 for mcts (repeatable; see the bot's docstring).",
)
@click.option(
    "--max-matches",
    type=click.IntRange(1, 100),
    default=8,
    show_default=True,
    help="Matches played at once; challenges beyond are declined.",
)
@click.option(
    "--capacity",
    type=click.IntRange(1, 100),
    help="Ladder matches at once, across all games, announced to the server (default: the worker count, "
    "so no ladder game waits for a worker).",
)
@click.option(
    "--rated",
    type=click.Choice(["any", "rated", "casual"]),
    default="any",
    show_default=True,
    help="Which challenges to accept.",
)
@click.option("--min-initial-ms", type=click.IntRange(0), default=0, help="Refuse clocks with less initial time.")
@click.option("--max-initial-ms", type=click.IntRange(1), help="Refuse clocks with more initial time.")
@click.option(
    "--drain-timeout",
    type=click.FloatRange(0),
    default=30.0,
    metavar="SECONDS",
    help="On SIGTERM or Ctrl-C, how long live matches may go on before they are resigned.",
)
@click.option(
    "--ponder/--no-ponder",
    default=True,
    show_default=True,
    help="Think on the opponent's time while playing a single match (bots that can: gomoku at full strength).",
)
@click.option(
    "--takebacks",
    type=click.Choice(["casual", "never"]),
    default="casual",
    show_default=True,
    help="Grant an opponent's takeback in casual games, or never (rated games never have them).",
)
@click.option(
    "--hints/--no-hints",
    default=True,
    show_default=True,
    help="Suggest a move to a casual opponent that asks for a hint (once per turn).",
)
@click.option("--game-log", type=click.Path(dir_okay=False), help="Append each finished game to this JSON-lines file.")
@click.option(
    "--health-file",
    type=click.Path(dir_okay=False),
    help="Touch this file every 10 s while connected (for container health checks).",
)
@log_options()
def bot(
    name: str | None,
    list_bots: bool,
    server: str | None,
    token: str | None,
    token_file: str | None,
    games: str | None,
    ladder: bool,
    tournaments: tuple[str, ...],
    workers: int | None,
    level: int | None,
    depth: int | None,
    time: float | None,
    nodes: int | None,
    options: tuple[str, ...],
    max_matches: int,
    capacity: int | None,
    rated: str,
    min_initial_ms: int,
    max_initial_ms: int | None,
    drain_timeout: float,
    ponder: bool,
    takebacks: str,
    hints: bool,
    game_log: str | None,
    health_file: str | None,
    log_level: str,
    log_format: str,
) -> None:
    """Run the bot NAME on a server: accept challenges, join the ladder, play many matches at once.

    SIGTERM or Ctrl-C drains: the bot takes no new match, leaves the ladder, plays its live
    matches on for up to --drain-timeout seconds, resigns those still live, and exits 0 once their
    ends have arrived. A second signal exits at once (the server keeps the matches for its
    reconnect grace, so a bot restarted in time resumes them).
    """
    from arbiter.bots.brain import BrainOptionError
    from arbiter.bots.registry import UnknownBot, bot_names, brain_class, games_played

    if list_bots:
        for bot_name in bot_names():
            click.echo(f"{bot_name}: {', '.join(games_played(brain_class(bot_name)))}")
        return
    if name is None:
        fail("name a bot to run (see arbiter bot --list)")
    try:
        cls = brain_class(name)
    except UnknownBot as error:
        fail(str(error))
    if token_file is not None:
        token = read_token(token_file)
    if not server or not token:
        fail("running a bot needs --server URL and --token TOKEN (or --token-file, or $ARBITER_TOKEN)")
    from arbiter.bots.client.settings import server_addresses

    try:
        servers = server_addresses(server)
    except ValueError as error:
        fail(str(error))
    playable = games_played(cls)
    chosen = playable if games is None else [g.strip() for g in games.split(",") if g.strip()]
    unknown = [g for g in chosen if g not in playable]
    if unknown or not chosen:
        fail(f"{name} does not play {', '.join(unknown) or 'no game'}; it plays {', '.join(playable)}")
    if level is not None and not 1 <= level <= cls.levels:
        fail(f"{name} has levels 1 to {cls.levels}, not {level}")
    if max_initial_ms is not None and max_initial_ms < min_initial_ms:
        fail("--max-initial-ms is below --min-initial-ms")

    from pathlib import Path

    from arbiter.bots.client import BotSettings, ChallengeFilter
    from arbiter.cli.logs import configure_logging

    configure_logging(log_level, log_format)
    accept = ChallengeFilter(
        games=frozenset(chosen),
        rated={"any": None, "rated": True, "casual": False}[rated],
        min_initial_ms=min_initial_ms,
        max_initial_ms=max_initial_ms,
    )
    settings = BotSettings(
        games=tuple(chosen),
        accept=accept,
        ladder=ladder,
        tournaments=tournaments,
        max_matches=max_matches,
        capacity=capacity or min(max_matches, workers or os.cpu_count() or 1),
        game_log=None if game_log is None else Path(game_log),
        health_file=None if health_file is None else Path(health_file),
        drain_timeout=drain_timeout,
        ponder=ponder,
        takebacks=takebacks,
        hints=hints,
    )
    brain_options = parse_options(options, "--option")
    limits = {"depth": depth, "time": time, "nodes": nodes}
    for key, value in limits.items():
        if value is not None:
            if key in brain_options:
                fail(f"--{key} and --option {key}=... both given: use one")
            brain_options[key] = value
    try:
        cls(level, **brain_options)  # refuse an unknown or bad option before any process starts
    except BrainOptionError as error:  # its message names the bot
        fail(str(error))
    asyncio.run(_run_bot(cls, servers, token, settings, workers=workers, level=level, options=brain_options))


def read_token(path: str) -> str:
    """The first line of a token file (as ``arbiter player ensure --token-file`` writes it)."""
    try:
        with open(path, encoding="utf-8") as source:
            token = source.readline().strip()
    except OSError as error:
        fail(f"cannot read the token file {path!r}: {error.strerror or error}")
    if not token:
        fail(f"the token file {path!r} is empty")
    return token


def stop_signals() -> tuple[asyncio.Event, asyncio.Event]:
    """``stop`` set by the first SIGTERM or Ctrl-C (a drain), ``stop_now`` by the second."""
    stop, stop_now = asyncio.Event(), asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, lambda: (stop_now if stop.is_set() else stop).set())
    return stop, stop_now


async def _run_bot(
    cls: Any, servers: list[str], token: str, settings: Any, *, workers: int | None, level: int | None,
    options: dict[str, Any],
) -> None:  # fmt: skip
    """Start the warm pool, then play until stopped: the first SIGTERM or Ctrl-C drains, a second one stops."""
    from arbiter.bots.client import BotClient, BotFatal
    from arbiter.bots.pool import BrainPool, PoolError

    stop, stop_now = stop_signals()
    pool = BrainPool(cls, workers=workers, level=level, options=options)
    try:
        await pool.start()
        await BotClient(servers, token=token, pool=pool, settings=settings).run(stop=stop, stop_now=stop_now)
    except (BotFatal, PoolError) as error:
        fail(str(error).splitlines()[0], code=1)
    finally:
        await pool.close()


@click.command()
@click.option(
    "--server", required=True, metavar="URL", help="The server's websocket address, e.g. ws://127.0.0.1:8765."
)
@click.option("--token", envvar="ARBITER_TOKEN", metavar="TOKEN", help="A token to connect with (default: a guest).")
@click.option("--jobs", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Jobs searched at once, each in a process of its own.")  # fmt: skip
@click.option("--games", metavar="G1,G2", help="Games to analyse (default: every game).")
@log_options()
def analyse(server: str, token: str | None, jobs: int, games: str | None, log_level: str, log_format: str) -> None:
    """Serve a server's reviews and analysis board as an analysis worker (SPEC.md section 18):
    each position searched by the best of our bots for its game. Ctrl-C or SIGTERM stops."""
    from arbiter.bots.analysis import AnalysisWorker
    from arbiter.cli.logs import configure_logging
    from arbiter.engine import game_names

    configure_logging(log_level, log_format)
    chosen = None if games is None else [g.strip() for g in games.split(",") if g.strip()]
    unknown = [g for g in chosen or [] if g not in game_names()]
    if unknown:
        fail(f"no game {', '.join(unknown)}; the games are {', '.join(game_names())}")

    async def run() -> None:
        stop, _ = stop_signals()
        await AnalysisWorker(server, token=token, jobs=jobs, games=chosen).run(stop)

    asyncio.run(run())


COMMANDS = [winning_move, bot, analyse]
