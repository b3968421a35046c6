"""Pondering in the warm pool: a match's idle worker thinks on the opponent's time in a thread, only
while the pool holds that one match; the next message stops it at once, and a ponder that fails or
kills its worker changes nothing for the think that follows."""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time

import pytest

from arbiter.bots.brain import ThinkRequest
from arbiter.bots.gomoku.brain import GomokuBrain
from arbiter.bots.pool import BrainPool
from arbiter.bots.random_bot import RandomBrain

pytestmark = pytest.mark.timeout(120)

# Black to move; the bot (black) thinks here, then ponders on white's time.
BEFORE = [[7, 7], [8, 8], [7, 8], [7, 9], [6, 9], [8, 7], [9, 6], [6, 7], [8, 9], [9, 9], [5, 8]]
STOP_WITHIN_MS = 250  # measured: median 0.2 ms, tens of ms when a loaded machine leaves it no core


def ask(match: str, moves: list, budget: float = 0.3) -> ThinkRequest:
    return ThinkRequest(match, "gomoku", {}, moves, budget, seed=5)


class RaisingPonder(GomokuBrain):
    def ponder(self, request: ThinkRequest, stop: threading.Event) -> None:
        raise RuntimeError("the ponder was asked to fail")


class CrashingPonder(GomokuBrain):
    """Kills its worker when the ponder is stopped, so that the think that stopped it meets a dead worker."""

    def ponder(self, request: ThinkRequest, stop: threading.Event) -> None:
        stop.wait()
        os._exit(9)


async def test_a_ponder_fills_the_opponents_time_and_stops_at_once() -> None:
    async with BrainPool(GomokuBrain, workers=1) as pool:
        ours = (await pool.think(ask("a", BEFORE))).move
        assert pool.ponder(ask("a", [*BEFORE, ours]))
        await asyncio.sleep(0.3)  # the opponent thinks
        began = time.monotonic()
        answer = await pool.think(ask("a", [*BEFORE, ours, [0, 0]]))
        assert time.monotonic() - began < 0.3  # within its budget: the stop took next to nothing
    report = answer.info["ponder"]
    assert report["hit"] is False and report["depth"] >= 2 and report["nodes"] > 1000
    assert 0 <= answer.info["ponder_stop_ms"] < STOP_WITHIN_MS
    assert pool.ponders == 1


async def test_only_a_single_match_on_an_idle_worker_of_a_brain_that_ponders_is_pondered() -> None:
    async with BrainPool(GomokuBrain, workers=2) as pool:
        assert not pool.ponder(ask("a", BEFORE))  # a match the pool does not hold
        ours = (await pool.think(ask("a", BEFORE))).move
        await pool.think(ask("b", BEFORE))
        assert not pool.ponder(ask("a", [*BEFORE, ours]))  # it would take a core from match b
        pool.forget("b")
        busy = asyncio.ensure_future(pool.think(ask("a", [*BEFORE, ours, [0, 0]])))
        await asyncio.sleep(0)  # the think is sent
        assert not pool.ponder(ask("a", [*BEFORE, ours]))  # its worker is thinking
        await busy
        assert pool.ponder(ask("a", [*BEFORE, ours]))
        assert pool.ponders == 1
    async with BrainPool(RandomBrain, workers=1) as pool:
        await pool.think(ask("a", BEFORE))
        assert not pool.ponder(ask("a", [*BEFORE, [0, 0]]))  # random has no ponder
        assert pool.ponders == 0


async def test_a_second_match_stops_the_ponder_before_it_thinks() -> None:
    async with BrainPool(GomokuBrain, workers=2) as pool:
        ours = (await pool.think(ask("a", BEFORE))).move
        assert pool.ponder(ask("a", [*BEFORE, ours]))
        await asyncio.sleep(0.1)
        await pool.think(ask("b", BEFORE))  # on the other worker, after a's ponder stopped
        await asyncio.sleep(0.3)
        answer = await pool.think(ask("a", [*BEFORE, ours, [0, 0]]))
    assert answer.info["ponder"]["seconds"] < 0.3  # it ended when b came, not with a's think (0.4 s or more)
    assert "ponder_stop_ms" not in answer.info  # no ponder was left for the think to stop


async def test_an_error_in_a_ponder_is_logged_and_changes_nothing(caplog: pytest.LogCaptureFixture) -> None:
    async with BrainPool(RaisingPonder, workers=1) as pool:
        pid = pool.pids[0]
        ours = (await pool.think(ask("a", BEFORE))).move
        with caplog.at_level(logging.WARNING, logger="arbiter.bots"):
            assert pool.ponder(ask("a", [*BEFORE, ours]))
            answer = await pool.think(ask("a", [*BEFORE, ours, [0, 0]]))
        assert answer.info["depth"] >= 2 and pool.pids == [pid]
    (record,) = [r for r in caplog.records if r.getMessage() == "a ponder failed"]
    assert "the ponder was asked to fail" in record.error  # type: ignore[attr-defined]


async def test_a_worker_killed_by_its_ponder_is_replaced_and_the_think_goes_to_the_replacement() -> None:
    async with BrainPool(CrashingPonder, workers=1) as pool:
        pid = pool.pids[0]
        ours = (await pool.think(ask("a", BEFORE))).move
        assert pool.ponder(ask("a", [*BEFORE, ours]))
        answer = await asyncio.wait_for(pool.think(ask("a", [*BEFORE, ours, [0, 0]])), 60)
        assert answer.info["depth"] >= 2 and "ponder" not in answer.info
        assert pool.pids[0] != pid and pool._workers[0].restarts == 1
