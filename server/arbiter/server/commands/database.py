"""Accounts and records on the store: ``arbiter player add|list|revoke|reinstate``, ``arbiter export`` and
``arbiter import`` (text records, Gomocup .psq, SGF), ``arbiter leaderboard``, ``arbiter ratings``,
``arbiter report`` (a player's page for a terminal), ``arbiter check``.

The database is ``--db PATH``, else ``$ARBITER_DB``, else ``./arbiter.db`` — the same file
``arbiter serve --db`` uses (a PostgreSQL URL works as well). Only ``player add`` creates it.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import click

from arbiter.cli.errors import fail
from arbiter.server.results.rating_updates import rate_result, rebuild_outdated_ratings
from arbiter.server.store.base import GameRecord, Player, Rating, Store, StoreError, UnknownPlayer
from arbiter.server.store.factory import describe, is_url, store_for

DEFAULT_DB = "arbiter.db"
T = TypeVar("T")

DB_OPTION = click.option(
    "--db",
    envvar="ARBITER_DB",
    default=DEFAULT_DB,
    show_default="$ARBITER_DB or ./arbiter.db",
    help="The SQLite database file, or a postgresql://user:password@host:port/database URL.",
)


def run_with_store(db: str, action: Callable[[Store], Awaitable[T]], *, create: bool = False) -> T:
    """Open the store, run ``action`` on it, close it; any StoreError becomes a one-line exit 2."""
    if not create and not is_url(db) and not Path(db).exists():
        fail(f"no database at {db}; `arbiter player add` or `arbiter serve --db {db}` creates one")

    async def run() -> T:
        store = store_for(db)
        await store.open()
        try:
            await rebuild_outdated_ratings(store)  # a database from before rating pools
            return await action(store)
        finally:
            await store.close()

    try:
        return asyncio.run(run())
    except StoreError as error:
        fail(str(error))


@click.group()
def player() -> None:
    """Registered players: bots and humans who log in with a token."""


@player.command("add")
@click.argument("name")
@click.option("--kind", type=click.Choice(["bot", "human"]), required=True, help="What the player is.")
@DB_OPTION
def player_add(name: str, kind: str, db: str) -> None:
    """Register NAME and print its token. The token is shown only this once: keep it."""
    token = run_with_store(db, lambda store: store.add_player(name, kind), create=True)  # type: ignore[arg-type]
    click.echo(f"registered {kind} {name!r}; its token (shown once, store it now):", err=True)
    click.echo(token)


@player.command("list")
@DB_OPTION
def player_list(db: str) -> None:
    """Every registered player, with kind, creation time and status."""
    players = run_with_store(db, lambda store: store.list_players())
    if not players:
        click.echo("no players yet; add one with `arbiter player add NAME --kind bot`", err=True)
        return
    width = max(4, *(len(p.name) for p in players))
    click.echo(f"{'NAME':<{width}}  KIND   CREATED (UTC)     STATUS")
    for p in players:
        created = time.strftime("%Y-%m-%d %H:%M", time.gmtime(p.created))
        click.echo(f"{p.name:<{width}}  {p.kind:<5}  {created}  {_status(p)}")


@player.command("token")
@click.argument("name")
@DB_OPTION
def player_token(name: str, db: str) -> None:
    """Issue NAME a new token (the old one stops working). It lifts the owner's revocation, not
    `arbiter player revoke`'s: `arbiter player reinstate` does."""

    async def reissue(store: Store) -> tuple[str, Player | None]:
        return await store.reissue_token(name), await store.get_player(name)

    token, found = run_with_store(db, reissue)
    click.echo(f"new token for {name!r} (shown once, store it now):", err=True)
    if found is not None and found.revoked_by_operator:
        click.echo(f"{name!r} stays revoked until `arbiter player reinstate {name}`", err=True)
    click.echo(token)


@player.command("ensure")
@click.argument("name")
@click.option("--kind", type=click.Choice(["bot", "human"]), required=True, help="What the player is.")
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="Where the token is kept (read if it still logs in, else written, mode 0600).",
)
@DB_OPTION
def player_ensure(name: str, kind: str, token_file: Path, db: str) -> None:
    """Make sure NAME exists and TOKEN_FILE holds a token that logs in as NAME (for unattended bots)."""
    from arbiter.server.store.token_files import ensure_token_file

    try:
        run_with_store(db, lambda store: ensure_token_file(store, name, kind, token_file), create=True)  # type: ignore[arg-type]
    except OSError as error:
        fail(f"cannot write the token file {token_file}: {error.strerror}")
    click.echo(f"{name!r} is ready; its token is in {token_file}", err=True)


