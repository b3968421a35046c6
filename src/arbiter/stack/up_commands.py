"""``arbiter up``: the main job in one command — the server and the default bots, supervised."""

from __future__ import annotations

import asyncio
from pathlib import Path

import click

from arbiter.cli.errors import fail
from arbiter.cli.logs import log_options


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address the server listens on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8765, show_default=True, help="The server's port.")
@click.option(
    "--data",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("data"),
    show_default=True,
    help="Folder of the database (arbiter.db) and the bots' token files (tokens/).",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    help="Search processes per bot (default: the machine's cores shared among the bots, at least 1 each).",
)
@click.option("--no-bots", is_flag=True, help="Start the server alone.")
@log_options(help="Least severe log record written to stderr, by every process.")
@click.option(
    "--drain-timeout",
    type=click.FloatRange(0, 3600),
    default=30.0,
    show_default=True,
    help="On Ctrl-C or SIGTERM, seconds live games may go on (bots resign theirs after two thirds of it).",
)
def up(
    host: str,
    port: int,
    data: Path,
    workers: int | None,
    no_bots: bool,
    log_level: str,
    log_format: str,
    drain_timeout: float,
) -> None:
    """Start the server on its SQLite store with the three default bots as separate processes.

    The bots' accounts (alphabeta, mcts, minimax) are created on first start and their tokens kept
    in DATA/tokens. A bot that dies is restarted. Ctrl-C or SIGTERM stops everything cleanly: no new
    matches, live games finish or are resigned within --drain-timeout, every process exits.

    On a terminal a status block (the address to open, each bot online or not, the live games) stays
    at the bottom, redrawn in place, with every process's log lines scrolling above it; elsewhere the
    block is printed when it changes (with JSON logs: a "status" record) and the address on stdout.
    """
    from arbiter.cli.logs import configure_logging
    from arbiter.server.store.base import StoreError
    from arbiter.server.store.sqlite import SqliteStore
    from arbiter.stack.launcher import DEFAULT_BOTS, LaunchError, UpSettings, ensure_accounts, run_up

    configure_logging(log_level, log_format)
    settings = UpSettings(
        host=host,
        port=port,
        data=data,
        bots=() if no_bots else DEFAULT_BOTS,
        workers=workers,
        log_level=log_level,
        log_format=log_format,
        drain_timeout_s=drain_timeout,
    )

    async def provision() -> dict[str, str]:
        store = SqliteStore(settings.db)
        await store.open()
        try:
            return await ensure_accounts(store, settings.bots, settings.tokens)
        finally:
            await store.close()

    try:
        data.mkdir(parents=True, exist_ok=True)
        tokens = asyncio.run(provision())
    except (OSError, StoreError) as error:
        fail(f"cannot prepare {data}: {getattr(error, 'strerror', None) or error}")
    try:
        code = asyncio.run(run_up(settings, tokens))
    except LaunchError as error:
        fail(str(error), code=1)
    raise SystemExit(code)


COMMANDS = [up]
