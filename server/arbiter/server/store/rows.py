"""What both SQL stores share: tokens, JSON columns and turning rows into records.

The SQLite and PostgreSQL stores run the same schema (migrations.py) and select the same
columns, so a row becomes a Player, a Rating or a GameRecord in one place.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .base import (
    MAX_REFUSALS_KEPT,
    AsideMove,
    Ban,
    GameRecord,
    GameStart,
    MoveRecord,
    Player,
    Rating,
    RefusedMove,
    Tournament,
    TournamentGame,
)

TOKEN_PREFIX = "arb_"

# A bot's owner by name: the column list reads from ``players`` unaliased.
PLAYER_COLUMNS = (
    "players.id, players.name, players.kind, players.created, players.revoked,"
    " (SELECT o.name FROM players o WHERE o.id = players.owner_id) AS owner, players.operator_revoked"
)
PLAYER_WIDTH = 7  # columns of PLAYER_COLUMNS: a query's own columns come after them
# The operator's revocation is its own column: an owner's new token (which lifts the owner's own
# revocation) leaves it in force; only reinstating lifts it.
REINSTATE = "UPDATE players SET operator_revoked = NULL WHERE name = ?"

BAN_COLUMNS = "kind, target, reason, created"
LIST_BANS = f"SELECT {BAN_COLUMNS} FROM bans ORDER BY created, id"
ADD_BAN = "INSERT INTO bans (kind, target, reason, created) VALUES (?, ?, ?, ?)"
FIND_BAN = "SELECT 1 FROM bans WHERE kind = ? AND target = ?"
REMOVE_BAN = "DELETE FROM bans WHERE kind = ? AND target = ?"
BUMP_BANS_VERSION = "UPDATE bans_version SET version = version + 1"
BANS_VERSION = "SELECT version FROM bans_version"
RATING_COLUMNS = "rating, deviation, volatility, games, wins, draws, losses"
GAME_COLUMNS = (
    "id, match_id, game, params, first_name, second_name, clock, rated, started, ended, result, reason,"
    " pool, first_level, second_level, opening, refused, swap"
)
MOVE_COLUMNS = "game_id, ply, move, elapsed_ms, info"
REFUSAL_COLUMNS = "game_id, ply, color, move, code, at"
ASIDE_COLUMNS = "game_id, kind, ply, color, move, elapsed_ms"
SAVE_ASIDE = (
    "INSERT INTO aside_moves (game_id, seq, kind, ply, color, move, elapsed_ms)"
    " SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ? FROM aside_moves WHERE game_id = ?"
)
# A refused move: count it on its game, then keep it if it is among the first MAX_REFUSALS_KEPT.
COUNT_REFUSAL = "UPDATE games SET refused = refused + 1 WHERE match_id = ? RETURNING id, refused"
SAVE_REFUSAL = "INSERT INTO refused_moves (game_id, seq, ply, color, move, code, at) VALUES (?, ?, ?, ?, ?, ?, ?)"
# A settled swap opening (migration 11): its choices, and when the opener took white the players change
# places (SQL reads every right-hand side before the row changes).
SAVE_SWAP = "UPDATE games SET swap = ? WHERE match_id = ?"
SWAP_PLAYERS = (
    "UPDATE games SET swap = ?, first_name = second_name, second_name = first_name, first_id = second_id,"
    " second_id = first_id, first_level = second_level, second_level = first_level WHERE match_id = ?"
)
# A rated identity's rating after each of its games in a pool, oldest first.
HISTORY = (
    "SELECT at, rating, deviation FROM rating_history WHERE player_id = ? AND pool = ? AND level = ? ORDER BY at, id"
)
# Each rated identity of a finished rated game of a pool, for the crosstable and BayesElo:
# (first, second, result), in the order the games ended.
RATED_RESULTS = (
    "SELECT first_name || COALESCE('@' || first_level, ''), second_name || COALESCE('@' || second_level, ''),"
    " result FROM games WHERE pool = ? AND rated = 1 AND result IS NOT NULL ORDER BY ended, id"
)
# A finished game and what hangs on it (the moves tables have no foreign key: migration 5).
DISCARD_GAME = (
    "DELETE FROM moves WHERE game_id IN (SELECT id FROM games WHERE match_id = ? AND ended IS NOT NULL)",
    "DELETE FROM refused_moves WHERE game_id IN (SELECT id FROM games WHERE match_id = ? AND ended IS NOT NULL)",
    "DELETE FROM aside_moves WHERE game_id IN (SELECT id FROM games WHERE match_id = ? AND ended IS NOT NULL)",
    "DELETE FROM reviews WHERE match_id IN (SELECT match_id FROM games WHERE match_id = ? AND ended IS NOT NULL)",
    "DELETE FROM games WHERE match_id = ? AND ended IS NOT NULL",
)

SAVE_REVIEW = (
    "INSERT INTO reviews (match_id, review, created) VALUES (?, ?, ?)"
    " ON CONFLICT (match_id) DO UPDATE SET review = excluded.review, created = excluded.created"
)

LEADERBOARD = (
    "SELECT p.name, r.pool, r.rating, r.deviation, r.volatility, r.games, r.wins, r.draws, r.losses, r.level"
    " FROM ratings r JOIN players p ON p.id = r.player_id WHERE r.pool = ?"
    " AND p.revoked IS NULL AND p.operator_revoked IS NULL"
    " ORDER BY r.rating DESC, p.name, r.level"
)

# Moves under a game id no game has: (game id, number of moves).
ORPHAN_MOVES = (
    "SELECT m.game_id, COUNT(*) FROM moves m WHERE NOT EXISTS (SELECT 1 FROM games g WHERE g.id = m.game_id)"
    " GROUP BY m.game_id ORDER BY m.game_id"
)
PageQuery = tuple[str, tuple[Any, ...]]  # a page's WHERE/ORDER/LIMIT tail and its arguments
_FINISHED = "WHERE ended IS NOT NULL AND pool IS NOT NULL"
_FINISHED_ORDER = "ORDER BY pool, ended, id LIMIT ?"


@dataclass
class GamePages:
    """Where a walk over every game (``Store.stream_games``) stands: keyset pages, never an OFFSET,
    so each page is one index range however far the walk has gone. The finished games come pool by
    pool in the order they ended (the ``games_by_pool`` index), then the rest by id."""

    batch_size: int
    finished: bool = True
    last: tuple[Any, ...] | None = None  # (pool, ended, id) of the last finished game read, then (id,)

    def query(self) -> PageQuery:
        """The WHERE/ORDER/LIMIT tail and arguments of the next page of GAME_COLUMNS rows."""
        if not self.finished:
            after = self.last or (-1,)
            return "WHERE id > ? AND (ended IS NULL OR pool IS NULL) ORDER BY id LIMIT ?", (*after, self.batch_size)
        if self.last is None:
            return f"{_FINISHED} {_FINISHED_ORDER}", (self.batch_size,)
        return f"{_FINISHED} AND (pool, ended, id) > (?, ?, ?) {_FINISHED_ORDER}", (*self.last, self.batch_size)

    def advance(self, rows: list[Any]) -> bool:
        """Take note of a page's rows (GAME_COLUMNS); whether another page may follow."""
        full = len(rows) == self.batch_size
        if self.finished:
            self.last = (rows[-1][12], rows[-1][9], rows[-1][0]) if full else None
            self.finished = full
            return True
        self.last = (rows[-1][0],) if full else None
        return full


