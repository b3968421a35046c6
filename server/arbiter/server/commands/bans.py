"""``arbiter ban add|remove|list``: the ban list in the store, which running servers read within a second or two.

A ban is of a registered player (``--player NAME``) or of an IP address or network (``--ip``, CIDR,
IPv4 or IPv6). The servers using the same database close the banned connections, end a banned
player's live matches as its losses and refuse them from then on; ``ban remove`` lets them back in.
"""

from __future__ import annotations

import time

import click

from arbiter.cli.errors import fail
from arbiter.server.store.base import BanKind

from .database import DB_OPTION, run_with_store

PLAYER_OPTION = click.option("--player", metavar="NAME", help="A registered player (its name, any case).")
IP_OPTION = click.option(
    "--ip",
    metavar="ADDR[/PREFIX]",
    help="An IP address or network in CIDR form: 203.0.113.7, 198.51.100.0/24, 2001:db8::/48.",
)


def _target(player: str | None, ip: str | None) -> tuple[BanKind, str]:
    """The one of --player and --ip given (exit 2 unless exactly one is)."""
    if (player is None) == (ip is None):
        fail("give either --player NAME or --ip ADDR/CIDR (one of them)")
    return ("player", player) if player is not None else ("network", ip)  # type: ignore[return-value]


@click.group()
def ban() -> None:
    """Keep players or IP networks off the servers that use this database (effective at once)."""


@ban.command("add")
@PLAYER_OPTION
@IP_OPTION
@click.option("--reason", metavar="TEXT", help="Why, for the ban list (at most 500 characters).")
@DB_OPTION
def ban_add(player: str | None, ip: str | None, reason: str | None, db: str) -> None:
    """Ban a player or an IP network: its connections are closed, a banned player's live matches end as
    its losses (reason banned), and it is refused from then on."""
    kind, target = _target(player, ip)
    added = run_with_store(db, lambda store: store.add_ban(kind, target, reason))
    click.echo(f"banned {added.kind} {added.target}", err=True)


@ban.command("remove")
@PLAYER_OPTION
@IP_OPTION
@DB_OPTION
def ban_remove(player: str | None, ip: str | None, db: str) -> None:
    """Lift a ban (the same --player or --ip it was made with)."""
    kind, target = _target(player, ip)
    run_with_store(db, lambda store: store.remove_ban(kind, target))
    click.echo(f"lifted the ban of {kind} {target}", err=True)


@ban.command("list")
@DB_OPTION
def ban_list(db: str) -> None:
    """Every ban, oldest first."""
    bans = run_with_store(db, lambda store: store.list_bans())
    if not bans:
        click.echo("nobody is banned", err=True)
        return
    width = max(6, *(len(b.target) for b in bans))
    click.echo(f"{'KIND':<7}  {'TARGET':<{width}}  CREATED (UTC)     REASON")
    for b in bans:
        created = time.strftime("%Y-%m-%d %H:%M", time.gmtime(b.created))
        click.echo(f"{b.kind:<7}  {b.target:<{width}}  {created}  {b.reason or ''}")


COMMANDS = [ban]
