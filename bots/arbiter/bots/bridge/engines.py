"""Gomocup engines as a bot's move source: one warm engine process per live match.

``EnginePool`` is a bridge's process pool (base.py): a match takes an idle engine of its board
size (START already taken, hash already allocated by a warm-up search before any clock ran), and
gives it back with RESTART when it ends. Every failure is a ``GiveUp`` with its class, so the
match is resigned with that cause rather than played on by anyone else.

Which games: five in a row on the boards the engine took at START, under the rules it took
(``probe``): a Gomocup engine plays five in a row only, some take only square boards in a size
range and refuse RECTSTART, and many play free style and exact five only. ``INFO rule`` carries the
rule (engine/arbiter/engine/gomocup.py: 0 free style, 1 exact five, 4 renju, 8 caro, 9 exact-five
caro); an engine that does not play one answers it with an ``ERROR`` line, as Gomocup engines do
(there is no other way for one to say so), so only what START (or RECTSTART) and INFO rule
accepted is offered. A forbidden point the engine plays in renju is an illegal move like any other.

The swap openings go through ``SWAP2BOARD`` (Gomocup's swap2 extension; pbrain/engine.py says the
answers), probed last: an engine that answers an empty board's ``SWAP2BOARD`` with three stones
plays swap2 (``swap2``), one that answers ``ERROR``/``UNKNOWN`` or nothing in time does not, and
is refused every swap game (``refusal``), as every engine is refused swap1 (SWAP2BOARD's answer at
three stones may be two more stones, which swap1 has not). The client asks a swap phase's decisions one at a time
(``request.swap``: the next stone, or a choice): the pool asks SWAP2BOARD at 0, 3 and 5 stones and
keeps the stones of its answer for the requests that follow (``_planned``), the stone a colour choice
came with too, which is then the engine's move. A decision's stones go as BOARD's
``x,y,who`` lines (1 = the side to move's), as Rapfi reads them; after one, the engine's next move
is asked with the whole BOARD.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arbiter.engine import EngineError, Game, ParamError, create_game
from arbiter.engine.gomocup import info_rule, rule_name

from ..brain import Brain, ThinkRequest, ThinkResult
from ..client.deciding import GiveUp
from .base import SETUP_TIMEOUT, ProcessPool, answer_deadline
from .process import EngineProcess

log = logging.getLogger("arbiter.bots.bridge")

WARM_TURN_MS = 200  # the warm-up search's timeout_turn
MAX_MATCH_MS = 86_400_000  # timeouts above a day read as "no limit" to some engines: never send more
RECT_PROBE = (12, 10)


@dataclass(frozen=True)
class Decision:
    """An engine's swap2 decision: ``take`` a colour ("black", "white") or None, and the stones it placed."""

    take: str | None
    stones: list[list[int]]


class EngineBrain(Brain):
    """What the client asks of a brain class (levels, analysis) for an engine in another process."""

    name = "pbrain"
    score_unit = "cp"

    @classmethod
    def plays(cls, game: Game) -> bool:
        return info_rule(game) is not None

    def think(self, request: ThinkRequest) -> ThinkResult:
        raise NotImplementedError("a bridged engine thinks in its own process (EnginePool.think)")


def rules_of(game: str) -> set[int]:
    """The ``INFO rule`` values a challenge of ``game`` may need: with exact five and without."""
    rules = set()
    for exact in (False, True):
        try:
            rule = info_rule(create_game(game, {"exact": exact}))
        except ParamError:  # exact fixed by the preset, or no exact for the rule
            continue
        if rule is not None:
            rules.add(rule)
    return rules


