"""The bot tests drive the server with the tests' protocol client (tests/support) where a plain client will do;
``server`` is a real server with the default settings on an ephemeral port (a test module that needs
other settings defines its own)."""

from collections.abc import AsyncIterator

import pytest

from arbiter.server import RunningServer, ServerConfig, run_server


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    async with run_server(ServerConfig(port=0)) as running:
        yield running
