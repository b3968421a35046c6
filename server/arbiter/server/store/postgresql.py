"""The store on PostgreSQL, for a server (or a cluster of them) that outgrows one SQLite file.

psycopg 3's async API with its connection pool, so no query blocks the event loop. Writes the
game loop must not wait for (a match's start, its moves) are queued and committed in batches by
one writer task, every ``flush_interval`` seconds or ``batch_size`` writes: starts, then moves
(one ``COPY``), then ends with their ratings, in one transaction. A batch that
fails (the server down or restarting) stays queued and is retried with a growing pause while the
matches go on in memory; ``finish_game`` then raises StoreError saying the end is kept, and the
end is written when PostgreSQL is back. The queries, the store's logic and the queue's retry
policy are sql.py's; this module is the pool, the writer task, and the batch's array and COPY
statements.

Rating updates take a transaction-level advisory lock, so two server nodes ending games of the
same pool at once read and write ratings one after the other; the game row is locked too, so an
end is written (and rated) once however many nodes try.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import typing
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import psycopg
from psycopg import AsyncConnection
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from .base import Rater, StoreError, check_result
from .migrations import MIGRATIONS, POSTGRESQL_PRELUDE, SCHEMA_VERSION, for_postgresql
from .sql import INSERT_GAME, MOVE_VALUES, EndWrite, MoveWrite, Query, SqlStore, StartWrite, Write

log = logging.getLogger("arbiter.server.store")

T = TypeVar("T")
BACKLOG_BATCHES = 4  # a backlog is written up to this many batches per transaction
# Keys of the advisory locks Arbiter takes (any 64-bit numbers no other program on the database uses).
MIGRATION_LOCK = 0x4172626974657201
RATINGS_LOCK = 0x4172626974657202


# Array types of the row fields a batch unnests (an optional field's is its type's).
_ARRAYS: dict[object, str] = {int: "bigint", float: "float8", str: "text"}


def _unnest(row: type[tuple[Any, ...]]) -> str:
    """``unnest(%s::text[], …) AS u(name, …)``: a row type's fields as arrays, one parameter each."""
    hints = typing.get_type_hints(row)
    types = [_ARRAYS[next(t for t in typing.get_args(h) or (h,) if t is not type(None))] for h in hints.values()]
    return f"unnest({', '.join(f'%s::{t}[]' for t in types)}) AS u({', '.join(hints)})"


_INSERT_GAMES = (
    f"{INSERT_GAME} SELECT u.*, p1.id, p2.id"
    f" FROM {_unnest(StartWrite)} LEFT JOIN players p1 ON p1.name = u.first_name"
    " LEFT JOIN players p2 ON p2.name = u.second_name ON CONFLICT (match_id) DO NOTHING RETURNING match_id, id"
)
_COPY_MOVES = f"COPY moves (game_id, {', '.join(MOVE_VALUES)}) FROM STDIN"
_INSERT_MOVES = (
    f"INSERT INTO moves (game_id, {', '.join(MOVE_VALUES)}) SELECT g.id, {', '.join('u.' + c for c in MOVE_VALUES)}"
    f" FROM {_unnest(MoveWrite)} JOIN games g ON g.match_id = u.match_id ON CONFLICT (game_id, ply) DO UPDATE"
    f" SET {', '.join(f'{c} = EXCLUDED.{c}' for c in MOVE_VALUES[1:])}"
)


def _sql(query: str) -> str:
    """The shared queries use SQLite's ``?``; psycopg's placeholder is ``%s``."""
    return query.replace("?", "%s")


class _Connection:
    """A pooled connection as the shared queries use it (``sql.Connection``)."""

    def __init__(self, raw: AsyncConnection[Any]) -> None:
        self.raw = raw

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return (await self.raw.execute(_sql(sql), params or None)).rowcount

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return await (await self.raw.execute(_sql(sql), params or None)).fetchone()

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return await (await self.raw.execute(_sql(sql), params or None)).fetchall()

    def transaction(self) -> AbstractAsyncContextManager[Any]:
        return self.raw.transaction()


