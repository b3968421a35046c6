"""The store on PostgreSQL, for a server (or a cluster of them) that outgrows one SQLite file.

psycopg 3's async API with its connection pool, so no query blocks the event loop. Writes the
game loop must not wait for (a match's start, its moves) are queued and committed in batches by
one writer task, every ``flush_interval`` seconds or ``batch_size`` writes: starts, then moves
(one pipelined ``executemany``), then ends with their ratings, in one transaction. A batch that
fails (the server down or restarting) stays queued and is retried with a growing pause while the
matches go on in memory; ``finish_game`` then raises StoreError saying the end is kept, and the
end is written when PostgreSQL is back.

Rating updates take a transaction-level advisory lock, so two server nodes ending games of the
same pool at once read and write ratings one after the other; the game row is locked too, so an
end is written (and rated) once however many nodes try.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hmac
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import psycopg
from psycopg import AsyncConnection
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from arbiter.server.pools import game_of, pool_key
from arbiter.server.ratings import INITIAL_DEVIATION, INITIAL_RATING, INITIAL_VOLATILITY

from .base import (
    STREAM_BATCH,
    AlreadyBanned,
    Ban,
    BanKind,
    GameRecord,
    GameStart,
    MoveRecord,
    NameTaken,
    NotBanned,
    Player,
    PlayerKind,
    Rater,
    Rating,
    RefusedMove,
    Store,
    StoreError,
    UnknownPlayer,
    ban_target,
    check_ban_reason,
    check_new_player,
    check_result,
)
from .migrations import MIGRATIONS, POSTGRESQL_PRELUDE, SCHEMA_VERSION, for_postgresql
from .rows import (
    ADD_BAN,
    BANS_VERSION,
    BUMP_BANS_VERSION,
    CHANGES,
    COUNT_REFUSAL,
    DISCARD_GAME,
    END_READ,
    FIND_BAN,
    GAME_COLUMNS,
    HISTORY,
    LEADERBOARD,
    LIST_BANS,
    MOVE_COLUMNS,
    ORPHAN_MOVES,
    OWE_ENDS,
    PLAYER_COLUMNS,
    PLAYER_WIDTH,
    RATED_RESULTS,
    RATING_COLUMNS,
    REFUSAL_COLUMNS,
    REINSTATE,
    REMOVE_BAN,
    SAVE_HISTORY,
    SAVE_RATING,
    SAVE_REFUSAL,
    UNREAD_ENDS,
    PageQuery,
    ban_of,
    crosstable_of,
    game_records,
    hash_secret,
    leaderboard_of,
    listing,
    new_token,
    player_of,
    rating_of,
    rating_writes,
    refusal_row,
    revoke_update,
    split_token,
    stream_pages,
    to_json,
)

log = logging.getLogger("arbiter.server.store")

T = TypeVar("T")
MAX_RETRY_PAUSE = 2.0  # seconds between attempts to write a failed batch, at most
BACKLOG_BATCHES = 4  # a backlog is written up to this many batches per transaction
# Keys of the advisory locks Arbiter takes (any 64-bit numbers no other program on the database uses).
MIGRATION_LOCK = 0x4172626974657201
RATINGS_LOCK = 0x4172626974657202
# A write failing with one of these fails every time (a value the schema refuses, a bug in a query):
# it is dropped, alone, rather than retried forever.
_REFUSED = (psycopg.IntegrityError, psycopg.DataError, psycopg.ProgrammingError, OverflowError, TypeError)


def _sql(query: str) -> str:
    """The shared queries (rows.py) use SQLite's ``?``; psycopg's placeholder is ``%s``."""
    return query.replace("?", "%s")


@dataclass(frozen=True)
class _StartWrite:
    start: GameStart


@dataclass(frozen=True)
class _MoveWrite:
    match_id: str
    ply: int
    move_json: str
    elapsed_ms: int
    info_json: str | None


@dataclass(frozen=True)
class _RefusalWrite:
    match_id: str
    refusal: RefusedMove


@dataclass(eq=False)
class _EndWrite:
    match_id: str
    result: str | None
    reason: str
    ended: float
    rate: Rater | None
    future: asyncio.Future[dict[str, float]]


_Write = _StartWrite | _MoveWrite | _RefusalWrite | _EndWrite


@dataclass
class _Flush:
    """A caller of ``flush`` waiting for the writes queued before it (``upto`` of them)."""

    upto: int
    future: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class PostgresStore(Store):
    """The ``Store`` in a PostgreSQL database, given by a ``postgresql://user:password@host:port/db`` URL."""

    def __init__(
        self,
        url: str,
        *,
        flush_interval: float = 0.05,
        batch_size: int = 500,
        pool_size: int = 8,
        connect_timeout: float = 5.0,
    ) -> None:
        self.url = url
        self.flush_interval = flush_interval
        self.batch_size = batch_size
        self.pool_size = pool_size
        self.connect_timeout = connect_timeout
        self.where = describe_url(url)
        self._pool: AsyncConnectionPool[AsyncConnection[Any]] | None = None
        self._writer: asyncio.Task[None] | None = None
        self._pending: list[_Write] = []
        self._queued = 0  # writes ever queued; the first ``_written`` of them are committed
        self._written = 0
        self._flushes: list[_Flush] = []
        self._wake = asyncio.Event()  # something to write
        self._urgent = asyncio.Event()  # write now: an end, a flush, a full batch or closing
        self._closing = False
        self._failed_attempts = 0
        self._last_write_error: StoreError | None = None
        # Live games written by this store: their row ids and the ply their next move must have, so
        # a batch's moves go in by COPY (no lookup, no conflict check) while they follow on.
        self._game_ids: dict[str, int] = {}
        self._next_ply: dict[str, int] = {}

    # --- life cycle ---------------------------------------------------------------------------
    async def open(self) -> None:
        """Connect, bring the schema up to date (one node at a time), open the pool and the writer."""
        if self._pool is not None:
            raise StoreError(f"{self.where}: the store is already open")
        try:
            conn = await AsyncConnection.connect(self.url, autocommit=True, connect_timeout=self._timeout)
        except psycopg.Error as exc:
            raise self._error(exc) from None
        try:
            async with conn:
                await self._migrate(conn)
        except psycopg.Error as exc:
            raise self._error(exc) from None
        pool: AsyncConnectionPool[AsyncConnection[Any]] = AsyncConnectionPool(
            self.url,
            min_size=1,
            max_size=self.pool_size,
            kwargs={"autocommit": True, "connect_timeout": self._timeout},
            timeout=self.connect_timeout,
            configure=_warm,
            open=False,
            name="arbiter",
        )
        try:
            await pool.open(wait=True, timeout=self.connect_timeout)
        except PoolTimeout:
            await pool.close()
            raise StoreError(f"{self.where}: PostgreSQL did not accept the pool's connections in time") from None
        self._pool = pool
        self._writer = asyncio.create_task(self._write_loop(), name=f"store writer {self.where}")

    async def close(self) -> None:
        """Write what is queued (trying until the batch either commits or fails), then disconnect."""
        if self._pool is None or self._closing:
            return
        self._closing = True
        self._wake.set()
        self._urgent.set()
        if self._writer is not None:
            await self._writer
        await self._pool.close()
        if self._pending:
            lost = len(self._pending)
            log.error("%s: closing with %d writes that could not be made", self.where, lost)
            raise self._last_write_error or StoreError(f"{self.where}: {lost} writes lost")

    async def flush(self) -> None:
        self._check_open()
        if self._written == self._queued:
            return
        waiter = _Flush(self._queued)
        self._flushes.append(waiter)
        self._urgent.set()
        await waiter.future

    @property
    def _timeout(self) -> int:
        return max(1, round(self.connect_timeout))

    async def _migrate(self, conn: AsyncConnection[Any]) -> None:
        """Apply the missing migrations, each in a transaction with its version bump, under a lock
        so that nodes starting together migrate once."""
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            await conn.execute("CREATE TABLE IF NOT EXISTS arbiter_schema (version INTEGER NOT NULL)")
            row = await (await conn.execute("SELECT version FROM arbiter_schema")).fetchone()
            found = 0 if row is None else row[0]
            if found > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.where} was written by a newer Arbiter (schema version {found}, this Arbiter "
                    f"knows up to {SCHEMA_VERSION}); upgrade Arbiter"
                )
            if row is None:
                await conn.execute("INSERT INTO arbiter_schema VALUES (0)")
                await conn.execute(POSTGRESQL_PRELUDE)
            for version in range(found + 1, SCHEMA_VERSION + 1):
                async with conn.transaction():  # a savepoint: each migration whole or not at all
                    for statement in for_postgresql(MIGRATIONS[version - 1]):
                        await conn.execute(statement)
                    await conn.execute("UPDATE arbiter_schema SET version = %s", (version,))
        if found < SCHEMA_VERSION:
            log.info("%s: schema migrated from version %d to %d", self.where, found, SCHEMA_VERSION)

    # --- players ------------------------------------------------------------------------------
    async def add_player(
        self, name: str, kind: PlayerKind, *, owner: str | None = None, password_hash: str | None = None
    ) -> str:
        check_new_player(name, kind, owner)
        selector, secret, token = new_token()

        async def insert(conn: AsyncConnection[Any]) -> None:
            owner_id = None
            if owner is not None:
                cursor = await conn.execute("SELECT id FROM players WHERE name = %s AND kind = 'human'", (owner,))
                row = await cursor.fetchone()
                if row is None:
                    raise UnknownPlayer(f"no person named {owner!r} to own the bot")
                owner_id = row[0]
            try:
                await conn.execute(
                    "INSERT INTO players (name, kind, token_selector, token_hash, created, owner_id, password_hash)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    (name, kind, selector, hash_secret(secret), time.time(), owner_id, password_hash),
                )
            except psycopg.errors.UniqueViolation:
                raise NameTaken(f"a player named {name!r} already exists") from None

        await self._run(insert)
        return token

    async def authenticate(self, token: str) -> Player | None:
        parts = split_token(token)
        if parts is None:
            return None
        selector, secret = parts

        async def find(conn: AsyncConnection[Any]) -> Player | None:
            cursor = await conn.execute(
                f"SELECT {PLAYER_COLUMNS}, token_hash FROM players WHERE token_selector = %s", (selector,)
            )
            row = await cursor.fetchone()
            # The selector only finds the row; the secret is checked in constant time.
            if row is None or not hmac.compare_digest(bytes(row[PLAYER_WIDTH]), hash_secret(secret)):
                return None
            player = player_of(row)
            return None if player.revoked else player

        return await self._run(find)

    async def get_player(self, name: str) -> Player | None:
        return await self._run(lambda conn: _player(conn, name))

    async def list_players(self) -> list[Player]:
        async def rows(conn: AsyncConnection[Any]) -> list[Player]:
            cursor = await conn.execute(f"SELECT {PLAYER_COLUMNS} FROM players ORDER BY name")
            return [player_of(row) for row in await cursor.fetchall()]

        return await self._run(rows)

    async def reissue_token(self, name: str) -> str:
        selector, secret, token = new_token()

        async def update(conn: AsyncConnection[Any]) -> None:
            cursor = await conn.execute(
                "UPDATE players SET token_selector = %s, token_hash = %s, revoked = NULL WHERE name = %s",
                (selector, hash_secret(secret), name),
            )
            if not cursor.rowcount:
                raise UnknownPlayer(f"no player named {name!r}")

        await self._run(update)
        return token

    async def revoke_player(self, name: str, *, by_owner: bool = False) -> None:
        async def revoke(conn: AsyncConnection[Any]) -> None:
            cursor = await conn.execute(_sql(revoke_update(by_owner)), (time.time(), name))
            if not cursor.rowcount:
                raise UnknownPlayer(f"no player named {name!r}")
            if not by_owner:
                await conn.execute(BUMP_BANS_VERSION)  # servers look again at who is online

        await self._run(revoke)

    async def reinstate_player(self, name: str) -> None:
        async def reinstate(conn: AsyncConnection[Any]) -> None:
            cursor = await conn.execute(_sql(REINSTATE), (name,))
            if not cursor.rowcount:
                raise UnknownPlayer(f"no player named {name!r}")

        await self._run(reinstate)

    async def bots_of(self, owner: str) -> list[Player]:
        async def rows(conn: AsyncConnection[Any]) -> list[Player]:
            cursor = await conn.execute(
                f"SELECT {PLAYER_COLUMNS} FROM players WHERE owner_id = (SELECT id FROM players WHERE name = %s)"
                " ORDER BY name",
                (owner,),
            )
            return [player_of(row) for row in await cursor.fetchall()]

        return await self._run(rows)

    # --- accounts -----------------------------------------------------------------------------
    async def password_hash(self, name: str) -> str | None:
        async def read(conn: AsyncConnection[Any]) -> str | None:
            cursor = await conn.execute("SELECT password_hash FROM players WHERE name = %s", (name,))
            row = await cursor.fetchone()
            return None if row is None else row[0]

        return await self._run(read)

    async def set_password_hash(self, name: str, password_hash: str) -> None:
        async def update(conn: AsyncConnection[Any]) -> None:
            cursor = await conn.execute("UPDATE players SET password_hash = %s WHERE name = %s", (password_hash, name))
            if not cursor.rowcount:
                raise UnknownPlayer(f"no player named {name!r}")

        await self._run(update)

    async def add_session(self, name: str, selector: str, secret_hash: bytes, expires: float) -> None:
        async def insert(conn: AsyncConnection[Any]) -> None:
            now = time.time()
            await conn.execute("DELETE FROM sessions WHERE expires <= %s", (now,))  # the expired go as new ones come
            cursor = await conn.execute(
                "INSERT INTO sessions (selector, secret_hash, player_id, created, expires)"
                " SELECT %s, %s, id, %s, %s FROM players WHERE name = %s",
                (selector, secret_hash, now, expires, name),
            )
            if not cursor.rowcount:
                raise UnknownPlayer(f"no player named {name!r}")

        await self._run(insert)

    async def session_player(self, selector: str, secret_hash: bytes, now: float) -> Player | None:
        async def find(conn: AsyncConnection[Any]) -> Player | None:
            cursor = await conn.execute(
                f"SELECT {PLAYER_COLUMNS}, s.secret_hash FROM sessions s JOIN players ON players.id = s.player_id"
                " WHERE s.selector = %s AND s.expires > %s",
                (selector, now),
            )
            row = await cursor.fetchone()
            if row is None or not hmac.compare_digest(bytes(row[PLAYER_WIDTH]), secret_hash):
                return None
            player = player_of(row)
            return None if player.revoked else player

        return await self._run(find)

    async def end_sessions(self, *, selector: str | None = None, name: str | None = None) -> int:
        async def delete(conn: AsyncConnection[Any]) -> int:
            if selector is not None:
                cursor = await conn.execute("DELETE FROM sessions WHERE selector = %s", (selector,))
            else:
                cursor = await conn.execute(
                    "DELETE FROM sessions WHERE player_id = (SELECT id FROM players WHERE name = %s)", (name,)
                )
            return cursor.rowcount

        return await self._run(delete)

    # --- bans ---------------------------------------------------------------------------------
    async def add_ban(self, kind: BanKind, target: str, reason: str | None = None) -> Ban:
        target = ban_target(kind, target)
        check_ban_reason(reason)

        async def insert(conn: AsyncConnection[Any]) -> Ban:
            async with conn.transaction():
                name = target
                if kind == "player":
                    found = await _player(conn, target)
                    if found is None:
                        raise UnknownPlayer(f"no player named {target!r}")
                    name = found.name
                if await (await conn.execute(_sql(FIND_BAN), (kind, name))).fetchone():
                    raise AlreadyBanned(f"{kind} {name} is banned already")
                ban = Ban(kind, name, reason, time.time())
                try:
                    await conn.execute(_sql(ADD_BAN), (ban.kind, ban.target, ban.reason, ban.created))
                except psycopg.errors.UniqueViolation:
                    raise AlreadyBanned(f"{kind} {name} is banned already") from None
                await conn.execute(BUMP_BANS_VERSION)
                return ban

        return await self._run(insert)

    async def remove_ban(self, kind: BanKind, target: str) -> None:
        target = ban_target(kind, target)

        async def delete(conn: AsyncConnection[Any]) -> None:
            async with conn.transaction():
                if not (await conn.execute(_sql(REMOVE_BAN), (kind, target))).rowcount:
                    raise NotBanned(f"{kind} {target} is not banned")
                await conn.execute(BUMP_BANS_VERSION)

        await self._run(delete)

    async def list_bans(self) -> list[Ban]:
        async def rows(conn: AsyncConnection[Any]) -> list[Ban]:
            return [ban_of(row) for row in await (await conn.execute(LIST_BANS)).fetchall()]

        return await self._run(rows)

    async def bans_version(self) -> int:
        async def read(conn: AsyncConnection[Any]) -> int:
            row = await (await conn.execute(BANS_VERSION)).fetchone()
            assert row is not None
            return int(row[0])

        return await self._run(read)

    # --- games --------------------------------------------------------------------------------
    async def start_game(self, start: GameStart) -> None:
        self._enqueue(_StartWrite(start))

    def record_move(self, match_id: str, move: MoveRecord) -> None:
        info = None if move.info is None else to_json(move.info)
        self._enqueue(_MoveWrite(match_id, move.ply, to_json(move.move), int(move.elapsed_ms), info))

    def record_refusal(self, match_id: str, refusal: RefusedMove) -> None:
        self._enqueue(_RefusalWrite(match_id, refusal))

    async def finish_game(
        self, match_id: str, result: str | None, reason: str, ended: float, rate: Rater | None = None
    ) -> dict[str, float]:
        check_result(result)
        self._check_open()
        end = _EndWrite(match_id, result, reason, ended, rate, asyncio.get_running_loop().create_future())
        self._enqueue(end)
        self._urgent.set()
        return await asyncio.shield(end.future)  # a caller that gives up still has its end written

    async def discard_game(self, match_id: str) -> None:
        async def delete(conn: AsyncConnection[Any]) -> None:
            async with conn.transaction():
                for statement in DISCARD_GAME:
                    await conn.execute(_sql(statement), (match_id,))

        await self._run(delete)

    async def get_game(self, match_id: str) -> GameRecord | None:
        records = await self._run(lambda conn: _game_records(conn, "WHERE match_id = %s", (match_id,)))
        return records[0] if records else None

    async def list_games(
        self,
        *,
        player: str | None = None,
        game: str | None = None,
        limit: int | None = 100,
        finished: bool = False,
        after: str | None = None,
    ) -> list[GameRecord]:
        tail, args = listing(player=player, game=game, limit=limit, finished=finished, after=after)
        return await self._run(lambda conn: _game_records(conn, _sql(tail), args))

    def stream_games(self, *, batch_size: int = STREAM_BATCH) -> AsyncIterator[GameRecord]:
        return stream_pages(lambda query: self._run(functools.partial(_page, query=query)), batch_size)

    async def orphan_moves(self) -> dict[int, int]:
        async def read(conn: AsyncConnection[Any]) -> dict[int, int]:
            return dict(await (await conn.execute(ORPHAN_MOVES)).fetchall())

        return await self._run(read)

    async def interrupted_games(self) -> list[GameRecord]:
        """Games started but never finished, with the end this store still has to write, if any."""
        records = await self._run(lambda conn: _game_records(conn, "WHERE ended IS NULL ORDER BY started, id", ()))
        waiting = {w.match_id: w for w in self._pending if isinstance(w, _EndWrite)}
        return [
            replace(record, result=end.result, reason=end.reason, ended=end.ended)
            if (end := waiting.get(record.start.match_id))
            else record
            for record in records
        ]

    # --- ratings ------------------------------------------------------------------------------
    async def get_rating(self, player: str, pool: str, level: int | None = None) -> Rating:
        async def read(conn: AsyncConnection[Any]) -> Rating:
            found = await _player(conn, player)
            if found is None:
                raise UnknownPlayer(f"no player named {player!r}")
            return await _rating(conn, found.id, found.name, pool, level)

        return await self._run(read)

    async def leaderboard(self, pool: str) -> list[Rating]:
        async def read(conn: AsyncConnection[Any]) -> list[Rating]:
            return leaderboard_of(await (await conn.execute(_sql(LEADERBOARD), (pool,))).fetchall())

        return await self._run(read)

    async def rating_pools(self, game: str | None = None) -> list[str]:
        async def read(conn: AsyncConnection[Any]) -> list[str]:
            rows = await (await conn.execute("SELECT DISTINCT pool FROM ratings ORDER BY pool")).fetchall()
            return [row[0] for row in rows if game is None or game_of(row[0]) == game]

        return await self._run(read)

    async def ratings_outdated(self) -> bool:
        async def read(conn: AsyncConnection[Any]) -> bool:
            return await (await conn.execute("SELECT 1 FROM games WHERE pool IS NULL LIMIT 1")).fetchone() is not None

        return await self._run(read)

    async def rebuild_ratings(self, rate: Rater) -> int:
        await self.flush()

        async def rebuild(conn: AsyncConnection[Any]) -> int:
            async with conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock(%s)", (RATINGS_LOCK,))
                unpooled = await (
                    await conn.execute("SELECT id, game, params, clock FROM games WHERE pool IS NULL")
                ).fetchall()
                for game_id, game, params, clock in unpooled:
                    pool = pool_key(game, json.loads(params), json.loads(clock))
                    await conn.execute("UPDATE games SET pool = %s WHERE id = %s", (pool, game_id))
                await conn.execute("DELETE FROM ratings")
                await conn.execute("DELETE FROM rating_history")
                rated = await (
                    await conn.execute(
                        "SELECT id, result, ended FROM games WHERE rated = 1 AND result IS NOT NULL ORDER BY ended, id"
                    )
                ).fetchall()
                replayed = 0
                for game_id, result, ended in rated:
                    replayed += bool(await _rate(conn, game_id, result, ended, rate))
            return replayed

        return await self._run(rebuild)

    async def rated_results(self, pool: str) -> list[tuple[str, str, str]]:
        async def read(conn: AsyncConnection[Any]) -> list[tuple[str, str, str]]:
            return [tuple(row) for row in await (await conn.execute(_sql(RATED_RESULTS), (pool,))).fetchall()]

        return await self._run(read)

    async def crosstable(self, pool: str) -> dict[str, dict[str, list[int]]]:
        async def read(conn: AsyncConnection[Any]) -> dict[str, dict[str, list[int]]]:
            return crosstable_of(await (await conn.execute(_sql(RATED_RESULTS), (pool,))).fetchall())

        return await self._run(read)

    async def rating_history(
        self, player: str, pool: str, level: int | None = None
    ) -> list[tuple[float, float, float]]:
        async def read(conn: AsyncConnection[Any]) -> list[tuple[float, float, float]]:
            found = await _player(conn, player)
            if found is None:
                raise UnknownPlayer(f"no player named {player!r}")
            rows = await (await conn.execute(_sql(HISTORY), (found.id, pool, level or 0))).fetchall()
            return [(at, rating, deviation) for at, rating, deviation in rows]

        return await self._run(read)

    # --- queries ------------------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._pool is None or self._closing or self._writer is None or self._writer.done():
            raise StoreError(f"{self.where}: the store is not open")

    async def _run(self, fn: Callable[[AsyncConnection[Any]], Awaitable[T]]) -> T:
        """``fn`` on a pooled connection, after the queued writes (a read sees every write made
        before it, unless PostgreSQL is failing); its failures become one-line StoreErrors."""
        self._check_open()
        assert self._pool is not None
        if self._pending and not self._failed_attempts:
            with contextlib.suppress(StoreError):
                await self.flush()
        try:
            async with self._pool.connection() as conn:
                return await fn(conn)
        except psycopg.Error as exc:
            raise self._error(exc) from None
        except PoolTimeout:
            raise StoreError(f"{self.where}: no connection to PostgreSQL within {self.connect_timeout:g} s") from None

    # --- the writer ---------------------------------------------------------------------------
    def _enqueue(self, write: _Write) -> None:
        if self._pool is None or self._closing:
            log.error("%s: store is not open; dropped %r", self.where, write)
            return
        self._pending.append(write)
        self._queued += 1
        self._wake.set()
        if len(self._pending) == self.batch_size:
            self._urgent.set()

    async def _write_loop(self) -> None:
        """Gather writes for up to ``flush_interval`` (less when something is urgent) and commit them;
        after a failure, try again after a growing pause, or at once for an end, a flush or close."""
        while True:
            await self._wake.wait()
            if not self._urgent.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._urgent.wait(), self.flush_interval)
            self._wake.clear()
            self._urgent.clear()
            if self._pending:
                await self._write_pending()
            if self._closing and (not self._pending or self._failed_attempts):
                return
            if self._pending and self._failed_attempts:
                self._wake.set()
                pause = min(MAX_RETRY_PAUSE, self.flush_interval * 2**self._failed_attempts)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._urgent.wait(), pause)

    async def _write_pending(self) -> None:
        # A full batch starts a commit; a backlog (writes that queued while the last commit ran)
        # goes in fewer, larger transactions, up to BACKLOG_BATCHES batches in one.
        batch = self._pending[: max(self.batch_size, 1) * BACKLOG_BATCHES]
        try:
            try:
                ends = await self._write_batch(batch)
            except _REFUSED:
                self._game_ids.clear()  # one by one, each move checked against what is stored
                self._next_ply.clear()
                ends = await self._write_one_by_one(batch)
        except (psycopg.Error, PoolTimeout) as exc:
            error = self._error(exc) if isinstance(exc, psycopg.Error) else StoreError(f"{self.where}: {exc}")
            self._failed_attempts += 1
            if self._failed_attempts == 1:
                log.error("%s: %d queued writes not saved, will retry: %s", self.where, len(self._pending), error)
            self._last_write_error = error
            self._keep_ends(batch, error)
            for waiter in self._flushes:
                if not waiter.future.done():
                    waiter.future.set_exception(error)
            self._flushes.clear()
            return
        if self._failed_attempts:
            log.warning("%s: queued writes saved after %d failed attempts", self.where, self._failed_attempts)
        del self._pending[: len(batch)]
        self._written += len(batch)
        self._failed_attempts = 0
        self._last_write_error = None
        for end, outcome in ends.items():
            if isinstance(outcome, StoreError):
                log.error("%s: end of match %s not recorded: %s", self.where, end.match_id, outcome)
            if not end.future.done():
                if isinstance(outcome, StoreError):
                    end.future.set_exception(outcome)
                else:
                    end.future.set_result(outcome)
        for waiter in [w for w in self._flushes if w.upto <= self._written]:
            self._flushes.remove(waiter)
            if not waiter.future.done():
                waiter.future.set_result(None)
        if self._pending:
            self._wake.set()
            self._urgent.set()

    def _keep_ends(self, batch: list[_Write], error: StoreError) -> None:
        """Tell the callers of ends that could not be written that their ends wait in the queue."""
        kept = StoreError(f"{error}; the end is kept and will be written when PostgreSQL is back")
        for write in batch:
            if isinstance(write, _EndWrite) and not write.future.done():
                write.future.set_exception(kept)

    async def _write_one_by_one(self, batch: list[_Write]) -> dict[_EndWrite, dict[str, float] | StoreError]:
        """A batch broke a constraint (a server bug): save what can be saved, drop only the culprits."""
        ends: dict[_EndWrite, dict[str, float] | StoreError] = {}
        for write in batch:
            try:
                ends.update(await self._write_batch([write]))
            except _REFUSED as exc:
                log.error("%s: dropped a write the schema refuses (%s): %r", self.where, exc, write)
                if isinstance(write, _EndWrite):
                    ends[write] = StoreError(f"{self.where}: the end was refused ({exc})")
        return ends

    async def _write_batch(self, writes: list[_Write]) -> dict[_EndWrite, dict[str, float] | StoreError]:
        """Commit ``writes`` in one transaction: starts, then moves, then ends (so each follows what
        it needs); what became of each end (its rating changes, or why not)."""
        assert self._pool is not None
        starts = [w.start for w in writes if isinstance(w, _StartWrite)]
        moves = [w for w in writes if isinstance(w, _MoveWrite)]
        ends: dict[_EndWrite, dict[str, float] | StoreError] = {}
        game_ids, next_ply = dict(self._game_ids), dict(self._next_ply)  # kept if the batch commits
        async with self._pool.connection() as conn, conn.transaction():
            async with conn.cursor() as cursor:
                if starts:
                    # One statement for every start, the players' ids joined in; the new games' ids
                    # come back for the moves' COPY (a start written before, by a retry, is looked up).
                    await cursor.execute(
                        "INSERT INTO games (match_id, game, params, first_name, second_name, first_id, second_id,"
                        " clock, rated, started, pool, first_level, second_level, opening)"
                        " SELECT u.match_id, u.game, u.params, u.first_name, u.second_name, p1.id, p2.id, u.clock,"
                        " u.rated, u.started, u.pool, u.first_level, u.second_level, u.opening FROM unnest("
                        "%s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::int[],"
                        " %s::float8[], %s::text[], %s::int[], %s::int[], %s::int[]) AS u(match_id, game, params,"
                        " first_name, second_name, clock, rated, started, pool, first_level, second_level, opening)"
                        " LEFT JOIN players p1 ON p1.name = u.first_name"
                        " LEFT JOIN players p2 ON p2.name = u.second_name"
                        " ON CONFLICT (match_id) DO NOTHING RETURNING match_id, id",
                        (
                            [s.match_id for s in starts], [s.game for s in starts],
                            [to_json(s.params) for s in starts], [s.players[0] for s in starts],
                            [s.players[1] for s in starts], [to_json(s.clock) for s in starts],
                            [int(s.rated) for s in starts], [s.started for s in starts], [s.pool for s in starts],
                            [s.levels[0] for s in starts], [s.levels[1] for s in starts],
                            [s.opening for s in starts],
                        ),
                    )  # fmt: skip
                    for match_id, game_id in await cursor.fetchall():
                        game_ids[match_id], next_ply[match_id] = game_id, 0
                latest: list[_MoveWrite] = []
                if moves:
                    once = {(m.match_id, m.ply): m for m in moves}.values()  # a move sent twice: the last
                    following, latest = _following(once, game_ids, next_ply)
                    if following:
                        # The moves that follow on in games this store started: COPY, the fastest
                        # way rows go into PostgreSQL (no statement per row, no conflict check).
                        # The rows are formatted here in one string: a row at a time through
                        # write_row costs the event loop twice as much.
                        async with cursor.copy("COPY moves (game_id, ply, move, elapsed_ms, info) FROM STDIN") as copy:
                            await copy.write("".join(following))
                if latest:
                    # The others (a game adopted from another node, a move sent again) in one
                    # statement, arrays unnested server-side, looked up by match id.
                    await cursor.execute(
                        "INSERT INTO moves (game_id, ply, move, elapsed_ms, info)"
                        " SELECT g.id, u.ply, u.move, u.elapsed_ms, u.info FROM unnest("
                        "%s::text[], %s::bigint[], %s::text[], %s::bigint[], %s::text[])"
                        " AS u(match_id, ply, move, elapsed_ms, info) JOIN games g ON g.match_id = u.match_id"
                        " ON CONFLICT (game_id, ply) DO UPDATE SET move = EXCLUDED.move,"
                        " elapsed_ms = EXCLUDED.elapsed_ms, info = EXCLUDED.info",
                        (
                            [m.match_id for m in latest],
                            [m.ply for m in latest],
                            [m.move_json for m in latest],
                            [max(0, m.elapsed_ms) for m in latest],
                            [m.info_json for m in latest],
                        ),
                    )
                for refusal in (w for w in writes if isinstance(w, _RefusalWrite)):  # rare: one by one
                    await _save_refusal(cursor, refusal)
            finishing = [w for w in writes if isinstance(w, _EndWrite)]
            ended = await _end_all(conn, finishing) if finishing else {}
            if ended:
                async with conn.cursor() as cursor:
                    await cursor.executemany(_sql(OWE_ENDS), [(row[0], row[0]) for row in ended.values()])
            for end in finishing:
                try:
                    row = ended.pop(end.match_id, None)
                    if row is None:  # already ended (a retry, a duplicate), unknown, or refused: one by one
                        ends[end] = await _finish(conn, end)
                    elif end.rate is None or end.result is None or not row[1]:
                        ends[end] = {}
                    else:
                        ends[end] = await _rate(conn, row[0], end.result, end.ended, end.rate)
                except StoreError as error:
                    ends[end] = error
        for end in finishing:  # committed: the ended games leave the cache
            game_ids.pop(end.match_id, None)
            next_ply.pop(end.match_id, None)
        self._game_ids, self._next_ply = game_ids, next_ply
        return ends

    def _error(self, exc: psycopg.Error) -> StoreError:
        """One line for people: what is wrong with which database, and what to do about it."""
        text = " ".join(str(exc).split())
        lowered = text.lower()
        info = conninfo_to_dict(self.url)
        user = info.get("user") or "(default)"
        database = info.get("dbname") or user
        if "password authentication failed" in lowered or "no password supplied" in lowered:
            return StoreError(
                f"{self.where}: PostgreSQL refused user {user!r} (wrong password); check the user and password in --db"
            )
        if "does not exist" in lowered and "database" in lowered:
            return StoreError(f"{self.where}: PostgreSQL has no database {database!r}; create it (createdb {database})")
        if "role" in lowered and "does not exist" in lowered:
            return StoreError(f"{self.where}: PostgreSQL has no user {user!r}; create it (createuser) or fix --db")
        if "no pg_hba.conf entry" in lowered:
            return StoreError(f"{self.where}: PostgreSQL does not allow this host or user (pg_hba.conf)")
        if "connection refused" in lowered or "could not connect" in lowered or "connection failed" in lowered:
            return StoreError(f"{self.where}: PostgreSQL is not answering (is it running? is the port right?)")
        if "timeout" in lowered:
            return StoreError(f"{self.where}: PostgreSQL did not answer within {self.connect_timeout:g} s")
        if "terminating connection" in lowered or "server closed the connection" in lowered:
            return StoreError(f"{self.where}: PostgreSQL closed the connection (restarting?); will retry")
        if "no space left" in lowered or "disk full" in lowered:
            return StoreError(f"{self.where}: PostgreSQL's disk is full; free space")
        return StoreError(f"{self.where}: {text}")

    # --- unread ends (migration 10) -----------------------------------------------------------
    async def unread_ends(self, player: str, since: float, limit: int) -> list[GameRecord]:
        records = await self._run(lambda conn: _game_records(conn, _sql(UNREAD_ENDS), (player, since, limit)))
        return records[::-1]

    async def ends_read(self, reads: list[tuple[str, str]]) -> None:
        async def delete(conn: AsyncConnection[Any]) -> None:
            async with conn.transaction(), conn.cursor() as cursor:
                await cursor.executemany(_sql(END_READ), reads)

        await self._run(delete)