class EnginePool(ProcessPool[EngineProcess]):
    """Engine processes for ``argv``, at most ``slots`` at once (see the module docstring)."""

    brain_class: type[Brain] = EngineBrain

    def __init__(self, argv: Sequence[str], *, slots: int, max_memory: int = 0) -> None:
        super().__init__(argv, slots=slots)
        self.max_memory = max_memory
        self.squares: set[int] = set()  # board sizes START took
        self.rectangles = False  # whether RECTSTART was taken
        self.rules = {0}  # the INFO rule values taken (free style always)
        self.about = ""  # the engine's ABOUT line: name="…", version="…"
        self.swap2 = False  # whether it answers SWAP2BOARD
        self._spawned = 0
        self._planned: dict[str, list[Any]] = {}  # match id → the moves a swap2 decision fixed, from ply 0

    # --- what it plays ------------------------------------------------------------------------
    async def probe(self, sizes: Sequence[int], rules: Iterable[int] = ()) -> None:
        """Ask one engine which boards it takes (START for each of ``sizes``, RECTSTART once) and
        which of ``rules`` (INFO rule, then a START it took: an ERROR before the OK refuses the rule)."""
        engine = await EngineProcess.spawn(self.argv)
        try:
            await engine.send("ABOUT")
            self.about = await engine.answer(time.monotonic() + SETUP_TIMEOUT, expect="line")
            for size in sizes:
                if await self._start(engine, size, size):
                    self.squares.add(size)
            self.rectangles = await self._start(engine, *RECT_PROBE)
            size = 15 if 15 in self.squares else min(self.squares, default=0)
            for rule in sorted(set(rules) - {0}) if size else ():
                await engine.send(f"INFO rule {rule}")
                if await self._start(engine, size, size):
                    self.rules.add(rule)
                else:  # the ERROR was the rule's; START's OK follows
                    await engine.answer(time.monotonic() + SETUP_TIMEOUT, expect="ok")
            if size:
                self.swap2 = await self._probe_swap2(engine, size)
        finally:
            await engine.close()
        log.info("engine probed", extra={"engine": self.argv[0], "about": self.about, "squares": sorted(self.squares),
                                         "rectangles": self.rectangles, "rules": sorted(self.rules),
                                         "swap2": self.swap2})  # fmt: skip

    async def _probe_swap2(self, engine: EngineProcess, size: int) -> bool:
        """Whether the engine answers an empty board's SWAP2BOARD with three stones on it (last: the
        engine is closed after it, whatever it left unanswered)."""
        await engine.send("INFO rule 0", f"INFO timeout_turn {WARM_TURN_MS}", "SWAP2BOARD", "DONE")
        try:
            line = await _decision_line(engine, time.monotonic() + SETUP_TIMEOUT)
        except GiveUp:  # silence (or an exit): no swap2
            return False
        stones = _cells(line) if MOVE_LIST.fullmatch(line) else []
        return len(stones) == 3 and all(0 <= c < size for stone in stones for c in stone)

    def refusal(self, game: str, params: Mapping[str, Any]) -> str | None:
        """Why a challenge's game is not one the engine plays, or None."""
        try:
            rules = create_game(game, params)
        except EngineError as error:
            return str(error)
        rule = info_rule(rules)
        if rule is None:
            return f"{game} is not five in a row"
        if rule not in self.rules:
            return f"the engine does not play {rule_name(rules)} (INFO rule {rule})"
        m, n = rules.params["m"], rules.params["n"]
        if m == n and m not in self.squares:
            return f"the engine does not take a {m}x{n} board"
        if m != n and not self.rectangles:
            return "the engine takes only square boards"
        opening = rules.params.get("opening", "none")
        if opening == "swap1":  # SWAP2BOARD's choice at three stones may be two more: swap2's, never swap1's
            return "the engine plays the swap openings through SWAP2BOARD: swap2 only"
        if opening == "swap2" and not self.swap2:
            return "the engine does not answer SWAP2BOARD (no swap2)"
        return None

    async def warm(self, size: int) -> None:
        """Start every slot's engine on ``size`` and run one short search in each, before any clock."""
        engines = await asyncio.gather(*(self._fresh(size, size) for _ in range(self.slots)))
        self._idle.extend(engines)

    # --- moves --------------------------------------------------------------------------------
    async def think(self, request: ThinkRequest) -> ThinkResult:
        """The engine's move for ``request`` (its match's engine), or its swap decision (``request.swap``),
        or GiveUp with the cause."""
        planned = self._planned.get(request.match_id, [])
        ply = len(request.moves)
        if request.swap is not None and request.swap.get("phase") == "choose":
            return await self._choose(request)
        if len(planned) > ply and planned[:ply] == request.moves:  # a stone (or move) a decision fixed
            return ThinkResult(planned[ply], {"swap": "planned"})
        if request.swap is not None:  # a phase's stones with none planned: the opener's three, or two more
            decision = await self.swap(dataclasses.replace(request, moves=request.moves[: 3 if ply >= 3 else 0]))
            if decision.take is not None:
                raise GiveUp("protocol_error", f"{self.argv[0]} chose {decision.take} where it had to place stones")
            self._planned[request.match_id] = [*request.moves[: 3 if ply >= 3 else 0], *decision.stones]
            return await self.think(request)
        return await self._move(request)

    async def _choose(self, request: ThinkRequest) -> ThinkResult:
        """A swap choice: the engine's SWAP2BOARD answer as one of the phase's options."""
        assert request.swap is not None
        decision = await self.swap(request)
        self._planned[request.match_id] = [*request.moves, *decision.stones]
        choice = decision.take or "place"
        if choice not in request.swap.get("options", ()):
            raise GiveUp("protocol_error", f"{self.argv[0]} chose {choice}, not one of {request.swap.get('options')}")
        return ThinkResult(choice, {"swap": choice})

    def forget(self, match_id: str) -> None:
        self._planned.pop(match_id, None)
        super().forget(match_id)

    async def _move(self, request: ThinkRequest) -> ThinkResult:
        began = time.monotonic()
        rules = request.game_rules()
        engine = self._busy.get(request.match_id)
        if engine is None or not engine.alive:
            engine = await self._take(rules.params["m"], rules.params["n"])
            self._busy[request.match_id] = engine
        deadline = answer_deadline(request, began)
        clock = request.clock or {}
        turn_ms = round(request.budget * 1000)
        info = [
            f"INFO timeout_turn {max(1, min(turn_ms, MAX_MATCH_MS))}",
            f"INFO timeout_match {min(clock.get('initial_ms', 0), MAX_MATCH_MS)}",
            f"INFO time_left {max(1, min(clock.get('remaining_ms', turn_ms), MAX_MATCH_MS))}",
            f"INFO max_memory {self.max_memory}",
            f"INFO rule {info_rule(rules)}",
        ]
        commands = [*info, *position_commands(engine.known, request.moves)]
        await engine.send(*commands)
        line = await engine.answer(deadline, expect="move", resend=commands[len(info) :])
        x, y = (int(part) for part in line.split(","))
        state = request.position()
        try:
            state.play(rules.decode_move([x, y]))
        except EngineError as error:
            raise GiveUp("illegal_move", f"{engine.name} played {x},{y}: {error}") from None
        engine.known = [*request.moves, [x, y]]
        found = engine.analysis()
        answer: dict[str, Any] = {key: found[key] for key in ("depth", "nodes", "nps", "score") if key in found}
        answer["seconds"] = round(time.monotonic() - began, 4)
        return ThinkResult([x, y], answer)

    async def swap(self, request: ThinkRequest) -> Decision:
        """The engine's swap2 decision at ``request.moves`` (0, 3 or 5 stones): SWAP2BOARD, its answer
        checked (stones legal, as many as the phase takes), or GiveUp with the cause."""
        began = time.monotonic()
        rules = request.game_rules()
        if len(request.moves) not in (0, 3, 5):
            raise GiveUp("protocol_error", f"a swap2 decision at {len(request.moves)} stones")
        engine = self._busy.get(request.match_id)
        if engine is None or not engine.alive:
            engine = await self._take(rules.params["m"], rules.params["n"])
            self._busy[request.match_id] = engine
        mover = len(request.moves) % 2
        stones = [f"{x},{y},{1 if index % 2 == mover else 2}" for index, (x, y) in enumerate(request.moves)]
        await engine.send(f"INFO timeout_turn {max(1, round(request.budget * 1000))}",
                          f"INFO rule {info_rule(rules)}", "SWAP2BOARD", *stones, "DONE")  # fmt: skip
        line = await _decision_line(engine, answer_deadline(request, began))
        engine.known = []  # its board is the decision's: the next move is asked with the whole BOARD
        if line.upper() == "SWAP" and request.moves:
            return Decision("black", [])
        placed = _cells(line) if MOVE_LIST.fullmatch(line) else []
        wanted = {0: (3,), 3: (1, 2), 5: (1,)}[len(request.moves)]
        if len(placed) not in wanted:
            raise GiveUp("protocol_error", f"{engine.name} answered SWAP2BOARD with {line[:80]!r}")
        state = request.position()
        try:
            for cell in placed:
                state.play(rules.decode_move(cell))
        except EngineError as error:
            raise GiveUp("illegal_move", f"{engine.name} placed {line}: {error}") from None
        return Decision("white" if len(placed) == 1 else None, placed)

    # --- engines ------------------------------------------------------------------------------
    async def _take(self, m: int, n: int) -> EngineProcess:
        for engine in self._idle:
            if engine.size == (m, n) and engine.alive:
                self._idle.remove(engine)
                return engine
        if self._idle:  # one of another size (or dead) makes room
            await self._idle.pop(0).close()
        return await self._fresh(m, n)

    async def _fresh(self, m: int, n: int) -> EngineProcess:
        """A new engine on an m×n board, warmed by one short search and RESTARTed."""
        engine = await EngineProcess.spawn(self.argv)
        self._spawned += 1
        try:
            if not await self._start(engine, m, n):
                raise GiveUp("protocol_error", f"{engine.name} refused a {m}x{n} board it took before")
            await engine.send(f"INFO timeout_turn {WARM_TURN_MS}", f"INFO max_memory {self.max_memory}", "BEGIN")
            await engine.answer(time.monotonic() + SETUP_TIMEOUT, expect="move", resend=["BEGIN"])
            await self._restart(engine)
        except GiveUp:
            await engine.kill()
            raise
        return engine

    async def _start(self, engine: EngineProcess, m: int, n: int) -> bool:
        await engine.send(f"START {m}" if m == n else f"RECTSTART {m},{n}")
        taken = (await engine.answer(time.monotonic() + SETUP_TIMEOUT, expect="ok")).upper() == "OK"
        if taken:
            engine.size, engine.known = (m, n), []
        return taken

    async def _restart(self, engine: EngineProcess) -> None:
        await engine.send("RESTART")
        if (await engine.answer(time.monotonic() + SETUP_TIMEOUT, expect="ok")).upper() != "OK":
            assert engine.size is not None
            if not await self._start(engine, *engine.size):  # an engine without RESTART: START again
                raise GiveUp("protocol_error", f"{engine.name} refused RESTART and START")
        engine.known = []

    async def _release(self, engine: EngineProcess) -> None:
        await self._restart(engine)


