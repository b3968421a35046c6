"""``arbiter serve`` as a real process: it listens, plays, and stops cleanly on SIGTERM and Ctrl-C."""

from __future__ import annotations

import asyncio
import signal
import sys

import pytest

from tests.support.wsclient import Client

SERVE = [sys.executable, "-m", "arbiter.cli", "serve", "--port", "0", "--db", ":memory:"]


async def start_server(*flags: str) -> tuple[asyncio.subprocess.Process, str]:
    process = await asyncio.create_subprocess_exec(*SERVE, *flags, stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(60):
        while True:
            line = (await process.stderr.readline()).decode()
            assert line, "the server exited before listening"
            if line.startswith("listening on "):
                return process, line.split()[-1]


@pytest.mark.parametrize(("signum", "loop"), [(signal.SIGTERM, "uvloop"), (signal.SIGINT, "asyncio")])
async def test_serve_then_stop_cleanly(signum, loop):
    """On either event loop (--loop): uvloop, the default where it is installed, and asyncio's own."""
    process, url = await start_server("--loop", loop)
    try:
        client = await Client.connect(url)
        assert client.name.startswith("guest-")
        process.send_signal(signum)
        code, _ = await client.wait_closed()
        assert code == 1001  # going away
        async with asyncio.timeout(20):
            assert await process.wait() == 0
        assert b"stopped" in await process.stderr.read()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def test_bad_option_is_a_usage_error():
    process = await asyncio.create_subprocess_exec(*SERVE[:4], "--port", "70000", stderr=asyncio.subprocess.PIPE)
    _, err = await process.communicate()
    assert process.returncode == 2 and b"70000 is not in the range" in err
    process = await asyncio.create_subprocess_exec(*SERVE[:4], "--loop", "trio", stderr=asyncio.subprocess.PIPE)
    _, err = await process.communicate()
    assert process.returncode == 2 and b"'trio' is not one of 'uvloop', 'asyncio'" in err
