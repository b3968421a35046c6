"""Fuzzing the dispatcher: thousands of random frames through real sessions and a real hub in-process
(no sockets, so it is fast), and a few hundred over a real socket. No frame may crash a handler
(an ``internal`` error), every answer must be a documented server message, and every match must
stay consistent with the engine's replay of its moves."""

from __future__ import annotations

import asyncio
import random

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.engine import create_game
from arbiter.protocol import CLIENT_MESSAGES, check_server_message, encode
from arbiter.protocol.messages import describe_client_messages
from arbiter.server import ServerConfig
from arbiter.server.hub import Hub
from arbiter.server.play.session import Session
from arbiter.server.store.memory import MemoryStore
from tests.support.wsclient import play_move, start_match

MATCH, CHALLENGE, PLAYER = "$match", "$challenge", "$player"
GOOD_MOVE = "$good_move"  # a step of the script: the player to move plays a legal move at the right ply
FIELDS = sorted({name for fields in describe_client_messages().values() for name, *_ in fields})


class RecordingTransport:
    latency = 0.0  # no network: no round trip to credit
    closed_by_client = False

    """A transport that keeps what the session sends (the in-process stand-in for a socket)."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []
        self.closed: int | None = None

    def send(self, data: bytes) -> None:
        self.frames.append(data)

    def confirm(self, on_confirmed) -> None:
        on_confirmed()  # in-process: every frame is read at once

    def close(self, code: int, reason: str) -> None:
        self.closed = code


def received(session: Session) -> list[dict]:
    return [msgpack.unpackb(frame) for frame in session.transport.frames]


async def greeted(hub: Hub, name: str) -> Session:
    session = Session(hub, RecordingTransport())
    assert await session.handshake(encode({"type": "hello", "protocol": 1, "client": name}))
    return session


async def deliver(session: Session, frame: bytes) -> None:
    pending = session.receive(frame)
    if pending is not None:
        await pending


async def world() -> tuple[Hub, list[Session], str, str]:
    """A hub with three greeted sessions, a live match between the first two and an open challenge."""
    hub = Hub(ServerConfig(port=0, rate_per_s=1e9, rate_burst=10**9), MemoryStore())
    sessions = [await greeted(hub, f"fuzz{i}") for i in range(3)]
    alice, bob, carol = sessions
    clock = {"initial_ms": 600_000}
    await deliver(alice, encode({"type": "challenge", "to": bob.player.name, "game": "tictactoe", "clock": clock}))
    challenge_id = received(alice)[-1]["challenge"]["id"]
    await deliver(bob, encode({"type": "accept", "challenge": challenge_id}))
    match_id = received(bob)[-1]["match"]
    await deliver(carol, encode({"type": "challenge", "to": alice.player.name, "game": "gomoku", "clock": clock}))
    open_id = received(carol)[-1]["challenge"]["id"]
    return hub, sessions, match_id, open_id


def check_world(hub: Hub, sessions: list[Session]) -> None:
    for session in sessions:
        for message in received(session):
            check_server_message(message)
            assert message.get("code") != "internal", message
    for live in hub.matches.live.values():
        game = live.match.game
        replay = create_game(game.name, game.params).new_state()
        for move in live.match.moves:
            replay.play(game.decode_move(move))
        assert replay.key() == live.match.state.key() and replay.to_move == live.match.to_move


values = st.one_of(
    st.sampled_from([MATCH, CHALLENGE, PLAYER, "tictactoe", "gomoku", "first", "random", [1, 1], [0, 0], [2, 2]]),
    st.none(), st.booleans(), st.integers(-3, 12), st.integers(-(2**63), 2**63 - 1), st.text(max_size=10),
    st.lists(st.integers(-1, 4), max_size=3), st.lists(st.lists(st.integers(0, 3), max_size=3), max_size=2),
    st.fixed_dictionaries({"initial_ms": st.integers(-5, 10**6)}),
    st.dictionaries(st.text(max_size=5), st.integers(-9, 9)),
)  # fmt: skip

# Mostly plausible values per field (so requests get past validation into the handlers), else anything.
PLAUSIBLE = {
    "match": st.just(MATCH),
    "challenge": st.just(CHALLENGE),
    "to": st.just(PLAYER),
    "ply": st.integers(0, 9),
    "move": st.lists(st.integers(0, 3), min_size=2, max_size=2),
    "game": st.sampled_from(["tictactoe", "gomoku", "paper_soccer", "nope"]),
    "clock": st.fixed_dictionaries({"initial_ms": st.sampled_from([50, 1_000, 600_000])}),
    "color": st.sampled_from(["first", "second", "random"]),
    "params": st.sampled_from([{}, {"exact": True}, {"k": 9}]),
    "id": st.integers(0, 5) | st.text(max_size=3),
}


def value_for(name: str) -> st.SearchStrategy:
    plausible = PLAUSIBLE.get(name)
    if plausible is None:
        return values
    return st.integers(0, 3).flatmap(lambda roll: values if roll == 0 else plausible)


def shaped(kind: str) -> st.SearchStrategy[dict]:
    """Requests of one type: its required fields (usually), some optional ones, now and then a stranger."""
    fields = describe_client_messages()[kind]
    required = {name: value_for(name) for name, _, needed, _ in fields if needed}
    optional = [name for name, _, needed, _ in fields if not needed]
    return st.builds(
        lambda base, extra, foreign, drop: {"type": kind, **{k: v for k, v in base.items() if k != drop},
                                            **extra, **foreign},
        st.fixed_dictionaries(required),
        st.fixed_dictionaries({}, optional={name: value_for(name) for name in optional}) if optional else st.just({}),
        st.dictionaries(st.sampled_from(FIELDS), values, max_size=1) | st.just({}) | st.just({}),
        st.sampled_from([None] * 8 + list(required)) if required else st.none(),
    )  # fmt: skip


requests = st.one_of(*(shaped(kind) for kind in sorted(CLIENT_MESSAGES)))
frames = st.one_of(requests, requests, requests, st.binary(max_size=24), st.just(GOOD_MOVE))
script = st.lists(st.tuples(st.integers(0, 2), frames), min_size=10, max_size=60)


def good_move(hub: Hub, sessions: list[Session], match_id: str, rng: random.Random) -> tuple[int, object]:
    """A legal move by the right player in the fuzzed match, so fuzz frames meet a game in progress."""
    live = hub.matches.live.get(match_id)
    if live is None:
        return 0, {"type": "ping"}
    state = live.match.state
    cell = rng.choice(state.legal_moves())
    mover = [s.player for s in sessions].index(live.players[state.to_move])
    return mover, {"type": "move", "match": MATCH, "ply": live.match.ply, "move": list(cell)}


def realise(frame: object, match_id: str, challenge_id: str, players: list[str], rng: random.Random) -> bytes:
    if isinstance(frame, bytes):
        return frame

    def fill(value: object) -> object:
        if value == MATCH:
            return match_id
        if value == CHALLENGE:
            return challenge_id
        if value == PLAYER:
            return rng.choice(players)
        return value

    return msgpack.packb({key: fill(value) for key, value in frame.items()})


@settings(max_examples=200, derandomize=True, deadline=None)
@given(script)
def test_random_frames_through_the_dispatcher(steps):
    async def run() -> None:
        hub, sessions, match_id, challenge_id = await world()
        players = [s.player.name for s in sessions]
        rng = random.Random(len(steps))
        for index, frame in steps:
            if frame == GOOD_MOVE:
                index, frame = good_move(hub, sessions, match_id, rng)
            await deliver(sessions[index], realise(frame, match_id, challenge_id, players, rng))
            check_world(hub, sessions)
        hub.stop_timers()
        await hub.matches.drain()
        check_world(hub, sessions)

    asyncio.run(run())


@pytest.mark.parametrize("config", [ServerConfig(port=0, rate_per_s=1e6, rate_burst=10**6)])
async def test_random_frames_over_a_socket(server, connect):
    alice, bob, fuzzer, carol, dave = [await connect() for _ in range(5)]
    match = await start_match(alice, bob)
    other = await start_match(carol, dave)
    rng = random.Random(1234)
    kinds = sorted(CLIENT_MESSAGES)
    for _ in range(300):
        if rng.random() < 0.2:
            await fuzzer.send_raw(rng.randbytes(rng.randint(0, 30)))
            continue
        fields = {rng.choice(FIELDS): rng.choice([match, other, 0, 1, -1, "x", None, [1, 1], [9, 9], True])
                  for _ in range(rng.randint(0, 4))}  # fmt: skip
        await fuzzer.send({"type": rng.choice(kinds), **fields})
    assert (await fuzzer.request("ping"))["type"] == "pong"
    assert all(m.get("code") != "internal" for m in fuzzer.backlog)
    assert server.hub.matches.live[match].match.moves == []  # a stranger cannot touch it
    assert (await play_move(carol, other, 0, [1, 1]))["type"] == "moved"
    assert (await play_move(alice, match, 0, [1, 1]))["type"] == "moved"
