"""``arbiter serve`` as a real process on a given store, for tests that stop, kill or restart it."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path


async def start_server(db: Path | str, *flags: str) -> tuple[asyncio.subprocess.Process, str]:
    """Start ``arbiter serve --db DB FLAGS…`` on a free port; the process and its ws:// address once it listens."""
    command = [sys.executable, "-m", "arbiter.cli", "serve", "--port", "0", "--db", str(db), *flags]
    process = await asyncio.create_subprocess_exec(*command, stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(60):
        while True:
            line = (await process.stderr.readline()).decode()  # type: ignore[union-attr]
            assert line, "the server exited before listening"
            if line.startswith("listening on "):
                return process, line.split()[-1]


async def stop_server(process: asyncio.subprocess.Process) -> None:
    """SIGTERM (a drain), and the clean exit it must end in."""
    process.terminate()
    async with asyncio.timeout(30):
        assert await process.wait() == 0