@player.command("revoke")
@click.argument("name")
@DB_OPTION
def player_revoke(name: str, db: str) -> None:
    """Revoke NAME's token: it can no longer log in, and its owner cannot lift this with a new
    token. Its games and ratings stay."""
    run_with_store(db, lambda store: store.revoke_player(name))
    click.echo(f"revoked {name!r}; `arbiter player reinstate {name}` lets it back in", err=True)


@player.command("reinstate")
@click.argument("name")
@DB_OPTION
def player_reinstate(name: str, db: str) -> None:
    """Lift `arbiter player revoke`: NAME's token (the one it had, or one its owner issued since) works again."""
    run_with_store(db, lambda store: store.reinstate_player(name))
    click.echo(f"reinstated {name!r}", err=True)


def _status(player: Player) -> str:
    if player.revoked_by_operator:
        return "revoked (operator)"
    return "revoked (owner)" if player.revoked else "active"


@click.command()
@click.option("--game", "game_name", metavar="GAME", help="Only games of this game (its name, e.g. gomoku).")
@click.option("--player", "player_name", metavar="NAME", help="Only games this player played.")
@click.option("--match", "match_id", metavar="ID", help="Only this game.")
@click.option(
    "--format",
    "format_name",
    type=click.Choice(["text", "psq", "sgf"]),
    default="text",
    help="text: Arbiter's records (docs/RECORDS.md); psq: Gomocup/Piskvork, one game per file; sgf: an SGF "
    "collection (FF[4], GM[4]). psq and sgf hold m,n,k games only; others are skipped with a warning.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="Write to FILE, not stdout; for psq with several games, a FOLDER to fill with one MATCH.psq each.",
)
@DB_OPTION
def export(
    game_name: str | None,
    player_name: str | None,
    match_id: str | None,
    format_name: str,
    output: Path | None,
    db: str,
) -> None:
    """Write stored games as text records, Gomocup .psq or SGF files, oldest first."""
    from tqdm import tqdm

    from arbiter.engine import game_names
    from arbiter.server.results.game_files import GameFileError, format_named

    if game_name is not None and game_name not in game_names():
        fail(f"unknown game {game_name!r}; known games: {', '.join(game_names())}")
    fmt = format_named(format_name)

    async def select(store: Store) -> tuple[list[GameRecord], bool]:
        if match_id is not None:
            found = await store.get_game(match_id)
            return ([] if found is None else [found]), True
        games = await store.list_games(player=player_name, game=game_name, limit=None)
        known = player_name is None or bool(games) or await store.get_player(player_name) is not None
        return games[::-1], known

    records, player_known = run_with_store(db, select)
    if not player_known:
        fail(f"unknown player {player_name!r}: no such registered player and no games")
    if match_id is not None and not records:
        fail(f"no game {match_id!r} in {describe(db)}")
    folder = output if fmt.one_game_per_file and output is not None and (output.is_dir() or len(records) > 1) else None
    if fmt.one_game_per_file and folder is None and len(records) > 1:
        fail(f"a {fmt.suffix} file holds one game, and {len(records)} match: give -o FOLDER, or --match ID")
    try:
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
        out = sys.stdout if output is None or folder is not None else output.open("w", encoding="utf-8")
    except OSError as error:
        fail(f"cannot write {output}: {error.strerror}")
    skipped = written = 0
    try:
        for record in tqdm(records, unit="game", disable=output is None, file=sys.stderr, desc="export"):
            try:
                text = fmt.write([record])
            except GameFileError as error:
                click.echo(f"arbiter: warning: skipped {record.start.match_id}: {error}", err=True)
                skipped += 1
                continue
            if folder is not None:
                (folder / f"{_file_name(record.start.match_id)}{fmt.suffix}").write_text(text, encoding="utf-8")
            else:
                out.write(("\n" if written and fmt.name == "text" else "") + text)
            written += 1
    finally:
        if out is not sys.stdout:
            out.close()
    if output is not None:
        click.echo(f"wrote {written} games to {output}", err=True)
    if skipped:
        raise SystemExit(1)


def _file_name(match_id: str) -> str:
    """A match id as a file name: ids are URL-safe already; anything else becomes '_'."""
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in match_id) or "game"


POOL_OPTION = click.option(
    "--pool", metavar="POOL", help="One rating pool of GAME, e.g. gomoku/blitz (default: each pool in turn)."
)


