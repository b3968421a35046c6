"""A complete Store kept in dicts: for tests and ``arbiter serve --db :memory:``; nothing survives a restart.

Tokens are handled as a real store must: only a SHA-256 digest is kept, and the digest found
is compared again with ``hmac.compare_digest``. Ratings are not computed here (every player
keeps the default rating and ``finish_game`` reports no change); the ladder brings them.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass, field

from .base import (
    GameRecord,
    GameStart,
    MoveRecord,
    NameTaken,
    Player,
    PlayerKind,
    Rating,
    Store,
    StoreError,
    UnknownPlayer,
    check_player_name,
)

DEFAULT_RATING = 1500.0
DEFAULT_DEVIATION = 350.0
DEFAULT_VOLATILITY = 0.06


def token_digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


@dataclass
class _Game:
    start: GameStart
    moves: list[MoveRecord] = field(default_factory=list)
    result: str | None = None
    reason: str | None = None
    ended: float | None = None

    def record(self) -> GameRecord:
        return GameRecord(self.start, list(self.moves), self.result, self.reason, self.ended)


class MemoryStore(Store):
    def __init__(self) -> None:
        self._players: dict[str, Player] = {}
        self._digests: dict[str, bytes] = {}  # name → token digest
        self._by_digest: dict[bytes, str] = {}
        self._games: dict[str, _Game] = {}
        self._open = False

    async def open(self) -> None:
        self._open = True

    async def close(self) -> None:
        self._open = False

    # --- players ---------------------------------------------------------------------------------
    async def add_player(self, name: str, kind: PlayerKind) -> str:
        check_player_name(name)
        if kind not in ("bot", "human"):
            raise StoreError(f"a player is a bot or a human, not {kind!r}")
        if name in self._players:
            raise NameTaken(f"a player named {name!r} exists")
        token = secrets.token_urlsafe(32)
        digest = token_digest(token)
        self._players[name] = Player(len(self._players) + 1, name, kind, time.time())
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
        token = secrets.token_urlsafe(32)
        self._digests[name] = token_digest(token)
        self._by_digest[self._digests[name]] = name
        self._players[name] = Player(player.id, player.name, player.kind, player.created)
        return token

    async def revoke_player(self, name: str) -> None:
        player = self._players.get(name)
        if player is None:
            raise UnknownPlayer(f"no player named {name!r}")
        self._players[name] = Player(player.id, player.name, player.kind, player.created, revoked=True)
        self._by_digest.pop(self._digests[name], None)

    # --- games -----------------------------------------------------------------------------------
    async def start_game(self, start: GameStart) -> None:
        if start.match_id in self._games:
            raise StoreError(f"match {start.match_id} was already started")
        self._games[start.match_id] = _Game(start)

    def record_move(self, match_id: str, move: MoveRecord) -> None:
        game = self._games.get(match_id)
        if game is not None and game.ended is None:
            game.moves.append(move)

    async def finish_game(self, match_id: str, result: str | None, reason: str, ended: float) -> dict[str, float]:
        game = self._games.get(match_id)
        if game is None:
            raise StoreError(f"no game {match_id} was started")
        game.result, game.reason, game.ended = result, reason, ended
        return {}

    async def get_game(self, match_id: str) -> GameRecord | None:
        game = self._games.get(match_id)
        return None if game is None else game.record()

    async def list_games(
        self, *, player: str | None = None, game: str | None = None, limit: int | None = 100
    ) -> list[GameRecord]:
        found = [
            g.record()
            for g in reversed(self._games.values())
            if (player is None or player in g.start.players) and (game is None or g.start.game == game)
        ]
        return found if limit is None else found[:limit]

    async def interrupted_games(self) -> list[GameRecord]:
        return [g.record() for g in self._games.values() if g.ended is None]

    # --- ratings ---------------------------------------------------------------------------------
    async def get_rating(self, player: str, game: str) -> Rating:
        wins = draws = losses = 0
        for record in self._finished(game):
            if player in record.start.players:
                score = _score(record, record.start.players.index(player))
                wins += score == 1.0
                draws += score == 0.5
                losses += score == 0.0
        return Rating(
            player,
            game,
            DEFAULT_RATING,
            DEFAULT_DEVIATION,
            DEFAULT_VOLATILITY,
            wins + draws + losses,
            wins,
            draws,
            losses,
        )

    async def leaderboard(self, game: str) -> list[Rating]:
        names = sorted({name for record in self._finished(game) for name in record.start.players})
        return [await self.get_rating(name, game) for name in names]

    async def crosstable(self, game: str) -> dict[str, dict[str, list[int]]]:
        table: dict[str, dict[str, list[int]]] = {}
        for record in self._finished(game):
            if not record.start.rated:
                continue
            for side in (0, 1):
                me, other = record.start.players[side], record.start.players[1 - side]
                score = _score(record, side)
                cell = table.setdefault(me, {}).setdefault(other, [0, 0, 0])
                cell[{1.0: 0, 0.5: 1, 0.0: 2}[score]] += 1
        return table

    def _finished(self, game: str) -> list[GameRecord]:
        """Games of ``game`` with a result (aborted games have none and do not count)."""
        return [g.record() for g in self._games.values() if g.start.game == game and g.result is not None]


def _score(record: GameRecord, side: int) -> float:
    """The points ``side`` scored: 1, 0.5 or 0."""
    if record.result == "1/2-1/2":
        return 0.5
    return 1.0 if (record.result == "1-0") == (side == 0) else 0.0
