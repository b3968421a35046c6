"""Behind a trusted proxy (``--trusted-proxy 127.0.0.1/32``), over real sockets: whatever a client
writes into ``X-Forwarded-For`` or ``Forwarded`` to the left of its own address, the ban of its
network and the sign-in limit of its address still hold (client_address.py walks from the right)."""

from __future__ import annotations

import ipaddress
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from test_guard import client_of, eventually, refusal

from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.store.sqlite import SqliteStore
from tests.support.accounts import Browser, basic
from tests.support.wsclient import Client

PROXY = (ipaddress.ip_network("127.0.0.1/32"),)
LOCAL = ("127.0.0.1", 0)  # the "proxy": every request comes from 127.0.0.1


@pytest.fixture(params=["x-forwarded-for", "forwarded"])
async def server(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[RunningServer]:
    config = ServerConfig(
        port=0, warm_engine=False, trusted_proxies=PROXY, proxy_header=request.param, ban_check_interval_s=0.05
    )
    # The clock stands still: the sign-in limit's bucket refills by it, and must not while hashes run.
    async with run_server(config, SqliteStore(tmp_path / "arbiter.db"), now=lambda: 1000.0) as running:
        yield running


def forwarded(server: RunningServer, *hops: str) -> dict[str, str]:
    """The header the server reads, naming these hops (left to right) as a client and its proxy wrote them."""
    if server.hub.guard.proxies.header == "Forwarded":
        return {"Forwarded": ", ".join(f'for="{hop}"' if ":" in hop else f"for={hop}" for hop in hops)}
    return {"X-Forwarded-For": ", ".join(hops)}


async def test_a_banned_network_stays_out_whatever_the_client_adds_to_the_left(server: RunningServer) -> None:
    await server.hub.store.add_ban("network", "203.0.113.0/24")
    await eventually(lambda: server.hub.guard.bans.address_banned(ipaddress.ip_address("203.0.113.7")))
    for hops in [("203.0.113.7",), ("junk", "203.0.113.7"), ("unknown", "203.0.113.7"), ("198.51.100.1", "203.0.113.7"),
                 ("203.0.113.7:4711",), ("_hidden", "203.0.113.7", "127.0.0.1")]:  # fmt: skip
        status, body = await refusal(server, LOCAL, headers=forwarded(server, *hops))
        assert (status, body) == (403, "your address is banned from this server\n"), hops
    # Only the rightmost untrusted hop counts: a banned address to its left is the client's own text.
    client = await Client.connect(
        server.url, local_addr=LOCAL, headers=forwarded(server, "203.0.113.7", "198.51.100.1")
    )
    assert client_of(server, client) == "198.51.100.1"
    await client.close()


async def test_the_sign_in_limit_holds_whatever_the_client_adds_to_the_left(server: RunningServer) -> None:
    owner = Browser(server)
    await owner.state()
    await owner.call(
        "POST", "/account/signup", headers={**basic("gus", "gus's password"), **forwarded(server, "198.51.100.1")}
    )
    browser = Browser(server)
    await browser.state()

    async def sign_in(*hops: str) -> int:
        headers = {**basic("gus", "a wrong guess"), **forwarded(server, *hops)}
        return (await browser.call("POST", "/account/signin", headers=headers))[0]

    assert [await sign_in("198.51.100.9") for _ in range(10)] == [401] * 10  # ten a minute per address
    assert await sign_in("198.51.100.9") == 429
    for hops in [("junk", "198.51.100.9"), ("unknown", "198.51.100.9"), ("198.51.100.77", "198.51.100.9"),
                 ("198.51.100.9:4711",), ("junk", "198.51.100.9", "127.0.0.1")]:  # fmt: skip
        assert await sign_in(*hops) == 429, hops
    assert await sign_in("198.51.100.10") == 401  # another address is not held back
