"""The warm worker pool: readiness, affinity, every-worker runs, failures that never hang, shutdown."""

from __future__ import annotations

import asyncio
import dataclasses
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest

from arbiter.bots.brain import Brain, ThinkRequest, ThinkResult
from arbiter.bots.pool import (
    BrainPool,
    DeadlinePassed,
    PoolClosed,
    PoolError,
    ThinkFailed,
    ThinkTimeout,
    WorkerCrashed,
    check_numba_cache,
    wait_for_exit,
)
from arbiter.bots.random_bot import RandomBrain
from arbiter.engine import Game

pytestmark = pytest.mark.timeout(60)


class ProbeBrain(Brain):
    """Answers with where and how it ran; ``options`` in a request make it sleep, raise or die."""

    name = "probe"
    warmed_in_parent: ClassVar[bool] = False

    def __init__(self, level: int | None = None, **options: Any) -> None:
        super().__init__(level, **options)
        self.seen: dict[str, int] = {}

    @classmethod
    def plays(cls, game: Game) -> bool:
        return True

    def warm_up(self) -> None:
        type(self).warmed_in_parent = True  # in a forked worker this was already set by the parent

    def think(self, request: ThinkRequest) -> ThinkResult:
        action = request.options.get("action")
        if action == "crash":
            os._exit(7)
        if action == "raise":
            raise RuntimeError("the probe was asked to fail")
        if action == "sleep":
            time.sleep(request.options["seconds"])
        self.seen[request.match_id] = self.seen.get(request.match_id, 0) + 1
        info = {"pid": os.getpid(), "seen": self.seen[request.match_id], "seed": request.seed,
                "budget": request.budget}  # fmt: skip
        return ThinkResult([request.seed], info)

    def forget(self, match_id: str) -> None:
        self.seen.pop(match_id, None)

    @classmethod
    def merge(cls, results: list[ThinkResult]) -> ThinkResult:
        return ThinkResult(sorted(r.move[0] for r in results), {"answers": len(results)})


def ask(match_id: str, seed: int = 0, **options: Any) -> ThinkRequest:
    return ThinkRequest(match_id, "tictactoe", {}, [], 1.0, seed=seed, options=options)


async def test_workers_are_forked_warm_and_answer_at_once() -> None:
    async with BrainPool(RandomBrain, workers=2) as pool:
        assert pool.size == 2 and all(pool.pids) and len(set(pool.pids)) == 2
        assert pool.parent_warm_seconds > 0
        assert max(pool.warm_seconds) < 1.0  # kernels came compiled with the fork (a cold compile takes > 1.5 s)
        began = time.perf_counter()
        result = await pool.think(ThinkRequest("m", "tictactoe4", {}, [[0, 0]], 1.0))
        assert time.perf_counter() - began < 1.0
        assert tuple(result.move) != (0, 0)


async def test_default_size_is_the_number_of_cores() -> None:
    assert BrainPool(ProbeBrain).size == (os.cpu_count() or 1)
    with pytest.raises(ValueError):
        BrainPool(ProbeBrain, workers=0)


async def test_a_match_stays_on_its_worker_until_forgotten() -> None:
    async with BrainPool(ProbeBrain, workers=2) as pool:
        a1 = await pool.think(ask("a"))
        b1 = await pool.think(ask("b"))
        a2 = await pool.think(ask("a"))
        b2 = await pool.think(ask("b"))
        assert a1.info["pid"] == a2.info["pid"] != b1.info["pid"] == b2.info["pid"]
        assert (a1.info["seen"], a2.info["seen"], b2.info["seen"]) == (1, 2, 2)
        pool.forget("a")
        assert pool.worker_of("a") is None
        a3 = await pool.think(ask("a"))
        assert a3.info["seen"] == 1  # the worker dropped its memory of the match


async def test_many_matches_spread_over_workers_and_run_in_parallel() -> None:
    async with BrainPool(ProbeBrain, workers=2) as pool:
        began = time.perf_counter()
        results = await asyncio.gather(*(pool.think(ask(f"m{i}", action="sleep", seconds=1.0)) for i in range(4)))
        elapsed = time.perf_counter() - began
        assert len({r.info["pid"] for r in results}) == 2
        assert elapsed < 3.0  # 4 × 1 s of sleep on 2 workers takes 2 s, in a row 4 s: a second's margin each way


async def test_think_all_asks_every_worker_with_its_own_seed_and_merges() -> None:
    async with BrainPool(ProbeBrain, workers=2) as pool:
        answers = await pool.think_all(ask("m", seed=10))
        assert sorted(a.info["seed"] for a in answers) == [10, 11]
        assert len({a.info["pid"] for a in answers}) == 2
        merged = await pool.think_merged(ask("m", seed=20))
        assert merged.move == [20, 21] and merged.info["answers"] == 2
        again = await pool.think_all(ask("m", seed=30))
        assert [a.info["seen"] for a in again] == [3, 3]  # both workers kept the match


async def test_a_crash_fails_only_its_request_and_the_worker_is_replaced() -> None:
    async with BrainPool(ProbeBrain, workers=1) as pool:
        old_pid = pool.pids[0]
        crashing = asyncio.ensure_future(pool.think(ask("a", action="crash")))
        queued = asyncio.ensure_future(pool.think(ask("b")))
        with pytest.raises(WorkerCrashed, match="died while thinking about match 'a'"):
            await asyncio.wait_for(crashing, 10)
        answer = await asyncio.wait_for(queued, 10)  # waited for the replacement, not lost
        assert answer.info["pid"] not in (0, old_pid)
        assert pool.pids[0] == answer.info["pid"]