def describe_url(url: str) -> str:
    """``postgresql://host:port/db`` of a URL, without the password: safe for logs and errors."""
    try:
        info = conninfo_to_dict(url)
    except psycopg.Error:
        return "postgresql://(invalid URL)"
    host = info.get("host") or "localhost"
    port = info.get("port") or "5432"
    return f"postgresql://{host}:{port}/{info.get('dbname') or info.get('user') or ''}"


async def _warm(conn: AsyncConnection[Any]) -> None:
    """Load the ``nocase`` collation into a new connection's backend before it serves a write: the
    first comparison under an ICU collation loads ICU's data, 5-7 ms that would otherwise fall on
    the first batch of game starts the connection writes."""
    await conn.execute("SELECT 'a' = 'A' COLLATE nocase")


async def _player(conn: AsyncConnection[Any], name: str) -> Player | None:
    row = await (await conn.execute(f"SELECT {PLAYER_COLUMNS} FROM players WHERE name = %s", (name,))).fetchone()
    return None if row is None else player_of(row)


async def _rating(conn: AsyncConnection[Any], player_id: int, name: str, pool: str, level: int | None) -> Rating:
    cursor = await conn.execute(
        f"SELECT {RATING_COLUMNS} FROM ratings WHERE player_id = %s AND pool = %s AND level = %s",
        (player_id, pool, level or 0),
    )
    row = await cursor.fetchone()
    if row is None:
        return Rating(name, pool, INITIAL_RATING, INITIAL_DEVIATION, INITIAL_VOLATILITY, level=level)
    return rating_of(name, pool, level, row)


