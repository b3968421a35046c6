"""``arbiter tournament create|list|show|start|pause|withdraw|export``: tournaments in the store,
which the running servers of that database play (tournaments/scheduler.py, within a second or two).

``create`` names the field (``--player``, repeated) or opens entry until the start; ``start`` seeds
the field and stores the pairings at once (or the server does at ``--start-at``); ``pause`` stops
new games (``start`` again resumes); ``withdraw`` scores a player's remaining games as its
forfeits; ``export`` writes the games as Gomocup's psq files in a zip and one SGF collection.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import click

from arbiter.cli.errors import fail, parse_params
from arbiter.engine import EngineError, create_game, game_names
from arbiter.server.config import parse_ladder_clock
from arbiter.server.store.base import Store
from arbiter.server.tournaments import exports, lifecycle, report
from arbiter.server.tournaments.model import FormatError
from arbiter.server.tournaments.spec import FORMATS, SpecError, TournamentSpec

from .database import DB_OPTION, run_with_store


@click.group()
def tournament() -> None:
    """Round robins and Swiss tournaments, played by the servers that use this database."""


@tournament.command("create")
@click.argument("name")
@click.option("--format", "format_", type=click.Choice(FORMATS), default="round_robin", show_default=True)
@click.option("--game", type=click.Choice(game_names()), required=True)
@click.option("--param", "params", multiple=True, metavar="KEY=VALUE", help="The game's rules (repeat).")
@click.option("--clock", default="60+0", show_default=True, metavar="INITIAL+INCREMENT[/MOVE_LIMIT]",
              help="Seconds: 60+1, or Gomocup's 120+0/5 (a per-game budget and a per-move limit).")  # fmt: skip
@click.option("--double/--single", default=False, help="Round robin: each pair twice, colours swapped.")
@click.option("--rounds", type=int, help="Swiss: the number of rounds (default: derived from the field).")
@click.option("--opening-plies", type=int, default=0, show_default=True, help="Plies of a balanced opening.")
@click.option("--openings", type=int, default=0, help="Round robin: openings to draw from (0: one per pair).")
@click.option("--player", "players", multiple=True, metavar="NAME", help="An invited player (repeat).")
@click.option("--open", "open_entry", is_flag=True, help="Anyone registered may enter until the start.")
@click.option("--start-at", metavar="ISO-TIME", help="Start automatically then (UTC unless it says), else by `start`.")
@click.option("--concurrency", type=int, default=4, show_default=True, help="Games at once, at most.")
@click.option(
    "--grace", type=float, default=30.0, show_default=True, help="Seconds a player may be absent at its game's start."
)
@click.option("--unrated", is_flag=True, help="Not rated in the game's pool.")
@click.option("--seed", type=int, default=0, show_default=True, help="Pairings and openings are reproducible from it.")
@DB_OPTION
def create(name: str, format_: str, game: str, params: tuple[str, ...], clock: str, double: bool, rounds: int | None,
           opening_plies: int, openings: int, players: tuple[str, ...], open_entry: bool, start_at: str | None,
           concurrency: int, grace: float, unrated: bool, seed: int, db: str) -> None:  # fmt: skip
    """Create tournament NAME with its field (--player) or open entry (--open)."""
    try:
        rules = dict(create_game(game, parse_params(params)).params)
        timing = parse_ladder_clock(f"{game}={clock}")[1].describe()
        spec = TournamentSpec.check({
            "format": format_, "game": game, "params": rules, "clock": timing, "double": double, "rounds": rounds,
            "opening_plies": opening_plies, "openings": openings, "entry": "open" if open_entry else "invited",
            "start_at": _unix_time(start_at), "concurrency": concurrency, "grace_s": grace, "rated": not unrated,
            "seed": seed,
        })  # fmt: skip
    except (EngineError, SpecError, ValueError) as error:
        fail(str(error))
    made = run_with_store(db, lambda store: lifecycle.create(store, name, spec, list(players)), create=True)
    click.echo(f"created tournament {made.name} ({len(players)} invited)", err=True)


@tournament.command("list")
@DB_OPTION
def list_(db: str) -> None:
    """Every tournament, oldest first."""
    tournaments = run_with_store(db, lambda store: store.list_tournaments())
    if not tournaments:
        click.echo("no tournaments", err=True)
        return
    width = max(4, *(len(t.name) for t in tournaments))
    click.echo(f"{'NAME':<{width}}  {'STATE':<8}  {'FORMAT':<11}  GAME")
    for t in tournaments:
        click.echo(f"{t.name:<{width}}  {t.state:<8}  {t.spec.get('format', '?'):<11}  {t.spec.get('game', '?')}")


@tournament.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="The whole report as JSON (as /tournament.json serves it).")
@DB_OPTION
def show(name: str, as_json: bool, db: str) -> None:
    """The tournament's settings, standings and schedule."""
    described = run_with_store(db, lambda store: report.describe(store, name))
    if as_json:
        click.echo(json.dumps(described, indent=2))
        return
    click.echo(
        f"{described['name']}: {described['spec']['format']} of {described['spec']['game']}, {described['state']}"
    )
    click.echo(f"{'#':>3}  {'PLAYER':<24} {'POINTS':>6} {'GAMES':>5}  W-D-L")
    for row in described["standings"]:
        click.echo(f"{row['rank']:>3}  {row['name']:<24} {row['points']:>6g} {row['played']:>5}  "
                   f"{row['wins']}-{row['draws']}-{row['losses']}")  # fmt: skip
    click.echo(f"games: {described['decided']} of {len(described['games'])} decided")


