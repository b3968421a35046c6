"""The cluster behind one address: deploy/haproxy.cfg (the compose file's proxy) in front of two
nodes. A client that knows only the proxy's address — as the browser knows only its page's host —
plays a match, and when its node leaves it connects to the same address again, lands on the other
node, and resumes with its guest resume token."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator

import pytest

from arbiter.protocol.errors import CloseCode
from arbiter.soak.services import HAProxy
from tests.support.wsclient import Client, play_move, start_match


@pytest.fixture
def proxy(cluster) -> Iterator[HAProxy]:
    nodes, _ = cluster
    server = HAProxy(*(nodes[name].url.removeprefix("ws://").rstrip("/") for name in ("n1", "n2")))
    server.start()
    try:
        yield server
    finally:
        server.remove()


def players_on(node) -> int:
    with urllib.request.urlopen(f"{node.http}/healthz", timeout=10) as response:
        return int(json.loads(response.read())["players"])


async def test_a_guest_behind_the_proxy_resumes_on_the_other_node_when_its_node_leaves(
    cluster, connect, proxy: HAProxy
) -> None:
    nodes, tokens = cluster
    guest = await connect(proxy)  # a node of n1 and n2, as the proxy chose
    alice = await connect(nodes["n3"], token=tokens["alice"])
    match = await start_match(alice, guest)
    assert (await play_move(alice, match, 0, [1, 1]))["type"] == "moved"
    await guest.expect("moved", match=match, ply=0)

    home = next(nodes[name] for name in ("n1", "n2") if players_on(nodes[name]) > 0)
    home.process.terminate()  # the guest's node leaves; its health check fails at once
    assert (await guest.wait_closed())[0] == CloseCode.GOING_AWAY
    assert await home.process.wait() == 0

    again = await Client.connect(proxy.url, token=guest.welcome["resume_token"])
    try:
        assert again.name == guest.name
        state = await again.expect("match_state", match=match, timeout=15)
        assert state["color"] == 1 and state["moves"] == [[1, 1]]
        assert (await play_move(again, match, 1, [0, 0]))["type"] == "moved"
        assert (await alice.expect("moved", match=match, ply=1))["move"] == [0, 0]
    finally:
        await again.close()
