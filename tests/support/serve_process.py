"""``arbiter serve`` as a real process on a given store, for tests that stop, kill or restart it,
and the store opened around a block, to read what the server left."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator
from pathlib import Path

from arbiter.server.store.base import Store
from arbiter.server.store.factory import store_for


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


@contextlib.asynccontextmanager
async def serving(db: Path | str, *flags: str) -> AsyncIterator[str]:
    """A running server's ws:// address; after the block, SIGTERM and the clean exit it must end in
    (after a failure, a kill)."""
    process, url = await start_server(db, *flags)
    try:
        yield url
    except BaseException:
        process.kill()
        await process.wait()
        raise
    process.terminate()
    async with asyncio.timeout(30):
        assert await process.wait() == 0


@contextlib.asynccontextmanager
async def opened(db: Path | str) -> AsyncIterator[Store]:
    """The store of ``db`` (a SQLite file or a postgresql:// URL), open for the block."""
    store = store_for(str(db))
    await store.open()
    try:
        yield store
    finally:
        await store.close()
