"""Every kind of bad input, each its own test: the error code (or close code), no match changed,
and every other connection unaffected (it still plays a move and gets it echoed)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from dataclasses import dataclass

import msgpack
import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed
from websockets.protocol import State

from arbiter.protocol import CloseCode
from arbiter.server import ServerConfig
from tests.support.wsclient import Client, play_move, start_match


@dataclass
class Arena:
    """Two live matches (alice–bob with two moves played, carol–dave fresh), a spectator and a stranger."""

    server: object
    alice: Client
    bob: Client
    carol: Client
    dave: Client
    watcher: Client
    stranger: Client
    match: str
    other: str

    def world(self) -> list[tuple]:
        """Everything a bad request must not change."""
        hub = self.server.hub
        matches = sorted(
            (
                m.id,
                tuple(map(tuple, m.match.moves)),
                m.match.to_move,
                m.match.draw_offer,
                m.match.result,
                m.match.clock.running,
            )
            for m in hub.matches.live.values()
        )
        return [matches, sorted(hub.challenges.open), sorted(p.name for p in hub.roster)]

    async def others_unaffected(self) -> None:
        """The other match still plays; the spectator still gets its moves."""
        moved = await play_move(self.carol, self.other, 0, [1, 1])
        assert moved["type"] == "moved", moved
        assert (await self.dave.expect("moved", match=self.other, ply=0))["move"] == [1, 1]
        assert (await self.bob.request("ping"))["type"] == "pong"


@pytest.fixture
async def arena(server, connect) -> Arena:
    alice, bob, carol, dave = [await connect() for _ in range(4)]
    watcher, stranger = await connect(), await connect()
    match = await start_match(alice, bob)
    await play_move(alice, match, 0, [1, 1])
    await play_move(bob, match, 1, [0, 0])
    await watcher.request("spectate", match=match)
    other = await start_match(carol, dave)
    return Arena(server, alice, bob, carol, dave, watcher, stranger, match, other)


async def refused(arena: Arena, client: Client, frame: bytes | str, code: str, rid=None) -> dict:
    """Send ``frame``; assert the error code; assert nothing changed and the others are fine."""
    before = arena.world()
    await client.send_raw(frame)
    error = await client.expect("error")
    assert error["code"] == code, error
    if rid is not None:
        assert error["re"] == rid
    assert arena.world() == before
    assert (await client.request("ping"))["type"] == "pong"  # the sender's connection still works
    await arena.others_unaffected()
    return error


def pack(message) -> bytes:
    return msgpack.packb(message)


# --- frames and shapes ------------------------------------------------------------------------------
async def test_malformed_msgpack(arena):
    await refused(arena, arena.alice, b"\xc1\x00\xff", "bad_frame")


async def test_truncated_msgpack(arena):
    await refused(arena, arena.alice, pack({"type": "ping", "id": 1})[:-2], "bad_frame")


async def test_trailing_bytes(arena):
    await refused(arena, arena.alice, pack({"type": "ping"}) + b"\x00", "bad_frame")


async def test_text_frame(arena):
    await refused(arena, arena.alice, '{"type": "ping"}', "bad_frame")


async def test_ext_type(arena):
    frame = pack({"type": "ping", "id": msgpack.ExtType(3, b"x")})
    await refused(arena, arena.alice, frame, "bad_frame")


async def test_timestamp_ext(arena):
    await refused(arena, arena.alice, pack({"type": "ping", "id": msgpack.Timestamp(1, 2)}), "bad_frame")


async def test_binary_string_value(arena):
    await refused(arena, arena.alice, pack({"type": "ping", "id": b"raw"}), "bad_frame")


async def test_invalid_utf8(arena):
    await refused(arena, arena.alice, b"\x81\xa4type\xa2\xff\xfe", "bad_frame")


async def test_deep_nesting(arena):
    frame = b"\x82\xa4type\xa4move\xa4move" + b"\x91" * 3000 + b"\x01"
    await refused(arena, arena.alice, frame, "bad_frame")


async def test_oversized_container(arena):
    frame = b"\x82\xa4type\xa4ping\xa2id" + b"\xdc\x10\x00" + b"\x00" * 4096
    await refused(arena, arena.alice, frame, "bad_frame")


async def test_frame_not_a_map(arena):
    await refused(arena, arena.alice, pack([1, 2, 3]), "not_a_map")


async def test_map_without_type(arena):
    await refused(arena, arena.alice, pack({"id": 4, "match": arena.match}), "not_a_map", rid=4)


async def test_a_whole_move_without_its_type_is_no_move(arena):
    """The move fast path once took it: every field of a legal move, but no ``type``."""
    frame = pack({"id": 12, "match": arena.match, "ply": 2, "move": [2, 2]})
    await refused(arena, arena.alice, frame, "not_a_map", rid=12)


async def test_type_not_a_string(arena):
    await refused(arena, arena.alice, pack({"type": 7, "id": 5}), "not_a_map", rid=5)


async def test_non_string_map_key(arena):
    await refused(arena, arena.alice, b"\x82\xa4type\xa4ping\x01\x02", "bad_frame")


async def test_unknown_type(arena):
    await refused(arena, arena.alice, pack({"type": "teleport", "id": 6}), "unknown_type", rid=6)


async def test_missing_field(arena):
    frame = pack({"type": "move", "id": 7, "match": arena.match, "move": [2, 2]})
    await refused(arena, arena.alice, frame, "missing_field", rid=7)


async def test_mistyped_field(arena):
    frame = pack({"type": "move", "id": 8, "match": arena.match, "ply": "2", "move": [2, 2]})
    await refused(arena, arena.alice, frame, "bad_field", rid=8)


async def test_mistyped_move(arena):
    frame = pack({"type": "move", "id": 9, "match": arena.match, "ply": 2, "move": "c3"})
    await refused(arena, arena.alice, frame, "bad_field", rid=9)


async def test_unknown_field(arena):
    frame = pack({"type": "move", "id": 10, "match": arena.match, "ply": 2, "move": [2, 2], "promote": 1})
    await refused(arena, arena.alice, frame, "unknown_field", rid=10)


async def test_bad_request_id(arena):
    await refused(arena, arena.alice, pack({"type": "ping", "id": 1.5}), "bad_field")


# --- moves ------------------------------------------------------------------------------------------
def move(arena: Arena, ply: int, cell, rid=11, match: str | None = None) -> bytes:
    return pack({"type": "move", "id": rid, "match": match or arena.match, "ply": ply, "move": cell})


async def test_illegal_move_on_an_occupied_cell(arena):
    await refused(arena, arena.alice, move(arena, 2, [1, 1]), "illegal_move", rid=11)


async def test_move_off_the_board(arena):
    await refused(arena, arena.alice, move(arena, 2, [3, 0]), "bad_move", rid=11)


async def test_move_of_the_wrong_shape(arena):
    await refused(arena, arena.alice, move(arena, 2, [1, 2, 0]), "bad_move", rid=11)


async def test_move_out_of_turn(arena):
    await refused(arena, arena.bob, move(arena, 2, [2, 2]), "not_your_turn", rid=11)


async def test_stale_ply(arena):
    await refused(arena, arena.alice, move(arena, 1, [2, 2]), "stale_ply", rid=11)


async def test_future_ply(arena):
    await refused(arena, arena.alice, move(arena, 7, [2, 2]), "stale_ply", rid=11)


async def test_move_in_an_unknown_match(arena):
    await refused(arena, arena.alice, move(arena, 2, [2, 2], match="no-such-match"), "unknown_match", rid=11)


async def test_move_by_a_spectator(arena):
    await refused(arena, arena.watcher, move(arena, 2, [2, 2]), "not_a_player", rid=11)


async def test_move_by_a_stranger(arena):
    await refused(arena, arena.stranger, move(arena, 2, [2, 2]), "not_a_player", rid=11)


async def test_resign_by_a_stranger(arena):
    await refused(arena, arena.stranger, pack({"type": "resign", "id": 12, "match": arena.match}), "not_a_player")


async def test_move_in_a_finished_match(arena):
    await arena.bob.request("resign", match=arena.match)
    await arena.alice.expect("end", match=arena.match)
    await refused(arena, arena.alice, move(arena, 2, [2, 2]), "match_over", rid=11)


# --- abuse: closes ----------------------------------------------------------------------------------
async def test_frame_over_the_size_limit_closes_1009(arena):
    before = arena.world()
    limit = arena.server.hub.config.max_frame_bytes
    await arena.stranger.send_raw(pack({"type": "ping", "id": "x" * limit}))
    code, _ = await arena.stranger.wait_closed()
    assert code == CloseCode.MESSAGE_TOO_BIG
    assert arena.world()[0] == before[0]
    await arena.others_unaffected()


@pytest.mark.parametrize("config", [ServerConfig(port=0, rate_per_s=5, rate_burst=10, flood_tolerance=30)])
async def test_flood_gets_rate_limited_then_closed(arena):
    before = arena.world()
    flooder = arena.stranger
    for i in range(200):
        await flooder.send({"type": "ping", "id": i})
    code, _ = await flooder.wait_closed()
    assert code == CloseCode.FLOOD
    pongs = flooder.pending("pong")
    errors = flooder.pending("error")
    assert 10 <= len(pongs) < 60  # the burst, plus what trickled in at 5/s while the flood lasted
    assert [e["code"] for e in errors][:1] == ["rate_limited"] and len(errors) <= 5
    assert arena.world()[0] == before[0]
    await asyncio.sleep(0)
    await arena.others_unaffected()


@pytest.mark.parametrize(
    "config", [ServerConfig(port=0, max_send_buffer_bytes=64 * 1024, rate_per_s=1e6, rate_burst=10**6)]
)
async def test_client_that_does_not_read_is_closed(server, connect):
    reader = await connect()
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", server.port))
    lazy = await ws_connect(server.url, sock=sock, compression=None, max_size=2**24)
    await lazy.send(pack({"type": "hello", "protocol": 1, "client": "lazy"}))
    await lazy.recv()
    lazy.transport.pause_reading()  # stop reading: the server's replies can only pile up
    request = pack({"type": "lobby"})
    async with asyncio.timeout(30):
        for _ in range(40_000):
            await lazy.send(request)
            if lazy.state is not State.OPEN:
                break
        lazy.transport.resume_reading()
        with contextlib.suppress(ConnectionClosed):
            async for _ in lazy:  # read the backlog up to the server's close frame
                pass
    assert lazy.close_code == CloseCode.TOO_SLOW
    assert (await reader.request("ping"))["type"] == "pong"