async def test_an_overrun_is_killed_and_replaced() -> None:
    async with BrainPool(ProbeBrain, workers=1) as pool:
        old_pid = pool.pids[0]
        began = time.perf_counter()
        with pytest.raises(ThinkTimeout):
            await pool.think(ask("a", action="sleep", seconds=30), timeout=0.3)
        assert time.perf_counter() - began < 5
        answer = await asyncio.wait_for(pool.think(ask("a")), 10)
        assert answer.info["pid"] != old_pid


async def test_a_brain_exception_is_reported_and_the_worker_lives_on() -> None:
    async with BrainPool(ProbeBrain, workers=1) as pool:
        pid = pool.pids[0]
        with pytest.raises(ThinkFailed, match="the probe was asked to fail"):
            await pool.think(ask("a", action="raise"))
        assert (await pool.think(ask("a"))).info["pid"] == pid


async def test_thinking_never_blocks_the_event_loop() -> None:
    async with BrainPool(ProbeBrain, workers=1) as pool:
        gaps = []
        thinking = asyncio.ensure_future(pool.think(ask("a", action="sleep", seconds=1.0)))
        last = time.perf_counter()
        while not thinking.done():
            await asyncio.sleep(0.01)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now
        await thinking
        assert len(gaps) > 20 and max(gaps) < 0.5  # a think on the loop would stall it for the whole second


async def test_close_stops_every_worker_and_fails_what_waits() -> None:
    pool = BrainPool(ProbeBrain, workers=2)
    await pool.start()
    pids = pool.pids
    busy = asyncio.ensure_future(pool.think(ask("a", action="sleep", seconds=30)))
    await asyncio.sleep(0.05)
    await pool.close()
    with pytest.raises(PoolClosed):
        await busy
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    with pytest.raises(PoolClosed):
        await pool.think(ask("b"))


async def test_workers_exit_when_their_parent_is_killed() -> None:
    script = textwrap.dedent(
        """
        import asyncio, sys
        from arbiter.bots.pool import BrainPool
        from arbiter.bots.random_bot import RandomBrain

        async def main():
            pool = BrainPool(RandomBrain, workers=2)
            await pool.start()
            print(*pool.pids, flush=True)
            await asyncio.sleep(60)

        asyncio.run(main())
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    pids = [int(p) for p in parent.stdout.readline().split()]
    assert len(pids) == 2
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 10
    alive = set(pids)
    while alive and time.monotonic() < deadline:
        for pid in list(alive):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                alive.discard(pid)
        await asyncio.sleep(0.02)
    assert not alive  # the orphans saw their pipe close and left (init reaped them)


async def test_forkserver_workers_warm_up_before_ready() -> None:
    async with BrainPool(RandomBrain, workers=1, start_method="forkserver") as pool:
        assert pool.parent_warm_seconds > 0  # the parent keeps a warm brain of its own, for fallback moves
        result = await pool.think(ThinkRequest("m", "ttt3d", {}, [], 1.0))
        assert len(result.move) == 3


async def test_an_unwritable_numba_cache_folder_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(not_a_folder))
    pool = BrainPool(ProbeBrain, workers=1)
    with pytest.raises(PoolError, match=r"NUMBA_CACHE_DIR=.* is not a writable folder"):
        await pool.start()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "made" / "here"))
    assert check_numba_cache() == str(tmp_path / "made" / "here")
    assert (tmp_path / "made" / "here").is_dir()


async def test_wait_for_exit_waits_for_the_end_and_honours_its_timeout() -> None:
    """The pool reaps workers through a pidfd, not a polling loop: a live process times out, an ended one returns."""
    process = multiprocessing.get_context("fork").Process(target=signal.pause)
    process.start()
    try:
        assert not await wait_for_exit(process, 0.05)
        process.terminate()
        assert await wait_for_exit(process, 10)
        assert process.exitcode == -signal.SIGTERM
        assert await wait_for_exit(process)  # already reaped: at once
    finally:
        if process.exitcode is None:
            process.kill()
            process.join()


async def test_the_most_urgent_request_goes_first_with_its_budget_cut_to_its_deadline() -> None:
    """One worker, busy: of the requests waiting for it, the one with the nearest deadline is taken first,
    and its budget counts from then, ending by the deadline; one whose deadline passes while it waits
    is refused (DeadlinePassed) without a search, and the pool's own warm brain answers it."""
    async with BrainPool(ProbeBrain, workers=1) as pool:
        busy = asyncio.ensure_future(pool.think(ask("busy", action="sleep", seconds=0.5)))
        await asyncio.sleep(0.05)  # the worker has taken it
        now = time.monotonic()
        relaxed = dataclasses.replace(ask("relaxed"), budget=5.0, deadline=now + 30)
        urgent = dataclasses.replace(ask("urgent"), budget=5.0, deadline=now + 2.0)
        hopeless = dataclasses.replace(ask("hopeless"), budget=5.0, deadline=now + 0.1)
        finished: list[str] = []

        async def asked(request: ThinkRequest) -> ThinkResult:
            result = await pool.think(request)
            finished.append(request.match_id)
            return result

        results = await asyncio.gather(asked(relaxed), asked(urgent), asked(hopeless), return_exceptions=True)
        await busy
        assert finished == ["urgent", "relaxed"]
        assert isinstance(results[2], DeadlinePassed) and "hopeless" in str(results[2])
        assert results[0].info["budget"] == 5.0  # 30 s left: the budget stands
        assert 1.0 < results[1].info["budget"] < 2.0  # taken ~0.5 s after asking: what was left of 2 s
        fallback = pool.fallback(hopeless)
        assert fallback.info["budget"] == 0.02  # level 1, a tiny budget, on this thread
