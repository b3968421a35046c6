"""``arbiter up``'s status block: the address to open, whether each bot is online, the live games.

On a terminal that moves its cursor (console logs, not ``TERM=dumb``) the block stays at the bottom
of the screen, redrawn in place, and every process's log lines scroll above it, so the address never
scrolls away. Elsewhere it is printed again whenever it changes: as text with console logs, as one
JSON record (``"msg": "status"``) with JSON logs.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import shutil
from dataclasses import dataclass, field, replace
from typing import IO, Any

log = logging.getLogger("arbiter.stack.launcher")

# A bot's state, from its process and its own log records (the client's "connected", "connection lost").
STARTING, ONLINE, RECONNECTING, DRAINING, RESTARTING, STOPPED = (
    "starting", "online", "reconnecting", "draining", "restarting", "stopped"
)  # fmt: skip
BOT_EVENTS = {"connected": ONLINE, "connection lost": RECONNECTING, "draining": DRAINING}
_SGR = re.compile(r"\x1b\[[0-9;]*m")
_STATE_COLOURS = {ONLINE: "32", "up": "32", STARTING: "33", RECONNECTING: "33", DRAINING: "33"}


@dataclass
class StackStatus:
    """What the block shows; ``server`` is starting, up, draining or stopped (its /healthz)."""

    url: str
    bots: dict[str, str] = field(default_factory=dict)
    server: str = STARTING
    live_games: int | None = None
    notes: dict[str, str] = field(default_factory=dict)  # per bot: why it is not online (an exit code)

    def record(self) -> dict[str, Any]:
        return {"open": self.url, "server": self.server, "bots": dict(self.bots), "live_games": self.live_games}

    def lines(self, *, colour: bool = False, width: int = 200) -> list[str]:
        def paint(text: str, sgr: str) -> str:
            return f"\x1b[{sgr}m{text}\x1b[0m" if colour else text

        games = "" if self.live_games is None else f", {self.live_games} live game{'s' * (self.live_games != 1)}"
        rows = [
            f"Arbiter: open {paint(self.url, '1')} in a browser (Ctrl-C stops it)",
            f"  {'server':<10} {paint(self.server, _STATE_COLOURS.get(self.server, '31'))}{games}",
        ]
        for name, state in self.bots.items():
            note = f" ({self.notes[name]})" if name in self.notes and state != ONLINE else ""
            rows.append(f"  {name:<10} {paint(state, _STATE_COLOURS.get(state, '31'))}{note}")
        # A line wider than the terminal would wrap, and the block's redraw would miss a line.
        return [row if len(_visible(row)) < width else _visible(row)[: width - 1] for row in rows]


def _visible(text: str) -> str:
    return _SGR.sub("", text)


class StatusDisplay(io.TextIOBase):
    """Where ``arbiter up`` writes: log lines and the status block, in an order that keeps both readable.

    It is also a text stream, so the launcher's own log handler writes through it like any child's.
    """

    def __init__(self, stream: IO[str], *, live: bool, console: bool, colour: bool) -> None:
        super().__init__()
        self.stream = stream
        self.live = live
        self.console = console
        self.colour = colour
        self._status: StackStatus | None = None  # as last shown
        self._drawn: list[int] = []  # the visible width of each line of the block on the screen, when live
        self._partial = ""

    def _columns(self) -> int:
        """The width of the terminal the block is drawn on (stderr's, which need not be stdout's); a
        terminal that reports none (an unsized pty, a serial console) gets $COLUMNS or 80."""
        try:
            columns = os.get_terminal_size(self.stream.fileno()).columns
        except (OSError, ValueError, io.UnsupportedOperation):
            columns = 0
        return columns or shutil.get_terminal_size().columns

    def _erase(self) -> str:
        """Up to the block's first line, and clear to the end of the screen. A terminal made narrower
        since may have wrapped each line into several rows: they are counted at today's width."""
        columns = self._columns()
        rows = sum(max(1, -(-width // columns)) for width in self._drawn)
        self._drawn = []
        return f"\x1b[{rows}F\x1b[J" if rows else ""

    def _redraw(self) -> str:
        assert self._status is not None
        erase = self._erase()
        lines = self._status.lines(colour=self.colour, width=self._columns())
        self._drawn = [len(_visible(line)) for line in lines]
        return erase + "".join(f"{line}\n" for line in lines)

    def line(self, text: str) -> None:
        """One log line (a record, or a child's unparsed output), above the block when it is live."""
        if self.live and self._drawn:
            self.stream.write(f"{self._erase()}{text}\n{self._redraw()}")
        else:
            self.stream.write(f"{text}\n")
        self.stream.flush()

    def show(self, status: StackStatus) -> None:
        """The block, if anything in it changed since it was last shown."""
        if status == self._status:
            return
        self._status = replace(status, bots=dict(status.bots), notes=dict(status.notes))
        if not self.console:
            log.info("status", extra=self._status.record())
            return
        if self.live:
            self.stream.write(self._redraw())
        else:
            self.stream.write("\n" + "".join(f"{line}\n" for line in self._status.lines(colour=self.colour)) + "\n")
        self.stream.flush()

    # The text-stream side, for a logging.StreamHandler: whole lines go to ``line``.
    def write(self, text: str) -> int:
        self._partial += text
        *lines, self._partial = self._partial.split("\n")
        for one in lines:
            self.line(one)
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self.live


def relay_json(line: str) -> dict[str, Any] | None:
    """A child's log line as its fields, or None for anything else (a traceback, a usage error)."""
    if not line.startswith("{"):
        return None
    try:
        fields = json.loads(line)
    except (ValueError, RecursionError):  # RecursionError: nested too deep to be a record
        return None
    return fields if isinstance(fields, dict) and "msg" in fields else None
