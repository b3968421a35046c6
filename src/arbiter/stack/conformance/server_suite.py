"""Checks of a server, as its client: handshake, frames, every error SPEC.md lists, a match from start
to end, reconnects, a missed end, clocks near zero, paper soccer's bounces and a stuck position.

The tool plays both sides of every match itself (the token's player and guests), so it steers each
game into the corner it checks; the engine says which moves are legal, bounce or end stuck.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from typing import Any

import msgpack
from websockets.exceptions import ConnectionClosed

from arbiter.engine import State, create_game
from arbiter.engine.paper_soccer import PaperSoccerState

from .peer import Peer, summary
from .report import Mismatch, NotExercised, Report, Row, verify

TICTACTOE_WIN = ([0, 0], [0, 1], [1, 0], [1, 1], [2, 0])  # colour 0 completes the top row at ply 4


class ServerSuite:
    def __init__(self, url: str, token: str | None, report: Report) -> None:
        self.url = url
        self.token = token
        self.report = report
        self.violations: list[str] = []
        self.peers: list[Peer] = []
        self.games: dict[str, dict[str, Any]] = {}
        self.limits: dict[str, Any] = {}
        self.resume: str | None = None  # without a token: the last guest's resume token

    async def open(self, label: str) -> Peer:
        peer = await Peer.open(self.url, label, self.violations, self.report.timeout_s)
        self.peers.append(peer)
        return peer

    async def greeted(self, label: str, token: str | None = None) -> Peer:
        peer = await self.open(label)
        await peer.hello(token)
        return peer

    async def main_player(self, *, resume: bool = False) -> Peer:
        """The player of ``--token`` greeted; without a token a new guest, or with ``resume`` the last
        one again (by its resume token, which holds while it is online or away with a live match)."""
        peer = await self.greeted("the token's player", self.token or (self.resume if resume else None))
        self.resume = peer.welcome.get("resume_token")
        return peer

    async def run(self) -> None:
        """Every check in turn; OSError when the server cannot be reached at all."""
        silent = await self.open("a connection that never says hello")
        try:
            opened = asyncio.get_running_loop().time()
            await self.handshake()
            await self.frames()
            await self.rate_limited()
            if self.games:
                await self.challenges()
                await self.too_many_challenges()
                await self.match_flow()
                await self.draw_not_allowed()
                await self.abort()
                await self.reconnect()
                await self.dying_socket()
                await self.clocks_near_zero()
                await self.soccer_bounce()
                await self.soccer_endings()
                await self.replaced()
                await self.extensions()
            await self.frame_too_large()
            await self.hello_timeout(silent, opened)
            await self.unreachable()
            await self.schema()
        finally:
            for peer in self.peers:
                await peer.close()

    async def handshake(self) -> None:
        s = self.report.scenario()

        async def welcome() -> str:
            peer = await self.main_player()
            w = peer.welcome
            verify(w.get("protocol") == 1, "welcome.protocol 1", w.get("protocol"))
            verify(isinstance(w.get("resumed"), list), "welcome.resumed a list", w.get("resumed"))
            self.games = {game["name"]: game for game in w["games"]}
            self.limits = w["limits"]
            await peer.close()
            return f"{peer.name}, {len(self.games)} games"

        await s.check("hello is answered by welcome (protocol 1, the player, games, limits)", "§3", welcome)

        async def rejected(first: dict[str, Any], code: str) -> str:
            peer = await self.open("a new connection")
            await peer.send(first)
            reply = await peer.expect("error")
            verify(reply.get("code") == code, f"error {code}", summary(reply))
            close = await peer.closed()
            verify(close == 4001, f"close 4001 after {code}", close)
            return f"{code}, then close 4001"

        s = self.report.scenario()
        await s.check(
            "a message before hello: hello_first and close 4001",
            "§3",
            lambda: rejected({"type": "ping"}, "hello_first"),
        )
        s = self.report.scenario()
        wrong = {"type": "hello", "protocol": 99, "client": "conformance"}
        await s.check(
            "hello with protocol 99: protocol_version and close 4001", "§3", lambda: rejected(wrong, "protocol_version")
        )
        s = self.report.scenario()
        bad = {"type": "hello", "protocol": 1, "client": "conformance", "token": "not-a-token-of-this-server-0000"}
        await s.check(
            "hello with an unknown token: auth_failed and close 4001", "§3", lambda: rejected(bad, "auth_failed")
        )

        s = self.report.scenario()

        async def twice() -> str:
            peer = await self.greeted("a guest")
            seen = await peer.refused("already_greeted", "hello", protocol=1, client="conformance")
            verify((await peer.request("ping"))["type"] == "pong", "the connection to stay open (pong)", "no pong")
            await peer.close()
            return seen

        await s.check("a second hello: already_greeted, the connection stays open", "§3", twice)

    async def frames(self) -> None:
        s = self.report.scenario()
        peer: Peer | None = None

        async def connect() -> None:
            nonlocal peer
            peer = await self.greeted("a guest")

        await s.check("a guest says hello", "§4", connect)

        async def raw(frame: bytes | str, code: str) -> str:
            assert peer is not None
            await peer.send_raw(frame)
            reply = await peer.expect("error")
            verify(reply.get("code") == code, f"error {code}", summary(reply))
            return f"{code}: {reply.get('message')}"

        ping = msgpack.packb({"type": "ping"})
        await s.check("a text frame: bad_frame", "§1", lambda: raw('{"type": "ping"}', "bad_frame"))
        await s.check("two values in one frame: bad_frame", "§1", lambda: raw(ping + ping, "bad_frame"))
        binary = msgpack.packb({"type": "ping", "id": b"\x01"}, use_bin_type=True)
        await s.check("a msgpack bin string: bad_frame", "§1", lambda: raw(binary, "bad_frame"))
        ext = msgpack.packb({"type": "ping", "id": msgpack.ExtType(1, b"x")})
        await s.check("a msgpack ext type: bad_frame", "§1", lambda: raw(ext, "bad_frame"))
        await s.check("a frame holding an int: not_a_map", "§2", lambda: raw(msgpack.packb(7), "not_a_map"))

        async def refused(code: str, kind: str, **fields: Any) -> str:
            assert peer is not None
            return await peer.refused(code, kind, **fields)

        await s.check("an unknown type: unknown_type, echoing id as re", "§2", lambda: refused("unknown_type", "dance"))
        await s.check("an unknown field: unknown_field", "§2", lambda: refused("unknown_field", "ping", colour=1))
        await s.check("a missing field: missing_field", "§2", lambda: refused("missing_field", "accept"))
        await s.check("a field of the wrong type: bad_field", "§2", lambda: refused("bad_field", "accept", challenge=7))

        async def alive() -> None:
            assert peer is not None
            reply = await peer.request("ping")
            verify(reply["type"] == "pong" and isinstance(reply.get("time_ms"), int), "pong {time_ms}", summary(reply))
            await peer.close()

        await s.check("after every refusal the connection still works (ping: pong)", "§2", alive)

    def clock(self, initial_ms: int = 60_000) -> dict[str, int]:
        return {"initial_ms": initial_ms}

    async def challenges(self) -> None:
        s = self.report.scenario()
        a = b = c = None
        game = "tictactoe" if "tictactoe" in self.games else next(iter(self.games))

        async def connect() -> None:
            nonlocal a, b, c
            a, b, c = await self.main_player(), await self.greeted("guest B"), await self.greeted("guest C")

        await s.check("three players connect (the token's player and two guests)", "§4", connect)

        def challenge(peer: Peer | None, code: str, **fields: Any) -> Any:
            assert peer is not None and b is not None
            base: dict[str, Any] = {"to": b.name, "game": game, "clock": self.clock()}
            return lambda: peer.refused(code, "challenge", **{**base, **fields})

        await s.check(
            "a challenge for an unknown game: unknown_game", "§5", challenge(a, "unknown_game", game="no-such-game")
        )
        await s.check("an unknown game parameter: bad_params", "§13", challenge(a, "bad_params", params={"no_such": 1}))
        low = self.limits.get("clock", {}).get("min_initial_ms", 100) - 1
        await s.check(
            "a clock below limits.clock: bad_clock", "§7", challenge(a, "bad_clock", clock={"initial_ms": low})
        )
        await s.check(
            "a challenge to nobody online: unknown_player",
            "§5",
            challenge(a, "unknown_player", to="nobody-by-this-name"),
        )
        assert a is not None
        await s.check(
            "a challenge to oneself: self_challenge", "§5", lambda: challenge(a, "self_challenge", to=a.name)()
        )
        assert b is not None and c is not None
        await s.check(
            "a guest asking for a rated game: rated_needs_account", "§4",
            lambda: c.refused("rated_needs_account", "challenge", to=b.name, game=game, clock=self.clock(), rated=True),
        )  # fmt: skip
        await s.check(
            "accepting no challenge: unknown_challenge",
            "§5",
            lambda: b.refused("unknown_challenge", "accept", challenge="no-such"),
        )
        cid = ""

        async def create() -> str:
            nonlocal cid
            created = await a.request("challenge", to=b.name, game=game, clock=self.clock())
            verify(created["type"] == "challenge_created", "challenge_created", summary(created))
            cid = created["challenge"]["id"]
            offered = await b.expect("challenge_offered")
            verify(offered["challenge"]["id"] == cid, f"challenge_offered {cid}", summary(offered))
            return cid

        await s.check("a direct challenge: challenge_created, and challenge_offered to its target", "§5", create)
        await s.check(
            "a stranger accepting it: not_your_challenge",
            "§5",
            lambda: c.refused("not_your_challenge", "accept", challenge=cid),
        )
        await s.check(
            "its target cancelling it: not_your_challenge",
            "§5",
            lambda: b.refused("not_your_challenge", "cancel", challenge=cid),
        )

        async def decline() -> None:
            reply = await b.request("decline", challenge=cid)
            verify(reply["type"] == "ok", "ok", summary(reply))
            for peer in (a, b):
                await peer.expect("challenge_closed", challenge=cid, reason="declined")

        await s.check("decline: ok, and challenge_closed declined to both", "§5", decline)

        async def cancel() -> None:
            created = await a.request("challenge", to=b.name, game=game, clock=self.clock())
            other = created["challenge"]["id"]
            reply = await a.request("cancel", challenge=other)
            verify(reply["type"] == "ok", "ok", summary(reply))
            for peer in (a, b):
                await peer.expect("challenge_closed", challenge=other, reason="cancelled")

        await s.check("cancel: ok, and challenge_closed cancelled to both", "§5", cancel)
        for peer in (a, b, c):
            await peer.close()

    async def start(
        self, a: Peer, b: Peer, game: str, params: dict[str, Any] | None = None, clock: dict[str, int] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """``a`` challenges ``b`` (``a`` moves first), ``b`` accepts; the match id and a's match_start."""
        fields: dict[str, Any] = {"to": b.name, "game": game, "clock": clock or self.clock(), "color": "first"}
        if params:
            fields["params"] = params
        created = await a.request("challenge", **fields)
        verify(created["type"] == "challenge_created", "challenge_created", summary(created))
        cid = created["challenge"]["id"]
        await b.expect("challenge_offered")
        ok = await b.request("accept", challenge=cid)
        verify(ok["type"] == "ok" and isinstance(ok.get("match"), str), "ok {match} to accept", summary(ok))
        match = ok["match"]
        start = await a.expect("match_start", match=match)
        verify(
            start["color"] == 0 and start["challenge"] == cid, "match_start color 0, challenge its id", summary(start)
        )
        other = await b.expect("match_start", match=match)
        verify(other["color"] == 1, "the acceptor's match_start color 1", summary(other))
        for peer in (a, b):
            await peer.expect("challenge_closed", challenge=cid, reason="accepted", match=match)
        return match, start

    async def move(self, mover: Peer, other: Peer, match: str, ply: int, move: list[Any]) -> dict[str, Any]:
        """Play an accepted move; the ``moved`` both players got (a Mismatch on an error)."""
        reply_id = f"p{ply}"
        await mover.send({"type": "move", "id": reply_id, "match": match, "ply": ply, "move": move})
        moved = await mover.expect("moved", match=match, ply=ply)
        verify(not mover.unread("error"), f"no error to move {move}", [summary(e) for e in mover.unread("error")])
        verify(moved["move"] == move, f"moved.move {move}", moved["move"])
        verify(moved["by"] == ply % 2, f"moved.by {ply % 2} (ply {ply} is colour ply mod 2)", moved["by"])
        verify(
            len(moved["clocks"]) == 2 and moved["elapsed_ms"] >= 0,
            "moved with both clocks and elapsed_ms",
            summary(moved),
        )
        await other.expect("moved", match=match, ply=ply)
        return moved

    async def match_flow(self) -> None:
        s = self.report.scenario()
        a = b = c = None
        match = ""

        async def start() -> str:
            nonlocal a, b, c, match
            a, b, c = await self.main_player(), await self.greeted("guest B"), await self.greeted("guest C")
            match, _ = await self.start(a, b, "tictactoe")
            return match

        await s.check(
            "accept: match_start to both (colour 0 the challenger), challenge_closed accepted, ok {match}", "§6", start
        )

        def refused(peer_of: Any, code: str, **fields: Any) -> Any:
            return lambda: peer_of().refused(code, "move", **{"match": match, "ply": 0, "move": [1, 1], **fields})

        await s.check(
            "a move in no match: unknown_match", "§6", refused(lambda: a, "unknown_match", match="no-such-match")
        )
        await s.check("a move by a stranger: not_a_player", "§6", refused(lambda: c, "not_a_player"))
        await s.check("a move out of turn: not_your_turn", "§6", refused(lambda: b, "not_your_turn"))
        await s.check("a move with the wrong ply: stale_ply", "§6", refused(lambda: a, "stale_ply", ply=3))
        await s.check("a malformed move: bad_move", "§6", refused(lambda: a, "bad_move", move=[1]))
        await s.check("a move off the board: bad_move", "§13", refused(lambda: a, "bad_move", move=[3, 0]))
        moves = list(TICTACTOE_WIN)

        async def first() -> str:
            assert a is not None and b is not None
            moved = await self.move(a, b, match, 0, moves[0])
            return summary(moved)

        await s.check(
            "after the refusals the move at ply 0 is accepted: moved {ply 0, by 0, clocks} to both", "§6", first
        )
        await s.check(
            "a move on a taken cell: illegal_move", "§6", refused(lambda: b, "illegal_move", ply=1, move=moves[0])
        )
        draws = self.games["tictactoe"].get("draw_offers")

        async def draw_offers() -> None:
            if not draws:
                raise NotExercised("tictactoe takes no draw offers on this server")
            assert a is not None and b is not None
            await b.refused("no_draw_offer", "accept_draw", match=match)
            verify((await b.request("offer_draw", match=match))["type"] == "ok", "ok to offer_draw", "no ok")
            await a.expect("draw_offered", match=match, by=1)
            await b.refused("draw_pending", "offer_draw", match=match)
            verify((await a.request("decline_draw", match=match))["type"] == "ok", "ok to decline_draw", "no ok")
            for peer in (a, b):
                await peer.expect("draw_declined", match=match, by=0)

        s_draw = self.report.scenario()
        await s_draw.check("draw offers: no_draw_offer, draw_offered, draw_pending, draw_declined", "§6", draw_offers)

        async def spectate() -> None:
            assert c is not None
            state = await c.request("spectate", match=match)
            verify(
                state["type"] == "match_state" and state["color"] is None, "match_state with color nil", summary(state)
            )
            verify(
                state["moves"] == [moves[0]] and state["ply"] == 1 and state["to_move"] == 1,
                "moves, ply 1, to_move 1",
                summary(state),
            )

        await s.check("spectate: a match_state snapshot (color nil, the moves, ply, to_move)", "§10", spectate)

        async def sync() -> None:
            assert a is not None
            state = await a.request("sync", match=match)
            verify(state["type"] == "match_state" and state["color"] == 0, "match_state with color 0", summary(state))
            verify(state["moves"] == [moves[0]] and state["ply"] == 1, "every move so far, ply 1", summary(state))
            verify(
                len(state["clocks"]) == 2 and state["connected"] == [True, True],
                "both clocks, both connected",
                summary(state),
            )

        await s.check("sync: the player's resync (color, moves, ply, clocks, connected)", "§10", sync)

        async def spectator_event() -> None:
            assert a is not None and b is not None and c is not None
            await self.move(b, a, match, 1, moves[1])
            await c.expect("moved", match=match, ply=1)

        await s.check("a spectator gets the match's moved events", "§10", spectator_event)
        await s.check(
            "abort after one's own move: abort_too_late",
            "§6",
            lambda: ask(a).refused("abort_too_late", "abort", match=match),
        )

        async def finish() -> str:
            assert a is not None and b is not None and c is not None
            for ply in (2, 3, 4):
                mover, other = (a, b) if ply % 2 == 0 else (b, a)
                await self.move(mover, other, match, ply, moves[ply])
            for peer in (a, b, c):
                end = await peer.expect("end", match=match)
                verify(
                    (end["result"], end["winner"], end["reason"], end["ply"]) == ("1-0", 0, "line", 5),
                    "end 1-0, winner 0, line, ply 5",
                    summary(end),
                )
            order = [m["type"] for m in a.seen if m.get("match") == match and m["type"] in ("moved", "end")]
            verify(order[-2:] == ["moved", "end"], "the last moved before end", order)
            return "moved ply 4, then end 1-0 (line)"

        await s.check(
            "a line ends the match: end {1-0, winner 0, line, ply 5} after the last moved, to players and spectators",
            "§8",
            finish,
        )
        await s.check(
            "a move after the end: match_over",
            "§6",
            lambda: ask(b).refused("match_over", "move", match=match, ply=5, move=[2, 2]),
        )
        for peer in (a, b, c):
            if peer is not None:
                await peer.close()

    async def draw_not_allowed(self) -> None:
        s = self.report.scenario()

        async def check() -> str:
            game = next((name for name, g in self.games.items() if not g.get("draw_offers")), None)
            if game is None:
                raise NotExercised("every game on this server takes draw offers")
            a, b = await self.main_player(), await self.greeted("guest B")
            match, _ = await self.start(a, b, game)
            seen = await a.refused("draw_not_allowed", "offer_draw", match=match)
            await a.request("resign", match=match)
            await a.expect("end", match=match)
            await a.close()
            await b.close()
            return f"{game}: {seen}"

        await s.check("a draw offer where the game takes none: draw_not_allowed", "§6", check)

    async def abort(self) -> None:
        s = self.report.scenario()

        async def check() -> None:
            a, b = await self.main_player(), await self.greeted("guest B")
            match, _ = await self.start(a, b, "tictactoe")
            await self.move(a, b, match, 0, [1, 1])
            reply = await b.request("abort", match=match)
            verify(reply["type"] == "ok", "ok to abort", summary(reply))
            for peer in (a, b):
                end = await peer.expect("end", match=match)
                verify(
                    end["result"] is None and end["reason"] == "abort", "end {result nil, reason abort}", summary(end)
                )
            await a.close()
            await b.close()

        await s.check("abort before one's first move (the opponent has moved): ok, end {nil, abort}", "§6", check)

    async def reconnect(self) -> None:
        s = self.report.scenario()
        a = b = None
        match = ""

        async def leave() -> str:
            nonlocal a, b, match
            a, b = await self.main_player(), await self.greeted("guest B")
            match, _ = await self.start(a, b, "tictactoe")
            await self.move(a, b, match, 0, [0, 0])
            await a.ws.close()
            left = await b.expect("player_left", match=match, color=0)
            verify(isinstance(left.get("grace_ms"), int), "player_left.grace_ms", summary(left))
            return summary(left)

        await s.check(
            "a player's connection drops mid-game: player_left {color, grace_ms} to the opponent", "§9", leave
        )

        async def away_move() -> None:
            assert b is not None and a is not None
            await b.send({"type": "move", "id": "away", "match": match, "ply": 1, "move": [0, 1]})
            await b.expect("moved", match=match, ply=1)

        await s.check("the opponent moves while the player is away", "§9", away_move)

        async def back() -> str:
            nonlocal a
            assert b is not None
            a = await self.main_player(resume=True)
            verify(match in a.welcome["resumed"], f"welcome.resumed listing {match}", a.welcome["resumed"])
            state = await a.expect("match_state", match=match)
            resynced = (state["moves"], state["ply"], state["to_move"], state["color"]) == ([[0, 0], [0, 1]], 2, 0, 0)
            verify(resynced, "match_state {moves [[0,0],[0,1]], ply 2, to_move 0, color 0}", summary(state))
            await b.expect("player_returned", match=match, color=0)
            await self.move(a, b, match, 2, [1, 1])
            return "resumed, match_state with the move made while away, and the next move accepted"

        await s.check(
            "coming back: welcome.resumed, then match_state (a full resync), player_returned; play goes on", "§9", back
        )

        async def missed() -> str:
            nonlocal a
            assert a is not None and b is not None
            await a.ws.close()
            await b.expect("player_left", match=match, color=0)
            verify((await b.request("resign", match=match))["type"] == "ok", "ok to resign", "no ok")
            await b.expect("end", match=match)
            a = await self.main_player(resume=True)
            verify(
                match not in a.welcome["resumed"], f"welcome.resumed without the ended {match}", a.welcome["resumed"]
            )
            end = await a.expect("end", match=match)
            verify(end["reason"] == "resign" and end["winner"] == 0, "end {winner 0, resign}", summary(end))
            return summary(end)

        await s.check("an end missed while away comes right after the next welcome", "§8 §9", missed)
        for peer in (a, b):
            if peer is not None:
                await peer.close()

    async def clocks_near_zero(self) -> None:
        s = self.report.scenario()

        async def check() -> str:
            a, b = await self.main_player(), await self.greeted("guest B")
            limits = self.limits.get("clock", {})
            initial = max(limits.get("min_initial_ms", 100), 1000)  # near zero, with room for a slow link
            match, start = await self.start(a, b, "tictactoe", clock={"initial_ms": initial})
            verify(start["clocks"] == [initial, initial], f"match_start.clocks [{initial}, {initial}]", start["clocks"])
            moved = await self.move(a, b, match, 0, [1, 1])
            verify(moved["clocks"][0] <= initial, f"the mover's clock at most {initial}", moved["clocks"])
            credit = self.limits.get("max_lag_credit_ms", 200)
            end = await b.expect("end", match=match, timeout=(initial + credit) / 1000 + self.report.timeout_s)
            verify(
                (end["reason"], end["winner"], end["result"]) == ("timeout", 0, "1-0"),
                "end {timeout, winner 0, 1-0}",
                summary(end),
            )
            verify(end["clocks"][1] == 0, "the flagged side's clock 0", end["clocks"])
            await a.expect("end", match=match)
            seen = await b.refused("match_over", "move", match=match, ply=1, move=[0, 0])
            await a.close()
            await b.close()
            return f"{initial} ms: a quick move accepted, the idle side flagged with 0 left, then {seen}"

        await s.check(
            "clocks near zero: flag fall found by the server, the loser at 0, a late move match_over", "§7", check
        )

    async def soccer_bounce(self) -> None:
        s = self.report.scenario()

        async def check() -> str:
            if "paper_soccer" not in self.games:
                raise NotExercised("this server hosts no paper_soccer")
            a, b = await self.main_player(), await self.greeted("guest B")
            match, start = await self.start(a, b, "paper_soccer")
            state = soccer(start["params"])
            players = (a, b)
            ply = 0
            while True:
                turns = state.legal_turns(256)
                bounce = next((t for t in turns if len(t) > 1 and not _ends(state, t)), None)
                if bounce is not None:
                    break
                turn = next(t for t in turns if not _ends(state, t))
                await self.move(players[ply % 2], players[1 - ply % 2], match, ply, list(turn))
                state.play(turn)
                ply += 1
            mover, other = players[ply % 2], players[1 - ply % 2]
            reply = await mover.request("move", match=match, ply=ply, move=list(bounce[:1]))
            verify(
                reply.get("code") == "illegal_move",
                f"illegal_move for the turn {list(bounce[:1])} that stops on a bounce",
                summary(reply),
            )
            moved = await self.move(mover, other, match, ply, list(bounce))
            state.play(bounce)
            turn = next(t for t in state.legal_turns(256) if not _ends(state, t))
            await self.move(other, mover, match, ply + 1, list(turn))
            await a.request("resign", match=match)
            await a.expect("end", match=match)
            await a.close()
            await b.close()
            played = f"{moved['move']} played as one move (ply {moved['ply']})"
            return f"ply {ply}: {list(bounce[:1])} refused, {played}, the next turn ply {ply + 1}"

        await s.check(
            "paper soccer: a turn stopping on a bounce is illegal_move; a bounce turn is one move (one ply)",
            "§13 §2",
            check,
        )

    async def soccer_endings(self) -> None:
        game_params = {"width": 4, "length": 4}
        for reason, row in (
            (
                "stuck",
                "paper soccer: a turn ending stuck on a bounce is legal and ends the game: stuck, the stuck side loses",
            ),
            ("goal", "paper soccer: a ball in a goal wins for that goal's attacker, whoever kicked it"),
        ):
            s = self.report.scenario()

            async def check(reason: str = reason) -> str:
                if "paper_soccer" not in self.games:
                    raise NotExercised("this server hosts no paper_soccer")
                turns, outcome = _playout_ending(game_params, reason)
                a, b = await self.main_player(), await self.greeted("guest B")
                match, _ = await self.start(a, b, "paper_soccer", params=game_params)
                players = (a, b)
                for ply, turn in enumerate(turns):
                    await self.move(players[ply % 2], players[1 - ply % 2], match, ply, list(turn))
                end = await a.expect("end", match=match)
                expected = (outcome.result, outcome.winner, outcome.reason, len(turns))
                verify(
                    (end["result"], end["winner"], end["reason"], end["ply"]) == expected,
                    f"end {expected}",
                    summary(end),
                )
                await a.close()
                await b.close()
                return (
                    f"{len(turns)} turns on a 4×4 field, the last {list(turns[-1])}: {end['result']} ({end['reason']})"
                )

            await s.check(row, "§8 §13", check)

    async def replaced(self) -> None:
        s = self.report.scenario()

        async def check() -> str:
            old = await self.main_player()
            new = await self.main_player(resume=True)
            code = await old.closed()
            verify(code == 4003, "the older connection closed with 4003", code)
            verify((await new.request("ping"))["type"] == "pong", "the newer one working", "no pong")
            await new.close()
            return "4003 to the older, the newer goes on"

        await s.check(
            "one connection per player: a second hello of the same player closes the first (4003)", "§4", check
        )

    async def rate_limited(self) -> None:
        s = self.report.scenario()

        async def check() -> str:
            peer = await self.greeted("a guest")
            limits = peer.welcome["limits"]
            extra = min(100, int(limits["flood_tolerance"]) // 2)  # past the bucket, well short of the flood close
            count = int(limits["rate_burst"]) + extra
            ping = msgpack.packb({"type": "ping"})
            for _ in range(count):
                await peer.send_raw(ping)
            error = await peer.expect("error", code="rate_limited")
            verify("re" not in error, "rate_limited without re", summary(error))
            verify(
                await peer.closed(0.5) is None,
                "the connection left open (close 4008 only past flood_tolerance)",
                "closed",
            )
            await peer.close()
            return f"{count} pings at once: {error['message']}"

        await s.check("a burst past limits.rate_burst: rate_limited (no re), the connection stays open", "§12", check)
        s = self.report.scenario()

        async def flood() -> str:
            peer = await self.greeted("a guest")
            limits = peer.welcome["limits"]
            count = int(limits["rate_burst"]) + int(limits["flood_tolerance"]) + int(limits["rate_per_s"]) + 50
            ping = msgpack.packb({"type": "ping"})
            with contextlib.suppress(ConnectionClosed):
                for _ in range(count):
                    await peer.send_raw(ping)
            code = await peer.closed()
            verify(code == 4008, "close 4008", code)
            return f"{count} pings at once: close 4008"

        await s.check("sending on past limits.flood_tolerance after rate_limited: close 4008", "§12", flood)

    async def too_many_challenges(self) -> None:
        s = self.report.scenario()

        async def check() -> str:
            peer = await self.greeted("a guest")
            most = int(peer.welcome["limits"]["max_open_challenges"])
            if most > 50:
                raise NotExercised(f"limits.max_open_challenges is {most}: too many seeks to open in a check")
            seek = {"game": "tictactoe", "clock": self.clock()}
            created = [await peer.request("challenge", **seek) for _ in range(most)]
            verify(all(c["type"] == "challenge_created" for c in created), f"{most} seeks created", "a refusal")
            seen = await peer.refused("too_many_challenges", "challenge", **seek)
            for c in created:
                await peer.request("cancel", challenge=c["challenge"]["id"])
            await peer.close()
            return f"seek {most + 1}: {seen}"

        await s.check("one seek more than limits.max_open_challenges: too_many_challenges", "§5", check)

    async def dying_socket(self) -> None:
        s = self.report.scenario()

        async def check() -> str:
            a, b = await self.main_player(), await self.greeted("guest B")
            match, _ = await self.start(a, b, "tictactoe")
            for ply in range(4):
                mover, other = (a, b) if ply % 2 == 0 else (b, a)
                await self.move(mover, other, match, ply, TICTACTOE_WIN[ply])
            await a.send({"type": "move", "match": match, "ply": 4, "move": TICTACTOE_WIN[4]})
            a.ws.transport.abort()  # the winning move sent, the socket dead at once
            try:
                await b.expect("end", match=match)
            except Mismatch:
                raise NotExercised("the winning move did not reach the server before the socket died") from None
            a = await self.main_player(resume=True)
            end = await a.expect("end", match=match)
            verify(end["reason"] == "line" and end["winner"] == 0, "end {winner 0, line}", summary(end))
            await a.close()
            await b.close()
            return f"resumed {a.welcome['resumed']}, then {summary(end)}"

        await s.check("a win sent just as the socket died: its end comes after the next welcome", "§8 §9", check)

    async def extensions(self) -> None:
        """Sections 15–18 refuse what a client alone can get wrong, each with its code."""
        s = self.report.scenario()
        a = b = None
        match = ""

        async def start() -> str:
            nonlocal a, b, match
            a, b = await self.main_player(), await self.greeted("guest B")
            game = "tictactoe" if "tictactoe" in self.games else next(iter(self.games))
            match, _ = await self.start(a, b, game)
            return match

        await s.check("a casual match for the extensions' refusals", "§6", start)

        def refused(peer_of: Any, code: str, kind: str, **fields: Any) -> Any:
            return lambda: peer_of().refused(code, kind, **{"match": match, **fields})

        await s.check(
            "takeback before one's first move: nothing_to_take_back",
            "§15",
            refused(lambda: a, "nothing_to_take_back", "takeback"),
        )
        await s.check(
            "accept_takeback with no request standing: no_takeback_request",
            "§15",
            refused(lambda: b, "no_takeback_request", "accept_takeback"),
        )
        await s.check("hint against a person: hint_not_allowed", "§15", refused(lambda: a, "hint_not_allowed", "hint"))
        await s.check(
            "hint_answer never asked for: no_hint_request",
            "§15",
            refused(lambda: b, "no_hint_request", "hint_answer", ply=0, move=[1, 1]),
        )
        await s.check(
            "swap in a match with no swap opening: swap_phase",
            "§17",
            refused(lambda: a, "swap_phase", "swap", choice="black"),
        )
        await s.check(
            "review of a game still being played: game_not_over", "§18", refused(lambda: a, "game_not_over", "review")
        )

        def plain(peer_of: Any, code: str, kind: str, **fields: Any) -> Any:
            return lambda: peer_of().refused(code, kind, **fields)

        await s.check(
            "analysis_result from a connection that holds no job: unknown_job",
            "§18",
            plain(lambda: b, "unknown_job", "analysis_result", job="no-such-job",
                  evals=[{"ply": 0, "win": 0.5, "best": None}]),
        )  # fmt: skip
        entry = "unknown_tournament" if self.token else "rated_needs_account"
        await s.check(
            "tournament_enter to no tournament: unknown_tournament (a guest: rated_needs_account)",
            "§16",
            plain(lambda: a, entry, "tournament_enter", tournament="no-such-tournament"),
        )

        async def analyse() -> str:
            watcher = await self.greeted("guest C")  # plays no game: the analysis board is open to it
            try:
                reply = await watcher.request("analyse", game="tictactoe", params={}, moves=[[1, 1]], budget_ms=100)
            finally:
                await watcher.close()
            worker = reply["type"] == "analysis"
            verify(
                worker or reply.get("code") == "no_analysis_worker", "analysis, or no_analysis_worker", summary(reply)
            )
            return "analysed by a worker" if worker else f"no_analysis_worker: {reply.get('message')}"

        if "tictactoe" in self.games:
            await s.check(
                "analyse by a player of a live game: analysis_while_playing",
                "§18",
                plain(lambda: a, "analysis_while_playing", "analyse", game="tictactoe", moves=[[1, 1]]),
            )
            await s.check("analyse: an analysis, or no_analysis_worker where none is online", "§18", analyse)

        async def swap_needs_the_feature() -> str:
            assert a is not None and b is not None
            return await a.refused(
                "feature_needed", "challenge", to=b.name, game="gomoku", clock=self.clock(), params={"opening": "swap2"}
            )

        if "gomoku" in self.games:
            await s.check(
                "a swap2 challenge from a client without the swap feature: feature_needed",
                "§17",
                swap_needs_the_feature,
            )

        async def pending() -> str:
            assert a is not None and b is not None
            await self.move(a, b, match, 0, [1, 1])
            asked = await a.request("takeback", match=match)
            verify(asked["type"] == "ok", "ok to takeback after one's move", summary(asked))
            await b.expect("takeback_offered", match=match)
            return await a.refused("takeback_pending", "takeback", match=match)

        await s.check("a second takeback while one stands: takeback_pending", "§15", pending)
        assert a is not None
        await a.request("resign", match=match)

    async def hello_timeout(self, silent: Peer, opened: float) -> None:
        s = self.report.scenario()

        async def check() -> str:
            bound = int(self.limits.get("hello_timeout_ms", 10_000)) / 1000
            left = bound - (asyncio.get_running_loop().time() - opened)
            code = await silent.closed(max(0.0, left) + self.report.timeout_s)
            verify(code == 4002, f"close 4002 within limits.hello_timeout_ms ({bound:g} s)", code)
            return f"closed 4002 after about {bound:g} s"

        await s.check("no hello within limits.hello_timeout_ms: close 4002", "§3", check, limit_s=60)

    async def unreachable(self) -> None:
        self.report.rows.append(Row(
            "errors a client cannot cause alone: too_many_spectated, too_many_matches (limits.max_spectated, "
            "max_matches live matches), same_owner (two accounts of one owner), too_many_guests, banned (an "
            "operator), unavailable (draining), internal, takeback_not_allowed (a rated game: two accounts), "
            "hint_used (a bot that announced hints), entry_closed (an operator's tournament, started), "
            "analysis_queue_full, analysis_failed, bad_analysis (the server's analysis workers and their load)",
            "Error codes", "skip", seen="not checked from outside",
        ))  # fmt: skip

    async def frame_too_large(self) -> None:
        s = self.report.scenario()

        async def check() -> str:
            peer = await self.greeted("a guest")
            size = int(peer.welcome["limits"]["max_frame_bytes"]) + 1
            await peer.send_raw(b"\x00" * size)
            code = await peer.closed()
            verify(code == 1009, f"close 1009 after a {size}-byte frame", code)
            return f"{size} bytes: close 1009"

        await s.check("a frame over limits.max_frame_bytes (frame_too_large): over a socket, close 1009", "§1", check)

    async def schema(self) -> None:
        s = self.report.scenario()

        async def check() -> str:
            count = sum(len(peer.seen) for peer in self.peers)
            if self.violations:
                raise Mismatch("every server message as SPEC.md's tables say", "; ".join(self.violations[:3]))
            return f"{count} messages"

        await s.check("every message the server sent matches SPEC.md's Server messages", "Server messages", check)


def ask(peer: Peer | None) -> Peer:
    """A peer an earlier step of the scenario connected (the scenario skips the step when it failed)."""
    assert peer is not None
    return peer


def soccer(params: dict[str, Any]) -> PaperSoccerState:
    """A new paper soccer position (its type says it lists whole turns)."""
    state = create_game("paper_soccer", params).new_state()
    assert isinstance(state, PaperSoccerState)
    return state


def _ends(state: State, turn: tuple[int, ...]) -> bool:
    probe = state.copy()
    probe.play(turn)
    return probe.is_terminal


def _playout_ending(params: dict[str, Any], reason: str) -> tuple[list[tuple[int, ...]], Any]:
    """A seeded random game of paper soccer that ends for ``reason``: its turns and its outcome."""
    for seed in range(1000):
        rng = random.Random(seed)
        state = soccer(params)
        turns = []
        while not state.is_terminal:
            turn = rng.choice(state.legal_turns(64))
            state.play(turn)
            turns.append(turn)
        if state.outcome is not None and state.outcome.reason == reason:
            return turns, state.outcome
    raise NotExercised(f"no random game ended by {reason}")
