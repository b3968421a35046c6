"""Latency-fair clocks: a client behind a slow network (a loopback proxy that holds every byte for
a while, each way) is credited its measured round trip, up to the bound, instead of being charged it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.basics.clock import ClockSpec, FischerClock
from tests.support.wsclient import Client, start_match


@asynccontextmanager
async def delaying_proxy(target_port: int, delay_s: float) -> AsyncIterator[int]:
    """A TCP proxy on 127.0.0.1 that forwards each chunk to and from the server ``delay_s`` late."""

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        try:
            while chunk := await reader.read(65536):
                due = loop.time() + delay_s
                loop.call_at(due, writer.write, chunk)  # in order: each chunk's due time is later
        finally:
            await asyncio.sleep(delay_s)
            writer.close()

    async def handle(client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        server_reader, server_writer = await asyncio.open_connection("127.0.0.1", target_port)
        await asyncio.gather(pipe(client_reader, server_writer), pipe(server_reader, client_writer),
                             return_exceptions=True)  # fmt: skip

    proxy = await asyncio.start_server(handle, "127.0.0.1", 0)
    try:
        yield proxy.sockets[0].getsockname()[1]
    finally:
        proxy.close()


async def slow_move_elapsed(server: RunningServer, delay_s: float) -> tuple[int, float]:
    """A direct client moves; the one behind the proxy answers at once. Its charged ms, and its round trip."""
    async with delaying_proxy(server.port, delay_s) as port:
        fast = await Client.connect(server.url)
        slow = await Client.connect(f"ws://127.0.0.1:{port}/")
        match = await start_match(fast, slow, "gomoku")
        session = server.hub.roster.get(slow.name).session
        async with asyncio.timeout(10):  # the server's pings measure the slow connection's round trip
            while session.latency < 1.5 * delay_s:
                await asyncio.sleep(0.05)
        await fast.send({"type": "move", "match": match, "ply": 0, "move": [7, 7]})
        await slow.expect("moved", match=match, ply=0)
        await slow.send({"type": "move", "match": match, "ply": 1, "move": [8, 8]})
        moved = await fast.expect("moved", match=match, ply=1)
        latency = session.latency
        await fast.close()
        await slow.close()
        return moved["elapsed_ms"], latency


@pytest.mark.parametrize(
    ("delay_s", "bound_ms"),
    [(0.05, 200), (0.3, 200), (0.05, 0)],
    ids=["credited", "bounded", "no-credit"],
)
async def test_the_round_trip_is_credited_up_to_the_bound(delay_s: float, bound_ms: int) -> None:
    config = ServerConfig(port=0, ping_interval_s=0.1, ping_timeout_s=10, max_lag_credit_ms=bound_ms)
    async with run_server(config) as server:
        elapsed_ms, latency = await slow_move_elapsed(server, delay_s)
    transit_ms = 2 * delay_s * 1000  # what the mover's clock would run for without a credit
    credit_ms = min(latency * 1000, bound_ms)
    assert elapsed_ms == pytest.approx(transit_ms - credit_ms, abs=60), (elapsed_ms, latency)
    if bound_ms == 0:
        assert elapsed_ms >= transit_ms - 10  # charged the whole transit, as before
    elif delay_s > bound_ms / 2000:
        assert elapsed_ms >= transit_ms - bound_ms - 10  # never more than the bound
    else:
        assert elapsed_ms < 50  # the whole round trip credited


def test_the_clock_charges_the_turn_less_its_allowance_and_waits_for_it() -> None:
    clock = FischerClock(ClockSpec(10_000, 0, 2_000))
    clock.start(0, now=100.0, lag=0.15)
    assert clock.deadline() == pytest.approx(102.15)  # the per-move limit, plus the allowance
    assert not clock.flagged(102.1)
    assert clock.press(101.0, 1, next_lag=0.0) == pytest.approx(0.85)
    assert clock.remaining_ms(101.0) == [9150, 10000]
    assert clock.press(101.1, 0, next_lag=0.3) == pytest.approx(0.1)  # the other side had none
    assert clock.press(101.2, 1) == 0.0  # a reply inside the allowance costs nothing
