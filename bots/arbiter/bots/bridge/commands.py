"""``arbiter bridge pbrain|stdio -- COMMAND …``: a Gomocup engine, or any program of the stdio line
protocol, as an ordinary Arbiter bot. Both share their options, their checks and their run."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from arbiter.cli.errors import fail
from arbiter.cli.logs import configure_logging, log_options

if TYPE_CHECKING:
    from arbiter.bots.bridge.engines import EnginePool
    from arbiter.bots.client import BotSettings

log = logging.getLogger("arbiter.bots.bridge")

DEFAULT_GAMES = "gomoku,gomoku10"
PROBED_SIZES = tuple(range(5, 23))  # the square boards offered to START at probe time


@click.group()
def bridge() -> None:
    """Run an outside engine or program as an Arbiter bot."""


def bot_options(default_games: str | None, games_help: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """The options every bridge takes: where to play, as whom, which games, how many at once, logs."""
    options = [
        click.option("--server", metavar="URL[,URL…]",
                     help="The server's websocket address; a cluster's nodes separated by commas."),
        click.option("--token", envvar="ARBITER_TOKEN", metavar="TOKEN", help="The bot's token (or $ARBITER_TOKEN)."),
        click.option("--token-file", type=click.Path(dir_okay=False), help="Read the token from this file instead."),
        click.option("--name", "client_name", metavar="NAME",
                     help="The client name shown in presence (default: from the program's file name)."),
        click.option("--games", default=default_games, show_default=True, metavar="G1,G2", help=games_help),
        click.option("--ladder", is_flag=True, help="Join the ladder queue of each game."),
        click.option("--tournament", "tournaments", multiple=True, metavar="NAME",
                     help="Enter this open tournament (repeat for several)."),
        click.option("--capacity", type=click.IntRange(1, 64), default=1, show_default=True,
                     help="Matches played at once, each with a process of its own (stdio: unless the program"
                     " asks for one per game)."),
        click.option("--game-log", type=click.Path(dir_okay=False),
                     help="Append each finished game to this JSON-lines file."),
        click.option("--drain-timeout", type=click.FloatRange(0), default=30.0, metavar="SECONDS",
                     help="On SIGTERM or Ctrl-C, how long live matches may go on before they are resigned."),
        log_options(),
    ]  # fmt: skip

    def decorate(command: Callable[..., None]) -> Callable[..., None]:
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


@dataclass(frozen=True)
class Connection:
    """Where and as whom a bridge plays, from its options."""

    servers: list[str]
    token: str


def connection(server: str | None, token: str | None, token_file: str | None) -> Connection:
    """--server and the token, checked (a clear error and exit 2 otherwise)."""
    from arbiter.bots.client.settings import server_addresses
    from arbiter.bots.commands import read_token

    if server is None:
        fail("the bridge needs --server ws://HOST:PORT/ (the server to play on)")
    if token_file is not None:
        token = read_token(token_file)
    if not token:
        fail("the bridge needs --token TOKEN (or --token-file, or $ARBITER_TOKEN)")
    try:
        return Connection(server_addresses(server), token)
    except ValueError as error:
        fail(str(error))


def game_list(games: str | None) -> list[str]:
    """--games as names, each one the server could host (a clear error otherwise); None: every game."""
    from arbiter.engine import EngineError, create_game, game_names

    if games is None:
        return list(game_names())
    chosen = [game.strip() for game in games.split(",") if game.strip()]
    if not chosen:
        fail("--games needs at least one game")
    for game in chosen:
        try:
            create_game(game)
        except EngineError as error:
            fail(f"--games: {error}")
    return chosen


def bot_settings(
    games: list[str], pool: Any, *, ladder: bool, capacity: int, client_name: str, game_log: str | None,
    drain_timeout: float, tournaments: tuple[str, ...],
) -> BotSettings:  # fmt: skip
    """The client's settings for a bridge whose ``pool`` says which challenges it can play (``refusal``)."""
    from arbiter.bots.client import BotSettings, ChallengeFilter

    return BotSettings(
        games=tuple(games),
        accept=ChallengeFilter(games=frozenset(games), playable=pool.refusal),
        ladder=ladder,
        tournaments=tournaments,
        max_matches=capacity,
        capacity=capacity,
        client_name=client_name,
        game_log=None if game_log is None else Path(game_log),
        drain_timeout=drain_timeout,
    )