async def stream_pages(
    read: Callable[[PageQuery], Awaitable[tuple[list[Any], list[GameRecord]]]], batch_size: int
) -> AsyncIterator[GameRecord]:
    """Every game, page after page of GamePages; ``read`` runs a page's query and returns its
    GAME_COLUMNS rows and their records."""
    pages = GamePages(batch_size)
    more = True
    while more:
        rows, records = await read(pages.query())
        more = pages.advance(rows)
        for record in records:
            yield record


# A rated identity's new rating (both stores speak this upsert), and the line of its history.
SAVE_RATING = (
    "INSERT INTO ratings (player_id, pool, level, rating, deviation, volatility, games, wins, draws, losses, updated)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (player_id, pool, level) DO UPDATE SET"
    " rating = excluded.rating, deviation = excluded.deviation, volatility = excluded.volatility,"
    " games = excluded.games, wins = excluded.wins, draws = excluded.draws, losses = excluded.losses,"
    " updated = excluded.updated"
)
SAVE_HISTORY = (
    "INSERT INTO rating_history (player_id, game, pool, level, game_id, rating_before, rating, deviation,"
    " volatility, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
# Each player's rating change of one game, by name.
CHANGES = (
    "SELECT p.name, h.rating - h.rating_before FROM rating_history h JOIN players p ON p.id = h.player_id"
    " WHERE h.game_id = ?"
)


def rating_writes(
    ids: tuple[int, int],
    levels: tuple[int | None, int | None],
    game: str,
    game_id: int,
    at: float,
    before: tuple[Rating, Rating],
    after: tuple[Rating, Rating],
) -> Iterable[tuple[tuple[Any, ...], tuple[Any, ...]]]:
    """For each side of a rated game: the SAVE_RATING and SAVE_HISTORY arguments."""
    for player_id, level, old, new in zip(ids, levels, before, after, strict=True):
        yield (
            (player_id, new.pool, level or 0, new.rating, new.deviation, new.volatility, new.games, new.wins,
             new.draws, new.losses, at),
            (player_id, game, new.pool, level or 0, game_id, old.rating, new.rating, new.deviation, new.volatility,
             at),
        )  # fmt: skip


def refusal_row(counted: Any, refusal: RefusedMove) -> tuple[Any, ...] | None:
    """SAVE_REFUSAL's arguments for a refused move COUNT_REFUSAL counted as ``counted`` (its game's
    id and the refusal's number), or None when it is beyond the first MAX_REFUSALS_KEPT (only counted)."""
    game_id, seq = counted
    if seq > MAX_REFUSALS_KEPT:
        return None
    return (game_id, seq, refusal.ply, refusal.color, refusal.move, refusal.code, refusal.at)


def to_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def hash_secret(secret: str) -> bytes:
    # Tokens carry 256 random bits, so a plain sha256 is enough: nothing to brute-force.
    return hashlib.sha256(secret.encode()).digest()


def new_token() -> tuple[str, str, str]:
    """(selector, secret, token): the selector finds the row, only the secret's hash is stored."""
    selector, secret = secrets.token_urlsafe(9), secrets.token_urlsafe(32)
    return selector, secret, f"{TOKEN_PREFIX}{selector}.{secret}"


def split_token(token: object) -> tuple[str, str] | None:
    """(selector, secret) of a well-formed token, else None."""
    if not isinstance(token, str) or not token.startswith(TOKEN_PREFIX):
        return None
    selector, dot, secret = token[len(TOKEN_PREFIX) :].partition(".")
    return (selector, secret) if dot else None


def player_of(row: Any) -> Player:
    """A Player from a row of PLAYER_COLUMNS."""
    by_operator = row[6] is not None
    return Player(row[0], row[1], row[2], row[3], revoked=by_operator or row[4] is not None, owner=row[5],
                  revoked_by_operator=by_operator)  # fmt: skip


def revoke_update(by_owner: bool) -> str:
    """The UPDATE that revokes a player by name (arguments: the time, the name)."""
    column = "revoked" if by_owner else "operator_revoked"
    return f"UPDATE players SET {column} = ? WHERE name = ?"


def ban_of(row: Any) -> Ban:
    """A Ban from a row of BAN_COLUMNS."""
    return Ban(row[0], row[1], row[2], row[3])


def rating_of(name: str, pool: str, level: int | None, row: Any) -> Rating:
    """A Rating from a row of RATING_COLUMNS."""
    rating, deviation, volatility, games, wins, draws, losses = row
    return Rating(name, pool, rating, deviation, volatility, games, wins, draws, losses, level=level)


def listing(*, player: str | None, game: str | None, limit: int | None, finished: bool, after: str | None) -> PageQuery:
    """The WHERE/ORDER/LIMIT tail of ``Store.list_games`` (newest first) and its arguments."""
    clauses, args = ["ended IS NOT NULL"] if finished else [], []
    if after is not None:  # the games after that one in this order
        clauses.append("(started, id) < (SELECT started, id FROM games WHERE match_id = ?)")
        args.append(after)
    if player is not None:
        clauses.append("(first_name = ? OR second_name = ?)")
        args += [player, player]
    if game is not None:
        clauses.append("game = ?")
        args.append(game)
    where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
    return f"{where} ORDER BY started DESC, id DESC" + ("" if limit is None else f" LIMIT {int(limit)}"), tuple(args)


def leaderboard_of(rows: Iterable[Any]) -> list[Rating]:
    return [rating_of(name, pool, level or None, rest) for name, pool, *rest, level in rows]


def crosstable_of(rows: Iterable[Any]) -> dict[str, dict[str, list[int]]]:
    """[wins, draws, losses] of each identity against each other, from CROSSTABLE's rows."""
    table: dict[str, dict[str, list[int]]] = {}
    for first, second, result in rows:
        column = {"1-0": 0, "1/2-1/2": 1, "0-1": 2}[result]
        table.setdefault(first, {}).setdefault(second, [0, 0, 0])[column] += 1
        table.setdefault(second, {}).setdefault(first, [0, 0, 0])[2 - column] += 1
    return table


def game_records(
    games: list[Any],
    moves: Iterable[Any],
    changes: Iterable[tuple[int, str, float]],
    refusals: Iterable[Any],
    asides: Iterable[Any] = (),
) -> list[GameRecord]:
    """GameRecords from rows of GAME_COLUMNS, the MOVE_COLUMNS rows of those games (in ply order),
    their rating changes as (game id, player name, change), their REFUSAL_COLUMNS rows (in order)
    and their ASIDE_COLUMNS rows (in order)."""
    aside: dict[int, list[AsideMove]] = {row[0]: [] for row in games}
    for game_id, kind, ply, color, move, elapsed in asides:
        aside[game_id].append(AsideMove(kind, ply, color, json.loads(move), elapsed))
    by_game: dict[int, list[MoveRecord]] = {row[0]: [] for row in games}
    refused: dict[int, list[RefusedMove]] = {row[0]: [] for row in games}
    for game_id, ply, color, move, code, at in refusals:
        refused[game_id].append(RefusedMove(ply, color, move, code, at))
    changed: dict[int, dict[str, float]] = {row[0]: {} for row in games}
    for game_id, ply, move, elapsed, info in moves:
        by_game[game_id].append(MoveRecord(ply, json.loads(move), elapsed, None if info is None else json.loads(info)))
    for game_id, name, change in changes:
        changed[game_id][name] = change
    return [
        GameRecord(
            start=GameStart(
                match_id=match_id,
                game=game,
                params=json.loads(params),
                players=(first, second),
                clock=json.loads(clock),
                rated=bool(rated),
                started=started,
                levels=(first_level, second_level),
                pool=pool or "",
                opening=opening,
            ),
            moves=by_game[game_id],
            result=result,
            reason=reason,
            ended=ended,
            rating_changes=changed[game_id],
            refusals=refused[game_id],
            refused=refused_total,
            asides=aside[game_id],
            swap=[] if swap is None else json.loads(swap),
        )
        for (game_id, match_id, game, params, first, second, clock, rated, started, ended, result, reason, pool,
             first_level, second_level, opening, refused_total, swap) in games
    ]  # fmt: skip


# --- unread ends (migration 10) -------------------------------------------------------------------
# A just-ended game (by id, given twice): a row for each registered player, in the end's transaction.
OWE_ENDS = (
    "INSERT INTO unread_ends (player_id, game_id)"
    " SELECT first_id, id FROM games WHERE id = ? AND first_id IS NOT NULL"
    " UNION SELECT second_id, id FROM games WHERE id = ? AND second_id IS NOT NULL"
    " ON CONFLICT DO NOTHING"
)
# The games whose ends a player has not read (its name, the oldest end kept, how many): newest first.
UNREAD_ENDS = (
    "WHERE id IN (SELECT u.game_id FROM unread_ends u JOIN players p ON p.id = u.player_id WHERE p.name = ?)"
    " AND ended >= ? ORDER BY ended DESC, id DESC LIMIT ?"
)
# One end read (the player's name, the match id).
END_READ = (
    "DELETE FROM unread_ends WHERE player_id = (SELECT id FROM players WHERE name = ?)"
    " AND game_id = (SELECT id FROM games WHERE match_id = ?)"
)


# --- tournaments ------------------------------------------------------------------------------------
TOURNAMENT_COLUMNS = "name, spec, state, created"
ADD_TOURNAMENT = "INSERT INTO tournaments (name, spec, state, created) VALUES (?, ?, ?, ?)"
FIND_TOURNAMENT = f"SELECT id, {TOURNAMENT_COLUMNS} FROM tournaments WHERE name = ?"
LIST_TOURNAMENTS = f"SELECT id, {TOURNAMENT_COLUMNS} FROM tournaments ORDER BY created, id"
SET_TOURNAMENT_STATE = "UPDATE tournaments SET state = ? WHERE id = ?"
ENTER_TOURNAMENT = "INSERT INTO tournament_entrants (tournament_id, player_id, entered) VALUES (?, ?, ?)"
FIND_ENTRANT = "SELECT withdrawn FROM tournament_entrants WHERE tournament_id = ? AND player_id = ?"
WITHDRAW_ENTRANT = "UPDATE tournament_entrants SET withdrawn = ? WHERE tournament_id = ? AND player_id = ?"
ENTRANTS = (
    "SELECT p.name, e.seed, e.withdrawn FROM tournament_entrants e JOIN players p ON p.id = e.player_id"
    " WHERE e.tournament_id = ? ORDER BY e.entered, p.name"
)
SET_SEED = (
    "UPDATE tournament_entrants SET seed = ?"
    " WHERE tournament_id = ? AND player_id = (SELECT id FROM players WHERE name = ?)"
)
TOURNAMENT_GAME_COLUMNS = "round, board, black, white, opening, match_id, score, forfeit, cause"
ADD_TOURNAMENT_GAME = (
    f"INSERT INTO tournament_games (tournament_id, {TOURNAMENT_GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
TOURNAMENT_GAMES = (
    f"SELECT {TOURNAMENT_GAME_COLUMNS} FROM tournament_games WHERE tournament_id = ? ORDER BY round, board"
)
UPDATE_TOURNAMENT_GAME = (
    "UPDATE tournament_games SET match_id = ?, score = ?, forfeit = ?, cause = ?"
    " WHERE tournament_id = ? AND round = ? AND board = ?"
)


def tournament_of(row: Any) -> Tournament:
    """A Tournament from a row of id and TOURNAMENT_COLUMNS."""
    return Tournament(row[1], json.loads(row[2]), row[3], row[4])


def tournament_game_of(row: Any) -> TournamentGame:
    """A TournamentGame from a row of TOURNAMENT_GAME_COLUMNS."""
    score = None if row[6] is None else float(row[6])
    return TournamentGame(row[0], row[1], row[2], row[3], row[4], row[5], score, row[7], row[8])


def tournament_game_row(game: TournamentGame) -> tuple[Any, ...]:
    return (game.round, game.board, game.black, game.white, game.opening, game.match_id, game.score,
            game.forfeit, game.cause)  # fmt: skip
