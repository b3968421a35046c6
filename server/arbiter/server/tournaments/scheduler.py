"""The tournaments on the server: each running tournament's games started when both players are
free and online, forfeits, results written back, the next Swiss round paired, the end.

Everything a tournament is lives in the store (its settings, field, pairings and each game's
match id and score), so the scheduler keeps almost nothing: each pass reads the tournaments and
acts on what it finds, and a restarted server (or the next node to hold the lease in a cluster)
goes on where the last one stopped. A game cut short by a crash is voided by the restart rule
(recovery.py) and played again; a result the server missed (it stopped between the end and its
write here) is read from the stored game.

A pass runs every ``interval_s``, when a tournament game ends, and on ``kick``. A game starts when
both players are connected and below their capacity (their hello's, and the server's limit), in
round then board order, up to the tournament's ``concurrency``. A player that is not connected while
its opponent waits for it, free, forfeits the game once ``grace_s`` has passed; a withdrawn player's
games not yet started are its forfeits. In a cluster one node schedules at a time: the holder of
the ladder's lease (``may_run``), and tournament matches live on it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from arbiter.engine import create_game
from arbiter.protocol.codec import encode
from arbiter.protocol.errors import ErrorCode, ProtocolError
from arbiter.protocol.messages import Request
from arbiter.protocol.tournaments import TournamentEnter
from arbiter.server.store.base import (
    RESIGNED,
    AlreadyEntered,
    Store,
    StoreError,
    Tournament,
    TournamentEntry,
    TournamentGame,
    UnknownPlayer,
    UnknownTournament,
)

from ..play.match import Result
from ..play.matches import LiveMatch, Matches
from ..play.players import OnlinePlayer, Roster
from ..play.session import Handler, Session
from ..ranking.openings import balanced_opening
from . import lifecycle
from .spec import SpecError, TournamentSpec

log = logging.getLogger("arbiter.server.tournaments")

# How a game's end is kept as its cause, when it matters (the rules' own ends need none).
CAUSES = {"timeout": "time", "abandoned": "abandoned", "banned": "banned", "resign": "resign"}
FORFEIT_ABSENT = "absent"
FORFEIT_WITHDRAWN = "withdrawn"
FORFEIT_BYE = "bye"
GameKey = tuple[str, int, int]  # tournament (lower case), round, board


class TournamentScheduler:
    def __init__(
        self,
        store: Store,
        *,
        roster: Roster,
        matches: Matches,
        max_matches: int,
        interval_s: float,
        now: Callable[[], float],
    ) -> None:
        self.store = store
        self.roster = roster
        self.matches = matches
        self.max_matches = max_matches
        self.interval_s = interval_s
        self.now = now
        self.playing: dict[str, GameKey] = {}  # live tournament match id → its pairing
        self._waiting: dict[GameKey, float] = {}  # a pairing whose player is absent → since when (now())
        # What each entrant was last told of its coming games: (tournament, player) → (session, state, games).
        self._told: dict[tuple[str, str], tuple[object, str, list[dict[str, Any]]]] = {}
        self._task: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._again = False
        self._stopped = False
        self._writes: set[asyncio.Task[None]] = set()
        # Whether this server schedules now: a cluster's node only while it holds the ladder's lease.
        self.may_run: Callable[[], bool] = lambda: True
        matches.end_listeners.append(self.match_ended)

    def handlers(self) -> dict[type[Request], Handler]:
        return {TournamentEnter: self.on_enter}

    async def on_enter(self, session: Session, msg: TournamentEnter) -> None:
        """A registered player enters an open tournament; ``ok`` if it is in the field already, so a
        bot may send it after every welcome."""
        player = session.player
        assert player is not None
        if player.identity.guest:
            raise ProtocolError(ErrorCode.RATED_NEEDS_ACCOUNT, "tournaments are for registered players: log in")
        try:
            await lifecycle.enter(self.store, msg.tournament, player.name)
        except AlreadyEntered:
            pass
        except UnknownTournament:
            raise ProtocolError(ErrorCode.UNKNOWN_TOURNAMENT, f"no tournament named {msg.tournament!r}") from None
        except lifecycle.TournamentClosed as error:
            raise ProtocolError(ErrorCode.ENTRY_CLOSED, str(error)) from None
        except UnknownPlayer:
            raise ProtocolError(ErrorCode.RATED_NEEDS_ACCOUNT, "this player is no longer registered") from None
        except StoreError:
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the server cannot enter tournaments right now") from None
        session.ok(msg)

    def start(self) -> None:
        """Schedule from now on (passes every ``interval_s``)."""
        self._stopped = False
        self.kick()

    def kick(self) -> None:
        """A pass now (or right after the one under way)."""
        if self._stopped:
            return
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._pass_until_settled())
        else:
            self._again = True

    def stop_timers(self) -> None:
        """No more passes (a drain, then shutdown); live tournament games finish and are written."""
        self._stopped = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def wait_idle(self) -> None:
        """Until the pass under way and every result's write are done (tests, shutdown)."""
        while (self._task is not None and not self._task.done()) or self._writes:
            await asyncio.wait([t for t in (self._task, *self._writes) if t is not None and not t.done()])

    async def _pass_until_settled(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._again = True
        while self._again and not self._stopped:
            self._again = False
            try:
                await self._pass()
            except StoreError as error:  # the store is unavailable: the next pass tries again
                log.warning("tournaments not scheduled: %s", error)
        if not self._stopped:
            self._timer = asyncio.get_running_loop().call_later(self.interval_s, self.kick)

    async def _pass(self) -> None:
        if not self.may_run():
            return
        for tournament in await self.store.list_tournaments():
            try:
                spec = TournamentSpec.check(tournament.spec)
            except SpecError as error:
                log.error("tournament not run: %s", error, extra={"tournament": tournament.name})
                continue
            if tournament.state == "open" and spec.start_at is not None and time.time() >= spec.start_at:
                try:
                    await lifecycle.start(self.store, tournament.name)
                except lifecycle.TournamentClosed as error:
                    log.warning("tournament not started: %s", error, extra={"tournament": tournament.name})
                    continue
                tournament = replace(tournament, state="running")
            if tournament.state in ("running", "paused"):
                await self._run(tournament, spec)

    async def _run(self, tournament: Tournament, spec: TournamentSpec) -> None:
        name = tournament.name
        entries = await self.store.tournament_entries(name)
        games = await self.store.tournament_games(name)
        withdrawn = {entry.name for entry in entries if entry.withdrawn}
        live = 0
        for game in games:
            if game.score is not None:
                continue
            if game.match_id is not None:
                if game.match_id in self.playing:
                    live += 1
                else:
                    live += await self._settle_unknown(name, game)
                continue
            decided = _decided_without_play(game, withdrawn)
            if decided is not None:
                await self.store.update_tournament_game(name, decided)
        games = await self.store.tournament_games(name)
        if all(game.score is not None for game in games):
            if spec.format == "swiss" and await lifecycle.next_swiss_round(
                self.store, tournament, spec, entries, games
            ):
                self._again = True
                return
            await self.store.set_tournament_state(name, "finished")
            self._tell(replace(tournament, state="finished"), spec, entries, games)
            log.info("tournament finished", extra={"tournament": name, "games": len(games)})
            return
        self._tell(tournament, spec, entries, games)
        if tournament.state == "paused":
            return
        for game in games:
            if live >= spec.concurrency:
                break
            if game.score is not None or game.match_id is not None:
                continue
            assert game.white is not None
            black, white = self._free(game.black), self._free(game.white)
            key = (name.lower(), game.round, game.board)
            if black is not None and white is not None:
                self._waiting.pop(key, None)
                if await self._start(tournament, spec, game, black, white):
                    live += 1
                continue
            absent = _absent(self.roster, game, black, white)
            if absent is None:
                self._waiting.pop(key, None)
                continue
            since = self._waiting.setdefault(key, self.now())
            if self.now() - since >= spec.grace_s:
                self._waiting.pop(key, None)
                score = 0.0 if absent == game.black else 1.0
                await self.store.update_tournament_game(name, replace(game, score=score, forfeit=FORFEIT_ABSENT))
                log.info("tournament game forfeited", extra={"tournament": name, "player": absent, "round": game.round})

    def _tell(self, tournament: Tournament, spec: TournamentSpec, entries: list[TournamentEntry],
              games: list[TournamentGame]) -> None:  # fmt: skip
        """Each connected entrant hears of its games not decided yet when they change, and after
        each new connection (``tournament_games``, SPEC.md section 16)."""
        for entry in entries:
            player = self.roster.get(entry.name)
            if player is None or player.session is None:
                continue
            coming = [
                {"round": g.round, "board": g.board, "color": 0 if g.black == entry.name else 1,
                 "opponent": g.white if g.black == entry.name else g.black}
                for g in games
                if g.score is None and g.white is not None and entry.name in (g.black, g.white)
            ]  # fmt: skip
            key = (tournament.name.lower(), entry.name)
            told = self._told.get(key)
            if told is not None and told[0] is player.session and told[1:] == (tournament.state, coming):
                continue
            self._told[key] = (player.session, tournament.state, coming)
            player.send(encode({"type": "tournament_games", "tournament": tournament.name, "state": tournament.state,
                                "game": spec.game, "params": spec.params, "clock": spec.clock_spec().describe(),
                                "games": coming}))  # fmt: skip

    def _free(self, name: str) -> OnlinePlayer | None:
        """The player if it is connected and below its capacity."""
        player = self.roster.get(name)
        if player is None or not player.connected:
            return None
        limit = min(self.max_matches, player.capacity or self.max_matches)
        return player if len(player.matches) < limit else None

    async def _start(
        self, tournament: Tournament, spec: TournamentSpec, game: TournamentGame,
        black: OnlinePlayer, white: OnlinePlayer,
    ) -> bool:  # fmt: skip
        rules = create_game(spec.game, spec.params)
        opening: list[Any] = []
        if spec.opening_plies and game.opening is not None:
            opening = balanced_opening(rules, spec.opening_plies, spec.seed * 100_003 + game.opening)
        try:
            live = await self.matches.start((black, white), rules, spec.clock_spec(), rated=spec.rated, opening=opening)
        except ProtocolError as error:
            log.warning("tournament game not started: %s", error.message, extra={"tournament": tournament.name})
            return False
        self.playing[live.id] = (tournament.name, game.round, game.board)
        if live.match.over:  # ended as it started (an opening that ends it): match_ended has it
            return False
        await self.store.update_tournament_game(tournament.name, replace(game, match_id=live.id))
        return True

    async def _settle_unknown(self, name: str, game: TournamentGame) -> int:
        """A pairing whose match this server did not start (it restarted, or the lease moved): its
        stored result, or played again if it was voided; 1 while it may still be live."""
        assert game.match_id is not None
        if game.match_id in self.matches.live:  # adopted here after a failover
            self.playing[game.match_id] = (name, game.round, game.board)
            return 1
        record = await self.store.get_game(game.match_id)
        if record is not None and record.ended is None:
            return 1  # another node's, or unread yet: decided when it ends
        if record is not None and record.result is not None:
            await self.store.update_tournament_game(name, scored(game, record.result, record.reason, _resigned(record)))
        else:
            await self.store.update_tournament_game(name, replace(game, match_id=None))
        return 0

    def match_ended(self, live: LiveMatch, result: Result, changes: dict[str, float]) -> None:
        """A tournament game's end is written to its pairing (its record is in the store by now)."""
        key = self.playing.pop(live.id, None)
        if key is None:
            return
        task = asyncio.get_running_loop().create_task(self._write_result(key, live.id))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    async def _write_result(self, key: GameKey, match_id: str) -> None:
        name, round_, board = key
        try:
            games = {(g.round, g.board): g for g in await self.store.tournament_games(name)}
            game = games[round_, board]
            record = await self.store.get_game(match_id)
            if record is None or record.result is None:  # voided (interrupted, aborted): played again
                game = replace(game, match_id=None, score=None)
            else:
                game = scored(replace(game, match_id=match_id), record.result, record.reason, _resigned(record))
            await self.store.update_tournament_game(name, game)
        except StoreError as error:  # the next pass reads the stored game instead
            log.warning("tournament result not written yet: %s", error, extra={"tournament": name})
        self.kick()


def scored(game: TournamentGame, result: str, reason: str | None, resigned: str | None) -> TournamentGame:
    """The pairing with its game's result: black's score and the cause, when it matters."""
    score = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
    cause = resigned or CAUSES.get(reason or "")
    return replace(game, score=score, cause=cause)


def _resigned(record: Any) -> str | None:
    """The cause a bot resigned with (its engine crashed, hung, played illegally), if it did."""
    for refusal in record.refusals:
        if refusal.code.startswith(RESIGNED):
            return str(refusal.code[len(RESIGNED) :])
    return None


def _decided_without_play(game: TournamentGame, withdrawn: set[str]) -> TournamentGame | None:
    """A bye, or a game of a withdrawn player, scored as its forfeit."""
    if game.white is None:
        return replace(game, score=1.0, forfeit=FORFEIT_BYE)
    if game.black in withdrawn:
        return replace(game, score=0.0, forfeit=FORFEIT_WITHDRAWN)
    if game.white in withdrawn:
        return replace(game, score=1.0, forfeit=FORFEIT_WITHDRAWN)
    return None


def _absent(roster: Roster, game: TournamentGame, black: OnlinePlayer | None, white: OnlinePlayer | None) -> str | None:
    """The player who keeps a free opponent waiting by not being connected, if one does."""
    for waiting, other in ((black, game.white), (white, game.black)):
        if waiting is not None and other is not None:
            player = roster.get(other)
            if player is None or not player.connected:
                return other
    return None
