"""``arbiter conformance``: check a server (as its client) or a bot (as its server) against SPEC.md."""

from __future__ import annotations

import asyncio

import click

from arbiter.cli.errors import fail

from .series_commands import OneLineErrors


@click.command(cls=OneLineErrors, context_settings={"ignore_unknown_options": True})
@click.argument("target", nargs=-1, required=True, metavar="ws://HOST:PORT/ | --bot -- COMMAND…")
@click.option("--token", envvar="ARBITER_TOKEN", metavar="TOKEN",
              help="Against a server: a registered player's token to play with (a spare account: its other "
              "connections are replaced); without it the checks play as guests.")  # fmt: skip
@click.option("--bot", "bot_mode", is_flag=True, help="TARGET is a bot's command line: check the bot instead.")
@click.option("--games", metavar="G1,G2", help="Against a bot: the games to play it (default: every game it names).")
@click.option(
    "--clock",
    "clock_s",
    type=click.FloatRange(1, 600),
    default=30.0,
    show_default=True,
    help="Against a bot: each side's time in seconds in its ordinary matches (a low-clock one comes apart).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(0.5, 120),
    default=10.0,
    show_default=True,
    help="Seconds to wait for each expected message.",
)
@click.option("--verbose", "-v", is_flag=True, help="Under each passed row too, what was seen.")
def conformance(
    target: tuple[str, ...],
    token: str | None,
    bot_mode: bool,
    games: str | None,
    clock_s: float,
    timeout: float,
    verbose: bool,
) -> None:
    """Drive a server or a bot through the protocol's corners and print a pass/fail table.

    \b
    arbiter conformance ws://127.0.0.1:8765/ --token TOKEN
    arbiter conformance --bot -- python mybot.py {url} {token}

    Against a server the tool is a client: it plays both sides of every match (the token's player
    and guests) through each error SPEC.md lists, reconnects, a missed end, clocks near zero and
    paper soccer's bounces. Against a bot it starts a throwaway server on 127.0.0.1, runs COMMAND
    ({url} and {token} are replaced, and $ARBITER_URL and $ARBITER_TOKEN are set) through a relay
    that watches and cuts its connection, and challenges it to every game it names, at low clocks,
    across dropped connections and a missed end; the relay itself plays the server for matches that
    start from an opening and from a paper soccer position where every turn ends stuck. Each row
    says what was checked, pass or fail, and for a failure what was expected and what was seen,
    with the section of SPEC.md. The exit code is 1 when any row failed.
    """
    from arbiter.stack.conformance.report import Report

    report = Report(timeout_s=timeout)
    if bot_mode:
        from arbiter.stack.conformance.bot_suite import BotSuite

        chosen = None if games is None else [g.strip() for g in games.split(",") if g.strip()]
        try:
            asyncio.run(BotSuite(list(target), report, games=chosen, clock_ms=round(clock_s * 1000)).run())
        except (FileNotFoundError, PermissionError) as error:
            fail(f"cannot start the bot {target[0]!r}: {error.strerror}")
    else:
        if len(target) != 1 or not target[0].startswith(("ws://", "wss://")):
            fail("give one server address like ws://127.0.0.1:8765/, or --bot -- COMMAND … to check a bot")
        if games is not None:
            fail("--games is for --bot: against a server the checks choose their games")
        from websockets.exceptions import InvalidHandshake

        from arbiter.stack.conformance.server_suite import ServerSuite

        try:
            asyncio.run(ServerSuite(target[0], token, report).run())
        except (OSError, InvalidHandshake) as error:
            fail(f"cannot open a websocket to {target[0]}: {error}")
    click.echo(report.render(verbose=verbose))
    if report.failed:
        raise SystemExit(1)


COMMANDS = [conformance]