@bridge.command(context_settings={"ignore_unknown_options": True})
@click.argument("engine", nargs=-1, required=True, type=click.UNPROCESSED)
@bot_options(
    DEFAULT_GAMES,
    "Five-in-a-row games to offer, renju and caro among them (those whose board the engine"
    " takes at START, under a rule it takes at INFO rule).",
)
@click.option("--max-memory", type=click.IntRange(0), default=0, show_default=True, metavar="BYTES",
              help="INFO max_memory for each engine (0: no limit).")  # fmt: skip
def pbrain(
    engine: tuple[str, ...], server: str | None, token: str | None, token_file: str | None, client_name: str | None,
    games: str, ladder: bool, tournaments: tuple[str, ...], capacity: int, max_memory: int, game_log: str | None,
    drain_timeout: float, log_level: str, log_format: str,
) -> None:  # fmt: skip
    """Play the Gomocup (pbrain) engine ENGINE … on a server as an ordinary bot.

    Write the engine's command after `--`, e.g. `arbiter bridge pbrain --server ws://host:8765/
    --token-file bot.token -- ./pbrain-engine`. The bridge asks the engine which boards it takes
    (START, RECTSTART) and which rules (INFO rule, refused with an ERROR), offers only those games,
    starts CAPACITY engine processes and warms each with a short search before any clock runs, then
    gives each live match its own engine: INFO carries the server's clock and the rule (0 free
    style, 1 exact five, 4 renju, 8 caro, 9 exact-five caro), TURN or BOARD the position. An engine
    that crashes, hangs past the move deadline, answers an illegal move or breaks the protocol
    resigns its match with that cause (in the game log and the server's /metrics) and is replaced.
    """
    from arbiter.bots.bridge.engines import EnginePool
    from arbiter.engine import create_game
    from arbiter.engine.gomocup import info_rule

    where = connection(server, token, token_file)
    chosen = game_list(games)
    for game in chosen:
        if info_rule(create_game(game)) is None:
            fail(f"--games: {game} is not five in a row; a Gomocup engine plays only that")
    configure_logging(log_level, log_format)
    engines = EnginePool(engine, slots=capacity, max_memory=max_memory)
    settings = bot_settings(chosen, engines, ladder=ladder, capacity=capacity, game_log=game_log,
                            client_name=client_name or f"pbrain-bridge/{Path(engine[0]).name}",
                            drain_timeout=drain_timeout, tournaments=tournaments)  # fmt: skip
    asyncio.run(_run_bridge(engines, where, settings, _start_engines(engines)))


def _start_engines(engines: EnginePool) -> Callable[[list[str]], Awaitable[list[str]]]:
    async def start(games: list[str]) -> list[str]:
        """Probe the engine's boards and rules, then warm every slot's engine and the rules before any clock runs."""
        from arbiter.bots.bridge.base import warm_rules
        from arbiter.bots.bridge.engines import rules_of
        from arbiter.engine import create_game

        await engines.probe(PROBED_SIZES, set().union(*(rules_of(game) for game in games)))
        offered = [game for game in games if engines.refusal(game, {}) is None]
        if not offered:
            fail(f"the engine takes none of {', '.join(games)} (boards it took: "
                 f"{sorted(engines.squares) or 'none'}, INFO rules: {sorted(engines.rules)})", code=1)  # fmt: skip
        await engines.warm(create_game(offered[0]).params["m"])
        warm_rules(offered)
        return offered

    return start