def _pools_of(game_name: str, pool: str | None, db: str) -> list[str]:
    """The pools to show: ``pool``, or every pool of the game that holds ratings."""
    from arbiter.engine import game_names
    from arbiter.server.basics.pools import game_of

    if game_name not in game_names():
        fail(f"unknown game {game_name!r}; known games: {', '.join(game_names())}")
    if pool is not None:
        if game_of(pool) != game_name:
            fail(f"--pool {pool!r} is not a pool of {game_name} (pools read like {game_name}/blitz)")
        return [pool]
    pools: list[str] = run_with_store(db, lambda store: store.rating_pools(game_name))
    if not pools:
        click.echo(f"no rated games of {game_name!r} yet", err=True)
    return pools


@click.command()
@click.argument("game_name", metavar="GAME")
@POOL_OPTION
@DB_OPTION
def leaderboard(game_name: str, pool: str | None, db: str) -> None:
    """The standings of GAME, pool by pool: rating, deviation, games and W/D/L ('?' marks provisional).

    A pool is the game with its rules and a time-control category (gomoku/blitz,
    gomoku[exact=true]/rapid); each level a challenge asked of a bot is rated apart (name@level).
    """
    pools = _pools_of(game_name, pool, db)

    async def read(store: Store) -> list[list[Rating]]:
        return [await store.leaderboard(shown) for shown in pools]

    for index, (shown, ratings) in enumerate(zip(pools, run_with_store(db, read), strict=True)):
        click.echo(("\n" if index else "") + f"{shown}:")
        if not ratings:
            click.echo("  no rated games yet")
            continue
        width = max(6, *(len(r.label) for r in ratings))
        click.echo(f"{'#':>3}  {'PLAYER':<{width}}  RATING     RD  GAMES     W     D     L")
        for rank, r in enumerate(ratings, 1):
            mark = "?" if r.provisional else " "
            click.echo(
                f"{rank:>3}  {r.label:<{width}}  {r.rating:6.0f}{mark} {r.deviation:5.0f}  {r.games:5d}"
                f" {r.wins:5d} {r.draws:5d} {r.losses:5d}"
            )


@click.command()
@click.argument("game_name", metavar="GAME")
@POOL_OPTION
@click.option(
    "--prior",
    type=click.FloatRange(0, 100),
    default=2.0,
    show_default=True,
    help="Virtual draws of each player against an average one (keeps few games' ratings finite).",
)
@DB_OPTION
def ratings(game_name: str, pool: str | None, prior: float, db: str) -> None:
    """BayesElo ratings of GAME, pool by pool: one maximum-likelihood fit over each pool's rated
    games, with 95% intervals.

    What CGOS and Gomocup publish, beside the ladder's Glicko-2 (`arbiter leaderboard`): ratings
    relative to the average player, the first move's advantage and the draw margin.
    """
    from arbiter.server.ranking.bayeselo import fit, rated_games

    pools = _pools_of(game_name, pool, db)
    if not pools:
        return
    records = run_with_store(db, lambda store: store.list_games(game=game_name, limit=None, finished=True))
    for index, shown in enumerate(pools):
        games = rated_games(records, shown)
        fitted = fit(games, prior=prior)
        click.echo(("\n" if index else "") + f"{shown}:")
        if not fitted.players:
            click.echo("  no rated games yet")
            continue
        width = max(6, *(len(p.name) for p in fitted.players))
        click.echo(f"{'#':>3}  {'PLAYER':<{width}}    ELO     95% INTERVAL  GAMES  SCORE")
        for rank, p in enumerate(fitted.players, 1):
            interval = f"[{p.low:+.0f}, {p.high:+.0f}]"
            click.echo(
                f"{rank:>3}  {p.name:<{width}}  {p.elo:+5.0f}  {interval:>15}  {p.games:5d}  {p.score / p.games:5.1%}"
            )
        click.echo(f"first move: {fitted.advantage:+.0f} Elo; draw margin: {fitted.draw:.0f} Elo ({len(games)} games)")


@click.command()
@click.argument("name")
@click.option(
    "--games",
    type=click.IntRange(1, 500),
    default=20,
    show_default=True,
    help="How many recent games to list (the failure report looks through the last 200 or more).",
)
@click.option("--match", default=None, help="The game whose thinking times to show (default: the newest).")
@DB_OPTION
def report(name: str, games: int, match: str | None, db: str) -> None:
    """NAME's report, as its player page shows it: ratings per pool, recent games, the failure
    report (games lost, on time, abandoned, each refused move with its position) with the replay's
    URL path at that ply, and thinking times against the clock. Exit 1 if there is no such player.
    """
    from arbiter.server.results.player_report import format_report, player_report

    async def build(store: Store) -> dict[str, Any] | str:
        try:
            return await player_report(store, name, games=games, match=match)
        except UnknownPlayer as error:  # a StoreError: caught here, or it would exit 2
            return str(error)

    try:
        built = run_with_store(db, build)
    except ValueError as error:
        fail(f"--match: {error}")
    if isinstance(built, str):
        fail(built, code=1)
    click.echo(format_report(built), nl=False)