@dataclass
class _Flush:
    """A caller of ``flush`` waiting for the writes queued before it (``upto`` of them)."""

    upto: int
    future: asyncio.Future[None] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class PostgresStore(SqlStore[_Connection]):
    """The ``Store`` in a PostgreSQL database, given by a ``postgresql://user:password@host:port/db`` URL."""

    failures = (psycopg.Error, PoolTimeout)
    # A write failing with one of these fails every time (a value the schema refuses, a bug in a query).
    refused = (psycopg.IntegrityError, psycopg.DataError, psycopg.ProgrammingError, OverflowError, TypeError)
    unique_violation = psycopg.errors.UniqueViolation
    for_update = " FOR UPDATE"
    back = "PostgreSQL is back"

    def __init__(
        self,
        url: str,
        *,
        flush_interval: float = 0.05,
        batch_size: int = 500,
        pool_size: int = 8,
        connect_timeout: float = 5.0,
    ) -> None:
        super().__init__(describe_url(url), flush_interval=flush_interval, batch_size=batch_size)
        self.url = url
        self.pool_size = pool_size
        self.connect_timeout = connect_timeout
        self._pool: AsyncConnectionPool[AsyncConnection[Any]] | None = None
        self._writer_task: asyncio.Task[None] | None = None
        self._queued = 0  # writes ever queued; the first ``_committed`` of them are written
        self._committed = 0
        self._flushes: list[_Flush] = []
        self._wake = asyncio.Event()  # something to write
        self._urgent = asyncio.Event()  # write now: an end, a flush, a full batch or closing
        self._closing = False

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
        self._writer_task = asyncio.create_task(self._write_loop(), name=f"store writer {self.where}")

    async def close(self) -> None:
        """Write what is queued (trying until the batch either commits or fails), then disconnect."""
        if self._pool is None or self._closing:
            return
        self._closing = True
        self._wake.set()
        self._urgent.set()
        if self._writer_task is not None:
            await self._writer_task
        await self._pool.close()
        if self._pending:
            lost = len(self._pending)
            log.error("%s: closing with %d writes that could not be made", self.where, lost)
            raise self._last_write_error or StoreError(f"{self.where}: {lost} writes lost")

    async def flush(self) -> None:
        self._check_open()
        if self._committed == self._queued:
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

    async def finish_game(
        self, match_id: str, result: str | None, reason: str, ended: float, rate: Rater | None = None
    ) -> dict[str, float]:
        check_result(result)
        self._check_open()
        future: asyncio.Future[dict[str, float]] = asyncio.get_running_loop().create_future()
        self._enqueue(EndWrite(match_id, result, reason, ended, rate, future))
        self._urgent.set()
        return await asyncio.shield(future)  # a caller that gives up still has its end written

    # --- queries ------------------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._pool is None or self._closing or self._writer_task is None or self._writer_task.done():
            raise StoreError(f"{self.where}: the store is not open")

    async def _run(self, fn: Query[_Connection, T], *, after_writes: bool = False) -> T:
        """``fn`` on a pooled connection, after the queued writes (a read sees every write made
        before it, unless PostgreSQL is failing); its failures become one-line StoreErrors."""
        self._check_open()
        assert self._pool is not None
        if after_writes:
            await self.flush()
        elif self._pending and not self._failed_attempts:
            with contextlib.suppress(StoreError):
                await self.flush()
        try:
            async with self._pool.connection() as conn:
                return await fn(_Connection(conn))
        except psycopg.Error as exc:
            raise self._error(exc) from None
        except PoolTimeout:
            raise StoreError(f"{self.where}: no connection to PostgreSQL within {self.connect_timeout:g} s") from None

    async def _lock_ratings(self, conn: _Connection) -> None:
        await conn.execute("SELECT pg_advisory_xact_lock(?)", (RATINGS_LOCK,))

    def _waiting_ends(self) -> dict[str, tuple[str | None, str, float]]:
        return {w.match_id: (w.result, w.reason, w.ended) for w in self._pending if isinstance(w, EndWrite)}

    # --- the writer ---------------------------------------------------------------------------
    def _enqueue(self, write: Write) -> None:
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
                await self._write_queue()
            if self._closing and (not self._pending or self._failed_attempts):
                return
            if self._pending and self._failed_attempts:
                self._wake.set()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._urgent.wait(), self._retry_pause())

    async def _write_queue(self) -> None:
        # A full batch starts a commit; a backlog (writes that queued while the last commit ran)
        # goes in fewer, larger transactions, up to BACKLOG_BATCHES batches in one.
        error = await self._write_pending(max(self.batch_size, 1) * BACKLOG_BATCHES)
        if error is not None:
            for waiter in self._flushes:
                if not waiter.future.done():
                    waiter.future.set_exception(error)
            self._flushes.clear()
            return
        if self._pending:
            self._wake.set()
            self._urgent.set()

    def _written(self, count: int) -> None:
        self._committed += count
        for waiter in [w for w in self._flushes if w.upto <= self._committed]:
            self._flushes.remove(waiter)
            if not waiter.future.done():
                waiter.future.set_result(None)

    @asynccontextmanager
    async def _writer(self) -> AsyncIterator[_Connection]:
        assert self._pool is not None
        async with self._pool.connection() as conn:
            yield _Connection(conn)

    async def _insert_games(
        self, conn: _Connection, starts: list[StartWrite], game_ids: dict[str, int], next_ply: dict[str, int]
    ) -> None:
        # One statement for every start, the players' ids joined in; the new games' ids come back
        # for the moves' COPY (a start written before, by a retry, is looked up).
        cursor = await conn.raw.execute(_INSERT_GAMES, [list(column) for column in zip(*starts, strict=True)])
        for match_id, game_id in await cursor.fetchall():
            game_ids[match_id], next_ply[match_id] = game_id, 0

    async def _insert_moves(
        self, conn: _Connection, moves: list[MoveWrite], game_ids: dict[str, int], next_ply: dict[str, int]
    ) -> None:
        once = {(m.match_id, m.ply): m for m in moves}.values()  # a move sent twice: the last
        following, latest = _following(once, game_ids, next_ply)
        async with conn.raw.cursor() as cursor:
            if following:
                # The moves that follow on in games this store started: COPY, the fastest
                # way rows go into PostgreSQL (no statement per row, no conflict check).
                # The rows are formatted here in one string: a row at a time through
                # write_row costs the event loop twice as much.
                async with cursor.copy(_COPY_MOVES) as copy:
                    await copy.write("".join(following))
            if latest:
                # The others (a game adopted from another node, a move sent again) in one
                # statement, arrays unnested server-side, looked up by match id.
                await cursor.execute(_INSERT_MOVES, [list(column) for column in zip(*latest, strict=True)])

    async def _end_all(self, conn: _Connection, ends: list[EndWrite]) -> dict[str, tuple[int, int]]:
        """Write the ends of games still live in one statement (the rows stay locked until commit);
        (game id, rated) of each game it ended, by match id."""
        first = {end.match_id: end for end in reversed(ends)}.values()  # a match ended twice: its first end
        rows = await conn.fetchall(
            "UPDATE games g SET ended = u.ended, result = u.result, reason = u.reason"
            " FROM unnest(?::text[], ?::float8[], ?::text[], ?::text[]) AS u(match_id, ended, result, reason)"
            " WHERE g.match_id = u.match_id AND g.ended IS NULL RETURNING g.match_id, g.id, g.rated",
            (
                [e.match_id for e in first],
                [e.ended for e in first],
                [e.result for e in first],
                [e.reason for e in first],
            ),
        )
        return {match_id: (game_id, rated) for match_id, game_id, rated in rows}

    def _error(self, exc: BaseException) -> StoreError:
        """One line for people: what is wrong with which database, and what to do about it."""
        if isinstance(exc, PoolTimeout):
            return StoreError(f"{self.where}: {exc}")
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


# COPY's text format: backslash escapes for what would end a field or a row, \\N for NULL.
_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _copy_field(value: object) -> str:
    return "\\N" if value is None else str(value).translate(_COPY_ESCAPES)


def _following(
    moves: Iterable[MoveWrite], game_ids: dict[str, int], next_ply: dict[str, int]
) -> tuple[list[str], list[MoveWrite]]:
    """Split a batch's moves into those that follow on in a known game (advancing ``next_ply``),
    as rows of COPY's text format, and the rest."""
    following: list[str] = []
    rest: list[MoveWrite] = []
    for move in moves:
        game_id = game_ids.get(move.match_id)
        if game_id is not None and next_ply.get(move.match_id) == move.ply:
            following.append(f"{game_id}\t" + "\t".join(map(_copy_field, move[1:])) + "\n")
            next_ply[move.match_id] = move.ply + 1
        else:
            rest.append(move)
            next_ply.pop(move.match_id, None)  # no longer sure what follows: the rest go the careful way
    return following, rest
