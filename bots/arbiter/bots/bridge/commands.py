"""``arbiter bridge pbrain -- ENGINE_CMD …``: a Gomocup engine as an ordinary Arbiter bot."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arbiter.cli.errors import fail
from arbiter.cli.logs import LEVELS, configure_logging, log_format_option

if TYPE_CHECKING:
    from arbiter.bots.bridge.engines import EnginePool
    from arbiter.bots.client import BotSettings

log = logging.getLogger("arbiter.bots.bridge")

DEFAULT_GAMES = "gomoku,gomoku10"
PROBED_SIZES = tuple(range(5, 23))  # the square boards offered to START at probe time


@click.group()
def bridge() -> None:
    """Run an outside engine as an Arbiter bot."""


@bridge.command(context_settings={"ignore_unknown_options": True})
@click.argument("engine", nargs=-1, required=True, type=click.UNPROCESSED)
@click.option("--server", required=True, metavar="URL[,URL…]",
              help="The server's websocket address; a cluster's nodes separated by commas.")  # fmt: skip
@click.option("--token", envvar="ARBITER_TOKEN", metavar="TOKEN", help="The bot's token (or $ARBITER_TOKEN).")
@click.option("--token-file", type=click.Path(dir_okay=False), help="Read the token from this file instead.")
@click.option("--name", "client_name", metavar="NAME",
              help="The client name shown in presence (default: the engine's file name).")  # fmt: skip
@click.option("--games", default=DEFAULT_GAMES, show_default=True, metavar="G1,G2",
              help="Five-in-a-row games to offer (those whose board the engine takes at START).")  # fmt: skip
@click.option("--ladder", is_flag=True, help="Join the ladder queue of each game.")
@click.option("--capacity", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Engine processes, one per live match: the matches played at once.")  # fmt: skip
@click.option("--max-memory", type=click.IntRange(0), default=0, show_default=True, metavar="BYTES",
              help="INFO max_memory for each engine (0: no limit).")  # fmt: skip
@click.option("--game-log", type=click.Path(dir_okay=False), help="Append each finished game to this JSON-lines file.")
@click.option("--drain-timeout", type=click.FloatRange(0), default=30.0, metavar="SECONDS",
              help="On SIGTERM or Ctrl-C, how long live matches may go on before they are resigned.")  # fmt: skip
@click.option("--log-level", type=click.Choice(LEVELS), default="info", show_default=True,
              help="Least severe log record written to stderr.")  # fmt: skip
@log_format_option
def pbrain(
    engine: tuple[str, ...], server: str, token: str | None, token_file: str | None, client_name: str | None,
    games: str, ladder: bool, capacity: int, max_memory: int, game_log: str | None, drain_timeout: float,
    log_level: str, log_format: str,
) -> None:  # fmt: skip
    """Play the Gomocup (pbrain) engine ENGINE … on a server as an ordinary bot.

    Write the engine's command after `--`, e.g. `arbiter bridge pbrain --server ws://host:8765/
    --token-file bot.token -- ./pbrain-engine`. The bridge asks the engine which boards it takes
    (START, RECTSTART), offers only those games, starts CAPACITY engine processes and warms each
    with a short search before any clock runs, then gives each live match its own engine: INFO
    carries the server's clock and the rule (exact five: 1), TURN or BOARD the position. An engine
    that crashes, hangs past the move deadline, answers an illegal move or breaks the protocol
    resigns its match with that cause (in the game log and the server's /metrics) and is replaced.
    """
    from arbiter.bots.bridge.engines import EnginePool
    from arbiter.bots.client import BotSettings, ChallengeFilter
    from arbiter.bots.commands import read_token
    from arbiter.engine import EngineError, create_game

    if token_file is not None:
        token = read_token(token_file)
    if not token:
        fail("the bridge needs --token TOKEN (or --token-file, or $ARBITER_TOKEN)")
    from arbiter.bots.client.settings import server_addresses

    try:
        servers = server_addresses(server)
    except ValueError as error:
        fail(str(error))
    chosen = [game.strip() for game in games.split(",") if game.strip()]
    for game in chosen:
        try:
            rules = create_game(game)
        except EngineError as error:
            fail(f"--games: {error}")
        if rules.family != "mnk" or rules.params["k"] != 5:
            fail(f"--games: {game} is not five in a row; a Gomocup engine plays only that")
    configure_logging(log_level, log_format)
    engines = EnginePool(engine, slots=capacity, max_memory=max_memory)
    settings = BotSettings(
        games=tuple(chosen),
        accept=ChallengeFilter(games=frozenset(chosen), playable=engines.refusal),
        ladder=ladder,
        max_matches=capacity,
        capacity=capacity,
        client_name=client_name or f"pbrain-bridge/{Path(engine[0]).name}",
        game_log=None if game_log is None else Path(game_log),
        drain_timeout=drain_timeout,
    )
    asyncio.run(_run_bridge(engines, servers, token, settings))


async def _run_bridge(engines: EnginePool, servers: list[str], token: str, settings: BotSettings) -> None:
    """Probe and warm the engines, then play until stopped (a first signal drains, a second stops)."""
    from arbiter.bots.client import BotClient, BotFatal, ChallengeFilter
    from arbiter.bots.client.deciding import GiveUp
    from arbiter.bots.commands import stop_signals
    from arbiter.engine import create_game

    stop, stop_now = stop_signals()
    try:
        await engines.probe(PROBED_SIZES)
        offered = [game for game in settings.games if engines.refusal(game, {}) is None]
        if not offered:
            fail(f"the engine takes none of {', '.join(settings.games)} (boards it took: "
                 f"{sorted(engines.squares) or 'none'})", code=1)  # fmt: skip
        settings.games = tuple(offered)
        settings.accept = ChallengeFilter(games=frozenset(offered), playable=engines.refusal)
        await engines.warm(create_game(offered[0]).params["m"])
        client = BotClient(servers, token=token, pool=engines, settings=settings)
        await client.run(stop=stop, stop_now=stop_now)
    except GiveUp as error:
        fail(f"the engine failed before play: {error}", code=1)
    except BotFatal as error:
        fail(str(error).splitlines()[0], code=1)
    finally:
        await engines.close()


COMMANDS = [bridge]
