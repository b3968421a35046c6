"""The connection hands messages to the session by call (connection.py): order, fragments, bad frames.

Each test writes frames with the client's own websocket protocol object, so that several of them (or a
message's fragments, or bytes that are not UTF-8 in a text frame) reach the server in one write.
"""

from __future__ import annotations

import asyncio
import logging

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import Server, serve
from websockets.client import ClientProtocol
from websockets.frames import BINARY, CLOSE, Close, Frame
from websockets.uri import parse_uri

import arbiter.server.net.connection as connection_module
from arbiter.protocol import PROTOCOL_VERSION, CloseCode
from arbiter.server.net.connection import SessionConnection, binary_frame
from arbiter.server.play.session import Session
from tests.support.wsclient import Client


def hello(rid: object = "h", **fields: object) -> bytes:
    return msgpack.packb({"type": "hello", "id": rid, "protocol": PROTOCOL_VERSION, "client": "tests/1", **fields})


def write_at_once(ws: ClientConnection, frames: list[bytes]) -> None:
    """Write complete binary messages to the socket in one write: the server reads them in one go."""
    for frame in frames:
        ws.protocol.send_binary(frame)
    ws.transport.write(b"".join(ws.protocol.data_to_send()))


@pytest.mark.parametrize("behind", [1, 40])
async def test_messages_sent_with_the_hello_are_answered_in_order(server, store, behind):
    token = await store.add_player("early", "bot")  # a hello that reads the store
    client = await Client.connect(server.url, hello=False)
    pings = [msgpack.packb({"type": "ping", "id": i}) for i in range(behind)]
    write_at_once(client.ws, [hello(token=token), *pings])  # 40: more than the 16 queued before reading pauses
    assert (await client.expect("welcome", re="h"))["player"]["name"] == "early"
    replies = [await client.expect(re=i) for i in range(behind)]
    assert [reply["type"] for reply in replies] == ["pong"] * behind
    assert client.pending() == []
    assert (await client.request("ping"))["type"] == "pong"  # reading resumed
    await client.close()


async def test_a_fragmented_message_is_joined(connect):
    client = await connect()
    frame = msgpack.packb({"type": "ping", "id": 7})
    await client.ws.send([frame[:2], frame[2:5], frame[5:]])  # three frames: binary, continuation, last
    assert (await client.expect(re=7))["type"] == "pong"
    await client.ws.send([msgpack.packb({"type": "lobby", "id": 8})])  # one fragment, fin set
    assert (await client.expect(re=8))["type"] == "lobby_state"


async def test_fragments_of_the_hello_are_joined(server):
    client = await Client.connect(server.url, hello=False)
    frame = hello()
    await client.ws.send([frame[:10], frame[10:]])
    assert (await client.expect("welcome", re="h"))["player"]["guest"] is True
    await client.close()


async def test_a_text_message_that_is_not_utf8_closes_1007(connect, server):
    bystander = await connect()
    client = await connect()
    client.ws.protocol.send_text(b"\xff\xfehello")
    challenge = {
        "type": "challenge",
        "id": 1,
        "to": bystander.name,
        "game": "tictactoe",
        "clock": {"initial_ms": 60_000},
    }
    write_at_once(client.ws, [msgpack.packb(challenge)])  # in the same read as the bad frame: never handled
    code, _ = await client.wait_closed()
    assert code == CloseCode.INVALID_DATA
    assert (await bystander.request("ping"))["type"] == "pong"
    assert bystander.pending() == []  # no challenge_offered


async def test_too_many_fragments_close_1009(connect, monkeypatch):
    monkeypatch.setattr(connection_module, "MAX_FRAGMENTS", 8)
    client = await connect()
    await client.ws.send([b"\x80"] * 9)
    code, reason = await client.wait_closed()
    assert (code, reason) == (CloseCode.MESSAGE_TOO_BIG, "too many fragments")


async def test_a_connection_closed_before_its_hello_leaves_nothing(server, caplog):
    caplog.set_level(logging.WARNING, logger="arbiter.server")
    clients = [await Client.connect(server.url, hello=False) for _ in range(3)]
    await asyncio.gather(*(client.close() for client in clients))
    async with asyncio.timeout(5):
        while server.hub.metrics.registry.get_sample_value("arbiter_connections") > 0:  # handlers end with them
            await asyncio.sleep(0.01)
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert len(server.hub.roster) == 0