MOVE_LIST = re.compile(r"-?\d+,-?\d+( +-?\d+,-?\d+)*")


def _cells(line: str) -> list[list[int]]:
    return [[int(part) for part in stone.split(",")] for stone in line.split()]


async def _decision_line(engine: EngineProcess, deadline: float) -> str:
    """The engine's answer to SWAP2BOARD: its first line that is neither MESSAGE nor DEBUG (an
    ``ERROR`` or ``UNKNOWN`` says it has no swap2)."""
    while True:
        line = await engine.line(deadline)
        word = line.split(" ", 1)[0].upper()
        if word == "MESSAGE":
            engine.messages.append(line[8:])
        elif word != "DEBUG":
            if word in ("ERROR", "UNKNOWN"):
                raise GiveUp("protocol_error", f"{engine.name} does not answer SWAP2BOARD: {line[:80]}")
            return line


def position_commands(known: list[Any], moves: list[Any]) -> list[str]:
    """What brings the engine from the moves it has to ``moves`` and asks its move: BEGIN (an empty
    board, it opens), TURN (one move of the opponent's after its own), or the whole BOARD."""
    if not moves and not known:
        return ["BEGIN"]
    if len(moves) == len(known) + 1 and moves[:-1] == known:
        x, y = moves[-1]
        return [f"TURN {x},{y}"]
    mover = len(moves) % 2  # the engine's colour: whose turn it is
    stones = [f"{x},{y},{1 if index % 2 == mover else 2}" for index, (x, y) in enumerate(moves)]
    return ["BOARD", *stones, "DONE"]
