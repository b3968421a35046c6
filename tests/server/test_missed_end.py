"""A match's end is never lost to a socket that dies as the match ends (SPEC sections 8 and 9).

The winner sends the winning move and its socket goes at some point around it: before the move
leaves, with it, once its ``moved`` came, once its ``end`` came; cut cleanly (FIN) or reset (RST).
Whatever the point, the reconnect's welcome either resumes the match (the move never arrived, so
it is played again) or is followed by the match's ``end``: the server keeps each end until the
client's pong to a ping sent after it proves the client read it. A guest comes back with its
resume token, a registered bot with its token; the store is a real SQLite file, whose commit
delays the end as in production.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.store.sqlite import SqliteStore
from tests.support.wsclient import Client, play_move, start_match

FIRST_WINS = [[0, 0], [1, 0], [0, 1], [1, 1]]  # then [0, 2]: the first column
WINNING = [0, 2]
POINTS = ("before_move", "with_move", "after_moved", "after_end")


@pytest.fixture
async def sqlite_server(tmp_path) -> AsyncIterator[tuple[RunningServer, SqliteStore]]:
    store = SqliteStore(tmp_path / "arbiter.db")
    async with run_server(ServerConfig(port=0, reconnect_grace_s=10.0), store) as running:
        yield running, store


async def confirmed(server: RunningServer, client: Client) -> None:
    """Return once the server holds no end unconfirmed for ``client`` (its pong came back)."""
    player = server.hub.roster.get(client.name)
    while player.unconfirmed or player.unread:
        assert (await client.request("ping"))["type"] == "pong"


async def drop(client: Client, how: str) -> None:
    """The client's socket dies without a websocket close, FIN (a clean TCP close) or RST; or, ``close``,
    the client leaves on purpose with a websocket closing handshake."""
    if how == "close":
        await client.ws.close()
        return
    transport = client.ws.transport
    transport.abort() if how == "rst" else transport.close()


@pytest.mark.parametrize("how", ["fin", "rst", "close"])
@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize("who", ["guest", "bot"])
async def test_the_end_reaches_a_winner_whose_socket_dies_around_the_last_move(sqlite_server, who, point, how):
    server, store = sqlite_server
    fields = {"token": await store.add_player("winner", "bot")} if who == "bot" else {}
    winner = await Client.connect(server.url, **fields)
    loser = await Client.connect(server.url)
    clients = [winner, loser]
    try:
        match = await start_match(winner, loser)
        for ply, move in enumerate(FIRST_WINS):
            assert (await play_move(clients[ply % 2], match, ply, move))["type"] == "moved"
        await winner.expect("moved", match=match, ply=3)
        if point == "before_move":
            await drop(winner, how)
        else:
            await winner.send({"type": "move", "match": match, "ply": 4, "move": WINNING})
            if point == "after_moved":
                await winner.expect("moved", match=match, ply=4)
            elif point == "after_end":
                await winner.expect("end", match=match)
                await confirmed(server, winner)
            await drop(winner, how)
        await winner.wait_closed()
        token = fields.get("token") or winner.welcome["resume_token"]
        # Nothing is owed to a client that read and confirmed the end, or that left on purpose once its move
        # was sent (what it did not wait for is not kept for it).
        owed = point != "after_end" and (how != "close" or point == "before_move")
        if not owed and who == "guest":  # the guest is gone, and its token with it
            refused = await Client.connect(server.url, hello=False)
            clients.append(refused)
            assert (await refused.request("hello", protocol=1, client="tests/1", token=token))["code"] == "auth_failed"
            return
        back = await Client.connect(server.url, token=token)
        clients.append(back)
        assert back.name == winner.name
        if back.welcome["resumed"] == [match]:  # the move never reached the server: play it now
            assert point in ("before_move", "with_move")
            state = await back.expect("match_state", match=match)
            assert state["ply"] == 4 and state["color"] == 0
            assert (await play_move(back, match, 4, WINNING))["type"] == "moved"
        else:
            assert back.welcome["resumed"] == []
        if not owed:  # not sent again (a missed end would come before the pong)
            assert (await back.request("ping"))["type"] == "pong"
            assert back.pending("end") == []
        else:
            end = await back.expect("end", match=match)
            assert (end["result"], end["winner"], end["reason"], end["ply"]) == ("1-0", 0, "line", 5)
        assert (await loser.expect("end", match=match))["result"] == "1-0"
        assert (await store.get_game(match)).result == "1-0"
    finally:
        for client in clients:
            await client.close()
