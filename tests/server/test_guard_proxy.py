"""Behind the project's own HAProxy (deploy/haproxy.cfg, ``option forwardfor``): a server that trusts
the proxy caps and bans each client by its own address, not the proxy's, whatever the client writes into
X-Forwarded-For itself."""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import AsyncIterator

import pytest
from test_guard import client_of, host, refusal

from arbiter.protocol.errors import CloseCode
from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.store.memory import MemoryStore
from arbiter.soak.services import HAProxy
from tests.support.wsclient import Client

pytestmark = pytest.mark.process  # HAProxy runs in its own process

PROXY = (ipaddress.ip_network("127.0.0.1/32"),)  # HAProxy connects to the server from 127.0.0.1


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    config = ServerConfig(
        port=0, warm_engine=False, max_connections_per_ip=1, trusted_proxies=PROXY, ban_check_interval_s=0.05
    )
    async with run_server(config, MemoryStore()) as running:
        yield running


@pytest.fixture
async def proxy(server: RunningServer) -> AsyncIterator[HAProxy]:
    node = f"{server.host}:{server.port}"
    haproxy = HAProxy(node, node)
    await asyncio.to_thread(haproxy.start)
    try:
        yield haproxy
    finally:
        await asyncio.to_thread(haproxy.remove)


async def test_clients_behind_the_proxy_are_capped_and_banned_by_their_own_address(server, proxy):
    first = await Client.connect(proxy.url, local_addr=host(5))
    second = await Client.connect(proxy.url, local_addr=host(6))  # the proxy's one address holds two clients
    assert (client_of(server, first), client_of(server, second)) == ("127.0.0.5", "127.0.0.6")
    assert (await refusal(proxy.url, host(5)))[0] == 429  # 127.0.0.5's own cap, through the proxy

    await server.hub.store.add_ban("network", "127.0.0.6/32")
    assert (await second.wait_closed())[0] == CloseCode.BANNED
    assert (await refusal(proxy.url, host(6)))[0] == 403
    # What the client writes itself comes before the proxy's own header line, and changes nothing.
    for forged in ("junk", "junk, 198.51.100.1", "127.0.0.1", "unknown,"):
        assert (await refusal(proxy.url, host(6), headers={"X-Forwarded-For": forged}))[0] == 403, forged
    assert (await first.request("ping"))["type"] == "pong"
    await first.close()
