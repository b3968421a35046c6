"""``arbiter serve``: run the match server until Ctrl-C or SIGTERM, then stop cleanly."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import click

from arbiter.logs import LEVELS, configure_logging
from arbiter.server.app import serve_until
from arbiter.server.config import ServerConfig
from arbiter.server.ladder import DEFAULT_LADDER_CLOCKS, LadderConfig, parse_ladder_clock
from arbiter.store.base import Store, StoreError

from .errors import fail

MEMORY = ":memory:"


def open_store(db: str) -> Store:
    """``:memory:`` → a MemoryStore (nothing kept); anything else is a SQLite file path."""
    if db == MEMORY:
        from arbiter.store.memory import MemoryStore

        return MemoryStore()
    from arbiter.store.sqlite import SqliteStore

    path = Path(db)
    if path.is_dir():
        fail(f"--db {db} is a directory; give a file path (or {MEMORY})")
    return SqliteStore(path)


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (0.0.0.0: every interface).")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="Port; 0 picks a free one."
)
@click.option(
    "--db",
    envvar="ARBITER_DB",
    default="arbiter.db",
    show_default="$ARBITER_DB or ./arbiter.db",
    help=f"SQLite database file, created if missing; {MEMORY} keeps nothing.",
)
@click.option(
    "--grace",
    type=click.FloatRange(0, 3600),
    default=30.0,
    show_default=True,
    help="Seconds a disconnected player may take to come back before its matches are adjudicated.",
)
@click.option(
    "--challenge-ttl",
    type=click.FloatRange(1, 86400),
    default=60.0,
    show_default=True,
    help="Seconds before an unanswered direct challenge expires.",
)
@click.option(
    "--seek-ttl",
    type=click.FloatRange(1, 86400),
    default=600.0,
    show_default=True,
    help="Seconds before an open seek nobody took expires.",
)
@click.option(
    "--max-matches",
    type=click.IntRange(1, 100_000),
    default=100,
    show_default=True,
    help="Live matches one player may play at once.",
)
@click.option(
    "--rate",
    type=click.FloatRange(1, 1e6),
    default=200.0,
    show_default=True,
    help="Messages per second one connection may send (burst: twice that).",
)
@click.option(
    "--ladder-clock",
    "ladder_clocks",
    multiple=True,
    metavar="GAME=SECS+INC[/LIMIT]",
    help="The ladder's time control for a game, e.g. gomoku=60+1 (repeatable; defaults in docs/STORE.md).",
)
@click.option("--no-warm", is_flag=True, help="Skip compiling the engine before listening (first moves will be slow).")
@click.option(
    "--log-level",
    type=click.Choice(LEVELS),
    default="info",
    show_default=True,
    help="Log records on stderr, one JSON object per line: info has connections and match starts and ends; "
    "debug adds every move.",
)
def serve(
    host: str,
    port: int,
    db: str,
    grace: float,
    challenge_ttl: float,
    seek_ttl: float,
    max_matches: int,
    rate: float,
    ladder_clocks: tuple[str, ...],
    no_warm: bool,
    log_level: str,
) -> None:
    """Run the match server: websocket protocol and GET /healthz on one port."""
    configure_logging(log_level)
    clocks = dict(DEFAULT_LADDER_CLOCKS)
    for text in ladder_clocks:
        try:
            game, clock = parse_ladder_clock(text)
        except ValueError as error:
            fail(f"--ladder-clock {error}")
        clocks[game] = clock
    config = ServerConfig(
        host=host,
        port=port,
        reconnect_grace_s=grace,
        challenge_ttl_s=challenge_ttl,
        seek_ttl_s=seek_ttl,
        max_matches=max_matches,
        rate_per_s=rate,
        rate_burst=int(2 * rate),
        ladder=LadderConfig(clocks=clocks),
        warm_engine=not no_warm,
    )
    store = open_store(db)

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        await serve_until(config, store, stop, announce=lambda url: click.echo(f"listening on {url}", err=True))

    try:
        asyncio.run(main())
    except StoreError as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot listen on {host}:{port}: {error.strerror or error}")
    click.echo("stopped", err=True)


COMMANDS = [serve]
