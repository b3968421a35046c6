"""A small protocol client for tests: real websocket, msgpack frames, every server message checked.

Messages are read in the background into a backlog; ``expect`` takes the first one that matches
(type and field values), waiting for it if needed, so tests state what must arrive without
caring how other messages interleave. Every received message is held to SERVER_MESSAGES.
"""

from __future__ import annotations

import asyncio
import itertools
import random
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from arbiter.engine import State, create_game
from arbiter.protocol import PROTOCOL_VERSION, check_server_message

TIMEOUT = 10.0


class Client:
    def __init__(self, ws: ClientConnection, record: list[tuple[Client, str, dict[str, Any]]] | None = None) -> None:
        self.ws = ws
        self.record = record  # when given: every message both ways, as (client, "sent" | "received", message)
        self.backlog: list[dict[str, Any]] = []
        self.arrived = asyncio.Event()
        self.closed = asyncio.Event()
        self.welcome: dict[str, Any] = {}
        self._ids = itertools.count(1)
        self._reader = asyncio.get_running_loop().create_task(self._read())

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        hello: bool = True,
        local_addr: tuple[str, int] | None = None,
        headers: dict[str, str] | None = None,
        record: list[tuple[Client, str, dict[str, Any]]] | None = None,
        **hello_fields: Any,
    ) -> Client:
        """Connect (from ``local_addr``, e.g. ``("127.0.0.2", 0)``, with extra handshake ``headers``, keeping every
        message both ways in ``record``); unless ``hello=False``, say hello (protocol 1) and wait for welcome."""
        options: dict[str, Any] = {} if local_addr is None else {"local_addr": local_addr}
        ws = await connect(url, compression=None, max_size=2**24, additional_headers=headers, **options)
        client = cls(ws, record)
        if hello:
            fields = {"protocol": PROTOCOL_VERSION, "client": "tests/1", **hello_fields}
            client.welcome = await client.request("hello", **fields)
            assert client.welcome["type"] == "welcome", client.welcome
        return client

    @property
    def name(self) -> str:
        return self.welcome["player"]["name"]

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                message = msgpack.unpackb(frame, raw=False)
                check_server_message(message)
                if self.record is not None:
                    self.record.append((self, "received", message))
                self.backlog.append(message)
                self.arrived.set()
        except ConnectionClosed:
            pass
        finally:
            self.closed.set()
            self.arrived.set()

    async def send(self, message: dict[str, Any]) -> None:
        if self.record is not None:
            self.record.append((self, "sent", message))
        await self.ws.send(msgpack.packb(message))

    async def send_raw(self, frame: bytes | str) -> None:
        await self.ws.send(frame)

    async def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send a request with a fresh id and return the reply (or error) that echoes it."""
        rid = next(self._ids)
        await self.send({"type": kind, "id": rid, **fields})
        return await self.expect(re=rid)

    async def expect(self, kind: str | None = None, *, timeout: float = TIMEOUT, **fields: Any) -> dict[str, Any]:
        """The first message (in arrival order) of type ``kind`` whose fields equal ``fields``."""
        async with asyncio.timeout(timeout):
            while True:
                for i, message in enumerate(self.backlog):
                    if (kind is None or message["type"] == kind) and all(
                        message.get(k, _ABSENT) == v for k, v in fields.items()
                    ):
                        return self.backlog.pop(i)
                if self.closed.is_set():
                    raise AssertionError(f"connection closed while expecting {kind} {fields}; got {self.backlog}")
                self.arrived.clear()
                await self.arrived.wait()

    def pending(self, kind: str | None = None) -> list[dict[str, Any]]:
        """Messages received and not yet taken (of one type, if given)."""
        return [m for m in self.backlog if kind is None or m["type"] == kind]

    async def wait_closed(self, timeout: float = TIMEOUT) -> tuple[int | None, str | None]:
        """Wait for the server to close the connection; its close code and reason."""
        async with asyncio.timeout(timeout):
            await self.closed.wait()
        return self.ws.close_code, self.ws.close_reason

    async def close(self) -> None:
        await self.ws.close()
        await self._reader


_ABSENT = object()


async def play_move(client: Client, match: str, ply: int, move: list[Any]) -> dict[str, Any]:
    """Send a move and return the server's ``moved`` for it (or the error, as a dict)."""
    rid = f"m{ply}"
    await client.send({"type": "move", "id": rid, "match": match, "ply": ply, "move": move})
    async with asyncio.timeout(TIMEOUT):
        while True:
            for i, message in enumerate(client.backlog):
                if message.get("re") == rid or (
                    message["type"] == "moved" and message["match"] == match and message["ply"] == ply
                ):
                    return client.backlog.pop(i)
            if client.closed.is_set():
                raise AssertionError("connection closed while waiting for a move")
            client.arrived.clear()
            await client.arrived.wait()


async def start_match(
    first: Client, second: Client, game: str = "tictactoe", *, params: dict[str, Any] | None = None,
    clock: dict[str, Any] | None = None, rated: bool = False,
) -> str:  # fmt: skip
    """``first`` challenges ``second`` (first moves first), ``second`` accepts; the match id."""
    fields: dict[str, Any] = {
        "to": second.name, "game": game, "clock": clock or {"initial_ms": 60_000}, "color": "first", "rated": rated,
    }  # fmt: skip
    if params is not None:
        fields["params"] = params
    created = await first.request("challenge", **fields)
    assert created["type"] == "challenge_created", created
    cid = created["challenge"]["id"]
    await second.expect("challenge_offered")
    accepted = await second.request("accept", challenge=cid)
    assert accepted["type"] == "ok", accepted
    start = await first.expect("match_start", match=accepted["match"])
    assert start["color"] == 0 and start["challenge"] == cid  # which of its challenges this match is
    assert (await second.expect("match_start", match=accepted["match"]))["color"] == 1
    return accepted["match"]


def random_move(state: State, rng: random.Random) -> list:
    """A random legal whole move as its wire value, built action by action (a paper-soccer turn is
    several steps: keep stepping until the turn passes or the game ends)."""
    probe = state.copy()
    mover = probe.to_move
    plies = len(probe.moves())
    while True:
        probe.play_action(int(rng.choice(list(probe.legal_actions()))))
        if probe.is_terminal or probe.to_move != mover:
            break
    (move,) = probe.moves()[plies:]
    return state.game.encode_move(move)


async def play_out(players: tuple[Client, Client], match: str, name: str, params: dict | None, seed: int) -> dict:
    """Both clients play random legal moves until the end; returns the end message both received."""
    game = create_game(name, params)
    state = game.new_state()
    rng = random.Random(seed)
    ply = 0
    while not state.is_terminal:
        mover = players[state.to_move]
        wire = random_move(state, rng)
        moved = await play_move(mover, match, ply, wire)
        assert moved["type"] == "moved", moved
        assert moved["by"] == state.to_move and moved["move"] == wire and len(moved["clocks"]) == 2
        other = players[1 - state.to_move]
        assert (await other.expect("moved", match=match, ply=ply))["move"] == wire
        state.play(game.decode_move(wire))
        ply += 1
    ends = [await c.expect("end", match=match) for c in players]
    assert ends[0] == ends[1]
    outcome = state.outcome
    assert ends[0]["winner"] == outcome.winner and ends[0]["reason"] == outcome.reason
    assert ends[0]["result"] == outcome.result and ends[0]["ply"] == ply
    return ends[0]
