"""Checks of a bot, as its server: a throwaway Arbiter server on 127.0.0.1, the bot's command started
against a relay in front of it, and a scripted opponent that challenges it to every game it names,
at low clocks, across dropped connections and a missed end; the relay checks every message it sends.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from typing import Any

import numpy as np

from arbiter.bots import random_bot
from arbiter.engine import EngineError, State, create_game
from arbiter.protocol import check_server_message
from arbiter.server import ServerConfig, run_server
from arbiter.server.store.memory import MemoryStore

from .peer import Peer, summary
from .relay import Relay
from .report import Mismatch, NotExercised, Report, verify

BOT_NAME = "bot-under-test"
RULE_ENDS = {"line", "goal", "stuck", "board_full", "repetition", "move_limit"}
SHORT_FIRST = ("tictactoe", "vanishing", "tictactoe4", "ttt3d", "paper_soccer", "gomoku10", "qubic", "mnk", "gomoku")
CLOCK_MS = 30_000  # each side's time in the ordinary matches (``--clock``)
LOW_CLOCK = {"initial_ms": 1500, "increment_ms": 0, "move_limit_ms": 500}
SMALL_FIELD = {"width": 4, "length": 4}
SMALL_FIELD_GAMES = 8  # at most
# A position of the 4×4 field where the first player, to move, has seven turns and each ends stuck on a
# bounce (found by a seeded search): the one case where a turn may stop on a bounce.
FORCED_STUCK = [[3], [4, 1, 6, 5], [7], [4, 1], [3, 6, 0, 0, 5, 6, 1], [4, 7, 2, 0], [3, 6, 7, 2, 0, 2], [4], [1, 6, 3],
                [0, 3, 6, 6, 5, 3, 2, 1, 7, 5, 0, 3]]  # fmt: skip
SCRIPTED = "scripted-opponent"
NEARLY_FLAGGED_MS = 500
RECONNECT_S = 30.0  # the grace is 30 s: a bot that backs off longer loses its matches anyway
STARTUP_S = 60.0  # a bot may compile or load a model before its hello


def random_move(state: State, rng: np.random.Generator) -> list[Any]:
    """A random legal whole move as its wire value (a soccer turn bounces on to its end)."""
    return state.game.encode_move(random_bot.random_move(state, rng))


def quiet_move(state: State, rng: np.random.Generator) -> list[Any]:
    """A random move that does not end the game, when a few tries find one (to keep a match going)."""
    for _ in range(20):
        move = random_move(state, rng)
        probe = state.copy()
        probe.play(state.game.decode_move(move))
        if not probe.is_terminal:
            return move
    return random_move(state, rng)


class BotSuite:
    def __init__(
        self, command: list[str], report: Report, *, games: list[str] | None = None, clock_ms: int = CLOCK_MS
    ) -> None:
        self.command = command
        self.clock = {"initial_ms": clock_ms, "increment_ms": 100}
        self.match_s = 2 * clock_ms / 1000 + 30  # both clocks run out, and then some
        self.report = report
        self.chosen = games
        self.rng = np.random.default_rng(56)
        self.violations: list[str] = []
        self.games: list[str] = []
        self.soccer = {"turns": 0, "bounces": 0, "stuck": 0}
        self.relay: Relay | None = None
        self.opponent: Peer | None = None
        self.process: asyncio.subprocess.Process | None = None
        self.watcher: asyncio.Task[None] | None = None
        self.log = tempfile.TemporaryFile()  # noqa: SIM115  (the bot's output, kept for the table, closed in run())

    def bot_log(self) -> str:
        self.log.seek(0)
        lines = self.log.read().decode(errors="replace").strip().splitlines()
        return " | ".join(lines[-3:]) or "(no output)"

    async def run(self) -> None:
        store = MemoryStore()
        async with run_server(ServerConfig(port=0, warm_engine=False), store) as server:
            token = await store.add_player(BOT_NAME, "bot")
            self.relay = relay = Relay(server.url)
            url = await relay.start()
            try:
                await self.start_bot(url, token)
                await self.checks(server.url, token)
            finally:
                if self.opponent is not None:
                    await self.opponent.close()
                await self.stop_bot()
                await relay.stop()
                self.log.close()

    async def start_bot(self, url: str, token: str) -> None:
        argv = [part.replace("{url}", url).replace("{token}", token) for part in self.command]
        env = {**os.environ, "ARBITER_URL": url, "ARBITER_TOKEN": token}
        self.process = process = await asyncio.create_subprocess_exec(*argv, stdout=self.log, stderr=self.log, env=env)

        async def exited() -> None:  # wakes whoever waits on the relay: the bot will not say more
            await process.wait()
            if self.relay is not None:
                self.relay.changed.set()

        self.watcher = asyncio.create_task(exited())

    async def stop_bot(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.terminate()
            try:
                async with asyncio.timeout(10):
                    await self.process.wait()
            except TimeoutError:
                self.process.kill()
                await self.process.wait()

    async def checks(self, server_url: str, token: str) -> None:
        relay = self.relay
        assert relay is not None
        s = self.report.scenario()

        async def hello() -> str:
            process = self.process
            assert process is not None
            arrived = await relay.wait_for(lambda: relay.received or process.returncode is not None, STARTUP_S)
            arrived = arrived and bool(relay.received)
            if not arrived:
                exited = (
                    ""
                    if self.process is None or self.process.returncode is None
                    else f"exited {self.process.returncode}; "
                )
                raise Mismatch("the bot to connect and say hello", f"{exited}{self.bot_log()}")
            first = relay.sent[0][1]
            verify(first.get("type") == "hello", "hello as the first message", summary(first))
            verify(first.get("token") == token, "hello.token, the token it was given", summary(first))
            welcome = relay.received[0][1]
            verify(welcome["type"] == "welcome", "welcome", summary(welcome))
            hosted = [game["name"] for game in welcome["games"]]
            named = first.get("games") or hosted
            games = [g for g in (self.chosen or named) if g in hosted]
            verify(bool(games), f"games this server hosts (from {hosted})", named)
            self.games = sorted(games, key=lambda g: SHORT_FIRST.index(g) if g in SHORT_FIRST else len(SHORT_FIRST))
            return f"{first.get('client')}, games {', '.join(self.games)}"

        await s.check("the bot connects and says hello first, with its token", "§3 §4", hello, limit_s=STARTUP_S + 10)

        async def opponent() -> None:
            self.opponent = await Peer.open(server_url, "the opponent", self.violations, self.report.timeout_s)
            await self.opponent.hello()

        await s.check("a guest opponent connects", "§4", opponent)
        if s.broken is not None:
            return
        for game in self.games:
            s = self.report.scenario()

            async def both_colours(game: str = game) -> str:
                ends = [await self.match(game, colour) for colour in (0, 1)]
                return ", ".join(
                    f"as {c}: {end['result']} ({end['reason']}, {end['ply']} moves)"
                    for c, end in zip(("first", "second"), ends, strict=True)
                )

            await s.check(
                f"plays {game} to its end by the rules, as first and as second",
                "§6 §13",
                both_colours,
                limit_s=self.match_s * 2,
            )
        if "paper_soccer" in self.games:
            s = self.report.scenario()
            row = "paper soccer on a 4×4 field: bounce turns and stuck endings, every turn legal"
            await s.check(row, "§13", self.small_field, limit_s=self.match_s * SMALL_FIELD_GAMES)
            s = self.report.scenario()
            row = "paper soccer, a position where every turn ends stuck: it sends one (or resigns), no incomplete turn"
            await s.check(row, "§13", self.forced_stuck)
        quick = self.games[0]
        s = self.report.scenario()
        row = "a match that starts from an opening (match_start.moves, to_move): it replays it, moves at the next ply"
        await s.check(row, "§6 Server messages", lambda: self.opening(quick))
        s = self.report.scenario()

        async def low_clock() -> str:
            end = await self.match(quick, 1, clock=LOW_CLOCK)
            return f"{quick}: {end['result']} ({end['reason']}), the bot's clock at the end {end['clocks'][1]} ms"

        await s.check(
            f"low clock ({LOW_CLOCK['initial_ms']} ms, {LOW_CLOCK['move_limit_ms']} ms a move): "
            f"plays {quick} without losing on time",
            "§7",
            low_clock,
        )
        s = self.report.scenario()
        face = self.clock["initial_ms"] // 1000
        row = f"a resync (match_state) with {NEARLY_FLAGGED_MS} ms left of {face} s: it moves before its flag falls"
        await s.check(row, "§7 §9", lambda: self.nearly_flagged(quick))
        s = self.report.scenario()
        await s.check(
            "its connection dropped mid-game: it comes back with its token, resyncs a move made away, plays on",
            "§9",
            lambda: self.drop(quick, resign=False),
            limit_s=self.match_s * 2,
        )
        s = self.report.scenario()
        await s.check(
            "an end it missed while away: it comes back and plays the next match",
            "§8 §9",
            lambda: self.drop(quick, resign=True),
            limit_s=self.match_s * 2,
        )
        s = self.report.scenario()

        async def valid() -> str:
            if relay.violations:
                raise Mismatch(
                    "every message a valid client message (SPEC's Client messages)", "; ".join(relay.violations[:3])
                )
            return f"{len(relay.sent)} messages"

        await s.check("every message the bot sent is a valid client message", "§2, Client messages", valid)
        s = self.report.scenario()

        async def refusals() -> str:
            errors = [(n, m) for n, m in relay.received if m["type"] == "error"]
            if errors:
                raise Mismatch("no error sent to the bot", "; ".join(self.refused(n, e) for n, e in errors[:3]))
            return f"{len(relay.received)} messages to the bot, no error"

        await s.check("the server refused none of the bot's messages", "§2, Error codes", refusals)
        s = self.report.scenario()

        async def alive() -> None:
            verify(
                self.process is not None and self.process.returncode is None, "the bot still running", self.bot_log()
            )

        await s.check("the bot is still running at the end", "", alive)

    def refused(self, connection: int, error: dict[str, Any]) -> str:
        """An error to the bot, with the request that drew it (found by its ``re``)."""
        assert self.relay is not None
        sent = [m for n, m in self.relay.sent if n == connection and "re" in error and m.get("id") == error["re"]]
        cause = f" to {summary(sent[-1])}" if sent else ""
        return f"{error['code']}{cause}: {error['message']}"

    async def challenge(
        self, game: str, bot_colour: int, clock: dict[str, int], params: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Challenge the bot (to play ``bot_colour``); the match id and the opponent's match_start."""
        opponent = self.opponent
        assert opponent is not None
        fields: dict[str, Any] = {
            "to": BOT_NAME,
            "game": game,
            "clock": clock,
            "color": ("second", "first")[bot_colour],
        }
        if params:
            fields["params"] = params
        created = await opponent.request("challenge", **fields)
        verify(created["type"] == "challenge_created", "challenge_created", summary(created))
        cid = created["challenge"]["id"]
        closed = await opponent.expect("challenge_closed", challenge=cid)
        verify(closed["reason"] == "accepted", f"the bot to accept the {game} challenge", summary(closed))
        start = await opponent.expect("match_start", match=closed["match"])
        return closed["match"], start

    async def match(
        self, game: str, bot_colour: int, *, clock: dict[str, int] | None = None, params: dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Play one match against the bot with random moves; its end (Mismatch unless by the rules)."""
        clock = clock or self.clock
        match, start = await self.challenge(game, bot_colour, clock, params)
        state = create_game(game, start["params"]).new_state()
        return await self.play(match, state, bot_colour, clock)

    async def play(self, match: str, state: State, bot_colour: int, clock: dict[str, int]) -> dict[str, Any]:
        opponent = self.opponent
        assert opponent is not None
        bot_clock = clock["initial_ms"]
        while not state.is_terminal:
            ply = len(state.moves())
            if state.to_move != bot_colour:
                move = random_move(state, self.rng)
                await opponent.send({"type": "move", "match": match, "ply": ply, "move": move})
            wait = bot_clock / 1000 + self.report.timeout_s

            def answer(m: dict[str, Any], ply: int = ply) -> bool:
                return m.get("match") == match and (m["type"] == "end" or (m["type"] == "moved" and m["ply"] == ply))

            moved = await opponent.first(answer, f"moved ply {ply} in {match}", wait)
            if moved["type"] == "end":
                raise Mismatch(f"the match to go on at ply {ply}", summary(moved))
            if moved["by"] == bot_colour:
                bot_clock = moved["clocks"][bot_colour]
                self.count_soccer(state, moved["move"])
            state.play(state.game.decode_move(moved["move"]))
        end = await opponent.expect("end", match=match)
        verify(end["reason"] in RULE_ENDS, "an end by the rules (not timeout, resign, abandoned)", summary(end))
        return end

    def count_soccer(self, state: State, move: list[Any]) -> None:
        if state.game.name != "paper_soccer":
            return
        probe = state.copy()
        probe.play(state.game.decode_move(move))
        self.soccer["turns"] += 1
        self.soccer["bounces"] += len(move) > 1
        self.soccer["stuck"] += bool(probe.outcome is not None and probe.outcome.reason == "stuck")

    async def small_field(self) -> str:
        """Games on the smallest field, where most turns bounce: two, and more until one of the bot's did."""
        before = dict(self.soccer)
        for number in range(SMALL_FIELD_GAMES):
            await self.match("paper_soccer", number % 2, params=SMALL_FIELD)
            counts = {k: self.soccer[k] - before[k] for k in before}
            if number >= 1 and counts["bounces"]:
                break
        if not counts["bounces"]:
            raise NotExercised(f"the bot played {counts['turns']} turns and none bounced")
        return f"{counts['turns']} turns, {counts['bounces']} with bounces, {counts['stuck']} ending stuck"

    async def forced_stuck(self) -> str:
        """From FORCED_STUCK every turn of the bot ends stuck: its turn must be one of them (or a resign)."""
        answer, state = await self.scripted("paper_soccer", SMALL_FIELD, FORCED_STUCK, "scripted-stuck")
        if state is None:
            return "it resigned (every turn loses)"
        assert state.outcome is not None
        return f"{answer['move']}: {state.outcome.result} ({state.outcome.reason})"

    def random_opening(self, game: str, plies: int) -> list[list[Any]]:
        """``plies`` random moves that leave the game going."""
        state = create_game(game).new_state()
        opening = []
        for _ in range(plies):
            move = quiet_move(state, self.rng)
            state.play(state.game.decode_move(move))
            opening.append(move)
        return opening

    async def opening(self, game: str) -> str:
        """A match that starts from three moves already played, as ladder matches between bots do."""
        opening = self.random_opening(game, 3)
        answer, after = await self.scripted(game, None, opening, "scripted-opening")
        verify(after is not None, "a move", "it resigned")
        return f"{game} from {opening}: it played {answer['move']} at ply {answer['ply']}"

    async def nearly_flagged(self, game: str) -> str:
        """A resync with the usual clock's face but NEARLY_FLAGGED_MS left: the bot must budget what is left."""
        opening = self.random_opening(game, 2)
        answer, after = await self.scripted(game, None, opening, "scripted-flag", left_ms=NEARLY_FLAGGED_MS)
        verify(after is not None, "a move", "it resigned")
        return f"{game}: {answer['move']} after {answer['took_ms']} ms of the {NEARLY_FLAGGED_MS} left"

    async def scripted(
        self, game: str, params: dict[str, Any] | None, opening: list[list[int]], match: str, *,
        left_ms: int | None = None,
    ) -> tuple[dict[str, Any], State | None]:  # fmt: skip
        """The relay plays the server for one match that starts from ``opening`` with the bot to move; the
        bot's answer, and the position after it (None if it resigned). Mismatch unless the answer is a
        legal move at the right ply (or a resign). The match then ends: by the rules if the move ended
        it, else by the scripted side resigning. With ``left_ms`` the match comes as a resync
        (``match_state``, as after a reconnect) with only that much left on the bot's clock, and the
        answer must arrive before it runs out."""
        relay = self.relay
        assert relay is not None
        state = create_game(game, params).new_state()
        for move in opening:
            state.play(state.game.decode_move(move))
        bot, ply = state.to_move, len(opening)
        players = [{"name": BOT_NAME, "kind": "bot", "guest": False}, {"name": SCRIPTED, "kind": "bot", "guest": False}]
        initial = self.clock["initial_ms"]
        clock = {"initial_ms": initial, "increment_ms": 0, "move_limit_ms": None}
        clocks = [initial, initial]
        start = {
            "type": "match_start", "match": match, "game": game, "params": state.game.params,
            "players": players if bot == 0 else players[::-1], "color": bot, "clock": clock, "clocks": clocks,
            "rated": False, "to_move": bot, "levels": [None, None], "challenge": None, "moves": opening,
        }  # fmt: skip
        if left_ms is not None:
            clocks[bot] = left_ms
            start.update(type="match_state", clocks=clocks, ply=ply, opening=0, draw_offer=None, connected=[True, True])
            del start["challenge"]
        check_server_message(start)
        script: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        relay.scripted[match] = script
        sent = asyncio.get_running_loop().time()
        await relay.inject(start)
        try:
            async with asyncio.timeout(clocks[bot] / 1000 + self.report.timeout_s):
                while (answer := await script.get())["type"] not in ("move", "resign"):
                    pass
        except TimeoutError:
            raise Mismatch(f"a move (or resign) at ply {ply}", f"nothing; {self.bot_log()}") from None
        took_ms = round((asyncio.get_running_loop().time() - sent) * 1000)
        if left_ms is not None:
            verify(
                took_ms < left_ms, f"an answer within the {left_ms} ms left", f"{summary(answer)} after {took_ms} ms"
            )
            answer = {**answer, "took_ms": took_ms}
        if answer["type"] == "resign":
            await relay.inject(self.scripted_end(match, 1 - bot, "resign", clocks, ply))
            return answer, None
        verify(answer["ply"] == ply, f"the move at ply {ply} (the opening's length)", summary(answer))
        try:
            state.play(state.game.decode_move(answer["move"]))
        except EngineError as error:
            raise Mismatch("a legal move", f"{answer['move']}: {error}") from None
        moved = {"type": "moved", "match": match, "ply": ply, "move": answer["move"], "by": bot, "clocks": clocks,
                 "elapsed_ms": 0}  # fmt: skip
        await relay.inject(moved)
        outcome = state.outcome
        if outcome is None:
            await relay.inject(self.scripted_end(match, bot, "resign", clocks, ply + 1))
        else:
            await relay.inject(self.scripted_end(match, outcome.winner, outcome.reason, clocks, ply + 1))
        return answer, state

    @staticmethod
    def scripted_end(match: str, winner: int | None, reason: str, clocks: list[int], ply: int) -> dict[str, Any]:
        result = {0: "1-0", 1: "0-1", None: "1/2-1/2"}[winner]
        end: dict[str, Any] = {
            "type": "end", "match": match, "result": result, "winner": winner, "reason": reason, "clocks": clocks,
            "ply": ply, "rating_changes": {},
        }  # fmt: skip
        check_server_message(end)
        return end

    async def drop(self, game: str, *, resign: bool) -> str:
        """Cut the bot's connection after its first move, hold it away while the opponent moves (or
        resigns), then let it back: it must resume (or, after the missed end, play a new match)."""
        relay, opponent = self.relay, self.opponent
        assert relay is not None and opponent is not None
        match, start = await self.challenge(game, 1, self.clock)
        state = create_game(game, start["params"]).new_state()
        for ply in (0, 1):
            if ply == 0:
                await opponent.send({"type": "move", "match": match, "ply": 0, "move": quiet_move(state, self.rng)})
            moved = await opponent.expect("moved", match=match, ply=ply, timeout=self.clock["initial_ms"] / 1000)
            state.play(state.game.decode_move(moved["move"]))
        connections = relay.connections
        relay.hold()
        try:
            await relay.cut()
            await opponent.expect("player_left", match=match, color=1)
            if resign:
                verify((await opponent.request("resign", match=match))["type"] == "ok", "ok to resign", "no ok")
                await opponent.expect("end", match=match)
            else:
                move = quiet_move(state, self.rng)
                await opponent.send({"type": "move", "match": match, "ply": 2, "move": move})
                await opponent.expect("moved", match=match, ply=2)
                state.play(state.game.decode_move(move))
        finally:
            relay.release()
        process = self.process
        assert process is not None

        def welcomed() -> bool:
            return any(n > connections and m["type"] == "welcome" for n, m in relay.received)

        await relay.wait_for(lambda: welcomed() or process.returncode is not None, RECONNECT_S)
        exited = "" if process.returncode is None else f"it exited ({process.returncode}); "
        verify(
            welcomed(),
            f"the bot to reconnect and be welcomed within {RECONNECT_S:g} s",
            f"{exited}{relay.connections - connections} new connections; {self.bot_log()}",
        )
        again = next(m for n, m in relay.sent if n > connections)
        verify(
            again.get("type") == "hello" and again.get("token") == relay.sent[0][1].get("token"),
            "hello with its token again",
            summary(again),
        )
        if resign:
            end = await self.match(game, 0)
            return f"reconnected, then {end['result']} ({end['reason']}) in a new match"
        await opponent.expect("player_returned", match=match, color=1)
        end = await self.play(match, state, 1, self.clock)
        return f"reconnected, moved at ply 3, then {end['result']} ({end['reason']})"
