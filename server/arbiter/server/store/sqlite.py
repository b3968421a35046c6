"""The embedded store: one SQLite file in WAL mode, driven by one thread that owns the connection.

Every query runs on that thread, so the event loop never touches the disk. Writes that the game
loop must not wait for (a match's start, its moves) go into a queue and are committed in
batches: every ``flush_interval`` seconds or ``batch_size`` writes, whichever comes first. A
batch that fails (disk full, file locked) stays queued and is retried with a growing pause, and
the failure is logged, never raised into the game loop; the in-memory match goes on.

A game's end is a queued write too, committed as soon as the queue is drained, after the moves
before it, in the same transaction as its rating updates. ``finish_game`` returns once it is
committed; if it cannot be (yet), the end is saved in a side file (``PATH-ends.json``) before
``finish_game`` raises, stays queued and is retried like the moves. After a restart the side
file's ends are handed to the restart rule by ``interrupted_games``, so an end the server
announced is never lost, and since an end already written is never applied again, it is rated
exactly once.

``synchronous=FULL`` makes every commit survive a power cut, not only a ``kill -9``; batching
keeps that to one fsync per batch.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import hmac
import json
import logging
import os
import queue
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

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
from .migrations import NewerSchema, migrate
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
_SQL_CHUNK = 500  # ids per IN (...) query, well under SQLite's variable limit
# A write that fails with one of these will fail every time (a value the schema or SQLite refuses):
# it is dropped, alone, rather than retried forever.
_REFUSED = (sqlite3.IntegrityError, sqlite3.InterfaceError, sqlite3.ProgrammingError, OverflowError, TypeError)


@dataclass(frozen=True)
class _StartWrite:
    start: GameStart
    params_json: str
    clock_json: str


@dataclass(frozen=True)
class _MoveWrite:
    match_id: str
    ply: int
    move_json: str
    elapsed_ms: int
    info_json: str | None = None


@dataclass(frozen=True)
class _RefusalWrite:
    match_id: str
    refusal: RefusedMove


@dataclass(eq=False)
class _EndWrite:
    """A game's end; ``future`` gets the rating changes once committed, or the first failure."""

    match_id: str
    result: str | None
    reason: str
    ended: float
    rate: Rater | None
    future: concurrent.futures.Future[dict[str, float]]


_Write = _StartWrite | _MoveWrite | _RefusalWrite | _EndWrite


@dataclass
class _Job:
    """A call to run on the store's thread; ``needs_queue_written`` refuses to run over unwritten moves."""

    fn: Callable[[sqlite3.Connection], Any]
    future: concurrent.futures.Future[Any]
    needs_queue_written: bool = False


_STOP = object()