@click.command(name="import")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--format",
    "format_name",
    type=click.Choice(["auto", "text", "psq", "sgf"]),
    default="auto",
    help="auto: by each file's suffix (.psq, .sgf; anything else is Arbiter's text records).",
)
@click.option(
    "--rule",
    "rule_name",
    default="freestyle",
    show_default=True,
    help="The rule of another tool's .psq (Piskvork writes none) or SGF without RU[]: freestyle, standard"
    " (exact five), renju, caro or 'standard caro'. Arbiter's own files name their game.",
)
@DB_OPTION
def import_games(files: tuple[Path, ...], format_name: str, rule_name: str, db: str) -> None:
    """Store the games of FILES (text records, Gomocup .psq, SGF) as finished, unrated games.

    Every move is replayed by the engine first; a file with an illegal move or a malformed line is
    refused whole, naming the line. A game whose match id is stored already is skipped, so the
    same files may be imported again. Imported games are never rated: their players need no account.
    """
    from arbiter.engine import ParamError
    from arbiter.engine.gomocup import rule_named
    from arbiter.server.results.game_files import FORMATS, GameFileError, format_named

    try:
        rule = rule_named(rule_name)
    except ParamError as error:
        fail(f"--rule: {error}")

    suffixes = {f.suffix: f for f in FORMATS.values()}
    batches = []
    for path in files:
        fmt = format_named(format_name) if format_name != "auto" else suffixes.get(path.suffix.lower(), FORMATS["text"])
        try:
            text = path.read_text(encoding="utf-8")
            batches.append(fmt.read(text, match_id=path.stem, started=path.stat().st_mtime, rule=rule))
        except (OSError, UnicodeDecodeError) as error:
            fail(f"cannot read {path}: {error}")
        except GameFileError as error:
            fail(f"{path}: {error}")

    async def store_all(store: Store) -> tuple[int, int]:
        stored = skipped = 0
        for record in (r for batch in batches for r in batch):
            if await store.get_game(record.start.match_id) is not None:
                skipped += 1
                continue
            await store.start_game(replace(record.start, rated=False))
            for move in record.moves:
                store.record_move(record.start.match_id, move)
            ended = record.ended if record.ended is not None else record.start.started
            await store.finish_game(record.start.match_id, record.result, record.reason or "unfinished", ended)
            stored += 1
        return stored, skipped

    stored, skipped = run_with_store(db, store_all, create=True)
    click.echo(
        f"imported {stored} games into {db}" + (f" ({skipped} already stored, skipped)" if skipped else ""), err=True
    )


@click.command()
@click.option(
    "--repair",
    is_flag=True,
    help="Rebuild every rating from the games when a rating differs, then check again and exit by that.",
)
@DB_OPTION
def check(repair: bool, db: str) -> None:
    """Check the store: replay every game through the engine, recompute every rating.

    Prints one line per difference (the game and ply, or the rating, with what was expected and
    what is stored) and a summary; exits 0 when the store is clean, 1 when anything differs. With
    --repair the ratings are rebuilt from the games (rated, finished, in the order they ended);
    a game whose moves contradict its stored end is reported, never rewritten.
    """
    from arbiter.server.results.consistency import Difference, Summary, check_store
    from arbiter.server.warmup import warm_games

    def report(difference: Difference) -> None:
        bar.write(difference.line(), file=sys.stdout)

    async def run_check(store: Store) -> Summary:
        summary = await check_store(store, report, progress=bar.update)
        bar.clear()
        click.echo(summary.line())
        return summary

    async def check_and_repair(store: Store) -> Summary:
        warm_games()  # the engine's kernels, compiled (or loaded) before the first game is replayed
        summary = await run_check(store)
        if not repair or summary.clean:
            return summary
        if summary.repairable:
            replayed = await store.rebuild_ratings(rate_result)
            click.echo(f"repaired: every rating rebuilt from {replayed} rated games; checking again")
        left = summary.differences.total() - summary.repairable
        if left:
            click.echo(f"not repaired: {left} in the games themselves (moves, ends), which a person must look at")
        bar.reset()
        return await run_check(store)

    from tqdm import tqdm

    # Progress on a terminal only, and only once a check has run for a few seconds (a large store).
    with tqdm(unit="game", desc="check", file=sys.stderr, disable=None, delay=3, leave=False) as bar:
        summary = run_with_store(db, check_and_repair)
    if not summary.clean:
        raise SystemExit(1)


COMMANDS = [player, export, leaderboard, ratings, report, import_games, check]
