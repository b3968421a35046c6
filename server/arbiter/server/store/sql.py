"""The SQL store written once: every query, the store's logic and its write queue's retry policy.

``SqlStore`` runs on a ``Connection`` a driver gives it (sqlite.py: the one thread that owns a
SQLite file's connection; postgresql.py: psycopg's async pool): queries with ``?`` placeholders,
rows as tuples, ``async with conn.transaction()``. SQLite's connection answers at once, so its
thread runs these coroutines to their end without an event loop (``run_now``); PostgreSQL's are
awaited on the server's loop.

The write queue: starts, moves, refused moves and ends wait in ``_pending`` and a driver commits
them in batches (``_write_pending``), each in one transaction. A batch that fails with one of the
driver's ``failures`` stays queued and is tried again after a pause that doubles up to
MAX_RETRY_PAUSE, logged once while it lasts, and its ends' callers hear that their end is kept; a
batch with a write the schema ``refused`` is written one by one, that write dropped alone.

What the dialects really do differently stays in the drivers: how a batch's starts and moves go
in (SQLite row by row; PostgreSQL as arrays unnested, the moves by COPY), PostgreSQL's row and
advisory locks, when the queue is written (a thread's deadlines, a task's events), where an end
that cannot be written is kept, and the one-line errors that name a file or a server.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import hmac
import json
import logging
import time
from abc import abstractmethod
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Generic, NamedTuple, Protocol, TypeVar

from arbiter.server.basics.pools import game_of, pool_key
from arbiter.server.basics.ratings import INITIAL_DEVIATION, INITIAL_RATING, INITIAL_VOLATILITY

from .base import (
    STREAM_BATCH,
    AlreadyBanned,
    AlreadyEntered,
    AsideMove,
    Ban,
    BanKind,
    GameRecord,
    GameStart,
    MoveRecord,
    NameTaken,
    NotBanned,
    NotEntered,
    Player,
    PlayerKind,
    Rater,
    Rating,
    RefusedMove,
    Store,
    StoreError,
    Tournament,
    TournamentEntry,
    TournamentError,
    TournamentExists,
    TournamentGame,
    TournamentState,
    UnknownPlayer,
    UnknownTournament,
    ban_target,
    check_ban_reason,
    check_new_player,
    check_player_name,
)
from .rows import (
    ADD_BAN,
    ADD_TOURNAMENT,
    ADD_TOURNAMENT_GAME,
    ASIDE_COLUMNS,
    BANS_VERSION,
    BUMP_BANS_VERSION,
    CHANGES,
    COUNT_REFUSAL,
    DISCARD_GAME,
    END_READ,
    ENTER_TOURNAMENT,
    ENTRANTS,
    FIND_BAN,
    FIND_ENTRANT,
    FIND_TOURNAMENT,
    GAME_COLUMNS,
    HISTORY,
    LEADERBOARD,
    LIST_BANS,
    LIST_TOURNAMENTS,
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
    SAVE_ASIDE,
    SAVE_HISTORY,
    SAVE_RATING,
    SAVE_REFUSAL,
    SAVE_REVIEW,
    SAVE_SWAP,
    SET_SEED,
    SET_TOURNAMENT_STATE,
    SWAP_PLAYERS,
    TOURNAMENT_GAMES,
    UNREAD_ENDS,
    UPDATE_TOURNAMENT_GAME,
    WITHDRAW_ENTRANT,
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
    tournament_game_of,
    tournament_game_row,
    tournament_of,
)

log = logging.getLogger("arbiter.server.store")

T = TypeVar("T")
MAX_RETRY_PAUSE = 2.0  # seconds between attempts to write a failed batch, at most
_SQL_CHUNK = 500  # ids per IN (...) query, well under SQLite's variable limit


class Connection(Protocol):
    """What the store needs of a driver's connection; ``?`` is the placeholder."""

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run ``sql``; the rows it changed."""

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Any: ...

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...

    def transaction(self) -> AbstractAsyncContextManager[Any]:
        """Everything inside, committed together or rolled back on any error."""


C = TypeVar("C", bound=Connection)
Query = Callable[[C], Coroutine[Any, Any, T]]


def run_now(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never waits (every await answered at once) to its end, on this thread."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value
    coro.close()
    raise RuntimeError("a store coroutine waited for something on a thread without an event loop")


class StartWrite(NamedTuple):
    """A game's start: the columns of ``games`` it writes, by name and in order (the players' ids
    are looked up by name). A column a start sets is one more field here."""

    match_id: str
    game: str
    params: str  # JSON
    first_name: str
    second_name: str
    clock: str  # JSON
    rated: int
    started: float
    pool: str | None
    first_level: int | None
    second_level: int | None
    opening: int


class MoveWrite(NamedTuple):
    """A move: the columns of ``moves`` it writes, by name and in order (``match_id`` becomes the
    game's id). A column a move sets is one more field here."""

    match_id: str
    ply: int
    move: str  # JSON of the wire value
    elapsed_ms: int
    info: str | None  # JSON map, or NULL


# What a batch writes, in the order of the rows' fields: a start's columns, a move's after its game id.
START_COLUMNS: tuple[str, ...] = StartWrite._fields
MOVE_VALUES: tuple[str, ...] = MoveWrite._fields[1:]
# A start's row and its players' ids (looked up by name); how the values come is the dialect's.
INSERT_GAME = f"INSERT INTO games ({', '.join(START_COLUMNS)}, first_id, second_id)"


@dataclass(frozen=True)
class RefusalWrite:
    match_id: str
    refusal: RefusedMove


@dataclass(frozen=True)
class AsideWrite:
    """Moves beside the line (``Store.record_asides``); with ``keep``, a takeback: the line is cut to
    its first ``keep`` moves. A batch writes what came before it first, then it, then the rest."""

    match_id: str
    asides: list[AsideMove]
    keep: int | None


@dataclass(frozen=True)
class SwapWrite:
    match_id: str
    choices: str  # JSON list
    swapped: bool


EndFuture = concurrent.futures.Future[dict[str, float]] | asyncio.Future[dict[str, float]]


@dataclass(eq=False)
class EndWrite:
    """A game's end; ``future`` gets the rating changes once committed, or the first failure."""

    match_id: str
    result: str | None
    reason: str
    ended: float
    rate: Rater | None
    future: EndFuture


Write = StartWrite | MoveWrite | RefusalWrite | AsideWrite | SwapWrite | EndWrite
Ends = dict[EndWrite, dict[str, float] | StoreError]  # what became of each end of a batch


class SqlStore(Store, Generic[C]):
    """The ``Store`` on SQL, less what a driver must say: how to reach its connection, how a
    batch's starts and moves go in, and what its failures mean."""

    # Failures of the driver that a retry may cure (a full disk, a server restarting) ...
    failures: ClassVar[tuple[type[BaseException], ...]]
    # ... and those a write fails with every time (a value the schema refuses): dropped, alone.
    refused: ClassVar[tuple[type[BaseException], ...]]
    unique_violation: ClassVar[type[BaseException]]  # an INSERT that breaks a UNIQUE constraint
    for_update: ClassVar[str] = ""  # locks an end's game row until commit, where other writers may race
    back: ClassVar[str]  # when a kept end will be written

    def __init__(self, where: str, *, flush_interval: float, batch_size: int) -> None:
        self.where = where
        self.flush_interval = flush_interval
        self.batch_size = batch_size
        self._pending: list[Write] = []  # queued and not yet committed, in order
        self._failed_attempts = 0
        self._last_write_error: StoreError | None = None
        # Live games written by this store: their row ids (forgotten once their end commits), and
        # the ply their next move must have, for a driver that appends such moves unchecked.
        self._game_ids: dict[str, int] = {}
        self._next_ply: dict[str, int] = {}

    # --- what a driver gives ------------------------------------------------------------------
    @abstractmethod
    async def _run(self, fn: Query[C, T], *, after_writes: bool = False) -> T:
        """``fn`` on a connection, after the queued writes (``after_writes``: refused while they fail)."""

    @abstractmethod
    def _enqueue(self, write: Write) -> None: ...

    @abstractmethod
    def _writer(self) -> AbstractAsyncContextManager[C]:
        """The connection a batch is written on."""

    @abstractmethod
    def _error(self, exc: BaseException) -> StoreError:
        """One line for people: what is wrong where, and what to do about it."""

    @abstractmethod
    async def _insert_games(
        self, conn: C, starts: list[StartWrite], game_ids: dict[str, int], next_ply: dict[str, int]
    ) -> None:
        """Write a batch's starts, adding the new games' row ids (and next plies) to the maps."""

    @abstractmethod
    async def _insert_moves(
        self, conn: C, moves: list[MoveWrite], game_ids: dict[str, int], next_ply: dict[str, int]
    ) -> None:
        """Write a batch's moves (a move sent twice: the last); those of unknown games are dropped."""

    async def _end_all(self, conn: C, ends: list[EndWrite]) -> dict[str, tuple[int, int]]:
        """End the live games of ``ends`` at once where the dialect can: (game id, rated) by match
        id of those it ended. The others go one by one (``_finish``)."""
        return {}

    async def _lock_ratings(self, conn: C) -> None:
        """Inside a transaction: read and write ratings one writer after another."""

    def _keep_ends(self, ends: list[EndWrite]) -> bool:
        """Ends a batch could not commit: keep them where they survive if the driver can; True
        if they are kept."""
        return True

    def _ends_settled(self, ends: Ends) -> None:
        """Ends committed or refused: they need keeping no more."""

    def _written(self, count: int) -> None:
        """The first ``count`` queued writes were committed (or dropped as refused)."""

    @abstractmethod
    def _waiting_ends(self) -> dict[str, tuple[str | None, str, float]]:
        """Ends announced and not yet written, by match id: (result, reason, ended)."""

    # --- players ------------------------------------------------------------------------------
    async def add_player(
        self, name: str, kind: PlayerKind, *, owner: str | None = None, password_hash: str | None = None
    ) -> str:
        check_new_player(name, kind, owner)
        selector, secret, token = new_token()

        async def insert(conn: C) -> None:
            async with conn.transaction():
                if await conn.fetchone("SELECT 1 FROM players WHERE name = ?", (name,)):
                    raise NameTaken(f"a player named {name!r} already exists")
                owner_id = None
                if owner is not None:
                    row = await conn.fetchone("SELECT id FROM players WHERE name = ? AND kind = 'human'", (owner,))
                    if row is None:
                        raise UnknownPlayer(f"no person named {owner!r} to own the bot")
                    owner_id = row[0]
                try:
                    await conn.execute(
                        "INSERT INTO players (name, kind, token_selector, token_hash, created, owner_id, password_hash)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (name, kind, selector, hash_secret(secret), time.time(), owner_id, password_hash),
                    )
                except self.unique_violation:  # another node added the name meanwhile
                    raise NameTaken(f"a player named {name!r} already exists") from None

        await self._run(insert)
        return token

    async def authenticate(self, token: str) -> Player | None:
        parts = split_token(token)
        if parts is None:
            return None
        selector, secret = parts

        async def find(conn: C) -> Player | None:
            row = await conn.fetchone(
                f"SELECT {PLAYER_COLUMNS}, token_hash FROM players WHERE token_selector = ?", (selector,)
            )
            # The selector only finds the row; the secret is checked in constant time.
            if row is None or not hmac.compare_digest(bytes(row[PLAYER_WIDTH]), hash_secret(secret)):
                return None
            player = player_of(row)
            return None if player.revoked else player

        return await self._run(find)

    async def get_player(self, name: str) -> Player | None:
        return await self._run(lambda conn: _player(conn, name))

    async def list_players(self) -> list[Player]:
        async def rows(conn: C) -> list[Player]:
            return [
                player_of(row) for row in await conn.fetchall(f"SELECT {PLAYER_COLUMNS} FROM players ORDER BY name")
            ]

        return await self._run(rows)

    async def reissue_token(self, name: str) -> str:
        selector, secret, token = new_token()

        async def update(conn: C) -> None:
            if not await conn.execute(
                "UPDATE players SET token_selector = ?, token_hash = ?, revoked = NULL WHERE name = ?",
                (selector, hash_secret(secret), name),
            ):
                raise UnknownPlayer(f"no player named {name!r}")

        await self._run(update)
        return token

    async def revoke_player(self, name: str, *, by_owner: bool = False) -> None:
        async def revoke(conn: C) -> None:
            async with conn.transaction():
                if not await conn.execute(revoke_update(by_owner), (time.time(), name)):
                    raise UnknownPlayer(f"no player named {name!r}")
                if not by_owner:
                    await conn.execute(BUMP_BANS_VERSION)  # servers look again at who is online

        await self._run(revoke)

    async def reinstate_player(self, name: str) -> None:
        async def reinstate(conn: C) -> None:
            if not await conn.execute(REINSTATE, (name,)):
                raise UnknownPlayer(f"no player named {name!r}")

        await self._run(reinstate)

    async def bots_of(self, owner: str) -> list[Player]:
        async def rows(conn: C) -> list[Player]:
            query = f"SELECT {PLAYER_COLUMNS} FROM players WHERE owner_id = (SELECT id FROM players WHERE name = ?)"
            return [player_of(row) for row in await conn.fetchall(query + " ORDER BY name", (owner,))]

        return await self._run(rows)

    # --- accounts -----------------------------------------------------------------------------
    async def password_hash(self, name: str) -> str | None:
        async def read(conn: C) -> str | None:
            row = await conn.fetchone("SELECT password_hash FROM players WHERE name = ?", (name,))
            return None if row is None else row[0]

        return await self._run(read)

    async def set_password_hash(self, name: str, password_hash: str) -> None:
        async def update(conn: C) -> None:
            if not await conn.execute("UPDATE players SET password_hash = ? WHERE name = ?", (password_hash, name)):
                raise UnknownPlayer(f"no player named {name!r}")

        await self._run(update)

    async def add_session(self, name: str, selector: str, secret_hash: bytes, expires: float) -> None:
        async def insert(conn: C) -> None:
            async with conn.transaction():
                now = time.time()
                await conn.execute("DELETE FROM sessions WHERE expires <= ?", (now,))  # the expired go as new ones come
                if not await conn.execute(
                    "INSERT INTO sessions (selector, secret_hash, player_id, created, expires)"
                    " SELECT ?, ?, id, ?, ? FROM players WHERE name = ?",
                    (selector, secret_hash, now, expires, name),
                ):
                    raise UnknownPlayer(f"no player named {name!r}")

        await self._run(insert)

    async def session_player(self, selector: str, secret_hash: bytes, now: float) -> Player | None:
        async def find(conn: C) -> Player | None:
            row = await conn.fetchone(
                f"SELECT {PLAYER_COLUMNS}, s.secret_hash FROM sessions s JOIN players ON players.id = s.player_id"
                " WHERE s.selector = ? AND s.expires > ?",
                (selector, now),
            )
            if row is None or not hmac.compare_digest(bytes(row[PLAYER_WIDTH]), secret_hash):
                return None
            player = player_of(row)
            return None if player.revoked else player

        return await self._run(find)

    async def end_sessions(self, *, selector: str | None = None, name: str | None = None) -> int:
        async def delete(conn: C) -> int:
            if selector is not None:
                return await conn.execute("DELETE FROM sessions WHERE selector = ?", (selector,))
            return await conn.execute(
                "DELETE FROM sessions WHERE player_id = (SELECT id FROM players WHERE name = ?)", (name,)
            )

        return await self._run(delete)

    # --- bans ---------------------------------------------------------------------------------
    async def add_ban(self, kind: BanKind, target: str, reason: str | None = None) -> Ban:
        target = ban_target(kind, target)
        check_ban_reason(reason)

        async def insert(conn: C) -> Ban:
            async with conn.transaction():
                name = target
                if kind == "player":
                    found = await _player(conn, target)
                    if found is None:
                        raise UnknownPlayer(f"no player named {target!r}")
                    name = found.name
                if await conn.fetchone(FIND_BAN, (kind, name)):
                    raise AlreadyBanned(f"{kind} {name} is banned already")
                ban = Ban(kind, name, reason, time.time())
                try:
                    await conn.execute(ADD_BAN, (ban.kind, ban.target, ban.reason, ban.created))
                except self.unique_violation:  # another node banned it meanwhile
                    raise AlreadyBanned(f"{kind} {name} is banned already") from None
                await conn.execute(BUMP_BANS_VERSION)
                return ban

        return await self._run(insert)

    async def remove_ban(self, kind: BanKind, target: str) -> None:
        target = ban_target(kind, target)

        async def delete(conn: C) -> None:
            async with conn.transaction():
                if not await conn.execute(REMOVE_BAN, (kind, target)):
                    raise NotBanned(f"{kind} {target} is not banned")
                await conn.execute(BUMP_BANS_VERSION)

        await self._run(delete)

    async def list_bans(self) -> list[Ban]:
        async def rows(conn: C) -> list[Ban]:
            return [ban_of(row) for row in await conn.fetchall(LIST_BANS)]

        return await self._run(rows)

    async def bans_version(self) -> int:
        async def read(conn: C) -> int:
            return int((await conn.fetchone(BANS_VERSION))[0])

        return await self._run(read)

    # --- tournaments --------------------------------------------------------------------------
    async def add_tournament(self, name: str, spec: dict[str, Any]) -> Tournament:
        check_player_name(name)
        tournament = Tournament(name, spec, "open", time.time())

        async def insert(conn: C) -> Tournament:
            async with conn.transaction():
                if await conn.fetchone(FIND_TOURNAMENT, (name,)):
                    raise TournamentExists(f"a tournament named {name!r} exists already")
                try:
                    await conn.execute(ADD_TOURNAMENT, (name, to_json(spec), "open", tournament.created))
                except self.unique_violation:  # another node created it meanwhile
                    raise TournamentExists(f"a tournament named {name!r} exists already") from None
                return tournament

        return await self._run(insert)

    async def get_tournament(self, name: str) -> Tournament | None:
        async def read(conn: C) -> Tournament | None:
            row = await conn.fetchone(FIND_TOURNAMENT, (name,))
            return None if row is None else tournament_of(row)

        return await self._run(read)

    async def list_tournaments(self) -> list[Tournament]:
        async def rows(conn: C) -> list[Tournament]:
            return [tournament_of(row) for row in await conn.fetchall(LIST_TOURNAMENTS)]

        return await self._run(rows)

    async def set_tournament_state(self, name: str, state: TournamentState) -> None:
        async def update(conn: C) -> None:
            async with conn.transaction():
                await conn.execute(SET_TOURNAMENT_STATE, (state, await _tournament_id(conn, name)))

        await self._run(update)

    async def enter_tournament(self, name: str, player: str) -> None:
        async def insert(conn: C) -> None:
            async with conn.transaction():
                tournament_id = await _tournament_id(conn, name)
                found = await _player(conn, player)
                if found is None:
                    raise UnknownPlayer(f"no player named {player!r}")
                if await conn.fetchone(FIND_ENTRANT, (tournament_id, found.id)):
                    raise AlreadyEntered(f"{found.name} is in {name}'s field already")
                try:
                    await conn.execute(ENTER_TOURNAMENT, (tournament_id, found.id, time.time()))
                except self.unique_violation:  # entered through another node meanwhile
                    raise AlreadyEntered(f"{found.name} is in {name}'s field already") from None

        await self._run(insert)

    async def withdraw_from_tournament(self, name: str, player: str) -> None:
        async def update(conn: C) -> None:
            async with conn.transaction():
                tournament_id = await _tournament_id(conn, name)
                found = await _player(conn, player)
                row = None if found is None else await conn.fetchone(FIND_ENTRANT, (tournament_id, found.id))
                if found is None or row is None or row[0] is not None:
                    raise NotEntered(f"{player} is not in {name}'s field")
                await conn.execute(WITHDRAW_ENTRANT, (time.time(), tournament_id, found.id))

        await self._run(update)

    async def tournament_entries(self, name: str) -> list[TournamentEntry]:
        async def rows(conn: C) -> list[TournamentEntry]:
            found = await conn.fetchall(ENTRANTS, (await _tournament_id(conn, name),))
            return [TournamentEntry(row[0], row[1], row[2] is not None) for row in found]

        return await self._run(rows)

    async def add_tournament_games(
        self, name: str, games: list[TournamentGame], *, seeds: dict[str, int] | None = None,
        state: TournamentState | None = None,
    ) -> None:  # fmt: skip
        async def insert(conn: C) -> None:
            async with conn.transaction():
                tournament_id = await _tournament_id(conn, name)
                for player, seed in (seeds or {}).items():
                    await conn.execute(SET_SEED, (seed, tournament_id, player))
                for game in games:
                    try:
                        await conn.execute(ADD_TOURNAMENT_GAME, (tournament_id, *tournament_game_row(game)))
                    except self.unique_violation:
                        raise TournamentError(f"{name} has a round {game.round} board {game.board} already") from None
                if state is not None:
                    await conn.execute(SET_TOURNAMENT_STATE, (state, tournament_id))

        await self._run(insert)

    async def tournament_games(self, name: str) -> list[TournamentGame]:
        async def rows(conn: C) -> list[TournamentGame]:
            found = await conn.fetchall(TOURNAMENT_GAMES, (await _tournament_id(conn, name),))
            return [tournament_game_of(row) for row in found]

        return await self._run(rows)

    async def update_tournament_game(self, name: str, game: TournamentGame) -> None:
        async def update(conn: C) -> None:
            async with conn.transaction():
                tournament_id = await _tournament_id(conn, name)
                fields = (game.match_id, game.score, game.forfeit, game.cause, tournament_id, game.round, game.board)
                changed = await conn.execute(UPDATE_TOURNAMENT_GAME, fields)
                if not changed:
                    raise TournamentError(f"{name} has no round {game.round} board {game.board}")

        await self._run(update)

    # --- games --------------------------------------------------------------------------------
    async def start_game(self, start: GameStart) -> None:
        self._enqueue(
            StartWrite(start.match_id, start.game, to_json(start.params), *start.players, to_json(start.clock),
                       int(start.rated), start.started, start.pool, *start.levels, start.opening)
        )  # fmt: skip

    def record_move(self, match_id: str, move: MoveRecord) -> None:
        info = None if move.info is None else to_json(move.info)
        self._enqueue(MoveWrite(match_id, move.ply, to_json(move.move), max(0, int(move.elapsed_ms)), info))

    def record_refusal(self, match_id: str, refusal: RefusedMove) -> None:
        self._enqueue(RefusalWrite(match_id, refusal))

    def record_asides(self, match_id: str, asides: list[AsideMove], keep: int | None = None) -> None:
        self._enqueue(AsideWrite(match_id, list(asides), keep))

    def record_swap(self, match_id: str, choices: list[dict[str, Any]], *, swapped: bool) -> None:
        self._enqueue(SwapWrite(match_id, to_json(choices), swapped))

    async def discard_game(self, match_id: str) -> None:
        async def delete(conn: C) -> None:
            async with conn.transaction():
                for statement in DISCARD_GAME:
                    await conn.execute(statement, (match_id,))

        await self._run(delete, after_writes=True)

    async def get_game(self, match_id: str) -> GameRecord | None:
        async def read(conn: C) -> GameRecord | None:
            records = await _game_records(conn, "WHERE match_id = ?", (match_id,))
            return records[0] if records else None

        return await self._run(read)

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
        return await self._run(lambda conn: _game_records(conn, tail, args))

    async def unread_ends(self, player: str, since: float, limit: int) -> list[GameRecord]:
        records = await self._run(lambda conn: _game_records(conn, UNREAD_ENDS, (player, since, limit)))
        return records[::-1]

    async def save_review(self, match_id: str, review: dict[str, Any]) -> None:
        text = json.dumps(review, separators=(",", ":"))

        async def write(conn: C) -> None:
            async with conn.transaction():
                await conn.execute(SAVE_REVIEW, (match_id, text, time.time()))

        await self._run(write)

    async def get_review(self, match_id: str) -> dict[str, Any] | None:
        row = await self._run(lambda conn: conn.fetchone("SELECT review FROM reviews WHERE match_id = ?", (match_id,)))
        return None if row is None else json.loads(row[0])

    async def ends_read(self, reads: list[tuple[str, str]]) -> None:
        async def delete(conn: C) -> None:
            async with conn.transaction():
                for read in reads:
                    await conn.execute(END_READ, read)

        await self._run(delete)

    def stream_games(self, *, batch_size: int = STREAM_BATCH) -> AsyncIterator[GameRecord]:
        return stream_pages(lambda query: self._run(functools.partial(_page, query=query)), batch_size)

    async def orphan_moves(self) -> dict[int, int]:
        async def read(conn: C) -> dict[int, int]:
            return dict(await conn.fetchall(ORPHAN_MOVES))

        return await self._run(read)

    async def interrupted_games(self) -> list[GameRecord]:
        """Games started but never finished, with the end announced for them if one waits to be
        written. Call it at start-up, before any new match begins, or live matches show up too."""

        async def read(conn: C) -> list[GameRecord]:
            records = await _game_records(conn, "WHERE ended IS NULL ORDER BY started, id", ())
            waiting = self._waiting_ends()
            return [
                replace(record, result=end[0], reason=end[1], ended=end[2])
                if (end := waiting.get(record.start.match_id))
                else record
                for record in records
            ]

        return await self._run(read)

    # --- ratings ------------------------------------------------------------------------------
    async def get_rating(self, player: str, pool: str, level: int | None = None) -> Rating:
        async def read(conn: C) -> Rating:
            found = await _player(conn, player)
            if found is None:
                raise UnknownPlayer(f"no player named {player!r}")
            return await _rating(conn, found.id, found.name, pool, level)

        return await self._run(read)

    async def leaderboard(self, pool: str) -> list[Rating]:
        async def read(conn: C) -> list[Rating]:
            return leaderboard_of(await conn.fetchall(LEADERBOARD, (pool,)))

        return await self._run(read)

    async def rating_pools(self, game: str | None = None) -> list[str]:
        async def read(conn: C) -> list[str]:
            rows = await conn.fetchall("SELECT DISTINCT pool FROM ratings ORDER BY pool")
            return [row[0] for row in rows if game is None or game_of(row[0]) == game]

        return await self._run(read)

    async def ratings_outdated(self) -> bool:
        async def read(conn: C) -> bool:
            return await conn.fetchone("SELECT 1 FROM games WHERE pool IS NULL LIMIT 1") is not None

        return await self._run(read)

    async def rebuild_ratings(self, rate: Rater) -> int:
        async def rebuild(conn: C) -> int:
            async with conn.transaction():
                await self._lock_ratings(conn)
                for game_id, game, params, clock in await conn.fetchall(
                    "SELECT id, game, params, clock FROM games WHERE pool IS NULL"
                ):
                    pool = pool_key(game, json.loads(params), json.loads(clock))
                    await conn.execute("UPDATE games SET pool = ? WHERE id = ?", (pool, game_id))
                await conn.execute("DELETE FROM ratings")
                await conn.execute("DELETE FROM rating_history")
                replayed = 0
                for game_id, result, ended in await conn.fetchall(
                    "SELECT id, result, ended FROM games WHERE rated = 1 AND result IS NOT NULL ORDER BY ended, id"
                ):
                    replayed += bool(await self._rate(conn, game_id, result, ended, rate))
            return replayed

        return await self._run(rebuild, after_writes=True)

    async def rated_results(self, pool: str) -> list[tuple[str, str, str]]:
        async def read(conn: C) -> list[tuple[str, str, str]]:
            return [(first, second, result) for first, second, result in await conn.fetchall(RATED_RESULTS, (pool,))]

        return await self._run(read)

    async def crosstable(self, pool: str) -> dict[str, dict[str, list[int]]]:
        async def read(conn: C) -> dict[str, dict[str, list[int]]]:
            return crosstable_of(await conn.fetchall(RATED_RESULTS, (pool,)))

        return await self._run(read)

    async def rating_history(
        self, player: str, pool: str, level: int | None = None
    ) -> list[tuple[float, float, float]]:
        async def read(conn: C) -> list[tuple[float, float, float]]:
            found = await _player(conn, player)
            if found is None:
                raise UnknownPlayer(f"no player named {player!r}")
            rows = await conn.fetchall(HISTORY, (found.id, pool, level or 0))
            return [(at, rating, deviation) for at, rating, deviation in rows]

        return await self._run(read)

    # --- the write queue ----------------------------------------------------------------------
    def _retry_pause(self) -> float:
        """Seconds until a failed batch is tried again: doubling with each failure, up to a limit."""
        return min(MAX_RETRY_PAUSE, self.flush_interval * 2**self._failed_attempts)

    async def _write_pending(self, count: int) -> StoreError | None:
        """Commit the first ``count`` queued writes in one transaction; on a failure keep them
        queued, log it (once while it lasts), tell their ends' callers, and return it."""
        batch = self._pending[:count]
        try:
            try:
                self._settle(await self._write_batch(batch))
                del self._pending[: len(batch)]
                self._written(len(batch))
            except self.refused:
                self._game_ids.clear()  # one by one, each move checked against what is stored
                self._next_ply.clear()
                await self._write_one_by_one(len(batch))
        except self.failures as exc:
            error = kept = self._error(exc)
            self._failed_attempts += 1
            if self._failed_attempts == 1:
                log.error("%s: %d queued writes not saved, will retry: %s", self.where, len(self._pending), error)
            self._last_write_error = error
            ends = [w for w in self._pending[: len(batch)] if isinstance(w, EndWrite)]
            if self._keep_ends(ends):
                kept = StoreError(f"{error}; the end is kept and will be written when {self.back}")
            for end in ends:
                if not end.future.done():  # a caller that gave up (cancelled) has its end kept all the same
                    end.future.set_exception(kept)
            return error
        if self._failed_attempts:
            log.warning("%s: queued writes saved after %d failed attempts", self.where, self._failed_attempts)
        self._failed_attempts = 0
        self._last_write_error = None
        return None

    async def _write_one_by_one(self, count: int) -> None:
        """A batch broke a constraint (a server bug): save what can be saved, drop only the culprits."""
        for _ in range(count):
            write = self._pending[0]
            try:
                self._settle(await self._write_batch([write]))
            except self.refused as exc:
                log.error("%s: dropped a write the schema refuses (%s): %r", self.where, exc, write)
                if isinstance(write, EndWrite):
                    self._settle({write: StoreError(f"{self.where}: the end was refused ({exc})")})
            del self._pending[0]
            self._written(1)

    async def _write_batch(self, writes: list[Write]) -> Ends:
        """Commit ``writes`` in one transaction: starts, then moves and refusals, then ends (so each
        follows what it needs), and a takeback's asides between the writes before and after it; what
        became of each end (its rating changes, or why not)."""
        finishing = [w for w in writes if isinstance(w, EndWrite)]
        ends: Ends = {}
        game_ids, next_ply = dict(self._game_ids), dict(self._next_ply)  # kept if the batch commits
        async with self._writer() as conn, conn.transaction():
            for part in _around_asides(writes):
                if isinstance(part, AsideWrite):  # rare: one by one, and what follows comes after
                    await _save_asides(conn, part, game_ids)
                    next_ply.pop(part.match_id, None)  # a driver appending moves unchecked goes the careful way
                    continue
                moves = [w for w in part if type(w) is MoveWrite]  # nearly every write: the rest are rare
                others = [w for w in part if type(w) is not MoveWrite] if len(moves) < len(part) else []
                starts = [w for w in others if isinstance(w, StartWrite)]
                if starts:
                    await self._insert_games(conn, starts, game_ids, next_ply)
                if moves:
                    await self._insert_moves(conn, moves, game_ids, next_ply)
                for write in others:  # rare: one by one, in queue order
                    if isinstance(write, RefusalWrite):
                        await _save_refusal(conn, write)
                    elif isinstance(write, SwapWrite):  # before the end rates the players
                        await conn.execute(
                            SWAP_PLAYERS if write.swapped else SAVE_SWAP, (write.choices, write.match_id)
                        )
            ended = await self._end_all(conn, finishing) if finishing else {}
            for game_id, _ in ended.values():  # the others are marked unread by _finish
                await conn.execute(OWE_ENDS, (game_id, game_id))
            for end in finishing:
                try:
                    row = ended.pop(end.match_id, None)
                    if row is None:  # already ended (a retry, a duplicate), unknown, or refused: one by one
                        ends[end] = await self._finish(conn, end)
                    elif end.rate is None or end.result is None or not row[1]:
                        ends[end] = {}
                    else:
                        ends[end] = await self._rate(conn, row[0], end.result, end.ended, end.rate)
                except StoreError as error:
                    ends[end] = error
        for end in finishing:  # committed: the ended games leave the maps
            game_ids.pop(end.match_id, None)
            next_ply.pop(end.match_id, None)
        self._game_ids, self._next_ply = game_ids, next_ply
        return ends

    def _settle(self, ends: Ends) -> None:
        """Answer the callers of committed (or refused) ends."""
        for end, outcome in ends.items():
            if isinstance(outcome, StoreError):
                log.error("%s: end of match %s not recorded: %s", self.where, end.match_id, outcome)
            if not end.future.done():
                if isinstance(outcome, StoreError):
                    end.future.set_exception(outcome)
                else:
                    end.future.set_result(outcome)
        self._ends_settled(ends)

    async def _finish(self, conn: C, end: EndWrite) -> dict[str, float]:
        """Write the end and, for a rated game, the ratings ``end.rate`` gives (inside the caller's
        transaction; the game's row is locked where another node could end it at the same time)."""
        row = await conn.fetchone(
            f"SELECT id, ended, result, reason FROM games WHERE match_id = ?{self.for_update}", (end.match_id,)
        )
        if row is None:
            raise StoreError(f"no game with match id {end.match_id!r}")
        game_id, ended, result, reason = row
        if ended is not None:
            if (result, reason) == (end.result, end.reason):  # written before (a retry): not rated again
                return dict(await conn.fetchall(CHANGES, (game_id,)))
            raise StoreError(f"match {end.match_id!r} is already finished")
        await conn.execute(
            "UPDATE games SET ended = ?, result = ?, reason = ? WHERE id = ?",
            (end.ended, end.result, end.reason, game_id),
        )
        await conn.execute(OWE_ENDS, (game_id, game_id))
        if end.rate is None or end.result is None:
            return {}
        return await self._rate(conn, game_id, end.result, end.ended, end.rate)

    async def _rate(self, conn: C, game_id: int, result: str, at: float, rate: Rater) -> dict[str, float]:
        """Save both identities' ratings in the game's pool after a rated game (nothing for an unrated
        one, or one with a guest); the rating change of each player by name."""
        row = await conn.fetchone(
            "SELECT game, pool, first_name, second_name, first_id, second_id, first_level, second_level, rated"
            " FROM games WHERE id = ?",
            (game_id,),
        )
        game, pool, first_name, second_name, first_id, second_id, first_level, second_level, rated = row
        if not rated or first_id is None or second_id is None:
            return {}
        await self._lock_ratings(conn)
        ids, levels = (first_id, second_id), (first_level, second_level)
        before = (await _rating(conn, first_id, first_name, pool, first_level),
                  await _rating(conn, second_id, second_name, pool, second_level))  # fmt: skip
        try:
            after = rate(before[0], before[1], result)
        except Exception as exc:  # a bug in the rating code must not stop the writer
            raise StoreError(f"rating game {game_id} failed: {exc!r}") from None
        for rating, history in rating_writes(ids, levels, game, game_id, at, before, after):
            await conn.execute(SAVE_RATING, rating)
            await conn.execute(SAVE_HISTORY, history)
        return {old.player: new.rating - old.rating for old, new in zip(before, after, strict=True)}


async def _player(conn: Connection, name: str) -> Player | None:
    row = await conn.fetchone(f"SELECT {PLAYER_COLUMNS} FROM players WHERE name = ?", (name,))
    return None if row is None else player_of(row)


async def _tournament_id(conn: Connection, name: str) -> int:
    row = await conn.fetchone(FIND_TOURNAMENT, (name,))
    if row is None:
        raise UnknownTournament(f"no tournament named {name!r}")
    return int(row[0])


async def _rating(conn: Connection, player_id: int, name: str, pool: str, level: int | None) -> Rating:
    row = await conn.fetchone(
        f"SELECT {RATING_COLUMNS} FROM ratings WHERE player_id = ? AND pool = ? AND level = ?",
        (player_id, pool, level or 0),
    )
    if row is None:
        return Rating(name, pool, INITIAL_RATING, INITIAL_DEVIATION, INITIAL_VOLATILITY, level=level)
    return rating_of(name, pool, level, row)


async def _save_refusal(conn: Connection, write: RefusalWrite) -> None:
    """Count the refused move on its game and keep it if it is among the first few (inside the caller's transaction)."""
    counted = await conn.fetchone(COUNT_REFUSAL, (write.match_id,))
    if counted is None:
        log.error("refused move for unknown match %s dropped", write.match_id)
        return
    row = refusal_row(counted, write.refusal)
    if row is not None:
        await conn.execute(SAVE_REFUSAL, row)


def _around_asides(writes: list[Write]) -> list[list[Write] | AsideWrite]:
    """A batch's writes in runs, each AsideWrite alone between the run before it and the one after."""
    if not any(type(write) is AsideWrite for write in writes):
        return [writes]  # the usual batch: no takeback in it
    parts: list[list[Write] | AsideWrite] = [[]]
    for write in writes:
        if isinstance(write, AsideWrite):
            parts += [write, []]
        else:
            last = parts[-1]
            assert isinstance(last, list)
            last.append(write)
    return parts


async def _save_asides(conn: Connection, write: AsideWrite, game_ids: dict[str, int]) -> None:
    """Keep the asides and, for a takeback, cut the line (inside the caller's transaction)."""
    game_id = game_ids.get(write.match_id)
    if game_id is None:
        row = await conn.fetchone("SELECT id FROM games WHERE match_id = ?", (write.match_id,))
        if row is None:
            log.error("asides for unknown match %s dropped", write.match_id)
            return
        game_id = row[0]
    for aside in write.asides:
        await conn.execute(
            SAVE_ASIDE, (game_id, aside.kind, aside.ply, aside.color, to_json(aside.move), aside.elapsed_ms, game_id)
        )
    if write.keep is not None:
        await conn.execute("DELETE FROM moves WHERE game_id = ? AND ply >= ?", (game_id, write.keep))


async def _game_records(conn: Connection, tail: str, args: tuple[Any, ...]) -> list[GameRecord]:
    """Games selected by ``tail`` (WHERE/ORDER/LIMIT) with their moves and rating changes."""
    return await _records_of(conn, await conn.fetchall(f"SELECT {GAME_COLUMNS} FROM games {tail}", args))


async def _page(conn: Connection, *, query: PageQuery) -> tuple[list[Any], list[GameRecord]]:
    """A page of GamePages: its rows of GAME_COLUMNS and their records."""
    rows = await conn.fetchall(f"SELECT {GAME_COLUMNS} FROM games {query[0]}", query[1])
    return rows, await _records_of(conn, rows)


async def _records_of(conn: Connection, rows: list[Any]) -> list[GameRecord]:
    """The GameRecords of rows of GAME_COLUMNS, with their moves and rating changes."""
    moves: list[Any] = []
    changes: list[Any] = []
    refusals: list[Any] = []
    asides: list[Any] = []
    ids = [row[0] for row in rows]
    for i in range(0, len(ids), _SQL_CHUNK):
        chunk = ids[i : i + _SQL_CHUNK]
        marks = ",".join("?" * len(chunk))
        moves += await conn.fetchall(
            f"SELECT {MOVE_COLUMNS} FROM moves WHERE game_id IN ({marks}) ORDER BY game_id, ply", chunk
        )
        changes += await conn.fetchall(
            "SELECT h.game_id, p.name, h.rating - h.rating_before FROM rating_history h"
            f" JOIN players p ON p.id = h.player_id WHERE h.game_id IN ({marks})",
            chunk,
        )
        refusals += await conn.fetchall(
            f"SELECT {REFUSAL_COLUMNS} FROM refused_moves WHERE game_id IN ({marks}) ORDER BY game_id, seq", chunk
        )
        asides += await conn.fetchall(
            f"SELECT {ASIDE_COLUMNS} FROM aside_moves WHERE game_id IN ({marks}) ORDER BY game_id, seq", chunk
        )
    return game_records(rows, moves, changes, refusals, asides)