# COPY's text format: backslash escapes for what would end a field or a row, \\N for NULL.
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _copy_field(value: str | None) -> str:
    return "\\N" if value is None else value.translate(_COPY_ESCAPES)


def _following(
    moves: Iterable[_MoveWrite], game_ids: dict[str, int], next_ply: dict[str, int]
) -> tuple[list[str], list[_MoveWrite]]:
    """Split a batch's moves into those that follow on in a known game (advancing ``next_ply``),
    as rows of COPY's text format, and the rest."""
    following: list[str] = []
    rest: list[_MoveWrite] = []
    for move in moves:
        game_id = game_ids.get(move.match_id)
        if game_id is not None and next_ply.get(move.match_id) == move.ply:
            following.append(
                f"{game_id}\t{move.ply}\t{_copy_field(move.move_json)}\t{max(0, move.elapsed_ms)}"
                f"\t{_copy_field(move.info_json)}\n"
            )
            next_ply[move.match_id] = move.ply + 1
        else:
            rest.append(move)
            next_ply.pop(move.match_id, None)  # no longer sure what follows: the rest go the careful way
    return following, rest


async def _end_all(conn: AsyncConnection[Any], ends: list[_EndWrite]) -> dict[str, tuple[int, int]]:
    """Write the ends of games still live in one statement (the rows stay locked until commit);
    (game id, rated) of each game it ended, by match id."""
    first = {end.match_id: end for end in reversed(ends)}.values()  # a match ended twice: its first end
    cursor = await conn.execute(
        "UPDATE games g SET ended = u.ended, result = u.result, reason = u.reason"
        " FROM unnest(%s::text[], %s::float8[], %s::text[], %s::text[]) AS u(match_id, ended, result, reason)"
        " WHERE g.match_id = u.match_id AND g.ended IS NULL RETURNING g.match_id, g.id, g.rated",
        ([e.match_id for e in first], [e.ended for e in first], [e.result for e in first], [e.reason for e in first]),
    )
    return {match_id: (game_id, rated) for match_id, game_id, rated in await cursor.fetchall()}


