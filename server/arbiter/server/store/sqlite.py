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

The queries, the store's logic and the queue's retry policy are sql.py's; this module is the
thread and its queue, the file's settings and errors, and the side file of ends.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import os
import queue
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from .base import Rater, StoreError, check_result
from .migrations import NewerSchema, migrate
from .sql import (
    INSERT_GAME,
    MOVE_VALUES,
    START_COLUMNS,
    AsideWrite,
    Ends,
    EndWrite,
    MoveWrite,
    Query,
    RefusalWrite,
    SqlStore,
    StartWrite,
    SwapWrite,
    Write,
    run_now,
)

log = logging.getLogger("arbiter.server.store")

T = TypeVar("T")


class _Connection:
    """The store's connection as the shared queries use it (``sql.Connection``): it answers at once."""

    def __init__(self, raw: sqlite3.Connection) -> None:
        self.raw = raw

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return self.raw.execute(sql, params).rowcount

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.raw.execute(sql, params).fetchone()

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self.raw.execute(sql, params).fetchall()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[None]:
        """BEGIN IMMEDIATE … COMMIT, rolled back on any error: no half-written game ever."""
        self.raw.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if self.raw.in_transaction:
                self.raw.execute("ROLLBACK")
            raise
        self.raw.execute("COMMIT")


@dataclass
class _Job:
    """A call to run on the store's thread; ``after_writes`` refuses to run over unwritten moves."""

    fn: Query[_Connection, Any]
    future: concurrent.futures.Future[Any]
    after_writes: bool = False


_STOP = object()
_PLAYER_ID = "(SELECT id FROM players WHERE name = ?)"
_INSERT_GAME = f"{INSERT_GAME} VALUES ({', '.join('?' * len(START_COLUMNS))}, {_PLAYER_ID}, {_PLAYER_ID}) RETURNING id"
_INSERT_MOVE = f"INSERT OR REPLACE INTO moves (game_id, {', '.join(MOVE_VALUES)}) VALUES (?{', ?' * len(MOVE_VALUES)})"