class SqliteStore(Store):
    """The ``Store`` in one SQLite file.

    ``size_limit_bytes`` caps the file like a quota (writes past it fail as on a full disk);
    ``busy_timeout`` is how long a write waits for another process's lock before StoreError.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout: float = 5.0,
        flush_interval: float = 0.05,
        batch_size: int = 500,
        size_limit_bytes: int | None = None,
    ) -> None:
        self.path = Path(path)
        self.busy_timeout = busy_timeout
        self.flush_interval = flush_interval
        self.batch_size = batch_size
        self.size_limit_bytes = size_limit_bytes
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._closed = False
        # Owned by the store's thread once it runs:
        self._pending: list[_Write] = []
        self._last_write_error: StoreError | None = None
        self._failed_attempts = 0
        # Ids of games started and not yet ended: an id is forgotten once its end is committed.
        self._game_ids: dict[str, int] = {}
        # Ends announced but not committed, by match id: (result, reason, ended), as in the side file.
        self._unwritten_ends: dict[str, tuple[str | None, str, float]] = {}
        self.ends_path = self.path.with_name(self.path.name + "-ends.json")
        self._ends_saved = True  # the side file holds every unwritten end

    # --- life cycle ---------------------------------------------------------------------------
    async def open(self) -> None:
        """Open (creating if needed) the file, switch on WAL and foreign keys, migrate the schema."""
        if self._thread is not None:
            raise StoreError(f"{self.path}: the store is already open")
        ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._thread = threading.Thread(target=self._run, args=(ready,), name=f"store {self.path.name}", daemon=True)
        self._thread.start()
        try:
            await asyncio.wrap_future(ready)
        except BaseException:
            await asyncio.to_thread(self._thread.join)
            self._thread = None
            raise

    async def close(self) -> None:
        if self._thread is None or self._closed:
            return
        self._closed = True
        done: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._queue.put((_STOP, done))
        await asyncio.to_thread(self._thread.join)
        if not done.done():
            raise StoreError(f"{self.path}: the store's thread had stopped; queued writes are lost")
        done.result()

    async def flush(self) -> None:
        await self._call(lambda conn: None, needs_queue_written=True)

    # --- players ------------------------------------------------------------------------------
    async def add_player(
        self, name: str, kind: PlayerKind, *, owner: str | None = None, password_hash: str | None = None
    ) -> str:
        check_new_player(name, kind, owner)
        selector, secret, token = new_token()

        def insert(conn: sqlite3.Connection) -> None:
            with _transaction(conn):
                if conn.execute("SELECT 1 FROM players WHERE name = ?", (name,)).fetchone():
                    raise NameTaken(f"a player named {name!r} already exists")
                owner_id = None
                if owner is not None:
                    row = conn.execute("SELECT id FROM players WHERE name = ? AND kind = 'human'", (owner,)).fetchone()
                    if row is None:
                        raise UnknownPlayer(f"no person named {owner!r} to own the bot")
                    owner_id = row[0]
                conn.execute(
                    "INSERT INTO players (name, kind, token_selector, token_hash, created, owner_id, password_hash)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (name, kind, selector, hash_secret(secret), time.time(), owner_id, password_hash),
                )

        await self._call(insert)
        return token

    async def authenticate(self, token: str) -> Player | None:
        parts = split_token(token)
        if parts is None:
            return None
        selector, secret = parts

        def find(conn: sqlite3.Connection) -> Player | None:
            row = conn.execute(
                f"SELECT {PLAYER_COLUMNS}, token_hash FROM players WHERE token_selector = ?",
                (selector,),
            ).fetchone()
            # The selector only finds the row; the secret is checked in constant time.
            if row is None or not hmac.compare_digest(row[PLAYER_WIDTH], hash_secret(secret)):
                return None
            player = player_of(row)
            return None if player.revoked else player

        return await self._call(find)

    async def get_player(self, name: str) -> Player | None:
        return await self._call(lambda conn: _player(conn, name))

    async def list_players(self) -> list[Player]:
        def rows(conn: sqlite3.Connection) -> list[Player]:
            return [player_of(row) for row in conn.execute(f"SELECT {PLAYER_COLUMNS} FROM players ORDER BY name")]

        return await self._call(rows)

    async def reissue_token(self, name: str) -> str:
        selector, secret, token = new_token()

        def replace(conn: sqlite3.Connection) -> None:
            with _transaction(conn):
                updated = conn.execute(
                    "UPDATE players SET token_selector = ?, token_hash = ?, revoked = NULL WHERE name = ?",
                    (selector, hash_secret(secret), name),
                ).rowcount
                if not updated:
                    raise UnknownPlayer(f"no player named {name!r}")

        await self._call(replace)
        return token

    async def revoke_player(self, name: str, *, by_owner: bool = False) -> None:
        def revoke(conn: sqlite3.Connection) -> None:
            with _transaction(conn):
                if not conn.execute(revoke_update(by_owner), (time.time(), name)).rowcount:
                    raise UnknownPlayer(f"no player named {name!r}")
                if not by_owner:
                    conn.execute(BUMP_BANS_VERSION)  # servers look again at who is online

        await self._call(revoke)

    async def reinstate_player(self, name: str) -> None:
        def reinstate(conn: sqlite3.Connection) -> None:
            with _transaction(conn):
                if not conn.execute(REINSTATE, (name,)).rowcount:
                    raise UnknownPlayer(f"no player named {name!r}")

        await self._call(reinstate)

    async def bots_of(self, owner: str) -> list[Player]:
        def rows(conn: sqlite3.Connection) -> list[Player]:
            query = f"SELECT {PLAYER_COLUMNS} FROM players WHERE owner_id = (SELECT id FROM players WHERE name = ?)"
            return [player_of(row) for row in conn.execute(query + " ORDER BY name", (owner,))]

        return await self._call(rows)

    # --- accounts -----------------------------------------------------------------------------
    async def password_hash(self, name: str) -> str | None:
        def read(conn: sqlite3.Connection) -> str | None:
            row = conn.execute("SELECT password_hash FROM players WHERE name = ?", (name,)).fetchone()
            return None if row is None else row[0]

        return await self._call(read)

    async def set_password_hash(self, name: str, password_hash: str) -> None:
        def update(conn: sqlite3.Connection) -> None:
            with _transaction(conn):
                if not conn.execute(
                    "UPDATE players SET password_hash = ? WHERE name = ?", (password_hash, name)
                ).rowcount:
                    raise UnknownPlayer(f"no player named {name!r}")

        await self._call(update)

    async def add_session(self, name: str, selector: str, secret_hash: bytes, expires: float) -> None:
        def insert(conn: sqlite3.Connection) -> None:
            with _transaction(conn):
                now = time.time()
                conn.execute("DELETE FROM sessions WHERE expires <= ?", (now,))  # the expired go as new ones come
                player_id = _player_id(conn, name)
                if player_id is None:
                    raise UnknownPlayer(f"no player named {name!r}")
                conn.execute(
                    "INSERT INTO sessions (selector, secret_hash, player_id, created, expires) VALUES (?, ?, ?, ?, ?)",
                    (selector, secret_hash, player_id, now, expires),
                )

        await self._call(insert)

    async def session_player(self, selector: str, secret_hash: bytes, now: float) -> Player | None:
        def find(conn: sqlite3.Connection) -> Player | None:
            row = conn.execute(
                f"SELECT {PLAYER_COLUMNS}, s.secret_hash FROM sessions s JOIN players ON players.id = s.player_id"
                " WHERE s.selector = ? AND s.expires > ?",
                (selector, now),
            ).fetchone()
            if row is None or not hmac.compare_digest(row[PLAYER_WIDTH], secret_hash):
                return None
            player = player_of(row)
            return None if player.revoked else player

        return await self._call(find)

    async def end_sessions(self, *, selector: str | None = None, name: str | None = None) -> int:
        def delete(conn: sqlite3.Connection) -> int:
            with _transaction(conn):
                if selector is not None:
                    return conn.execute("DELETE FROM sessions WHERE selector = ?", (selector,)).rowcount
                return conn.execute(
                    "DELETE FROM sessions WHERE player_id = (SELECT id FROM players WHERE name = ?)", (name,)
                ).rowcount

        return await self._call(delete)

    # --- bans ---------------------------------------------------------------------------------
    async def add_ban(self, kind: BanKind, target: str, reason: str | None = None) -> Ban:
        target = ban_target(kind, target)
        check_ban_reason(reason)

        def insert(conn: sqlite3.Connection) -> Ban:
            with _transaction(conn):
                name = target
                if kind == "player":
                    found = _player(conn, target)
                    if found is None:
                        raise UnknownPlayer(f"no player named {target!r}")
                    name = found.name
                if conn.execute(FIND_BAN, (kind, name)).fetchone():
                    raise AlreadyBanned(f"{kind} {name} is banned already")
                ban = Ban(kind, name, reason, time.time())
                conn.execute(ADD_BAN, (ban.kind, ban.target, ban.reason, ban.created))
                conn.execute(BUMP_BANS_VERSION)
                return ban

        return await self._call(insert)

    async def remove_ban(self, kind: BanKind, target: str) -> None:
        target = ban_target(kind, target)

        def delete(conn: sqlite3.Connection) -> None:
            with _transaction(conn):
                if not conn.execute(REMOVE_BAN, (kind, target)).rowcount:
                    raise NotBanned(f"{kind} {target} is not banned")
                conn.execute(BUMP_BANS_VERSION)

        await self._call(delete)

    async def list_bans(self) -> list[Ban]:
        return await self._call(lambda conn: [ban_of(row) for row in conn.execute(LIST_BANS)])

    async def bans_version(self) -> int:
        return await self._call(lambda conn: int(conn.execute(BANS_VERSION).fetchone()[0]))

    # --- games --------------------------------------------------------------------------------
    async def start_game(self, start: GameStart) -> None:
        self._enqueue(_StartWrite(start, to_json(start.params), to_json(start.clock)))

    def record_move(self, match_id: str, move: MoveRecord) -> None:
        info = None if move.info is None else to_json(move.info)
        self._enqueue(_MoveWrite(match_id, move.ply, to_json(move.move), int(move.elapsed_ms), info))

    def record_refusal(self, match_id: str, refusal: RefusedMove) -> None:
        self._enqueue(_RefusalWrite(match_id, refusal))

    async def finish_game(
        self, match_id: str, result: str | None, reason: str, ended: float, rate: Rater | None = None
    ) -> dict[str, float]:
        check_result(result)
        if self._thread is None or self._closed or not self._thread.is_alive():
            raise StoreError(f"{self.path}: the store is not open")
        future: concurrent.futures.Future[dict[str, float]] = concurrent.futures.Future()
        self._queue.put(_EndWrite(match_id, result, reason, ended, rate, future))
        return await asyncio.wrap_future(future)

    async def discard_game(self, match_id: str) -> None:
        def delete(conn: sqlite3.Connection) -> None:
            with _transaction(conn):
                for statement in DISCARD_GAME:
                    conn.execute(statement, (match_id,))

        await self._call(delete, needs_queue_written=True)

    async def get_game(self, match_id: str) -> GameRecord | None:
        def read(conn: sqlite3.Connection) -> GameRecord | None:
            records = _game_records(conn, "WHERE match_id = ?", (match_id,))
            return records[0] if records else None

        return await self._call(read)

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
        return await self._call(lambda conn: _game_records(conn, tail, args))

    def stream_games(self, *, batch_size: int = STREAM_BATCH) -> AsyncIterator[GameRecord]:
        return stream_pages(lambda query: self._call(functools.partial(_page, query=query)), batch_size)

    async def orphan_moves(self) -> dict[int, int]:
        return await self._call(lambda conn: dict(conn.execute(ORPHAN_MOVES).fetchall()))

    async def interrupted_games(self) -> list[GameRecord]:
        """Games started but never finished, with the end announced for them if one waits to be
        written. Call it at start-up, before any new match begins, or live matches show up too."""

        def read(conn: sqlite3.Connection) -> list[GameRecord]:
            records = _game_records(conn, "WHERE ended IS NULL ORDER BY started, id", ())
            for i, record in enumerate(records):
                end = self._unwritten_ends.get(record.start.match_id)
                if end is not None:
                    records[i] = replace(record, result=end[0], reason=end[1], ended=end[2])
            return records

        return await self._call(read)

    # --- ratings ------------------------------------------------------------------------------
    async def get_rating(self, player: str, pool: str, level: int | None = None) -> Rating:
        def read(conn: sqlite3.Connection) -> Rating:
            found = _player(conn, player)
            if found is None:
                raise UnknownPlayer(f"no player named {player!r}")
            return _rating(conn, found.id, found.name, pool, level)

        return await self._call(read)

    async def leaderboard(self, pool: str) -> list[Rating]:
        def read(conn: sqlite3.Connection) -> list[Rating]:
            return leaderboard_of(conn.execute(LEADERBOARD, (pool,)))

        return await self._call(read)

    async def rating_pools(self, game: str | None = None) -> list[str]:
        def read(conn: sqlite3.Connection) -> list[str]:
            pools = [row[0] for row in conn.execute("SELECT DISTINCT pool FROM ratings ORDER BY pool")]
            return [pool for pool in pools if game is None or game_of(pool) == game]

        return await self._call(read)

    async def ratings_outdated(self) -> bool:
        def read(conn: sqlite3.Connection) -> bool:
            return conn.execute("SELECT 1 FROM games WHERE pool IS NULL LIMIT 1").fetchone() is not None

        return await self._call(read)

    async def rebuild_ratings(self, rate: Rater) -> int:
        def rebuild(conn: sqlite3.Connection) -> int:
            with _transaction(conn):
                for game_id, game, params, clock in conn.execute(
                    "SELECT id, game, params, clock FROM games WHERE pool IS NULL"
                ).fetchall():
                    pool = pool_key(game, json.loads(params), json.loads(clock))
                    conn.execute("UPDATE games SET pool = ? WHERE id = ?", (pool, game_id))
                conn.execute("DELETE FROM ratings")
                conn.execute("DELETE FROM rating_history")
                replayed = 0
                for game_id, result, ended in conn.execute(
                    "SELECT id, result, ended FROM games WHERE rated = 1 AND result IS NOT NULL ORDER BY ended, id"
                ).fetchall():
                    replayed += bool(_rate(conn, game_id, result, ended, rate))
            return replayed

        return await self._call(rebuild, needs_queue_written=True)

    async def rated_results(self, pool: str) -> list[tuple[str, str, str]]:
        return await self._call(lambda conn: [tuple(row) for row in conn.execute(RATED_RESULTS, (pool,))])

    async def crosstable(self, pool: str) -> dict[str, dict[str, list[int]]]:
        def read(conn: sqlite3.Connection) -> dict[str, dict[str, list[int]]]:
            return crosstable_of(conn.execute(RATED_RESULTS, (pool,)))

        return await self._call(read)

    async def rating_history(
        self, player: str, pool: str, level: int | None = None
    ) -> list[tuple[float, float, float]]:
        def read(conn: sqlite3.Connection) -> list[tuple[float, float, float]]:
            found = _player(conn, player)
            if found is None:
                raise UnknownPlayer(f"no player named {player!r}")
            return [tuple(row) for row in conn.execute(HISTORY, (found.id, pool, level or 0))]

        return await self._call(read)

    # --- calls into the store's thread --------------------------------------------------------
    def _enqueue(self, write: _Write) -> None:
        if self._thread is None or self._closed:
            log.error("%s: store is not open; dropped %r", self.path, write)
            return
        self._queue.put(write)

    async def _call(self, fn: Callable[[sqlite3.Connection], T], needs_queue_written: bool = False) -> T:
        if self._thread is None or self._closed or not self._thread.is_alive():
            raise StoreError(f"{self.path}: the store is not open")
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._queue.put(_Job(fn, future, needs_queue_written))
        return await asyncio.wrap_future(future)

    # --- the store's thread -------------------------------------------------------------------
    def _run(self, ready: concurrent.futures.Future[None]) -> None:
        try:
            conn = self._connect()
        except BaseException as exc:
            ready.set_exception(exc)
            return
        ready.set_result(None)
        try:
            self._serve(conn)
        finally:
            conn.close()

    def _connect(self) -> sqlite3.Connection:
        try:
            _make_private(self.path)
            conn = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None)
        except sqlite3.Error as exc:
            raise self._error(exc) from None
        try:
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode != "wal":
                raise StoreError(f"{self.path}: SQLite refused WAL mode (got {mode!r}); is it on a network drive?")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            if self.size_limit_bytes is not None:
                page_size = conn.execute("PRAGMA page_size").fetchone()[0]
                conn.execute(f"PRAGMA max_page_count = {max(1, self.size_limit_bytes // page_size)}")
            migrate(conn)
            self._load_unwritten_ends(conn)
        except NewerSchema as exc:
            conn.close()
            raise StoreError(f"{self.path} was written by a newer Arbiter ({exc}); upgrade Arbiter") from None
        except sqlite3.Error as exc:
            conn.close()
            raise self._error(exc) from None
        except BaseException:
            conn.close()
            raise
        return conn

    def _serve(self, conn: sqlite3.Connection) -> None:
        deadline: float | None = None
        while True:
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                item = self._queue.get(timeout=timeout)
            except queue.Empty:
                item = None
            # While failing, writes wait for their retry time: each attempt may sit out a busy timeout.
            healthy = not self._failed_attempts
            if item is None:
                deadline = self._write_pending(conn)
            elif isinstance(item, _EndWrite):
                # Tried as soon as the queue is drained (ends arriving together share a commit), even
                # while failing: the caller learns now whether the end is written or kept for later.
                self._pending.append(item)
                deadline = time.monotonic()
            elif isinstance(item, _StartWrite | _MoveWrite | _RefusalWrite):
                self._pending.append(item)
                if deadline is None:
                    deadline = time.monotonic() + self.flush_interval
                if healthy and len(self._pending) >= self.batch_size:
                    deadline = self._write_pending(conn)
            elif isinstance(item, _Job):
                if healthy or item.needs_queue_written:
                    deadline = self._write_pending(conn)
                self._run_job(conn, item)
            else:  # (_STOP, done)
                _, done = item
                self._write_pending(conn)
                lost = sum(not isinstance(write, _EndWrite) for write in self._pending)
                kept = [w.match_id for w in self._pending if isinstance(w, _EndWrite)]
                if kept:
                    log.warning("%s: closing with %d ends kept in %s for the next start",
                                self.path, len(kept), self.ends_path)  # fmt: skip
                if lost or (kept and not self._ends_saved):
                    log.error("%s: closing with %d writes that could not be made", self.path, len(self._pending))
                    done.set_exception(self._last_write_error or StoreError(f"{self.path}: writes lost"))
                else:
                    done.set_result(None)
                return

    def _run_job(self, conn: sqlite3.Connection, job: _Job) -> None:
        if not job.future.set_running_or_notify_cancel():
            return
        if job.needs_queue_written and self._pending:
            job.future.set_exception(self._last_write_error or StoreError(f"{self.path}: writes are pending"))
            return
        try:
            job.future.set_result(job.fn(conn))
        except StoreError as exc:
            job.future.set_exception(exc)
        except sqlite3.Error as exc:
            job.future.set_exception(self._error(exc))
        except BaseException as exc:  # a bug: hand it to the caller rather than kill the thread
            job.future.set_exception(exc)

    def _write_pending(self, conn: sqlite3.Connection) -> float | None:
        """Commit the queued writes; on failure keep them and return when to try again."""
        if not self._pending:
            return None
        try:
            try:
                self._settle(self._write_batch(conn, self._pending))
            except _REFUSED:
                self._write_one_by_one(conn)
        except sqlite3.Error as exc:
            error = self._error(exc)
            self._failed_attempts += 1
            if self._failed_attempts == 1:
                log.error("%s: %d queued writes not saved, will retry: %s", self.path, len(self._pending), error)
            self._last_write_error = error
            self._keep_unwritten_ends()
            pause = min(MAX_RETRY_PAUSE, self.flush_interval * 2**self._failed_attempts)
            return time.monotonic() + pause
        if self._failed_attempts:
            log.warning("%s: queued writes saved after %d failed attempts", self.path, self._failed_attempts)
        self._pending.clear()
        self._failed_attempts = 0
        self._last_write_error = None
        return None

    def _write_one_by_one(self, conn: sqlite3.Connection) -> None:
        """A batch broke a constraint (a server bug): save what can be saved, drop only the culprits."""
        while self._pending:
            write = self._pending[0]
            try:
                self._settle(self._write_batch(conn, [write]))
            except _REFUSED as exc:
                log.error("%s: dropped a write the schema refuses (%s): %r", self.path, exc, write)
                if isinstance(write, _EndWrite):
                    self._settle({write: StoreError(f"{self.path}: the end was refused ({exc})")})
            self._pending.pop(0)

    def _write_batch(
        self, conn: sqlite3.Connection, writes: list[_Write]
    ) -> dict[_EndWrite, dict[str, float] | StoreError]:
        """Commit ``writes`` in one transaction; what became of each end in it (its changes, or why not)."""
        new_ids: dict[str, int] = {}
        ends: dict[_EndWrite, dict[str, float] | StoreError] = {}
        with _transaction(conn):
            for write in writes:
                if isinstance(write, _StartWrite):
                    game_id = self._insert_game(conn, write)
                    if game_id is not None:
                        new_ids[write.start.match_id] = game_id
                    continue
                if isinstance(write, _EndWrite):
                    try:
                        ends[write] = _finish(conn, write)
                    except StoreError as error:
                        ends[write] = error
                    continue
                if isinstance(write, _RefusalWrite):
                    _save_refusal(conn, write)
                    continue
                game_id = new_ids.get(write.match_id) or self._game_id(conn, write.match_id)
                if game_id is None:
                    log.error("%s: move %d for unknown match %s dropped", self.path, write.ply, write.match_id)
                    continue
                conn.execute(
                    "INSERT OR REPLACE INTO moves (game_id, ply, move, elapsed_ms, info) VALUES (?, ?, ?, ?, ?)",
                    (game_id, write.ply, write.move_json, max(0, write.elapsed_ms), write.info_json),
                )
        self._game_ids.update(new_ids)
        for end in ends:
            self._game_ids.pop(end.match_id, None)
        return ends

    def _settle(self, ends: dict[_EndWrite, dict[str, float] | StoreError]) -> None:
        """Answer the callers of committed (or refused) ends; drop them from the side file."""
        for end, outcome in ends.items():
            if isinstance(outcome, StoreError):
                log.error("%s: end of match %s not recorded: %s", self.path, end.match_id, outcome)
            if not end.future.done():
                if isinstance(outcome, StoreError):
                    end.future.set_exception(outcome)
                else:
                    end.future.set_result(outcome)
        kept = [self._unwritten_ends.pop(end.match_id, None) for end in ends]
        if any(end is not None for end in kept):
            self._save_unwritten_ends()

    def _keep_unwritten_ends(self) -> None:
        """Ends that could not be committed: into the side file, then tell their callers they wait."""
        ends = [w for w in self._pending if isinstance(w, _EndWrite)]
        new = {end.match_id: (end.result, end.reason, end.ended) for end in ends}
        if any(self._unwritten_ends.get(match_id) != kept for match_id, kept in new.items()):
            self._unwritten_ends.update(new)
            self._save_unwritten_ends()
        error = self._last_write_error or StoreError(f"{self.path}: the store cannot write now")
        if self._ends_saved:
            error = StoreError(f"{error}; the end is kept and will be written when the store can")
        for end in ends:
            if not end.future.done():  # a caller that gave up (cancelled) has its end kept all the same
                end.future.set_exception(error)

    def _save_unwritten_ends(self) -> bool:
        """Replace the side file with ``_unwritten_ends`` (durably: written, synced, renamed); False if it failed."""
        try:
            if not self._unwritten_ends:
                self.ends_path.unlink(missing_ok=True)
                return True
            entries = [
                {"match": match_id, "result": result, "reason": reason, "ended": ended}
                for match_id, (result, reason, ended) in self._unwritten_ends.items()
            ]
            temporary = self.ends_path.with_name(self.ends_path.name + ".tmp")
            with open(temporary, "w", encoding="utf-8") as file:
                json.dump(entries, file)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, self.ends_path)
            folder = os.open(self.ends_path.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
        except OSError as exc:
            log.error("%s: could not save %d unwritten ends: %s", self.ends_path, len(self._unwritten_ends), exc)
            self._ends_saved = False
            return False
        self._ends_saved = True
        return True

    def _load_unwritten_ends(self, conn: sqlite3.Connection) -> None:
        """Read the side file a previous run left: ends still missing from the database wait for the restart rule."""
        try:
            text = self.ends_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except OSError as exc:
            raise StoreError(f"cannot read {self.ends_path} ({exc}): check its permissions") from None
        try:
            entries = [(e["match"], e["result"], e["reason"], float(e["ended"])) for e in json.loads(text)]
        except (ValueError, TypeError, KeyError) as exc:
            raise StoreError(f"{self.ends_path} is damaged ({exc}); restore it or move it away") from None
        for match_id, result, reason, ended in entries:
            row = conn.execute("SELECT ended FROM games WHERE match_id = ?", (match_id,)).fetchone()
            if row is not None and row[0] is None:
                self._unwritten_ends[match_id] = (result, reason, ended)
        if len(self._unwritten_ends) < len(entries):
            self._save_unwritten_ends()

    def _insert_game(self, conn: sqlite3.Connection, write: _StartWrite) -> int | None:
        start = write.start
        if conn.execute("SELECT 1 FROM games WHERE match_id = ?", (start.match_id,)).fetchone():
            log.error("%s: match %s was already started; second start dropped", self.path, start.match_id)
            return None
        ids = [_player_id(conn, name) for name in start.players]
        cursor = conn.execute(
            "INSERT INTO games (match_id, game, params, first_name, second_name, first_id, second_id, clock,"
            " rated, started, pool, first_level, second_level, opening)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (start.match_id, start.game, write.params_json, *start.players, *ids, write.clock_json,
             int(start.rated), start.started, start.pool, *start.levels, start.opening),
        )  # fmt: skip
        return cursor.lastrowid

    def _game_id(self, conn: sqlite3.Connection, match_id: str) -> int | None:
        game_id = self._game_ids.get(match_id)
        if game_id is None:
            row = conn.execute("SELECT id FROM games WHERE match_id = ?", (match_id,)).fetchone()
            game_id = row[0] if row else None
        return game_id

    def _error(self, exc: sqlite3.Error) -> StoreError:
        """One line for people: what is wrong with which file, and what to do about it."""
        text = str(exc)
        lowered = text.lower()
        if "disk is full" in lowered or "database or disk is full" in lowered:
            return StoreError(f"{self.path}: the disk is full (or the store's size limit was reached); free space")
        if "locked" in lowered or "busy" in lowered:
            return StoreError(
                f"{self.path}: the database is locked by another process (waited {self.busy_timeout:g} s); "
                "stop the other process or retry"
            )
        if "not a database" in lowered or "malformed" in lowered or "corrupt" in lowered:
            return StoreError(f"{self.path} is not an Arbiter database or is corrupted ({text}); restore a backup")
        if "unable to open" in lowered:
            return StoreError(f"cannot open {self.path}: check that its folder exists and is writable")
        if "readonly" in lowered or "read-only" in lowered:
            return StoreError(f"{self.path} is read-only: check the file's and its folder's permissions")
        return StoreError(f"{self.path}: {text}")

    # --- unread ends (migration 10) -----------------------------------------------------------
    async def unread_ends(self, player: str, since: float, limit: int) -> list[GameRecord]:
        records = await self._call(lambda conn: _game_records(conn, UNREAD_ENDS, (player, since, limit)))
        return records[::-1]

    async def ends_read(self, reads: list[tuple[str, str]]) -> None:
        def delete(conn: sqlite3.Connection) -> None:
            with _transaction(conn):
                conn.executemany(END_READ, reads)

        await self._call(delete)


def _make_private(path: Path) -> None:
    """The database holds password and token hashes: its file is created 0600 (SQLite gives its
    -wal and -shm files the database's mode), and older files readable by others are made 0600."""
    try:
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    except OSError:
        return  # sqlite3.connect says what is wrong, in the store's words
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            if file.stat().st_mode & 0o077:
                file.chmod(0o600)
                log.info("%s was readable by others: made 0600", file)
        except FileNotFoundError:
            continue
        except OSError as exc:
            log.warning("%s is readable by others and cannot be made 0600: %s", file, exc)


@contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """BEGIN IMMEDIATE … COMMIT, rolled back on any error: no half-written game ever."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _player(conn: sqlite3.Connection, name: str) -> Player | None:
    row = conn.execute(f"SELECT {PLAYER_COLUMNS} FROM players WHERE name = ?", (name,)).fetchone()
    return None if row is None else player_of(row)


def _player_id(conn: sqlite3.Connection, name: str) -> int | None:
    row = conn.execute("SELECT id FROM players WHERE name = ?", (name,)).fetchone()
    return row[0] if row else None


def _rating(conn: sqlite3.Connection, player_id: int, name: str, pool: str, level: int | None) -> Rating:
    row = conn.execute(
        f"SELECT {RATING_COLUMNS} FROM ratings WHERE player_id = ? AND pool = ? AND level = ?",
        (player_id, pool, level or 0),
    ).fetchone()
    if row is None:
        return Rating(name, pool, INITIAL_RATING, INITIAL_DEVIATION, INITIAL_VOLATILITY, level=level)
    return rating_of(name, pool, level, row)


def _finish(conn: sqlite3.Connection, end: _EndWrite) -> dict[str, float]:
    """Write the end and, for a rated game, the ratings ``end.rate`` gives (inside the caller's transaction)."""
    row = conn.execute("SELECT id, ended, result, reason FROM games WHERE match_id = ?", (end.match_id,)).fetchone()
    if row is None:
        raise StoreError(f"no game with match id {end.match_id!r}")
    game_id, ended, result, reason = row
    if ended is not None:
        if (result, reason) == (end.result, end.reason):  # written before (a retry): not rated again
            return _changes(conn, game_id)
        raise StoreError(f"match {end.match_id!r} is already finished")
    conn.execute(
        "UPDATE games SET ended = ?, result = ?, reason = ? WHERE id = ?", (end.ended, end.result, end.reason, game_id)
    )
    conn.execute(OWE_ENDS, (game_id, game_id))
    if end.rate is None or end.result is None:
        return {}
    return _rate(conn, game_id, end.result, end.ended, end.rate)


def _rate(conn: sqlite3.Connection, game_id: int, result: str, at: float, rate: Rater) -> dict[str, float]:
    """Save both identities' ratings in the game's pool after a rated game (nothing for an unrated
    one, or one with a guest); the rating change of each player by name."""
    row = conn.execute(
        "SELECT game, pool, first_name, second_name, first_id, second_id, first_level, second_level, rated"
        " FROM games WHERE id = ?",
        (game_id,),
    ).fetchone()
    game, pool, first_name, second_name, first_id, second_id, first_level, second_level, rated = row
    if not rated or first_id is None or second_id is None:
        return {}
    ids, levels = (first_id, second_id), (first_level, second_level)
    before = (_rating(conn, first_id, first_name, pool, first_level),
              _rating(conn, second_id, second_name, pool, second_level))  # fmt: skip
    try:
        after = rate(before[0], before[1], result)
    except Exception as exc:  # a bug in the rating code must not kill the store's thread
        raise StoreError(f"rating game {game_id} failed: {exc!r}") from None
    for rating, history in rating_writes(ids, levels, game, game_id, at, before, after):
        conn.execute(SAVE_RATING, rating)
        conn.execute(SAVE_HISTORY, history)
    return {old.player: new.rating - old.rating for old, new in zip(before, after, strict=True)}


def _save_refusal(conn: sqlite3.Connection, write: _RefusalWrite) -> None:
    """Count the refused move on its game and keep it if it is among the first few (inside the caller's transaction)."""
    counted = conn.execute(COUNT_REFUSAL, (write.match_id,)).fetchone()
    if counted is None:
        log.error("refused move for unknown match %s dropped", write.match_id)
        return
    row = refusal_row(counted, write.refusal)
    if row is not None:
        conn.execute(SAVE_REFUSAL, row)


def _changes(conn: sqlite3.Connection, game_id: int) -> dict[str, float]:
    cursor = conn.execute(
        CHANGES,
        (game_id,),
    )
    return dict(cursor.fetchall())


def _game_records(conn: sqlite3.Connection, tail: str, args: tuple[Any, ...]) -> list[GameRecord]:
    """Games selected by ``tail`` (WHERE/ORDER/LIMIT) with their moves and rating changes."""
    return _records_of(conn, conn.execute(f"SELECT {GAME_COLUMNS} FROM games {tail}", args).fetchall())


def _page(conn: sqlite3.Connection, *, query: PageQuery) -> tuple[list[Any], list[GameRecord]]:
    """A page of GamePages: its rows of GAME_COLUMNS and their records."""
    rows = conn.execute(f"SELECT {GAME_COLUMNS} FROM games {query[0]}", query[1]).fetchall()
    return rows, _records_of(conn, rows)


def _records_of(conn: sqlite3.Connection, rows: list[Any]) -> list[GameRecord]:
    """The GameRecords of rows of GAME_COLUMNS, with their moves and rating changes."""
    moves: list[Any] = []
    changes: list[Any] = []
    refusals: list[Any] = []
    ids = [row[0] for row in rows]
    for i in range(0, len(ids), _SQL_CHUNK):
        chunk = ids[i : i + _SQL_CHUNK]
        marks = ",".join("?" * len(chunk))
        moves += conn.execute(
            f"SELECT {MOVE_COLUMNS} FROM moves WHERE game_id IN ({marks}) ORDER BY game_id, ply", chunk
        ).fetchall()
        changes += conn.execute(
            "SELECT h.game_id, p.name, h.rating - h.rating_before FROM rating_history h"
            f" JOIN players p ON p.id = h.player_id WHERE h.game_id IN ({marks})",
            chunk,
        ).fetchall()
        refusals += conn.execute(
            f"SELECT {REFUSAL_COLUMNS} FROM refused_moves WHERE game_id IN ({marks}) ORDER BY game_id, seq", chunk
        ).fetchall()
    return game_records(rows, moves, changes, refusals)
