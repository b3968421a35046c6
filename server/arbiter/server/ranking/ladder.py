"""The ladder on the server: a queue per game, automatic pairing into rated matches, standings messages.

A registered player sends ``ladder_join`` for a game and is paired by ``pairing.LadderQueue``
(rating window, randomness, no immediate rematch, alternating colours) into rated matches under
the game's ladder clock, again after every match, until it sends ``ladder_leave`` or goes offline
for good. Pairing runs when someone joins, when a ladder match ends, and every ``retry_s`` while
players wait (their rating window widens meanwhile). Members who are away within their reconnect
grace, or at the server's match limit, are skipped until they can play. In a cluster one node at a
time pairs (``may_pair``, given by ``join_cluster``): every node forwards its players' joins there.

Standings come from the store: ``leaderboard`` and ``crosstable`` messages here, and over HTTP in
``standings.py``.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any

from arbiter.engine import create_game, game_names
from arbiter.protocol.errors import ErrorCode, ProtocolError
from arbiter.protocol.ladder import Crosstable, LadderJoin, LadderLeave, Leaderboard
from arbiter.protocol.messages import Request
from arbiter.server.basics.pools import game_of
from arbiter.server.ranking.openings import balanced_opening
from arbiter.server.ranking.pairing import LadderQueue
from arbiter.server.store.base import Store, StoreError, UnknownPlayer

from ..config import LadderConfig
from ..play.match import Result
from ..play.matches import LiveMatch, Matches, check_features
from ..play.players import Roster, owner_of
from ..play.session import Handler, Session
from ..play.swap_opening import SWAP_FEATURE
from .standings import describe_rating

log = logging.getLogger("arbiter.server")

# Each player's live matches on every node of a cluster (every name asked); None when it cannot be read.
LiveMatchesOf = Callable[[list[str]], Awaitable[dict[str, int] | None]]


class Ladder:
    def __init__(
        self,
        config: LadderConfig,
        *,
        max_matches: int,
        roster: Roster,
        matches: Matches,
        store: Store,
        now: Callable[[], float],
    ) -> None:
        self.config = config
        self.max_matches = max_matches  # the server's limit of live matches per player
        self.roster = roster
        self.live_matches = matches
        self.store = store
        self.now = now
        self.queues: dict[str, LadderQueue] = {}
        self.matches: dict[str, tuple[str, str, str]] = {}  # ladder match id → (game, first, second)
        self._rng = random.Random(config.seed)
        self._timer: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[None] | None = None
        self._again = False
        self._stopped = False
        self._refreshing: set[asyncio.Task[None]] = set()  # ratings re-read after an end
        # A pair of bots' opening waiting for its second game, the colours swapped: pair → (moves, first).
        self._openings: dict[tuple[str, frozenset[str]], tuple[list[Any], str]] = {}
        # Whether this server pairs now: a cluster's node only while it holds the pairing lease.
        self.may_pair: Callable[[], bool] = lambda: True
        # A cluster's count of each player's live matches on every node (None: this server's own); it
        # answers None when the count cannot be read, and then nobody is paired until it can.
        self.live_matches_of: LiveMatchesOf | None = None

        matches.end_listeners.append(self.match_ended)

    def join_cluster(self, may_pair: Callable[[], bool], live_matches_of: LiveMatchesOf) -> None:
        """This server is a node of a cluster: it pairs while ``may_pair``, counting each player's
        matches on every node."""
        self.may_pair = may_pair
        self.live_matches_of = live_matches_of

    def handlers(self) -> dict[type[Request], Handler]:
        return {
            LadderJoin: self.on_join,
            LadderLeave: self.on_leave,
            Leaderboard: self.on_leaderboard,
            Crosstable: self.on_crosstable,
        }

    # --- requests ----------------------------------------------------------------------------------
    async def on_join(self, session: Session, msg: LadderJoin) -> None:
        player = session.player
        assert player is not None
        if player.identity.guest:
            raise ProtocolError(ErrorCode.RATED_NEEDS_ACCOUNT, "the ladder is rated: log in with a player's token")
        _check_game(msg.game)
        check_features(create_game(msg.game, self.config.params_for(msg.game)), (player,))
        try:
            rating = await self.store.get_rating(player.name, self.pool_of(msg.game))
        except UnknownPlayer:
            raise ProtocolError(ErrorCode.RATED_NEEDS_ACCOUNT, "this player is no longer registered") from None
        except StoreError:
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the server cannot read ratings right now") from None
        queue = self.queues.get(msg.game)
        if queue is None:
            queue = self.queues[msg.game] = LadderQueue(
                msg.game,
                rng=self._rng,
                window=self.config.window,
                widen_per_s=self.config.widen_per_s,
                rematch_after_s=self.config.rematch_after_s,
            )
        queue.join(player.name, rating.rating, self.now(), capacity=msg.max_matches, deviation=rating.deviation,
                   owner=owner_of(player.identity))  # fmt: skip
        session.reply(
            msg,
            {
                "type": "ladder_joined",
                "game": msg.game,
                "pool": self.pool_of(msg.game),
                "clock": self.config.clock_for(msg.game).describe(),
                "rating": describe_rating(rating),
                "waiting": len(queue.waiting()),
            },
        )
        self.kick()

    async def on_leave(self, session: Session, msg: LadderLeave) -> None:
        """Leave the queue, and answer once the pairing under way is done: a match it made with this
        player (in a cluster its start awaits the store) is announced before the ``ok``, so after
        the ``ok`` no ladder match can come."""
        assert session.player is not None
        queue = self.queues.get(msg.game)
        if queue is not None:
            queue.leave(session.player.name)
        task = self._task
        if task is not None and not task.done():
            await asyncio.wait([task])  # (a cancelled leave does not cancel the pairing)
        session.ok(msg)

    async def on_leaderboard(self, session: Session, msg: Leaderboard) -> None:
        pool = self._pool_asked(msg.game, msg.pool)
        ratings = await _read(self.store.leaderboard(pool))
        pools = await _read(self.store.rating_pools(msg.game))
        session.reply(msg, {"type": "leaderboard", "game": msg.game, "pool": pool, "pools": pools,
                            "ratings": [describe_rating(r) for r in ratings]})  # fmt: skip

    async def on_crosstable(self, session: Session, msg: Crosstable) -> None:
        pool = self._pool_asked(msg.game, msg.pool)
        table = await _read(self.store.crosstable(pool))
        session.reply(msg, {"type": "crosstable", "game": msg.game, "pool": pool, "table": table})

    def pool_of(self, game: str) -> str:
        return self.config.pool_of(game)

    def _pool_asked(self, game: str, pool: str | None) -> str:
        _check_game(game)
        if pool is None:
            return self.pool_of(game)
        if game_of(pool) != game:
            raise ProtocolError(ErrorCode.BAD_FIELD, f"pool {pool!r} is not one of {game}'s")
        return pool

    def queue_sizes(self) -> dict[str, int]:
        """Players waiting for a ladder match, by game (for /metrics)."""
        return {game: len(queue.waiting()) for game, queue in self.queues.items()}

    def queue_members(self) -> dict[str, int]:
        """Players in the ladder, waiting or playing, by game (for /metrics)."""
        return {game: len(queue.members()) for game, queue in self.queues.items()}

    # --- pairing -----------------------------------------------------------------------------------
    def kick(self) -> None:
        """Pair now (or right after the pairing under way)."""
        if self._stopped:
            return
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._pair_until_settled())
        else:
            self._again = True

    async def _pair_until_settled(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._again = True
        while self._again and not self._stopped:
            self._again = False
            await self._pair_once()
        if not self._stopped and any(len(q.waiting()) >= 2 for q in self.queues.values()):
            self._timer = asyncio.get_running_loop().call_later(self.config.retry_s, self.kick)

    async def _pair_once(self) -> None:
        if not self.may_pair():
            return
        roster = self.roster
        limit = self.max_matches
        counts: dict[str, int] | None = None
        if self.live_matches_of is not None:
            members = sorted({name for queue in self.queues.values() for name in queue.members()})
            counts = await self.live_matches_of(members)
            if counts is None:
                return  # unknown now: pair at the next pass

        def can_play(queue: LadderQueue) -> Callable[[str], bool]:
            swap = queue.game in self.config.swaps

            def free(name: str) -> bool:
                player = roster.get(name)
                if player is None or not player.connected:
                    return False
                if swap and SWAP_FEATURE not in player.features:  # came back with a client that has no swap
                    return False
                if counts is None:
                    return len(player.matches) < min(limit, player.capacity or limit)  # all its matches, every game
                # A cluster: its live matches on every node, of any kind, count against this queue's
                # capacity too (after a failover the queue does not know the matches it paired).
                playing = counts.get(name)
                if playing is None:  # joined while the counts were read: unknown, so paired at the next pass
                    return False
                return playing < min(limit, player.capacity or limit, queue.capacity_of(name))

            return free

        for game, queue in list(self.queues.items()):
            for name in queue.members():
                if roster.get(name) is None:  # offline past its grace: off the ladder
                    queue.leave(name)
            for first, second in queue.pair(self.now(), can_play=can_play(queue)):
                await self._start(game, queue, first, second)
                if counts is not None:  # the counts were read before this pass: its own matches count too
                    for name in (first, second):
                        counts[name] = counts.get(name, 0) + 1

    async def _start(self, game: str, queue: LadderQueue, first: str, second: str) -> None:
        one, other = self.roster.get(first), self.roster.get(second)
        if one is None or other is None or self._stopped:
            queue.match_over(first, second, self.now())
            return
        opening: list[Any] = []
        rules = self.config.params_for(game)
        if self.config.openings.get(game) and not rules and one.identity.kind == other.identity.kind == "bot":
            (first, second), opening = self._opening(game, first, second)
            if first != one.name:  # the opening's second game: the colours of its first swapped
                one, other = other, one
        try:
            live = await self.live_matches.start(
                (one, other), create_game(game, rules), self.config.clock_for(game), rated=True, opening=opening
            )
        except ProtocolError as error:
            log.warning(
                "ladder match not started: %s",
                error.message,
                extra={"game": game, "players": [first, second], "code": error.code.value},
            )
            queue.match_over(first, second, self.now())
            return
        self.matches[live.id] = (game, first, second)

    def _opening(self, game: str, first: str, second: str) -> tuple[tuple[str, str], list[Any]]:
        """The players in colour order and the opening of their game: the pair's waiting opening with
        the colours of its first game swapped, or a new balanced one (kept for the return game)."""
        pair = (game, frozenset((first, second)))
        waiting = self._openings.pop(pair, None)
        if waiting is not None:
            moves, had_first = waiting
            return ((second, first) if had_first == first else (first, second)), moves
        moves = balanced_opening(create_game(game), self.config.openings[game], self._rng.randrange(2**31))
        self._openings[pair] = (moves, first)
        return (first, second), moves

    def match_ended(self, live: LiveMatch, result: Result, changes: dict[str, float]) -> None:
        """Every end: ratings in the queues follow the store; a ladder match frees its players."""
        queue = self.queues.get(live.match.game.name)
        if queue is not None and live.pool == self.pool_of(queue.game) and live.levels == [None, None]:
            for name, change in changes.items():
                rating = queue.rating_of(name)
                if rating is not None:
                    queue.set_rating(name, rating + change)
            if changes:  # the new deviations too (the pairing prefers uncertain ratings): from the store
                task = asyncio.get_running_loop().create_task(self._refresh(queue, list(changes)))
                self._refreshing.add(task)
                task.add_done_callback(self._refreshing.discard)
        entry = self.matches.pop(live.id, None)
        if entry is not None:
            game, first, second = entry
            self.queues[game].match_over(first, second, self.now())
            self.kick()

    async def _refresh(self, queue: LadderQueue, names: list[str]) -> None:
        for name in names:
            try:
                rating = await self.store.get_rating(name, self.pool_of(queue.game))
            except StoreError:  # unreadable now, or no longer registered: the queue keeps what it has
                continue
            queue.set_rating(name, rating.rating, rating.deviation)

    def stop_timers(self) -> None:
        """No more pairing (a drain, then shutdown)."""
        self._stopped = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


# --- helpers -----------------------------------------------------------------------------------------
def _check_game(game: str) -> None:
    if game not in game_names():
        raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"no game {game!r}; see welcome.games")


async def _read(pending: Awaitable[Any]) -> Any:
    try:
        return await pending
    except StoreError:
        raise ProtocolError(ErrorCode.UNAVAILABLE, "the server cannot read the standings right now") from None