class SqliteStore(SqlStore[_Connection]):
    """The ``Store`` in one SQLite file.

    ``size_limit_bytes`` caps the file like a quota (writes past it fail as on a full disk);
    ``busy_timeout`` is how long a write waits for another process's lock before StoreError.
    """

    failures = (sqlite3.Error,)
    # A write that fails with one of these will fail every time (a value the schema or SQLite refuses).
    refused = (sqlite3.IntegrityError, sqlite3.InterfaceError, sqlite3.ProgrammingError, OverflowError, TypeError)
    unique_violation = sqlite3.IntegrityError
    back = "the store can"

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout: float = 5.0,
        flush_interval: float = 0.05,
        batch_size: int = 500,
        size_limit_bytes: int | None = None,
    ) -> None:
        super().__init__(str(path), flush_interval=flush_interval, batch_size=batch_size)
        self.path = Path(path)
        self.busy_timeout = busy_timeout
        self.size_limit_bytes = size_limit_bytes
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._closed = False
        # Owned by the store's thread once it runs:
        self._conn: _Connection | None = None
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
        self._thread = threading.Thread(target=self._main, args=(ready,), name=f"store {self.path.name}", daemon=True)
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
        await self._run(_nothing, after_writes=True)

    async def finish_game(
        self, match_id: str, result: str | None, reason: str, ended: float, rate: Rater | None = None
    ) -> dict[str, float]:
        check_result(result)
        if self._thread is None or self._closed or not self._thread.is_alive():
            raise StoreError(f"{self.path}: the store is not open")
        future: concurrent.futures.Future[dict[str, float]] = concurrent.futures.Future()
        self._queue.put(EndWrite(match_id, result, reason, ended, rate, future))
        return await asyncio.wrap_future(future)

    # --- calls into the store's thread --------------------------------------------------------
    def _enqueue(self, write: Write) -> None:
        if self._thread is None or self._closed:
            log.error("%s: store is not open; dropped %r", self.path, write)
            return
        self._queue.put(write)

    async def _run(self, fn: Query[_Connection, T], *, after_writes: bool = False) -> T:
        if self._thread is None or self._closed or not self._thread.is_alive():
            raise StoreError(f"{self.path}: the store is not open")
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._queue.put(_Job(fn, future, after_writes))
        return await asyncio.wrap_future(future)

    # --- the store's thread -------------------------------------------------------------------
    def _main(self, ready: concurrent.futures.Future[None]) -> None:
        try:
            conn = self._connect()
        except BaseException as exc:
            ready.set_exception(exc)
            return
        self._conn = _Connection(conn)
        ready.set_result(None)
        try:
            self._serve(self._conn)
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

    def _serve(self, conn: _Connection) -> None:
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
                deadline = self._write_queue()
            elif isinstance(item, EndWrite):
                # Tried as soon as the queue is drained (ends arriving together share a commit), even
                # while failing: the caller learns now whether the end is written or kept for later.
                self._pending.append(item)
                deadline = time.monotonic()
            elif isinstance(item, StartWrite | MoveWrite | RefusalWrite | AsideWrite | SwapWrite):
                self._pending.append(item)
                if deadline is None:
                    deadline = time.monotonic() + self.flush_interval
                if healthy and len(self._pending) >= self.batch_size:
                    deadline = self._write_queue()
            elif isinstance(item, _Job):
                if healthy or item.after_writes:
                    deadline = self._write_queue()
                self._run_job(conn, item)
            else:  # (_STOP, done)
                _, done = item
                self._write_queue()
                lost = sum(not isinstance(write, EndWrite) for write in self._pending)
                kept = [w.match_id for w in self._pending if isinstance(w, EndWrite)]
                if kept:
                    log.warning("%s: closing with %d ends kept in %s for the next start",
                                self.path, len(kept), self.ends_path)  # fmt: skip
                if lost or (kept and not self._ends_saved):
                    log.error("%s: closing with %d writes that could not be made", self.path, len(self._pending))
                    done.set_exception(self._last_write_error or StoreError(f"{self.path}: writes lost"))
                else:
                    done.set_result(None)
                return

    def _run_job(self, conn: _Connection, job: _Job) -> None:
        if not job.future.set_running_or_notify_cancel():
            return
        if job.after_writes and self._pending:
            job.future.set_exception(self._last_write_error or StoreError(f"{self.path}: writes are pending"))
            return
        try:
            job.future.set_result(run_now(job.fn(conn)))
        except StoreError as exc:
            job.future.set_exception(exc)
        except sqlite3.Error as exc:
            job.future.set_exception(self._error(exc))
        except BaseException as exc:  # a bug: hand it to the caller rather than kill the thread
            job.future.set_exception(exc)

    def _write_queue(self) -> float | None:
        """Commit the queued writes; on failure keep them and return when to try again."""
        if not self._pending or run_now(self._write_pending(len(self._pending))) is None:
            return None
        return time.monotonic() + self._retry_pause()

    def _writer(self) -> AbstractAsyncContextManager[_Connection]:
        assert self._conn is not None
        return contextlib.nullcontext(self._conn)

    async def _insert_games(
        self, conn: _Connection, starts: list[StartWrite], game_ids: dict[str, int], next_ply: dict[str, int]
    ) -> None:
        for start in starts:
            if await conn.fetchone("SELECT 1 FROM games WHERE match_id = ?", (start.match_id,)):
                log.error("%s: match %s was already started; second start dropped", self.path, start.match_id)
                continue
            row = await conn.fetchone(_INSERT_GAME, (*start, start.first_name, start.second_name))
            game_ids[start.match_id] = row[0]

    async def _insert_moves(
        self, conn: _Connection, moves: list[MoveWrite], game_ids: dict[str, int], next_ply: dict[str, int]
    ) -> None:
        rows = []
        for move in moves:
            game_id = game_ids.get(move.match_id) or await _game_id(conn, move.match_id)
            if game_id is None:
                log.error("%s: move %d for unknown match %s dropped", self.path, move.ply, move.match_id)
                continue
            rows.append((game_id, *move[1:]))
        conn.raw.executemany(_INSERT_MOVE, rows)

    # --- the side file of ends ----------------------------------------------------------------
    def _waiting_ends(self) -> dict[str, tuple[str | None, str, float]]:
        return self._unwritten_ends

    def _ends_settled(self, ends: Ends) -> None:
        kept = [self._unwritten_ends.pop(end.match_id, None) for end in ends]
        if any(end is not None for end in kept):
            self._save_unwritten_ends()

    def _keep_ends(self, ends: list[EndWrite]) -> bool:
        """Ends that could not be committed go into the side file; True if it holds them."""
        new = {end.match_id: (end.result, end.reason, end.ended) for end in ends}
        if any(self._unwritten_ends.get(match_id) != kept for match_id, kept in new.items()):
            self._unwritten_ends.update(new)
            self._save_unwritten_ends()
        return self._ends_saved

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

    def _error(self, exc: BaseException) -> StoreError:
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


async def _nothing(conn: _Connection) -> None:
    """A job that only waits for the queued writes."""


async def _game_id(conn: _Connection, match_id: str) -> int | None:
    row = await conn.fetchone("SELECT id FROM games WHERE match_id = ?", (match_id,))
    return row[0] if row else None


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