@tournament.command("start")
@click.argument("name")
@DB_OPTION
def start(name: str, db: str) -> None:
    """Start an open tournament now (seeds and pairings stored at once), or resume a paused one."""

    async def go(store: Store) -> str:
        tournament, _ = await lifecycle.get(store, name)
        if tournament.state == "paused":
            await store.set_tournament_state(tournament.name, "running")
            return f"resumed {tournament.name}"
        games = await lifecycle.start(store, name)
        return f"started {tournament.name}: {len(games)} games paired"

    click.echo(run_with_store(db, go), err=True)


@tournament.command("pause")
@click.argument("name")
@DB_OPTION
def pause(name: str, db: str) -> None:
    """No new games start (those under way finish); `start` resumes."""

    async def go(store: Store) -> None:
        tournament, _ = await lifecycle.get(store, name)
        if tournament.state != "running":
            raise lifecycle.TournamentClosed(f"{tournament.name} is {tournament.state}, not running")
        await store.set_tournament_state(tournament.name, "paused")

    run_with_store(db, go)
    click.echo(f"paused {name}", err=True)


@tournament.command("withdraw")
@click.argument("name")
@click.argument("player")
@DB_OPTION
def withdraw(name: str, player: str, db: str) -> None:
    """PLAYER leaves tournament NAME: its games not yet started are its forfeits."""

    async def go(store: Store) -> None:
        tournament, _ = await lifecycle.get(store, name)
        await store.withdraw_from_tournament(tournament.name, player)

    run_with_store(db, go)
    click.echo(f"{player} withdrew from {name}", err=True)


@tournament.command("export")
@click.argument("name")
@click.option("--out", "folder", type=click.Path(file_okay=False, path_type=Path), default=".", show_default=True,
              help="The folder for NAME.zip (the psq files) and NAME.sgf (one SGF collection).")  # fmt: skip
@DB_OPTION
def export(name: str, folder: Path, db: str) -> None:
    """Write the tournament's games: Gomocup's psq files in NAME.zip and one SGF collection in NAME.sgf."""

    async def go(store: Store) -> tuple[bytes, bytes, int]:
        _, records = await exports.played(store, name)
        return await exports.archive_of(store, name, "zip"), await exports.archive_of(store, name, "sgf"), len(records)

    try:
        psq, sgf, count = run_with_store(db, go)
    except FormatError as error:
        fail(str(error))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.zip").write_bytes(psq)
    (folder / f"{name}.sgf").write_bytes(sgf)
    click.echo(f"wrote {count} games to {folder / name}.zip and {folder / name}.sgf", err=True)


def _unix_time(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"--start-at takes an ISO time like 2026-12-02T20:00, not {text!r}") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


COMMANDS = [tournament]
