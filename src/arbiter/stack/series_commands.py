"""``arbiter series``: play a series between two bots over a real server and measure their difference."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from arbiter.cli.errors import fail, parse_options, parse_params
from arbiter.cli.logs import log_options

if TYPE_CHECKING:
    from arbiter.bots.brain import Brain
    from arbiter.stack.series import GameOutcome, SeriesConfig, SeriesResult

MAX_GAMES = 100_000
MAX_OPENING_PLIES = 20


class OneLineErrors(click.Command):
    """Report a bad flag as one ``arbiter: error: …`` line with exit code 2, not click's usage block."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as error:
            fail(error.format_message())


def parse_clock(text: str) -> tuple[int, int]:
    """``10+0.1`` or ``60`` (seconds, increment optional) → (initial_ms, increment_ms)."""
    initial, _, increment = text.partition("+")
    try:
        initial_ms, increment_ms = round(float(initial) * 1000), round(float(increment or 0) * 1000)
    except ValueError:
        fail(f"--clock takes SECS+INC in seconds, like 10+0.1, not {text!r}")
    if initial_ms <= 0 or increment_ms < 0:
        fail(f"--clock {text}: the initial time must be positive and the increment not negative")
    return initial_ms, increment_ms


def bot_spec(text: str, level: int | None, flag: str) -> tuple[type[Brain], int | None]:
    """``gomoku`` or ``gomoku:3`` (with ``--level-x``) → the brain class and its level."""
    from arbiter.bots.registry import UnknownBot, brain_class

    name, colon, suffix = text.partition(":")
    if colon:
        try:
            suffixed = int(suffix)
        except ValueError:
            fail(f"{text!r}: write a level as BOT:LEVEL with a number, like gomoku:3")
        if level is not None and level != suffixed:
            fail(f"{text!r} and {flag} {level} name two levels; give it once")
        level = suffixed
    try:
        cls = brain_class(name)
    except UnknownBot as error:
        fail(str(error))
    if level is not None and not 1 <= level <= cls.levels:
        fail(f"{name} has levels 1 to {cls.levels}, not {level}")
    return cls, level