async def test_a_session_that_fails_closes_its_connection_1011_only(connect, monkeypatch, caplog):
    """Fault injection: ``Session.receive`` answers its own errors, so only a bug in it could raise."""
    receive = Session.receive

    def failing(self: Session, frame: bytes | str) -> object:
        if frame == b"boom":
            raise RuntimeError("injected")
        return receive(self, frame)

    monkeypatch.setattr(Session, "receive", failing)
    bystander = await connect()
    client = await connect()
    await client.send_raw(b"boom")
    code, _ = await client.wait_closed()
    assert code == CloseCode.INTERNAL_ERROR
    assert any(r.exc_info and "injected" in str(r.exc_info[1]) for r in caplog.records)
    assert (await bystander.request("ping"))["type"] == "pong"


async def test_a_refused_hello_with_messages_behind_it_closes_at_once(server):
    """Reading paused behind the refused hello would leave the client's close frame unread until close_timeout."""
    client = await Client.connect(server.url, hello=False)
    pings = [msgpack.packb({"type": "ping", "id": i}) for i in range(40)]
    write_at_once(client.ws, [hello(protocol=999), *pings])
    assert (await client.expect("error", re="h"))["code"] == "protocol_version"
    loop = asyncio.get_running_loop()
    began = loop.time()
    code, _ = await client.wait_closed()
    assert code == CloseCode.HANDSHAKE_FAILED
    assert loop.time() - began < server.hub.config.close_timeout_s / 2
    assert client.pending() == []  # nothing behind the refused hello was answered


# --- the way out: one frame straight to the transport ---------------------------------------------
@settings(max_examples=300, deadline=None)
@given(st.one_of(st.binary(max_size=300), st.integers(60_000, 70_000).map(bytes)))
def test_a_binary_frame_is_the_bytes_websockets_would_write(data):
    assert binary_frame(data) == Frame(BINARY, data).serialize(mask=False, extensions=[])


def url_of(server: Server) -> str:
    return f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}/"


async def test_send_binary_writes_each_length_as_one_frame_and_nothing_once_closing():
    lengths = [0, 1, 125, 126, 127, 65_535, 65_536, 200_000]  # each header form and its bounds
    payloads = [bytes([length % 251]) * length for length in lengths]

    async def handler(ws: SessionConnection) -> None:
        for payload in payloads:
            ws.send_binary(payload)
        ws.protocol.send_close(1000, "done")  # what close() does first, without waiting
        ws.send_data()
        ws.send_binary(b"after the close frame")  # not open any more: nothing is written
        await ws.wait_closed()

    async with serve(handler, "127.0.0.1", 0, compression=None, create_connection=SessionConnection) as server:
        wire = await raw_stream_until_closed(url_of(server))
    close = Frame(CLOSE, Close(1000, "done").serialize()).serialize(mask=False, extensions=[])
    assert wire == b"".join(Frame(BINARY, payload).serialize(mask=False, extensions=[]) for payload in payloads) + close


async def raw_stream_until_closed(url: str) -> bytes:
    """Every byte the server sends after its handshake response, until it closes the TCP connection.

    A sans-I/O client protocol does the handshake and answers the server's close frame; the bytes
    themselves are kept as they came, so a frame written after the close frame shows too.
    """
    protocol = ClientProtocol(parse_uri(url))
    protocol.send_request(protocol.connect())
    reader, writer = await asyncio.open_connection("127.0.0.1", int(url.rsplit(":", 1)[1].strip("/")))
    writer.write(b"".join(protocol.data_to_send()))
    received = b""
    while chunk := await reader.read(65_536):
        received += chunk
        protocol.receive_data(chunk)
        protocol.events_received()
        for data in protocol.data_to_send():  # the answer to the close frame, then an end of writing
            if data:
                writer.write(data)
            elif writer.can_write_eof():
                writer.write_eof()
    writer.close()
    return received.split(b"\r\n\r\n", 1)[1]


async def test_send_binary_lets_websockets_frame_a_message_when_an_extension_is_on():
    payload = b"compressible " * 100

    async def handler(ws: SessionConnection) -> None:
        assert ws.protocol.extensions  # permessage-deflate, negotiated below
        ws.send_binary(payload)
        await ws.wait_closed()

    async with (
        serve(handler, "127.0.0.1", 0, create_connection=SessionConnection) as server,
        connect(url_of(server)) as client,
    ):
        assert await client.recv() == payload
