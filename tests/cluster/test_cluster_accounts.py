"""A person's bots on a cluster: the node that acts for a bot homed elsewhere knows its owner, so
two bots of one owner on two nodes get no rated game, and the owner's ban ends a bot's match on
the node that holds it at once (not after the bot's reconnect grace) and closes each bot at home;
a token rotated through one node closes the bot connected to another."""

from __future__ import annotations

from types import SimpleNamespace
from urllib.parse import urlsplit

from lobby_updates import until

from arbiter.protocol.errors import CloseCode
from arbiter.server.store.postgresql import PostgresStore
from tests.support.accounts import Browser
from tests.support.wsclient import start_match

CLOCK = {"initial_ms": 60_000}


async def test_one_owners_bots_across_nodes_play_nothing_rated_and_its_ban_reaches_every_node(
    cluster, connect, postgres_url: str
) -> None:
    nodes, tokens = cluster
    store = PostgresStore(postgres_url)
    await store.open()
    try:
        await store.add_player("dana", "human")
        one = await connect(nodes["n1"], token=await store.add_player("dana-one", "bot", owner="dana"))
        two = await connect(nodes["n2"], token=await store.add_player("dana-two", "bot", owner="dana"))
        alice = await connect(nodes["n3"], token=tokens["alice"])
        for challenger, target in ((two, one), (one, two)):  # handled at the target's home, for a proxy
            refused = await challenger.request("challenge", to=target.name, game="tictactoe", clock=CLOCK, rated=True)
            assert refused["code"] == "same_owner", refused
        assert (await two.request("subscribe"))["type"] == "lobby_state"
        seek = (await one.request("challenge", game="tictactoe", clock=CLOCK, rated=True))["challenge"]["id"]
        await until(two, "seek_added")  # n2 knows where the seek lives (n1) by now
        assert (await two.request("accept", challenge=seek))["code"] == "same_owner"  # on n1, for n2's bot
        await one.request("cancel", challenge=seek)

        match = await start_match(two, alice, rated=True)  # lives on n3, alice's home
        await store.add_ban("player", "dana", "farming ratings")
        end = await alice.expect("end", match=match)
        assert (end["reason"], end["winner"]) == ("banned", 1)
        for bot in (one, two):
            assert (await bot.wait_closed())[0] == CloseCode.BANNED
    finally:
        await store.close()


async def test_a_token_rotated_through_one_node_closes_the_bot_on_another(cluster, connect) -> None:
    nodes, _ = cluster
    address = urlsplit(nodes["n1"].url)
    browser = Browser(SimpleNamespace(host=address.hostname, port=address.port))  # type: ignore[arg-type]
    assert (await browser.sign_up("erin", "erin's password"))[0] == 201
    status, data = await browser.call("POST", "/account/bots/new?name=erin-bot")
    assert status == 201
    bot = await connect(nodes["n2"], token=data["token"])
    assert (await browser.call("POST", "/account/bots/rotate?name=erin-bot"))[0] == 200
    assert (await bot.wait_closed())[0] == CloseCode.CREDENTIALS_ENDED
