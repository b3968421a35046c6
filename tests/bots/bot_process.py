"""``arbiter bot`` as a real process, for tests that drive the command itself against a real server."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from arbiter.server import RunningServer


class BotProcess:
    """``arbiter bot BRAIN`` in its own process; its JSON log lines are read as events to wait for."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.lines: list[bytes] = []

    @classmethod
    async def start(
        cls, server: RunningServer, tmp_path: Path, account: str, *extra: str, brain: str = "random",
        games: str = "tictactoe",
    ) -> BotProcess:  # fmt: skip
        """Register ``account`` as a bot and run ``brain`` for it on one worker, with ``extra`` flags."""
        token_file = tmp_path / f"{account}.token"
        token_file.write_text(await server.hub.store.add_player(account, "bot") + "\n")
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "arbiter.cli", "bot", brain, "--server", server.url, "--token-file",
            str(token_file), "--games", games, "--workers", "1", "--log-level", "info", *extra,
            stderr=asyncio.subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        return cls(process)

    async def logged(self, text: str) -> bytes:
        """The next log line containing ``text`` (the lines before it are kept in ``lines``)."""
        assert self.process.stderr is not None
        async with asyncio.timeout(60):
            while True:
                line = await self.process.stderr.readline()
                assert line, f"the bot exited before logging {text!r}: {b''.join(self.lines)!r}"
                self.lines.append(line)
                if text.encode() in line:
                    return line

    async def exit_code(self) -> int:
        """Wait for the exit (reading the rest of the log); its code."""
        async with asyncio.timeout(30):
            rest, _ = await asyncio.gather(self.process.stderr.read(), self.process.wait())
        self.lines.append(rest)
        assert b"Traceback" not in b"".join(self.lines)
        return self.process.returncode

    def kill(self) -> None:
        if self.process.returncode is None:
            self.process.kill()
