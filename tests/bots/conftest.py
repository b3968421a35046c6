"""The bot tests drive the server with the server suite's protocol client where a plain client will do;
``server`` is a real server with the default settings on an ephemeral port (a test module that needs
other settings defines its own)."""

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from arbiter.server import RunningServer, ServerConfig, run_server

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    async with run_server(ServerConfig(port=0)) as running:
        yield running
