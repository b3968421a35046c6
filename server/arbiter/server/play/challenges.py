"""Direct challenges and open seeks: created, offered, accepted into a match, declined, cancelled, expired.

A seek is a challenge without a target: it is listed in the lobby and any other player may
accept it. Whenever a challenge closes, for whatever reason, ``challenge_closed`` goes to its
challenger and its target (seeks: to the challenger, and ``seek_removed`` to the lobby). An accepted
challenge becomes a match through the ``Matches`` it is given.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from arbiter.engine import Game, ParamError, create_game, game_names
from arbiter.protocol.codec import encode
from arbiter.protocol.errors import ErrorCode, ProtocolError
from arbiter.protocol.messages import Accept, Cancel, Challenge, Decline, Request

from ..basics.clock import Alarm, ClockSpec
from ..config import ServerConfig
from .lobby import Lobby
from .matches import Matches, check_features
from .players import OnlinePlayer, Roster, same_owner
from .session import Handler, Session


class OpenChallenge:
    __slots__ = ("alarm", "challenger", "clock", "color", "expires_at", "game", "id", "level", "rated", "target")

    def __init__(
        self,
        challenge_id: str,
        challenger: OnlinePlayer,
        target: OnlinePlayer | None,
        game: Game,
        clock: ClockSpec,
        color: str,
        rated: bool,
        expires_at: float,
        alarm: Alarm,
        level: int | None = None,
    ) -> None:
        self.id = challenge_id
        self.challenger = challenger
        self.target = target
        self.game = game
        self.clock = clock
        self.color = color
        self.rated = rated
        self.expires_at = expires_at
        self.alarm = alarm
        self.level = level  # the strength asked of the target bot (None: its own default)

    def describe(self, now: float) -> dict[str, Any]:
        return {
            "id": self.id,
            "from": self.challenger.name,
            "to": None if self.target is None else self.target.name,
            "game": self.game.name,
            "params": self.game.params,
            "clock": self.clock.describe(),
            "color": self.color,
            "rated": self.rated,
            "level": self.level,
            "expires_ms": max(0, int((self.expires_at - now) * 1000)),
        }


class Challenges:
    def __init__(
        self, config: ServerConfig, roster: Roster, lobby: Lobby, matches: Matches, *, now: Callable[[], float]
    ) -> None:
        self.config = config
        self.roster = roster
        self.lobby = lobby
        self.matches = matches
        self.now = now
        self.open: dict[str, OpenChallenge] = {}
        # Told (id, True) when a challenge or seek opens and (id, False) when it closes: a cluster's directory.
        self.listeners: list[Callable[[str, bool], None]] = []

    def handlers(self) -> dict[type[Request], Handler]:
        return {Challenge: self.on_challenge, Accept: self.on_accept, Decline: self.on_decline, Cancel: self.on_cancel}

    def seeks(self) -> list[dict[str, Any]]:
        """The open seeks as the lobby lists them."""
        now = self.now()
        return [c.describe(now) for c in self.open.values() if c.target is None]

    # --- requests ----------------------------------------------------------------------------------
    def on_challenge(self, session: Session, msg: Challenge) -> None:
        player = session.player
        assert player is not None
        config = self.config
        game = self._game(msg.game, msg.params)
        clock = self._clock(msg.clock)
        target = None
        if msg.to is not None:
            target = self.roster.get(msg.to)
            if target is None or not target.connected:
                raise ProtocolError(ErrorCode.UNKNOWN_PLAYER, f"no player named {msg.to!r} is online")
            if target is player:
                raise ProtocolError(ErrorCode.SELF_CHALLENGE, "you cannot challenge yourself")
        self._check_level(msg.level, target)
        check_features(game, (player,) if target is None else (player, target))
        if msg.rated and (player.identity.guest or (target is not None and target.identity.guest)):
            raise ProtocolError(ErrorCode.RATED_NEEDS_ACCOUNT, "rated games are between registered players only")
        if msg.rated and target is not None:
            _check_owners(player, target)
        if sum(1 for c in self.open.values() if c.challenger is player) >= config.max_open_challenges:
            raise ProtocolError(ErrorCode.TOO_MANY_CHALLENGES, "you have too many open challenges and seeks")
        challenge_id = secrets.token_urlsafe(6)
        while challenge_id in self.open:
            challenge_id = secrets.token_urlsafe(6)
        now = self.now()
        ttl = config.seek_ttl_s if target is None else config.challenge_ttl_s
        challenge = OpenChallenge(challenge_id, player, target, game, clock, msg.color, msg.rated, now + ttl,
                                  Alarm(lambda: self._close(challenge, "expired"), now=self.now),
                                  msg.level)  # fmt: skip
        self.open[challenge_id] = challenge
        for listener in self.listeners:
            listener(challenge_id, True)
        challenge.alarm.set(challenge.expires_at)
        described = challenge.describe(now)
        session.reply(msg, {"type": "challenge_created", "challenge": described})
        if target is None:
            self.lobby.seek_added(described)
        else:
            target.send(encode({"type": "challenge_offered", "challenge": described}))

    async def on_accept(self, session: Session, msg: Accept) -> None:
        player = session.player
        assert player is not None
        challenge = self._find(msg.challenge)
        if challenge.target is not None and challenge.target is not player:
            raise ProtocolError(ErrorCode.NOT_YOUR_CHALLENGE, "this challenge is addressed to another player")
        if challenge.challenger is player:
            raise ProtocolError(ErrorCode.SELF_CHALLENGE, "you cannot accept your own challenge; cancel it")
        if challenge.rated and player.identity.guest:
            raise ProtocolError(ErrorCode.RATED_NEEDS_ACCOUNT, "rated games are between registered players only")
        if challenge.rated:
            _check_owners(challenge.challenger, player)
        check_features(challenge.game, (player,))
        limit = self.config.max_matches
        if len(player.matches) >= limit or len(challenge.challenger.matches) >= limit:
            raise ProtocolError(ErrorCode.TOO_MANY_MATCHES, f"a player may play at most {limit} matches at once")
        colour = {"first": 0, "second": 1}.get(challenge.color, secrets.randbelow(2))
        players = (challenge.challenger, player) if colour == 0 else (player, challenge.challenger)
        # The level is asked of the acceptor (a direct challenge's target); the challenger plays as it is.
        levels = (None, challenge.level) if colour == 0 else (challenge.level, None)
        self._remove(challenge)
        try:
            live = await self.matches.start(
                players, challenge.game, challenge.clock, rated=challenge.rated, levels=levels, challenge=challenge.id
            )
        except ProtocolError:
            self._announce_closed(challenge, "failed", None)
            raise
        self._announce_closed(challenge, "accepted", live.id)
        session.ok(msg, match=live.id)

    def on_decline(self, session: Session, msg: Decline) -> None:
        challenge = self._find(msg.challenge)
        if challenge.target is not session.player:
            raise ProtocolError(ErrorCode.NOT_YOUR_CHALLENGE, "only the challenged player may decline")
        self._close(challenge, "declined")
        session.ok(msg)

    def on_cancel(self, session: Session, msg: Cancel) -> None:
        challenge = self._find(msg.challenge)
        if challenge.challenger is not session.player:
            raise ProtocolError(ErrorCode.NOT_YOUR_CHALLENGE, "only the challenger may cancel")
        self._close(challenge, "cancelled")
        session.ok(msg)

    def drop_player(self, player: OnlinePlayer) -> None:
        """The player disconnected: its challenges and seeks, and those addressed to it, close."""
        for challenge in list(self.open.values()):
            if challenge.challenger is player or challenge.target is player:
                self._close(challenge, "offline")

    def stop_timers(self) -> None:
        for challenge in self.open.values():
            challenge.alarm.cancel()

    # --- helpers -----------------------------------------------------------------------------------
    def _find(self, challenge_id: str) -> OpenChallenge:
        challenge = self.open.get(challenge_id)
        if challenge is None:
            raise ProtocolError(ErrorCode.UNKNOWN_CHALLENGE, f"no open challenge {challenge_id!r}")
        return challenge

    def _close(self, challenge: OpenChallenge, reason: str) -> None:
        if self.open.get(challenge.id) is challenge:
            self._remove(challenge)
            self._announce_closed(challenge, reason, None)

    def _remove(self, challenge: OpenChallenge) -> None:
        del self.open[challenge.id]
        challenge.alarm.cancel()
        for listener in self.listeners:
            listener(challenge.id, False)

    def _announce_closed(self, challenge: OpenChallenge, reason: str, match_id: str | None) -> None:
        message: dict[str, Any] = {"type": "challenge_closed", "challenge": challenge.id, "reason": reason}
        if match_id is not None:
            message["match"] = match_id
        data = encode(message)
        challenge.challenger.send(data)
        if challenge.target is not None:
            challenge.target.send(data)
        else:
            self.lobby.seek_removed(challenge.id, reason)

    def _game(self, name: str, params: dict[str, Any] | None) -> Game:
        if name not in game_names():
            raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"no game {name!r}; see welcome.games")
        try:
            return create_game(name, params)
        except ParamError as error:
            raise ProtocolError(ErrorCode.BAD_PARAMS, str(error)) from None

    def _check_level(self, level: int | None, target: OnlinePlayer | None) -> None:
        """A level names one of the target bot's announced levels; a seek has no known opponent to ask."""
        if level is None:
            return
        if target is None:
            raise ProtocolError(ErrorCode.BAD_FIELD, "challenge.level needs `to`: a seek has no known opponent")
        if target.levels is None:
            raise ProtocolError(ErrorCode.BAD_FIELD, f"{target.name} announces no levels to choose from")
        if level > target.levels:
            raise ProtocolError(ErrorCode.BAD_FIELD, f"challenge.level: {target.name} has levels 1 to {target.levels}")

    def _clock(self, spec: dict[str, Any]) -> ClockSpec:
        config = self.config
        initial, increment, limit = spec["initial_ms"], spec["increment_ms"], spec["move_limit_ms"]
        if not config.min_initial_ms <= initial <= config.max_initial_ms:
            raise ProtocolError(
                ErrorCode.BAD_CLOCK, f"initial_ms must be from {config.min_initial_ms} to {config.max_initial_ms}"
            )
        if increment > config.max_increment_ms:
            raise ProtocolError(ErrorCode.BAD_CLOCK, f"increment_ms must be at most {config.max_increment_ms}")
        if limit is not None and not config.min_move_limit_ms <= limit <= config.max_move_limit_ms:
            raise ProtocolError(
                ErrorCode.BAD_CLOCK,
                f"move_limit_ms must be from {config.min_move_limit_ms} to {config.max_move_limit_ms}, or nil",
            )
        return ClockSpec(initial, increment, limit)


def _check_owners(one: OnlinePlayer, other: OnlinePlayer) -> None:
    """ProtocolError(same_owner) for a rated game between a person and its bot, or two of its bots."""
    if same_owner(one.identity, other.identity):
        raise ProtocolError(
            ErrorCode.SAME_OWNER, f"{one.name} and {other.name} have one owner: they may only play unrated games"
        )
