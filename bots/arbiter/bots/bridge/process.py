"""Outside programs spoken to line by line from asyncio: ``LineProcess`` for any, ``EngineProcess`` for pbrain.

``LineProcess`` is what every bridge shares: start a program, write lines to its standard input,
read one answer line by a deadline, and turn every failure into a ``GiveUp`` with its class: the
process ended (``crash``), no answer before the deadline (``timeout``, and the process is killed),
an answer that is not one (``protocol_error``).

``EngineProcess`` speaks Gomocup's pbrain protocol as a Gomocup manager does. The engine reads one
command a line and answers ``OK``, ``ERROR why``, or a move ``x,y``; it may print ``MESSAGE``,
``DEBUG``, ``ERROR`` and ``UNKNOWN`` lines at any time, which are logged (and a ``MESSAGE``'s
depth and evaluation kept for the move's analysis). Quirks of real engines, handled here: one
drops a command that arrives a few milliseconds after it printed its move and reports the command
as unknown, so a command is never sent sooner than ``SETTLE`` after the engine's last line, and a
command it reports unknown is sent again once.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import re
import time
from collections.abc import Sequence
from typing import Any, Self

from ..client.deciding import GiveUp

log = logging.getLogger("arbiter.bots.bridge")

SETTLE = 0.01  # seconds between the engine's last line and our next command
MAX_LINE = 1 << 16
MOVE_LINE = re.compile(r"^\s*(\d+)\s*,\s*(\d+)\s*$")
# MESSAGE fields engines print, by the names they use, as the protocol's analysis keys.
ANALYSIS_KEYS = {
    "depth": "depth", "d": "depth", "ev": "score", "eval": "score", "score": "score",
    "nodes": "nodes", "n": "nodes", "nps": "nps", "speed": "nps", "tm": "time_ms", "time": "time_ms",
}  # fmt: skip


class LineProcess:
    """A running program: lines in, lines out. ``await LineProcess.spawn(argv)``.

    ``STDERR`` is where the program's standard error goes (a subclass picks: nowhere, or the bridge's own)."""

    STDERR: int | None = asyncio.subprocess.DEVNULL
    GOODBYE: str | None = None  # the line that asks the program to exit, if its protocol has one

    def __init__(self, argv: Sequence[str], process: asyncio.subprocess.Process) -> None:
        self.argv = list(argv)
        self.process = process
        self.name = argv[0]
        self.last_line = 0.0  # time.monotonic() of the program's last output line

    @classmethod
    async def spawn(cls, argv: Sequence[str]) -> Self:
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=cls.STDERR,
                limit=MAX_LINE,
            )
        except OSError as error:
            raise GiveUp("crash", f"cannot start {argv[0]}: {error}") from None
        return cls(argv, process)

    @property
    def alive(self) -> bool:
        return self.process.returncode is None

    async def write(self, *lines: str) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write("".join(line + "\n" for line in lines).encode())
            await self.process.stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as error:
            raise GiveUp("crash", f"{self.name} is gone: {error}") from None

    async def line(self, deadline: float) -> str:
        """The program's next output line, by ``deadline`` (time.monotonic())."""
        assert self.process.stdout is not None
        try:
            raw = await asyncio.wait_for(self.process.stdout.readline(), max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            await self.kill()
            raise GiveUp("timeout", f"{self.name} did not answer in time") from None
        except ValueError:  # a line longer than MAX_LINE
            await self.kill()
            raise GiveUp("protocol_error", f"{self.name} printed a line of over {MAX_LINE} bytes") from None
        if not raw:
            code = await self.process.wait()
            raise GiveUp("crash", f"{self.name} exited with code {code}")
        self.last_line = time.monotonic()
        return raw.decode(errors="replace").strip()

    async def close(self, grace: float = 1.0) -> None:
        """The goodbye line (or the end of its input), then a kill if it does not exit within ``grace`` seconds."""
        if self.alive:
            with contextlib.suppress(GiveUp, OSError):
                if self.GOODBYE is not None:
                    await self.write(self.GOODBYE)
                assert self.process.stdin is not None
                self.process.stdin.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), grace)
        await self.kill()

    async def kill(self) -> None:
        if self.alive:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
        await self.process.wait()


class EngineProcess(LineProcess):
    """A running Gomocup engine: commands in, answers out. ``await EngineProcess.spawn(argv)``."""

    GOODBYE = "END"

    def __init__(self, argv: Sequence[str], process: asyncio.subprocess.Process) -> None:
        super().__init__(argv, process)
        self.messages: list[str] = []  # MESSAGE lines since the last command
        self.size: tuple[int, int] | None = None  # the board of its last START that it took
        self.known: list[Any] = []  # the moves of the current game as the engine has them

    async def send(self, *lines: str) -> None:
        """Write command lines, no sooner than SETTLE after the engine's last line."""
        pause = self.last_line + SETTLE - time.monotonic()
        if pause > 0:
            await asyncio.sleep(pause)
        self.messages.clear()
        await self.write(*lines)

    async def answer(self, deadline: float, *, expect: str, resend: Sequence[str] = ()) -> str:
        """The next answer line (``expect``: "move", "ok", or "line" for any), by ``deadline`` (time.monotonic()).

        Info lines are logged on the way; an ``ERROR`` is the answer when ``expect`` is "ok" (a
        refused START), and for a move it, like ``UNKNOWN``, makes us send ``resend`` once."""
        resent = False
        while True:
            line = await self.line(deadline)
            word = line.split(" ", 1)[0].upper()
            if word in ("MESSAGE", "DEBUG"):
                log.debug("engine says", extra={"engine": self.name, "line": line})
                if word == "MESSAGE":
                    self.messages.append(line[8:])
                continue
            if word in ("ERROR", "UNKNOWN"):
                if expect == "ok" and word == "ERROR":  # a refusal (START of a board it does not take)
                    log.info("engine refuses", extra={"engine": self.name, "line": line})
                    return line
                log.warning("engine complains", extra={"engine": self.name, "line": line})
                if resend and not resent:
                    resent = True
                    await self.send(*resend)
                continue
            if expect == "line" or (expect == "ok" and word == "OK"):
                return line
            if expect == "move" and MOVE_LINE.match(line):
                return line
            raise GiveUp("protocol_error", f"{self.name} answered {line[:80]!r}, not {expect}")

    def analysis(self) -> dict[str, Any]:
        """The depth, evaluation, nodes… of the engine's last MESSAGE lines that say them, as move.info keys."""
        found: dict[str, Any] = {}
        for message in self.messages:
            words = message.replace("=", " ").replace(":", " ").split()
            for key, value in itertools.pairwise(words):
                name = ANALYSIS_KEYS.get(key.lower())
                if name is not None and re.fullmatch(r"-?\d+", value):
                    found[name] = int(value)
        return found
