"""A complete Store kept in dicts: for tests and ``arbiter serve --db :memory:``; nothing survives a restart.

Tokens are handled as a real store must: only a SHA-256 digest is kept, and the digest found
is compared again with ``hmac.compare_digest``. Ratings are saved as the server computes them
(the ``rate`` passed to ``finish_game``), as in every store; only rated games count.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Any

from arbiter.server.basics.pools import game_of
from arbiter.server.basics.ratings import INITIAL_DEVIATION, INITIAL_RATING, INITIAL_VOLATILITY

from .base import (
    MAX_REFUSALS_KEPT,
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
    check_result,
)
from .rows import TOKEN_PREFIX, crosstable_of


def token_digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


@dataclass
class _Game:
    start: GameStart
    moves: list[MoveRecord] = field(default_factory=list)
    result: str | None = None
    reason: str | None = None
    ended: float | None = None
    rating_changes: dict[str, float] = field(default_factory=dict)
    refusals: list[RefusedMove] = field(default_factory=list)
    refused: int = 0
    asides: list[AsideMove] = field(default_factory=list)
    swap: list[dict[str, Any]] = field(default_factory=list)

    def record(self) -> GameRecord:
        return GameRecord(
            self.start, list(self.moves), self.result, self.reason, self.ended, dict(self.rating_changes),
            list(self.refusals), self.refused, list(self.asides), list(self.swap),
        )  # fmt: skip


class MemoryStore(Store):
    def __init__(self) -> None:
        self._players: dict[str, Player] = {}
        self._digests: dict[str, bytes] = {}  # name → token digest
        self._by_digest: dict[bytes, str] = {}
        self._games: dict[str, _Game] = {}
        self._ratings: dict[tuple[str, str, int | None], Rating] = {}  # (player, pool, level) → the latest
        self._passwords: dict[str, str] = {}  # name → password hash
        self._owner_revoked: set[str] = set()  # players whose owner revoked them (the operator's is on Player)
        self._sessions: dict[str, tuple[bytes, str, float]] = {}  # selector → (secret hash, name, expires)
        # (player, pool, level) → (time, rating, deviation) after each of its rated games, oldest first
        self._history: dict[tuple[str, str, int | None], list[tuple[float, float, float]]] = {}

        self._unread: set[tuple[str, str]] = set()  # (player, match id): an end its client has not read
        self._reviews: dict[str, str] = {}  # match id → its review's JSON (a copy, as a database keeps)
        self._bans: dict[tuple[str, str], Ban] = {}  # (kind, target in lower case) → the ban
        self._bans_version = 0
        # by name in lower case: the tournament, its field (name in lower case → entry) and its pairings
        self._tournaments: dict[str, Tournament] = {}
        self._entries: dict[str, dict[str, TournamentEntry]] = {}
        self._pairings: dict[str, dict[tuple[int, int], TournamentGame]] = {}
        self._open = False

    async def open(self) -> None:
        self._open = True

    async def close(self) -> None:
        self._open = False

    # --- players ---------------------------------------------------------------------------------
    async def add_player(
        self, name: str, kind: PlayerKind, *, owner: str | None = None, password_hash: str | None = None
    ) -> str:
        check_new_player(name, kind, owner)
        if any(taken.lower() == name.lower() for taken in self._players):
            raise NameTaken(f"a player named {name!r} exists")
        if owner is not None and (owner not in self._players or self._players[owner].kind != "human"):
            raise UnknownPlayer(f"no person named {owner!r} to own the bot")
        token = f"{TOKEN_PREFIX}{secrets.token_urlsafe(32)}"  # shaped like a stored one: never starts with "-"
        digest = token_digest(token)
        self._players[name] = Player(len(self._players) + 1, name, kind, time.time(), owner=owner)
        if password_hash is not None:
            self._passwords[name] = password_hash
        self._digests[name] = digest
        self._by_digest[digest] = name
        return token

    async def authenticate(self, token: str) -> Player | None:
        digest = token_digest(token)
        name = self._by_digest.get(digest)
        if name is None:
            return None
        player = self._players[name]
        if player.revoked or not hmac.compare_digest(self._digests[name], digest):
            return None
        return player

    async def get_player(self, name: str) -> Player | None:
        return self._players.get(name)

    async def list_players(self) -> list[Player]:
        return sorted(self._players.values(), key=lambda p: p.name)

    async def reissue_token(self, name: str) -> str:
        player = self._players.get(name)
        if player is None:
            raise UnknownPlayer(f"no player named {name!r}")
        self._by_digest.pop(self._digests[name], None)
        token = f"{TOKEN_PREFIX}{secrets.token_urlsafe(32)}"
        self._digests[name] = token_digest(token)
        self._by_digest[self._digests[name]] = name
        self._owner_revoked.discard(name)
        self._players[name] = replace(player, revoked=player.revoked_by_operator)
        return token

    async def revoke_player(self, name: str, *, by_owner: bool = False) -> None:
        player = self._players.get(name)
        if player is None:
            raise UnknownPlayer(f"no player named {name!r}")
        if by_owner:
            self._owner_revoked.add(name)
        else:
            self._bans_version += 1
        self._players[name] = replace(
            player, revoked=True, revoked_by_operator=player.revoked_by_operator or not by_owner
        )

    async def reinstate_player(self, name: str) -> None:
        player = self._players.get(name)
        if player is None:
            raise UnknownPlayer(f"no player named {name!r}")
        self._players[name] = replace(player, revoked=name in self._owner_revoked, revoked_by_operator=False)

    async def bots_of(self, owner: str) -> list[Player]:
        return sorted((p for p in self._players.values() if p.owner == owner), key=lambda p: p.name)

    # --- accounts --------------------------------------------------------------------------------
    async def password_hash(self, name: str) -> str | None:
        return self._passwords.get(name)

    async def set_password_hash(self, name: str, password_hash: str) -> None:
        if name not in self._players:
            raise UnknownPlayer(f"no player named {name!r}")
        self._passwords[name] = password_hash

    async def add_session(self, name: str, selector: str, secret_hash: bytes, expires: float) -> None:
        if name not in self._players:
            raise UnknownPlayer(f"no player named {name!r}")
        now = time.time()
        for gone in [s for s, (_, _, until) in self._sessions.items() if until <= now]:
            del self._sessions[gone]
        self._sessions[selector] = (secret_hash, name, expires)

    async def session_player(self, selector: str, secret_hash: bytes, now: float) -> Player | None:
        found = self._sessions.get(selector)
        if found is None or found[2] <= now or not hmac.compare_digest(found[0], secret_hash):
            return None
        player = self._players[found[1]]
        return None if player.revoked else player

    async def end_sessions(self, *, selector: str | None = None, name: str | None = None) -> int:
        ended = [
            s for s, (_, owner, _) in self._sessions.items() if s == selector or (selector is None and owner == name)
        ]
        for gone in ended:
            del self._sessions[gone]
        return len(ended)

    # --- bans ------------------------------------------------------------------------------------
    async def add_ban(self, kind: BanKind, target: str, reason: str | None = None) -> Ban:
        target = ban_target(kind, target)
        check_ban_reason(reason)
        if kind == "player":
            target = self._registered_name(target)
        if (kind, target.lower()) in self._bans:
            raise AlreadyBanned(f"{kind} {target} is banned already")
        ban = Ban(kind, target, reason, time.time())
        self._bans[kind, target.lower()] = ban
        self._bans_version += 1
        return ban

    async def remove_ban(self, kind: BanKind, target: str) -> None:
        if self._bans.pop((kind, ban_target(kind, target).lower()), None) is None:
            raise NotBanned(f"{kind} {target} is not banned")
        self._bans_version += 1

    async def list_bans(self) -> list[Ban]:
        return list(self._bans.values())  # in the order they were added

    async def bans_version(self) -> int:
        return self._bans_version

    def _registered_name(self, name: str) -> str:
        for taken in self._players:
            if taken.lower() == name.lower():
                return taken
        raise UnknownPlayer(f"no player named {name!r}")

    # --- tournaments ------------------------------------------------------------------------------
    async def add_tournament(self, name: str, spec: dict[str, Any]) -> Tournament:
        check_player_name(name)
        if name.lower() in self._tournaments:
            raise TournamentExists(f"a tournament named {name!r} exists already")
        tournament = Tournament(name, json.loads(json.dumps(spec)), "open", time.time())
        self._tournaments[name.lower()] = tournament
        self._entries[name.lower()] = {}
        self._pairings[name.lower()] = {}
        return tournament

    async def get_tournament(self, name: str) -> Tournament | None:
        return self._tournaments.get(name.lower())

    async def list_tournaments(self) -> list[Tournament]:
        return list(self._tournaments.values())

    async def set_tournament_state(self, name: str, state: TournamentState) -> None:
        self._tournaments[self._tournament_key(name)] = replace(
            self._tournaments[self._tournament_key(name)], state=state
        )

    async def enter_tournament(self, name: str, player: str) -> None:
        field = self._entries[self._tournament_key(name)]
        registered = self._registered_name(player)
        if registered.lower() in field:
            raise AlreadyEntered(f"{registered} is in {name}'s field already")
        field[registered.lower()] = TournamentEntry(registered, None)

    async def withdraw_from_tournament(self, name: str, player: str) -> None:
        field = self._entries[self._tournament_key(name)]
        entry = field.get(player.lower())
        if entry is None or entry.withdrawn:
            raise NotEntered(f"{player} is not in {name}'s field")
        field[player.lower()] = replace(entry, withdrawn=True)

    async def tournament_entries(self, name: str) -> list[TournamentEntry]:
        return list(self._entries[self._tournament_key(name)].values())

    async def add_tournament_games(
        self, name: str, games: list[TournamentGame], *, seeds: dict[str, int] | None = None,
        state: TournamentState | None = None,
    ) -> None:  # fmt: skip
        key = self._tournament_key(name)
        pairings = self._pairings[key]
        for game in games:
            if (game.round, game.board) in pairings:
                raise TournamentError(f"{name} has a round {game.round} board {game.board} already")
        pairings.update({(game.round, game.board): game for game in games})
        field = self._entries[key]
        for player, seed in (seeds or {}).items():
            if player.lower() in field:
                field[player.lower()] = replace(field[player.lower()], seed=seed)
        if state is not None:
            await self.set_tournament_state(name, state)

    async def tournament_games(self, name: str) -> list[TournamentGame]:
        return [game for _, game in sorted(self._pairings[self._tournament_key(name)].items())]

    async def update_tournament_game(self, name: str, game: TournamentGame) -> None:
        pairings = self._pairings[self._tournament_key(name)]
        stored = pairings.get((game.round, game.board))
        if stored is None:
            raise TournamentError(f"{name} has no round {game.round} board {game.board}")
        pairings[game.round, game.board] = replace(stored, match_id=game.match_id, score=game.score,
                                                   forfeit=game.forfeit, cause=game.cause)  # fmt: skip

    def _tournament_key(self, name: str) -> str:
        if name.lower() not in self._tournaments:
            raise UnknownTournament(f"no tournament named {name!r}")
        return name.lower()

    # --- games -----------------------------------------------------------------------------------
    async def start_game(self, start: GameStart) -> None:
        if start.match_id in self._games:
            raise StoreError(f"match {start.match_id} was already started")
        self._games[start.match_id] = _Game(start)

    def record_move(self, match_id: str, move: MoveRecord) -> None:
        game = self._games.get(match_id)
        if game is not None and game.ended is None:
            game.moves.append(move)

    def record_swap(self, match_id: str, choices: list[dict[str, Any]], *, swapped: bool) -> None:
        game = self._games.get(match_id)
        if game is not None and game.ended is None:
            game.swap = list(choices)
            if swapped:
                start = game.start
                game.start = replace(start, players=start.players[::-1], levels=start.levels[::-1])

    def record_refusal(self, match_id: str, refusal: RefusedMove) -> None:
        game = self._games.get(match_id)
        if game is not None and game.ended is None:
            game.refused += 1
            if game.refused <= MAX_REFUSALS_KEPT:
                game.refusals.append(refusal)

    def record_asides(self, match_id: str, asides: list[AsideMove], keep: int | None = None) -> None:
        game = self._games.get(match_id)
        if game is not None and game.ended is None:
            game.asides.extend(asides)
            if keep is not None:
                del game.moves[keep:]

    async def finish_game(
        self, match_id: str, result: str | None, reason: str, ended: float, rate: Rater | None = None
    ) -> dict[str, float]:
        check_result(result)
        game = self._games.get(match_id)
        if game is None:
            raise StoreError(f"no game with match id {match_id!r}")
        if game.ended is not None:
            if (game.result, game.reason) == (result, reason):  # a retried end: not rated again
                return dict(game.rating_changes)
            raise StoreError(f"match {match_id!r} is already finished")
        if rate is not None and result is not None:
            game.rating_changes = self._rate(game.start, result, ended, rate)
        game.result, game.reason, game.ended = result, reason, ended
        self._unread.update((name, match_id) for name in game.start.players if self._registered(name))
        return dict(game.rating_changes)

    def _rate(self, start: GameStart, result: str, at: float, rate: Rater) -> dict[str, float]:
        """Save both identities' ratings after a rated game (nothing for an unrated one); the changes."""
        if not start.rated or not self._registered(*start.players):
            return {}
        before = tuple(
            self._current(name, start.pool, level) for name, level in zip(start.players, start.levels, strict=True)
        )
        changes = {}
        for old, new in zip(before, rate(before[0], before[1], result), strict=True):
            self._ratings[old.player, old.pool, old.level] = new
            self._history.setdefault((old.player, old.pool, old.level), []).append((at, new.rating, new.deviation))
            changes[old.player] = new.rating - old.rating
        return changes

    async def rebuild_ratings(self, rate: Rater) -> int:
        self._ratings.clear()
        self._history.clear()
        rated = sorted((g for g in self._games.values() if g.ended is not None and g.result is not None),
                       key=lambda g: g.ended or 0.0)  # fmt: skip
        for game in rated:
            assert game.result is not None
            game.rating_changes = self._rate(game.start, game.result, game.ended or 0.0, rate)
        return sum(1 for g in rated if g.rating_changes)

    async def get_game(self, match_id: str) -> GameRecord | None:
        game = self._games.get(match_id)
        return None if game is None else game.record()

    async def list_games(
        self,
        *,
        player: str | None = None,
        game: str | None = None,
        limit: int | None = 100,
        finished: bool = False,
        after: str | None = None,
    ) -> list[GameRecord]:
        games = list(reversed(self._games.values()))  # newest first
        if after is not None:
            ids = [g.start.match_id for g in games]
            games = games[ids.index(after) + 1 :] if after in ids else []
        found = [
            g.record()
            for g in games
            if (player is None or player.lower() in (p.lower() for p in g.start.players))
            and (game is None or g.start.game == game)
            and (not finished or g.ended is not None)
        ]
        return found if limit is None else found[:limit]

    async def discard_game(self, match_id: str) -> None:
        game = self._games.get(match_id)
        if game is not None and game.ended is not None:
            del self._games[match_id]
            self._reviews.pop(match_id, None)

    async def stream_games(self, *, batch_size: int = STREAM_BATCH) -> AsyncIterator[GameRecord]:
        """(Everything is in memory already: ``batch_size`` changes nothing here.)"""
        games = list(self._games.values())  # insertion order: the order they were stored
        finished = sorted((g for g in games if g.ended is not None), key=lambda g: (g.start.pool, g.ended or 0.0))
        for game in finished + [g for g in games if g.ended is None]:
            yield game.record()

    async def orphan_moves(self) -> dict[int, int]:
        return {}  # record_move keeps no move of a game it does not have

    async def interrupted_games(self) -> list[GameRecord]:
        return [g.record() for g in self._games.values() if g.ended is None]

    # --- ratings ---------------------------------------------------------------------------------
    async def get_rating(self, player: str, pool: str, level: int | None = None) -> Rating:
        if player not in self._players:
            raise UnknownPlayer(f"no player named {player!r}")
        return self._current(player, pool, level)

    async def rating_history(
        self, player: str, pool: str, level: int | None = None
    ) -> list[tuple[float, float, float]]:
        if player not in self._players:
            raise UnknownPlayer(f"no player named {player!r}")
        return list(self._history.get((player, pool, level), []))

    def _current(self, player: str, pool: str, level: int | None) -> Rating:
        found = self._ratings.get((player, pool, level))
        return found or Rating(player, pool, INITIAL_RATING, INITIAL_DEVIATION, INITIAL_VOLATILITY, level=level)

    async def leaderboard(self, pool: str) -> list[Rating]:
        board = [r for (name, of, _), r in self._ratings.items() if of == pool and not self._players[name].revoked]
        return sorted(board, key=lambda r: (-r.rating, r.label.lower()))

    async def rating_pools(self, game: str | None = None) -> list[str]:
        return sorted({pool for _, pool, _ in self._ratings if game is None or game_of(pool) == game})

    async def rated_results(self, pool: str) -> list[tuple[str, str, str]]:
        rated = [g for g in self._games.values() if g.start.pool == pool and g.start.rated and g.result is not None]
        rated.sort(key=lambda g: g.ended or 0.0)  # stable: games that ended together keep their order
        return [(*g.start.identities, g.result) for g in rated if g.result is not None]

    async def crosstable(self, pool: str) -> dict[str, dict[str, list[int]]]:
        return crosstable_of(await self.rated_results(pool))

    def _registered(self, *names: str) -> bool:
        return all(name in self._players for name in names)

    # --- unread ends --------------------------------------------------------------------------
    async def unread_ends(self, player: str, since: float, limit: int) -> list[GameRecord]:
        games = [g for name, match_id in self._unread if name == player and (g := self._games.get(match_id))]
        games = [g for g in games if g.ended is not None and g.ended >= since]
        games.sort(key=lambda g: g.ended or 0.0)
        return [g.record() for g in games[-limit:]] if limit > 0 else []

    async def ends_read(self, reads: list[tuple[str, str]]) -> None:
        self._unread.difference_update(reads)

    async def save_review(self, match_id: str, review: dict[str, Any]) -> None:
        self._reviews[match_id] = json.dumps(review)

    async def get_review(self, match_id: str) -> dict[str, Any] | None:
        text = self._reviews.get(match_id)
        return None if text is None else json.loads(text)