@bridge.command(context_settings={"ignore_unknown_options": True})
@click.argument("program", nargs=-1, required=True, type=click.UNPROCESSED)
@bot_options(None, "Games to offer (default: every game; of those the program's handshake names, if it names any).")
@click.option("--replay", "replay_file", type=click.Path(exists=True, dir_okay=False), metavar="FILE",
              help="Feed one failed turn from FILE to the program here, print its answer and the verdict.")  # fmt: skip
def stdio(
    program: tuple[str, ...], server: str | None, token: str | None, token_file: str | None, client_name: str | None,
    games: str | None, ladder: bool, tournaments: tuple[str, ...], capacity: int, game_log: str | None,
    drain_timeout: float, log_level: str, log_format: str, replay_file: str | None,
) -> None:  # fmt: skip
    """Play PROGRAM … on a server as an ordinary bot, one JSON line a turn (docs/STDIO.md).

    Write the program's command after `--`, e.g. `arbiter bridge stdio --server ws://host:8765/
    --token-file bot.token -- ./mybot`. The program prints a handshake line, then reads a `turn`
    line (the game, the moves so far, both clocks, the move's budget, the legal moves) for each
    move and prints `{"move": …}`. CAPACITY processes start before any clock runs. A program that
    crashes, hangs past the move's deadline, answers an illegal move or a line that is not an
    answer resigns its match with that cause (in the game log and the server's /metrics) and is
    replaced. With --replay FILE (a failed turn from the game log, or a player page's request
    file) it plays that one turn on this machine instead: exit 0 if the answer is legal and in
    time, 1 if the failure comes again.
    """
    from arbiter.bots.bridge.stdio import StdioPool

    if replay_file is not None:
        _replay(program, replay_file)
        return
    where = connection(server, token, token_file)
    chosen = game_list(games)
    configure_logging(log_level, log_format)
    pool = StdioPool(program, slots=capacity)
    settings = bot_settings(chosen, pool, ladder=ladder, capacity=capacity, game_log=game_log,
                            client_name=client_name or f"stdio-bridge/{Path(program[0]).name}",
                            drain_timeout=drain_timeout, tournaments=tournaments)  # fmt: skip

    async def start(offer: list[str]) -> list[str]:
        offered = await pool.start(offer)
        if not offered:
            fail(f"{pool.handshake.name} plays none of {', '.join(offer)} (its handshake names "
                 f"{', '.join(sorted(pool.handshake.games or ()))})", code=1)  # fmt: skip
        return offered

    asyncio.run(_run_bridge(pool, where, settings, start))


def _replay(program: tuple[str, ...], replay_file: str) -> None:
    from arbiter.bots.bridge.replay import ReplayError, replay, turn_of

    try:
        turn = turn_of(json.loads(Path(replay_file).read_text()))
        played = asyncio.run(replay(program, turn, click.echo))
    except ValueError as error:  # ReplayError, or a file that is not JSON
        fail(f"--replay {replay_file}: {error}" if isinstance(error, ReplayError) else
             f"--replay {replay_file} is not JSON: {error}")  # fmt: skip
    raise SystemExit(0 if played else 1)


async def _run_bridge(
    pool: Any, where: Connection, settings: BotSettings, start: Callable[[list[str]], Awaitable[list[str]]]
) -> None:
    """Start the processes (``start``: the games they play), then play until stopped (a first signal
    drains, a second stops)."""
    from arbiter.bots.client import BotClient, BotFatal, ChallengeFilter
    from arbiter.bots.client.deciding import GiveUp
    from arbiter.bots.commands import stop_signals

    stop, stop_now = stop_signals()
    try:
        offered = await start(list(settings.games))
        settings.games = tuple(offered)
        settings.accept = ChallengeFilter(games=frozenset(offered), playable=pool.refusal)
        client = BotClient(where.servers, token=where.token, pool=pool, settings=settings)
        await client.run(stop=stop, stop_now=stop_now)
    except GiveUp as error:
        fail(f"the program failed before play: {error}", code=1)
    except BotFatal as error:
        fail(str(error).splitlines()[0], code=1)
    finally:
        await pool.close()


COMMANDS = [bridge]