async def _finish(conn: AsyncConnection[Any], end: _EndWrite) -> dict[str, float]:
    """Write the end and, for a rated game, the ratings ``end.rate`` gives (inside the caller's
    transaction; the game's row is locked, so another node cannot end it at the same time)."""
    cursor = await conn.execute(
        "SELECT id, ended, result, reason FROM games WHERE match_id = %s FOR UPDATE", (end.match_id,)
    )
    row = await cursor.fetchone()
    if row is None:
        raise StoreError(f"no game with match id {end.match_id!r}")
    game_id, ended, result, reason = row
    if ended is not None:
        if (result, reason) == (end.result, end.reason):  # written before (a retry): not rated again
            return await _changes(conn, game_id)
        raise StoreError(f"match {end.match_id!r} is already finished")
    await conn.execute(
        "UPDATE games SET ended = %s, result = %s, reason = %s WHERE id = %s",
        (end.ended, end.result, end.reason, game_id),
    )
    await conn.execute(_sql(OWE_ENDS), (game_id, game_id))
    if end.rate is None or end.result is None:
        return {}
    return await _rate(conn, game_id, end.result, end.ended, end.rate)


async def _rate(conn: AsyncConnection[Any], game_id: int, result: str, at: float, rate: Rater) -> dict[str, float]:
    """Save both identities' ratings in the game's pool after a rated game (nothing for an unrated
    one, or one with a guest); the rating change of each player by name."""
    cursor = await conn.execute(
        "SELECT game, pool, first_name, second_name, first_id, second_id, first_level, second_level, rated"
        " FROM games WHERE id = %s",
        (game_id,),
    )
    row = await cursor.fetchone()
    assert row is not None
    game, pool, first_name, second_name, first_id, second_id, first_level, second_level, rated = row
    if not rated or first_id is None or second_id is None:
        return {}
    await conn.execute("SELECT pg_advisory_xact_lock(%s)", (RATINGS_LOCK,))  # ratings read and written in turn
    ids, levels = (first_id, second_id), (first_level, second_level)
    before = (await _rating(conn, first_id, first_name, pool, first_level),
              await _rating(conn, second_id, second_name, pool, second_level))  # fmt: skip
    try:
        after = rate(before[0], before[1], result)
    except Exception as exc:  # a bug in the rating code must not stop the writer
        raise StoreError(f"rating game {game_id} failed: {exc!r}") from None
    for rating, history in rating_writes(ids, levels, game, game_id, at, before, after):
        await conn.execute(_sql(SAVE_RATING), rating)
        await conn.execute(_sql(SAVE_HISTORY), history)
    return {old.player: new.rating - old.rating for old, new in zip(before, after, strict=True)}


