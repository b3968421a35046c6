"""Abuse controls over real sockets: connection caps per client address, in all and on guests (from
several loopback addresses, 127.0.0.x), X-Forwarded-For believed from trusted proxies only, and
slow clients closed within the bound. Bans are in test_bans.py."""

from __future__ import annotations

import asyncio
import ipaddress
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from click.testing import CliRunner
from websockets.exceptions import InvalidStatus

from arbiter.cli import main
from arbiter.protocol import PROTOCOL_VERSION
from arbiter.protocol.errors import CloseCode
from arbiter.server import RunningServer, ServerConfig
from arbiter.server.store.memory import MemoryStore
from tests.support.wsclient import Client


def host(n: int) -> tuple[str, int]:
    """A local address to connect from: 127.0.0.n, any port."""
    return (f"127.0.0.{n}", 0)


async def eventually(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    """Wait until ``condition()`` holds (the server reacting to a socket event), at most ``timeout`` s."""
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


async def refusal(server: RunningServer | str, local_addr: tuple[str, int], **options: Any) -> tuple[int, str]:
    """The HTTP status and body a refused websocket handshake gets (from the server, or this URL)."""
    with pytest.raises(InvalidStatus) as caught:
        await Client.connect(server if isinstance(server, str) else server.url, local_addr=local_addr, **options)
    response = caught.value.response
    return response.status_code, response.body.decode()


@pytest.fixture
async def clients() -> AsyncIterator[list[Client]]:
    """Clients a test opened, closed after it."""
    opened: list[Client] = []
    yield opened
    for client in opened:
        await client.close()


async def open_client(
    clients: list[Client], server: RunningServer, local_addr: tuple[str, int], **options: Any
) -> Client:
    client = await Client.connect(server.url, local_addr=local_addr, **options)
    clients.append(client)
    return client


def refused_count(server: RunningServer, reason: str) -> float | None:
    return server.hub.metrics.registry.get_sample_value("arbiter_connections_refused_total", {"reason": reason})


def client_of(server: RunningServer, client: Client) -> str:
    """The client address the server took a greeted client's connection to come from."""
    session = server.hub.roster.get(client.name).session  # type: ignore[union-attr]
    return str(session.client)  # type: ignore[union-attr]


@pytest.mark.parametrize("config", [ServerConfig(port=0, max_connections_per_ip=2)])
async def test_connections_per_address_are_capped_and_a_closed_one_frees_its_slot(server, clients):
    first = [await open_client(clients, server, host(2)) for _ in range(2)]
    status, body = await refusal(server, host(2))
    assert (status, body) == (429, "too many connections from your address (at most 2)\n")
    await open_client(clients, server, host(3))  # another address still gets in
    await open_client(clients, server, host(3))
    assert (await refusal(server, host(3)))[0] == 429

    await first[0].close()
    await eventually(lambda: server.hub.guard.caps.connections_of("127.0.0.2") == 1)
    again = await open_client(clients, server, host(2))
    assert again.welcome["type"] == "welcome"
    assert (await refusal(server, host(2)))[0] == 429
    assert refused_count(server, "per_ip") == 3


@pytest.mark.parametrize("config", [ServerConfig(port=0, max_connections=3)])
async def test_total_connections_are_capped(server, clients):
    held = [await open_client(clients, server, host(n)) for n in (2, 3, 4)]
    status, body = await refusal(server, host(5))
    assert (status, body) == (503, "the server is full; try again later\n")
    await held[1].close()
    await eventually(lambda: server.hub.guard.caps.open == 2)
    await open_client(clients, server, host(5))
    assert (await refusal(server, host(6)))[0] == 503
    assert refused_count(server, "full") == 2


@pytest.mark.parametrize("config", [ServerConfig(port=0, max_guests_per_ip=2)])
async def test_guests_per_address_are_capped_at_hello(server, store: MemoryStore, clients):
    guests = [await open_client(clients, server, host(2)) for _ in range(2)]
    third = await open_client(clients, server, host(2), hello=False)
    refused = await third.request("hello", protocol=PROTOCOL_VERSION, client="tests/1")
    assert refused["code"] == "too_many_guests" and "at most 2" in refused["message"]
    assert (await third.wait_closed())[0] == CloseCode.HANDSHAKE_FAILED
    token = await store.add_player("botty", "bot")
    assert (await open_client(clients, server, host(2), token=token)).name == "botty"  # an account is no guest
    await open_client(clients, server, host(3))  # guests from another address are counted apart

    await guests[0].close()
    await eventually(lambda: server.hub.guard.caps.guests_of("127.0.0.2") == 1)
    assert (await open_client(clients, server, host(2))).welcome["player"]["guest"]


@pytest.mark.parametrize("config", [ServerConfig(port=0, max_connections_per_ip=1, max_connections=1000)])
async def test_no_slot_leaks_whatever_way_a_connection_goes(server, clients):
    """Refused, failed and closed handshakes all give their slot back: the counts return to zero."""
    for _ in range(3):
        held = await open_client(clients, server, host(2))
        assert (await refusal(server, host(2)))[0] == 429
        # An upgrade request the websocket layer rejects after the guard admitted it (no key).
        reader, writer = await asyncio.open_connection(server.host, server.port, local_addr=host(3))
        writer.write(b"GET / HTTP/1.1\r\nHost: arbiter\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
        assert (await asyncio.wait_for(reader.readline(), 5)).startswith(b"HTTP/1.1 400")
        writer.close()
        spectator = await open_client(clients, server, host(4), hello=False)
        await spectator.ws.close()
        await held.close()
        await eventually(lambda: server.hub.guard.caps.open == 0)
    assert server.hub.guard.caps.connections_of("127.0.0.2") == 0 and not server.hub.guard.sessions


TRUSTED = (ipaddress.ip_network("127.0.0.2/32"),)


@pytest.mark.parametrize("config", [ServerConfig(port=0, max_connections_per_ip=1, trusted_proxies=TRUSTED)])
async def test_forwarded_for_is_believed_from_a_trusted_proxy_only(server, clients):
    async def through(local: int, forwarded: str) -> Client:
        return await open_client(clients, server, host(local), headers={"X-Forwarded-For": forwarded})

    assert client_of(server, await through(2, "198.51.100.1")) == "198.51.100.1"
    # The rightmost address that is not a trusted proxy; hops before it could be forged.
    assert client_of(server, await through(2, "203.0.113.9, 198.51.100.2")) == "198.51.100.2"
    assert client_of(server, await through(2, "198.51.100.3, 127.0.0.2")) == "198.51.100.3"
    # Each forwarded client has its own cap, though all come through one proxy.
    status, _ = await refusal(server, host(2), headers={"X-Forwarded-For": "198.51.100.1"})
    assert status == 429
    # From a peer that is no trusted proxy the header means nothing: 198.51.100.1 is at its cap, 127.0.0.4 is not.
    assert client_of(server, await through(4, "198.51.100.1")) == "127.0.0.4"
    # A hop the proxy wrote that does not parse: the client is the proxy itself.
    assert client_of(server, await through(2, "not-an-address")) == "127.0.0.2"
    # Junk the client wrote left of its own address changes nothing: 198.51.100.1 is still at its cap.
    assert (await refusal(server, host(2), headers={"X-Forwarded-For": "junk, 198.51.100.1"}))[0] == 429
    # IPv6 clients are counted by their /64.
    assert client_of(server, await through(2, "2001:db8:0:1::1")) == "2001:db8:0:1::1"
    assert (await refusal(server, host(2), headers={"X-Forwarded-For": "2001:db8:0:1::2"}))[0] == 429
    assert client_of(server, await through(2, "2001:db8:0:2::1")) == "2001:db8:0:2::1"


# --- slow clients -------------------------------------------------------------------------------------
BOUND = 0.5


@pytest.mark.parametrize("config", [ServerConfig(port=0, hello_timeout_s=BOUND)])
@pytest.mark.parametrize(
    "sent", [b"", b"GET / HTTP/1.1\r\nHost: arbiter\r\nUpgrade: websocket\r\n"], ids=["nothing", "half a request"]
)
async def test_a_handshake_not_finished_is_closed_within_the_bound(server, sent: bytes):
    reader, writer = await asyncio.open_connection(server.host, server.port)
    started = time.monotonic()
    writer.write(sent)
    await writer.drain()
    async with asyncio.timeout(5 * BOUND):
        try:
            while await reader.read(4096):  # until the server drops the connection
                pass
        except ConnectionResetError:
            pass
    assert BOUND * 0.9 <= time.monotonic() - started < 3 * BOUND
    writer.close()


@pytest.mark.parametrize("config", [ServerConfig(port=0, hello_timeout_s=BOUND)])
async def test_a_connection_without_hello_is_closed_within_the_bound(server):
    client = await Client.connect(server.url, hello=False)
    started = time.monotonic()
    code, reason = await client.wait_closed(timeout=5 * BOUND)
    assert (code, reason) == (CloseCode.HANDSHAKE_TIMEOUT, "no hello")
    assert BOUND * 0.9 <= time.monotonic() - started < 3 * BOUND
    await client.close()


@pytest.mark.parametrize("value", ["10.0.0.1/8", "proxy.example", "10.0.0.0/40"])
def test_a_bad_trusted_proxy_stops_serve_before_it_listens(value: str):
    result = CliRunner().invoke(main, ["serve", "--trusted-proxy", value, "--db", ":memory:", "--no-warm"])
    assert result.exit_code == 2
    assert f"--trusted-proxy {value!r} is not an IP address or network in CIDR form" in result.output
