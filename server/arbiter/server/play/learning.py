"""Takebacks and hints in live matches: the requests routed, the answers fanned out, the record kept.

The rules are ``takeback.py``'s (pure); this binds them to the live matches: who is asking, the
bot opponent's announced policy (``hello.takebacks``, ``hello.hints``), the events every player and
spectator gets, and the store, which keeps the moves taken back and the hints given beside the
game's line (``Store.record_asides``). SPEC.md section 15.

Why the hint comes from the bot opponent, over the protocol: the server never imports the bots (the
import contracts), the bot already has the game's search warm in its pool, and on the person's turn
it is idle; the bot checks nothing, the server checks the suggestion's legality before passing it on.
"""

from __future__ import annotations

import logging
from typing import Any

from arbiter.protocol.codec import encode
from arbiter.protocol.errors import ErrorCode, ProtocolError
from arbiter.protocol.learning import AcceptTakeback, DeclineTakeback, Hint, HintAnswer, Takeback
from arbiter.protocol.messages import Request
from arbiter.server.store.base import AsideMove, Store

from .match import Result
from .matches import LiveMatch, Matches
from .session import Handler, Session
from .takeback import Asks

log = logging.getLogger("arbiter.server")


class Learning:
    """Every live match's takeback request and hints (``Asks``), by match id."""

    def __init__(self, matches: Matches, store: Store) -> None:
        self.matches = matches
        self.store = store
        self.asks: dict[str, Asks] = {}
        matches.end_listeners.append(self._ended)

    def handlers(self) -> dict[type[Request], Handler]:
        return {
            Takeback: self.on_takeback,
            AcceptTakeback: self.on_accept_takeback,
            DeclineTakeback: self.on_decline_takeback,
            Hint: self.on_hint,
            HintAnswer: self.on_hint_answer,
        }

    def _of(self, live: LiveMatch) -> Asks:
        asks = self.asks.get(live.id)
        if asks is None:
            asks = self.asks[live.id] = Asks()
        return asks

    def _ended(self, live: LiveMatch, result: Result, changes: dict[str, float]) -> None:
        self.asks.pop(live.id, None)

    # --- takebacks -----------------------------------------------------------------------------
    def on_takeback(self, session: Session, msg: Takeback) -> None:
        live, color = self.matches._acting(session, msg)
        if self.matches.move_journal is not None and not live.match.rated:
            # A cluster's journal holds each match's moves append-only, for the node that takes it over.
            raise ProtocolError(ErrorCode.TAKEBACK_NOT_ALLOWED, "takebacks are not offered on a cluster's nodes")
        keep = self._of(live).ask_takeback(live.match, color)
        session.ok(msg)
        live.broadcast(encode({"type": "takeback_offered", "match": live.id, "by": color, "ply": keep}))

    def on_decline_takeback(self, session: Session, msg: DeclineTakeback) -> None:
        live, color = self.matches._acting(session, msg)
        asker = self._of(live).decline_takeback(live.match, color)
        session.ok(msg)
        live.broadcast(encode({"type": "takeback_declined", "match": live.id, "by": color}))
        log.info("takeback declined", extra={"match": live.id, "by": asker, "ply": live.match.ply})

    def on_accept_takeback(self, session: Session, msg: AcceptTakeback) -> None:
        live, color = self.matches._acting(session, msg)
        match = live.match
        now = self.matches.now()
        asker, taken = self._of(live).accept_takeback(match, color, now)
        del live.infos[match.ply :]
        session.ok(msg)
        taken_back = [AsideMove("taken_back", t.ply, t.by, t.move, t.elapsed_ms) for t in taken]
        try:
            self.store.record_asides(live.id, taken_back, keep=match.ply)
        except Exception:  # the store must never block play; its own error handling reports the failure
            log.exception("store failed to queue a takeback", extra={"match": live.id})
        message: dict[str, Any] = {
            "type": "taken_back",
            "match": live.id,
            "by": asker,
            "ply": match.ply,
            "moves": [t.move for t in taken],
            "clocks": match.clocks_ms(now),
            "to_move": match.to_move,
        }
        live.broadcast(encode(message))
        self.matches._arm(live)
        log.info("taken back", extra={"match": live.id, "by": asker, "ply": match.ply, "plies": len(taken)})

    # --- hints ---------------------------------------------------------------------------------
    def on_hint(self, session: Session, msg: Hint) -> None:
        live, color = self.matches._acting(session, msg)
        bot = live.players[1 - color]
        gives = bot.identity.kind == "bot" and bot.hints and bot.session is not None
        ply = self._of(live).ask_hint(live.match, color, bot_gives_hints=gives)
        session.ok(msg)
        bot.send(encode({"type": "hint_request", "match": live.id, "ply": ply}))

    def on_hint_answer(self, session: Session, msg: HintAnswer) -> None:
        live, color = self.matches._acting(session, msg)
        asker, move, used = self._of(live).answer_hint(live.match, color, msg.ply, msg.move)
        session.ok(msg)
        live.players[asker].send(encode({"type": "hint", "match": live.id, "ply": msg.ply, "move": move, "used": used}))
        try:
            self.store.record_asides(live.id, [AsideMove("hint", msg.ply, asker, move)])
        except Exception:  # the store must never block play; its own error handling reports the failure
            log.exception("store failed to queue a hint", extra={"match": live.id})