@click.command(cls=OneLineErrors)
@click.argument("bot_a", metavar="BOT_A[:LEVEL]")
@click.argument("bot_b", metavar="BOT_B[:LEVEL]")
@click.option("--game", "game_name", required=True, metavar="GAME", help="The game, e.g. gomoku10.")
@click.option("--games", type=click.IntRange(1, MAX_GAMES), default=100, show_default=True, help="Games to play.")
@click.option("--param", "-p", "params", multiple=True, metavar="KEY=VALUE", help="A rule parameter (repeatable).")
@click.option("--level-a", type=int, help="A's level (or BOT_A:LEVEL); default: its strongest.")
@click.option("--level-b", type=int, help="B's level (or BOT_B:LEVEL).")
@click.option("--option-a", "options_a", multiple=True, metavar="KEY=VALUE", help="A brain option, e.g. time=0.2.")
@click.option("--option-b", "options_b", multiple=True, metavar="KEY=VALUE", help="A brain option for B.")
@click.option("--ponder-a", is_flag=True, help="A thinks on B's time (bots that can; it takes a core B may need).")
@click.option("--ponder-b", is_flag=True, help="B thinks on A's time.")
@click.option("--clock", metavar="SECS+INC", help="Fischer clock in seconds (default: the ladder's clock for GAME).")
@click.option("--move-time", type=click.IntRange(1), metavar="MS", help="A per-move limit in milliseconds.")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True, help="Worker processes per bot.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seeds every decision (with game and ply).")
@click.option(
    "--opening-plies",
    type=click.IntRange(0, MAX_OPENING_PLIES),
    default=0,
    show_default=True,
    help="Open each pair of games with this many random plies, the same for both colours.",
)
@click.option(
    "--book",
    is_flag=True,
    help="Open each pair of games with an opening of the game's book of judged-even openings (the ladder's; "
    "gomoku, gomoku10), the same for both colours.",
)
@click.option("--server", metavar="URL", help="Play on this ws:// server instead of a private one.")
@click.option("--token-a", metavar="TOKEN", help="A's token on --server.")
@click.option("--token-b", metavar="TOKEN", help="B's token on --server.")
@click.option("--db", type=click.Path(dir_okay=False), help="Keep the private server's games in this SQLite file.")
@click.option(
    "--game-log", type=click.Path(dir_okay=False), help="Append A's record of each game to this JSON lines file."
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON on stdout instead of the summary.")
@log_options("error", "Log records on stderr (the summary already counts timeouts and moves sent without the brain).")
def series(
    bot_a: str,
    bot_b: str,
    game_name: str,
    games: int,
    params: tuple[str, ...],
    level_a: int | None,
    level_b: int | None,
    options_a: tuple[str, ...],
    options_b: tuple[str, ...],
    ponder_a: bool,
    ponder_b: bool,
    clock: str | None,
    move_time: int | None,
    workers: int,
    seed: int,
    opening_plies: int,
    book: bool,
    server: str | None,
    token_a: str | None,
    token_b: str | None,
    db: str | None,
    game_log: str | None,
    as_json: bool,
    log_level: str,
    log_format: str,
) -> None:
    """Play GAMES games of GAME between BOT_A and BOT_B over a real server, colours alternating.

    By default a private server runs on 127.0.0.1 (a free port, games kept in memory or in --db)
    and both bots run here as ordinary websocket clients, each with its own warm worker pool; A
    challenges B game after game, A moving first in games 1, 3, 5… One game is played at a time.
    The same bot may play both sides (e.g. gomoku:3 against gomoku:2).

    Bots that never vary (fixed-depth searches) would repeat one game per colour; with
    --opening-plies N each pair of games (1–2, 3–4, …) starts from its own N random plies, played
    once with each colour; with --book, from an opening of the game's book (gomoku, gomoku10: three
    stones judged even, where random ones mostly hand the game to one colour). The summary counts distinct
    games either way.

    Neither bot ponders (thinks on the other's time) unless --ponder-a or --ponder-b says so: both
    run on this machine, where a ponder takes a core the other side's think may need.

    The clock is --clock SECS+INC, --move-time MS (a per-move limit; alone, the clock never binds:
    10 times the limit to start and the limit added per move), or both; without either, the
    ladder's clock for the game.

    Prints A's wins, draws and losses, its score with a 95% Wilson interval, the Elo difference
    A−B with its interval, the results by colour and how the games ended (timeouts included).
    Exit code 0 when the series was played, 1 when it could not go on, 2 for bad input.
    """
    from arbiter.engine import EngineError, create_game
    from arbiter.server import ServerConfig

    cls_a, level_a = bot_spec(bot_a, level_a, "--level-a")
    cls_b, level_b = bot_spec(bot_b, level_b, "--level-b")
    try:
        game = create_game(game_name, parse_params(params))
    except EngineError as error:
        fail(str(error))
    for side, cls in (("A", cls_a), ("B", cls_b)):
        if not cls.plays(game):
            fail(f"bot {side} ({cls.name}) does not play {game_name} with these parameters")
    brain_options = []
    for side, cls, level, pairs in (("A", cls_a, level_a, options_a), ("B", cls_b, level_b, options_b)):
        options = parse_options(pairs, f"--option-{side.lower()}")
        try:
            cls(level, **options)
        except (ValueError, TypeError) as error:
            fail(f"bot {side}: {error}")
        brain_options.append(options)

    if book:
        from arbiter.server.ranking.openings import book_of

        if opening_plies:
            fail("--book and --opening-plies both choose the opening: give one of them")
        if not book_of(game):
            fail(f"{game_name} has no book of openings with these parameters (gomoku and gomoku10 do, by default)")
    time_control = _time_control(game_name, clock, move_time)
    if server is None:
        if token_a or token_b:
            fail("--token-a and --token-b go with --server (a private server registers its own players)")
        limits = ServerConfig().limits()["clock"]
        _check_clock(time_control, limits)
    else:
        if not server.startswith(("ws://", "wss://")):
            fail(f"--server must be a ws:// or wss:// address, not {server!r}")
        if not token_a or not token_b:
            fail("--server needs both --token-a and --token-b")
        if token_a == token_b:
            fail("--token-a and --token-b are the same player; a series needs two")
        if db is not None:
            fail("--db keeps a private server's games; an existing server keeps its own")

    from arbiter.cli.logs import configure_logging
    from arbiter.stack.series import SeriesConfig, SeriesError, SeriesPlayer

    configure_logging(log_level, log_format)
    config = SeriesConfig(
        SeriesPlayer(cls_a, level_a, brain_options[0], workers, token_a, ponder=ponder_a),
        SeriesPlayer(cls_b, level_b, brain_options[1], workers, token_b, ponder=ponder_b),
        game_name,
        games,
        time_control,
        params={key: game.params[key] for key in parse_params(params)},
        seed=seed,
        opening_plies=opening_plies,
        book=book,
        server=server,
        db=None if db is None else Path(db),
        game_log=None if game_log is None else Path(game_log),
    )
    latest: list[SeriesResult] = []
    interrupted = False
    try:
        result = asyncio.run(_run_with_progress(config, latest))
    except SeriesError as error:
        fail(str(error), code=1)
    except KeyboardInterrupt:
        if not latest:
            fail("interrupted before any game ended", code=130)
        result = latest[0]
        result.stopped = "interrupted (Ctrl-C)"
        interrupted = True
    if as_json:
        click.echo(json.dumps(result.as_json(), indent=2))
    else:
        for line in result.summary_lines():
            click.echo(line)
    if result.stopped:
        sys.exit(130 if interrupted else 1)


def _time_control(game_name: str, clock: str | None, move_time: int | None) -> dict[str, Any]:
    if clock is not None:
        initial_ms, increment_ms = parse_clock(clock)
    elif move_time is not None:
        initial_ms, increment_ms = 10 * move_time, move_time
    else:
        from arbiter.server.config import DEFAULT_LADDER_CLOCK, DEFAULT_LADDER_CLOCKS

        ladder = DEFAULT_LADDER_CLOCKS.get(game_name, DEFAULT_LADDER_CLOCK)
        initial_ms, increment_ms, move_time = ladder.initial_ms, ladder.increment_ms, ladder.move_limit_ms
    return {"initial_ms": initial_ms, "increment_ms": increment_ms, "move_limit_ms": move_time}


def _check_clock(clock: dict[str, Any], limits: dict[str, int]) -> None:
    """The private server's clock limits, checked before anything starts."""
    if not limits["min_initial_ms"] <= clock["initial_ms"] <= limits["max_initial_ms"]:
        fail(f"the initial time must be {limits['min_initial_ms']} to {limits['max_initial_ms']} ms")
    if clock["increment_ms"] > limits["max_increment_ms"]:
        fail(f"the increment must be at most {limits['max_increment_ms']} ms")
    limit = clock["move_limit_ms"]
    if limit is not None and not limits["min_move_limit_ms"] <= limit <= limits["max_move_limit_ms"]:
        fail(f"--move-time must be {limits['min_move_limit_ms']} to {limits['max_move_limit_ms']} ms")


async def _run_with_progress(config: SeriesConfig, latest: list[SeriesResult]) -> SeriesResult:
    """The series with a progress bar on stderr (shown on a terminal only) that keeps the score.

    ``latest`` receives the result as soon as a game ends, so Ctrl-C can still print the summary.
    """
    from tqdm import tqdm

    from arbiter.stack.series import run_series

    with tqdm(total=config.games, unit="game", disable=None, file=sys.stderr, dynamic_ncols=True) as bar:

        def on_game(outcome: GameOutcome, result: SeriesResult) -> None:
            tally = result.tally()
            score = f" {tally.score:.1%}" if tally.games else ""
            bar.set_postfix_str(f"A +{tally.wins} ={tally.draws} -{tally.losses}{score}", refresh=False)
            bar.update(1)
            latest[:] = [result]

        return await run_series(config, on_game=on_game)


COMMANDS = [series]
