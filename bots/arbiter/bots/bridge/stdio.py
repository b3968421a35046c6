"""Any program as an Arbiter bot: the stdio line protocol of ``arbiter bridge stdio`` (docs/STDIO.md).

The program prints a handshake line first, ``{"stdio": 1, "name": …, "games": […], "process":
"match" | "game"}``; then for each move it must make it reads one ``turn`` line (the game, the
moves so far, whose turn, both clocks, the move's budget and deadline, the legal moves where they
are cheap to list) and answers one line, ``{"move": …, "info": {…}}``; an ``end`` line says a match
is over. With ``process: "match"`` (the default) each live match has a process of its own, kept
for the next match once one ends; with ``"game"`` one process per game answers every match of
that game, one turn at a time. A failure is a ``GiveUp`` with its class, as for a pbrain engine:
``crash``, ``timeout``, ``illegal_move``, or ``protocol_error`` for a line that is not an answer;
it carries the turn line that was sent, so the failure can be replayed (``--replay``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arbiter.engine import EngineError, Game, IllegalMove, State, create_game
from arbiter.protocol.messages import FieldError, analysis

from ..brain import Brain, ThinkRequest, ThinkResult
from ..client.deciding import GiveUp
from .base import SETUP_TIMEOUT, ProcessPool, answer_deadline, warm_rules
from .process import LineProcess

log = logging.getLogger("arbiter.bots.bridge")

STDIO_VERSION = 1
PROCESS_MODES = ("match", "game")
UNLISTED_FAMILIES = ("paper_soccer",)  # a turn's legal moves (bounce chains) are too many to list
ANALYSIS_KEYS = ("depth", "nodes", "nps", "score", "pv")  # what an answer's info may carry to move.info


@dataclass(frozen=True)
class Handshake:
    """What the program said of itself in its first line."""

    name: str
    games: frozenset[str] | None  # None: whichever games the bridge offers
    process: str  # "match": a process per live match; "game": one per game, for all its matches

    @classmethod
    def parse(cls, line: str, program: str) -> Handshake:
        """The handshake in ``line``; GiveUp (protocol_error) saying what is wrong with it."""
        try:
            fields = json.loads(line)
        except ValueError:
            fields = None
        if not isinstance(fields, dict) or fields.get("stdio") != STDIO_VERSION:
            raise GiveUp("protocol_error", f'{program}\'s first line must be its handshake {{"stdio": 1, …}}, '
                                           f"not {line[:80]!r}")  # fmt: skip
        games, process = fields.get("games"), fields.get("process", "match")
        if games is not None and not (isinstance(games, list) and all(isinstance(g, str) for g in games)):
            raise GiveUp("protocol_error", f"{program}'s handshake: games must be a list of game names")
        if process not in PROCESS_MODES:
            raise GiveUp("protocol_error", f"{program}'s handshake: process must be one of {PROCESS_MODES}")
        name = fields.get("name")
        return cls(name if isinstance(name, str) else program, None if games is None else frozenset(games), process)

    def plays(self, game: str) -> bool:
        return self.games is None or game in self.games


class StdioBrain(Brain):
    """What the client asks of a brain class (levels, analysis) for a program in another process."""

    name = "stdio"
    score_unit = "cp"

    @classmethod
    def plays(cls, game: Game) -> bool:
        return True

    def think(self, request: ThinkRequest) -> ThinkResult:
        raise NotImplementedError("a bridged program thinks in its own process (StdioPool.think)")


class StdioProcess(LineProcess):
    """A running program of the line protocol; ``await StdioProcess.start(argv)`` reads its handshake."""

    STDERR = None  # the program's standard error is the bridge's: its author sees what it prints

    def __init__(self, argv: Sequence[str], process: asyncio.subprocess.Process) -> None:
        super().__init__(argv, process)
        self.handshake = Handshake(self.name, None, "match")
        self.lock = asyncio.Lock()  # one turn at a time (a "game" process serves several matches)
        self.match: str | None = None  # the match it plays (a "match" process)
        self.owed = 0  # answers still to come for turn lines sent

    @classmethod
    async def start(cls, argv: Sequence[str]) -> StdioProcess:
        process = await cls.spawn(argv)
        try:
            process.handshake = Handshake.parse(await process.line(time.monotonic() + SETUP_TIMEOUT), process.name)
        except GiveUp:
            await process.kill()
            raise
        return process

    async def ask(self, turn: Mapping[str, Any], deadline: float) -> str:
        """Send the turn line; the answer line by ``deadline`` (time.monotonic()). The answers to turns
        whose wait was cancelled (a resync asked the same match again) come first and are skipped."""
        await self.write(json.dumps(turn, separators=(",", ":")))
        self.owed += 1
        while True:
            line = await self.line(deadline)
            self.owed -= 1
            if not self.owed:
                return line

    async def tell_end(self, match_id: str) -> None:
        """The match is over (a line the program may ignore)."""
        async with self.lock:
            await self.write(json.dumps({"type": "end", "match": match_id}))


def turn_line(request: ThinkRequest, state: State, deadline_ms: int) -> dict[str, Any]:
    """The ``turn`` line for ``request`` in position ``state`` (docs/STDIO.md)."""
    game = state.game
    clock = request.clock or {}
    color = state.to_move
    budget_ms = round(request.budget * 1000)
    mine, theirs = clock.get("remaining_ms", budget_ms), clock.get("opponent_ms", 0)
    moves = request.moves
    turn: dict[str, Any] = {
        "type": "turn",
        "match": request.match_id,
        "game": request.game,
        "family": game.family,
        "params": game.params,
        "ply": len(moves),
        "color": color,
        "moves": moves,
        "last": moves[-1] if moves else None,
        "clocks": [mine, theirs] if color == 0 else [theirs, mine],
        "clock": {
            "initial_ms": clock.get("initial_ms", 0),
            "increment_ms": clock.get("increment_ms", 0),
            "move_limit_ms": clock.get("move_limit_ms"),
        },
        "budget_ms": budget_ms,
        "deadline_ms": deadline_ms,
        "position": state.diagram(),
    }
    if game.family not in UNLISTED_FAMILIES:
        turn["legal"] = [game.encode_move(move) for move in state.legal_moves()]
    return turn


def check_answer(line: str, state: State, program: str) -> tuple[Any, dict[str, Any]]:
    """The move and info of the answer ``line`` if it is a legal move in ``state``, else GiveUp:
    ``protocol_error`` for a line that is not ``{"move": …}`` or a move of the wrong shape,
    ``illegal_move`` for a well-formed move the rules forbid here. An info the protocol would not
    carry is dropped (the move stands)."""
    try:
        answer = json.loads(line)
    except ValueError:
        raise GiveUp("protocol_error", f"{program} answered {line[:80]!r}, not a JSON line") from None
    if not isinstance(answer, dict) or "move" not in answer:
        raise GiveUp("protocol_error", f'{program} answered {line[:80]!r}, not {{"move": …}}')
    info = answer.get("info") or {}
    if not isinstance(info, dict):
        raise GiveUp("protocol_error", f"{program}'s info must be a map, not {info!r:.40}")
    move = answer["move"]
    info = {key: info[key] for key in ANALYSIS_KEYS if key in info}
    try:  # what the server would refuse the move for (a depth of a million, a pv of strings) is dropped
        shown = StdioBrain.analysis(ThinkResult(move, info))
        if shown is not None:
            analysis(shown)
    except FieldError as error:
        log.warning("info dropped", extra={"program": program, "why": str(error)})
        info = {}
    trial = state.copy()
    try:
        trial.play(state.game.decode_move(move))
    except IllegalMove as error:
        raise GiveUp("illegal_move", f"{program} played {json.dumps(move)}: {error}") from None
    except EngineError as error:
        raise GiveUp("protocol_error", f"{program} answered {json.dumps(move)[:80]}: {error}") from None
    return move, info


def position_of(game: str, params: Mapping[str, Any], moves: Sequence[Any]) -> State:
    """The position after ``moves`` (EngineError if they are not a game of ``game``)."""
    rules = create_game(game, params)
    state = rules.new_state()
    for move in moves:
        state.play(rules.decode_move(move))
    return state


class StdioPool(ProcessPool[StdioProcess]):
    """The program's processes (see the module docstring); ``await start(games)`` before play."""

    brain_class: type[Brain] = StdioBrain

    def __init__(self, argv: Sequence[str], *, slots: int) -> None:
        super().__init__(argv, slots=slots)
        self.handshake = Handshake(self.argv[0], None, "match")
        self._shared: dict[str, StdioProcess] = {}  # game → its process ("game" mode)
        self._shared_games: dict[str, str] = {}  # match → its game ("game" mode)
        self._positions: dict[str, tuple[list[Any], State]] = {}  # match → its last turn's moves and position
        self._sent: dict[str, dict[str, Any]] = {}  # match → the last turn line sent

    async def start(self, games: Sequence[str]) -> list[str]:
        """Start the processes (each says its handshake before any clock runs); the games of
        ``games`` the program plays, which are all the bridge offers."""
        first = await StdioProcess.start(self.argv)
        self.handshake = first.handshake
        offered = [game for game in games if self.handshake.plays(game)]
        warm_rules(offered)
        for game in offered:  # and a turn line of each, before any clock runs
            turn_line(ThinkRequest("warm", game, {}, [], 0.0), position_of(game, {}, []), 0)
        if self.handshake.process == "match":
            rest = await asyncio.gather(*(StdioProcess.start(self.argv) for _ in range(self.slots - 1)))
            self._idle = [first, *rest]
        elif offered:
            self._shared[offered[0]] = first
            for game in offered[1:]:
                self._shared[game] = await StdioProcess.start(self.argv)
        else:
            await first.close()
        log.info("program started", extra={"program": self.argv[0], "program_name": self.handshake.name,
                                           "processes": self.handshake.process, "games": offered})  # fmt: skip
        return offered

    def refusal(self, game: str, params: Mapping[str, Any]) -> str | None:
        """Why a challenge's game is not one the program plays, or None."""
        try:
            rules = create_game(game, params)
        except EngineError as error:
            return str(error)
        if rules.params.get("opening", "none") != "none":  # the stdio protocol has no swap decisions
            return "the stdio bridge plays no swap opening"
        return None if self.handshake.plays(game) else f"{self.handshake.name} does not play {game}"

    async def think(self, request: ThinkRequest) -> ThinkResult:
        """The program's move for ``request``, or GiveUp with the cause and the turn line sent."""
        began = time.monotonic()
        deadline = answer_deadline(request, began)
        state = self._position(request)
        process = await self._process_for(request)
        async with process.lock:
            turn = self._sent[request.match_id] = turn_line(
                request, state, max(0, round((deadline - time.monotonic()) * 1000))
            )
            try:
                move, info = check_answer(await process.ask(turn, deadline), state, process.name)
            except GiveUp as error:
                error.request = turn
                raise
        info["seconds"] = round(time.monotonic() - began, 4)
        return ThinkResult(move, info)

    def fallback(self, request: ThinkRequest) -> ThinkResult:
        """No move to fall back on: the client's deadline came before the answer (a hung process is
        still being killed), so the match is resigned for timeout, with the turn line sent."""
        error = GiveUp("timeout", f"{self.argv[0]} did not answer in time")
        error.request = self._sent.get(request.match_id)
        raise error

    def forget(self, match_id: str) -> None:
        self._positions.pop(match_id, None)
        self._sent.pop(match_id, None)
        game = self._shared_games.pop(match_id, None)
        if game is None:
            super().forget(match_id)
        elif (shared := self._shared.get(game)) is not None and shared.alive:
            self._background(_end_shared(shared, match_id))

    async def close(self) -> None:
        self._idle.extend(self._shared.values())
        self._shared.clear()
        await super().close()

    def _position(self, request: ThinkRequest) -> State:
        """The request's position, played on from the match's last one when its moves go on from there."""
        moves = request.moves
        known, state = self._positions.get(request.match_id) or ([], None)
        if state is None or moves[: len(known)] != known:
            known, state = [], position_of(request.game, request.params, [])
        for move in moves[len(known) :]:
            state.play(state.game.decode_move(move))
        self._positions[request.match_id] = (list(moves), state)
        return state

    async def _process_for(self, request: ThinkRequest) -> StdioProcess:
        if self.handshake.process == "game":
            shared = self._shared.get(request.game)
            if shared is None or not shared.alive:
                shared = self._shared[request.game] = await StdioProcess.start(self.argv)
            self._shared_games[request.match_id] = request.game
            return shared
        process = self._busy.get(request.match_id)
        if process is None or not process.alive:
            while self._idle and not self._idle[0].alive:
                await self._idle.pop(0).kill()
            process = self._idle.pop(0) if self._idle else await StdioProcess.start(self.argv)
            process.match = request.match_id
            self._busy[request.match_id] = process
        return process

    async def _release(self, process: StdioProcess) -> None:
        if process.match is not None:
            await process.tell_end(process.match)
            process.match = None


async def _end_shared(process: StdioProcess, match_id: str) -> None:
    with contextlib.suppress(GiveUp):  # a dead process is replaced at its game's next turn
        await process.tell_end(match_id)
