"""Fixtures: a real server on 127.0.0.1 with an ephemeral port, and clients that close themselves.

Other suites can do the same without these fixtures::

    from arbiter.server import ServerConfig, run_server
    async with run_server(ServerConfig(port=0)) as server:
        ...  # connect to server.url
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.store.memory import MemoryStore
from tests.support.wsclient import Client

Connect = Callable[..., Awaitable[Client]]


@pytest.fixture
def config() -> ServerConfig:
    """Override in a test module (or parametrize) for other limits."""
    return ServerConfig(port=0, reconnect_grace_s=2.0)


@pytest.fixture
def store() -> MemoryStore:
    return MemoryStore()


@pytest.fixture
async def server(config: ServerConfig, store: MemoryStore) -> AsyncIterator[RunningServer]:
    async with run_server(config, store) as running:
        yield running


@pytest.fixture
async def connect(server: RunningServer) -> AsyncIterator[Connect]:
    """``await connect(**hello_fields)`` → a greeted Client; all are closed after the test."""
    clients: list[Client] = []

    async def open_client(**fields: Any) -> Client:
        client = await Client.connect(server.url, **fields)
        clients.append(client)
        return client

    yield open_client
    for client in clients:
        await client.close()