async def _save_refusal(cursor: psycopg.AsyncCursor[Any], write: _RefusalWrite) -> None:
    """Count the refused move on its game and keep it if it is among the first few (inside the caller's transaction)."""
    await cursor.execute(_sql(COUNT_REFUSAL), (write.match_id,))
    counted = await cursor.fetchone()
    if counted is None:
        log.error("refused move for unknown match %s dropped", write.match_id)
        return
    row = refusal_row(counted, write.refusal)
    if row is not None:
        await cursor.execute(_sql(SAVE_REFUSAL), row)


async def _changes(conn: AsyncConnection[Any], game_id: int) -> dict[str, float]:
    cursor = await conn.execute(
        _sql(CHANGES),
        (game_id,),
    )
    return {name: change for name, change in await cursor.fetchall()}


async def _game_records(conn: AsyncConnection[Any], tail: str, args: tuple[Any, ...]) -> list[GameRecord]:
    """Games selected by ``tail`` (WHERE/ORDER/LIMIT) with their moves and rating changes."""
    rows = await (await conn.execute(f"SELECT {GAME_COLUMNS} FROM games {tail}", args)).fetchall()
    return await _records_of(conn, rows)


async def _page(conn: AsyncConnection[Any], *, query: PageQuery) -> tuple[list[Any], list[GameRecord]]:
    """A page of GamePages: its rows of GAME_COLUMNS and their records."""
    rows = await (await conn.execute(f"SELECT {GAME_COLUMNS} FROM games {_sql(query[0])}", query[1])).fetchall()
    return rows, await _records_of(conn, rows)


async def _records_of(conn: AsyncConnection[Any], rows: list[Any]) -> list[GameRecord]:
    """The GameRecords of rows of GAME_COLUMNS, with their moves and rating changes."""
    ids = [row[0] for row in rows]
    moves = await (
        await conn.execute(f"SELECT {MOVE_COLUMNS} FROM moves WHERE game_id = ANY(%s) ORDER BY game_id, ply", (ids,))
    ).fetchall()
    changes = await (
        await conn.execute(
            "SELECT h.game_id, p.name, h.rating - h.rating_before FROM rating_history h"
            " JOIN players p ON p.id = h.player_id WHERE h.game_id = ANY(%s)",
            (ids,),
        )
    ).fetchall()
    refusals = await (
        await conn.execute(
            f"SELECT {REFUSAL_COLUMNS} FROM refused_moves WHERE game_id = ANY(%s) ORDER BY game_id, seq", (ids,)
        )
    ).fetchall()
    return game_records(rows, moves, changes, refusals)
