"""A pool of warm worker processes that run a brain's searches off the event loop.

Why these choices:

- **Start method ``fork`` (the default).** Numba compiles a kernel in ~1.5 s per process and
  loads it from the cache in ~0.15 s; a child forked from a parent that has already run the
  kernels has them compiled in memory and answers at once. So :meth:`BrainPool.start` runs the
  brain's ``warm_up`` once in this process (before any connection or clock exists), then forks
  the workers, and every replacement of a crashed worker is forked warm from the same parent. The
  cache is written once, by the parent, instead of by workers racing each other. ``forkserver``
  would also start workers warm, but its server is one per interpreter with a fixed preload, so a
  process with two pools (the tests) would get cold workers for the second; ``spawn`` recompiles
  in every worker. Both remain available through ``start_method``: workers then warm up
  themselves before the pool reports ready.
- **Fork hygiene.** The pool itself starts no thread (results are read by the event loop from each
  worker's pipe with ``add_reader``), and a forked worker first closes every inherited descriptor
  but its pipe and stdio, so it never holds a copy of a server connection open, and it exits when
  the parent's end of its pipe closes, even if the parent was killed.
- **One job in flight per worker**, the rest queued here, so writing to a pipe never blocks the
  loop and a busy worker never deadlocks against a parent that is writing to it.
- **Affinity.** A match's requests go to the worker that thought about it before, so a brain can
  keep a search tree between moves (``Brain.forget`` drops it when the match ends).
- **Pondering.** While the pool holds one match only, ``ponder`` lets the match's idle worker think
  on the opponent's time (``Brain.ponder``) in a thread of its own; the worker's main thread keeps
  reading its pipe, and anything that comes (the next think, a forget, another match's work) first
  stops the ponder and waits for its thread. A brain's search kernels must release the GIL
  (numba's ``nogil``) so that the main thread can run while they do. A ponder's error is logged and
  changes nothing; a think that meets a worker killed by its ponder is sent again to its
  replacement, once.

The numba cache: kernels are compiled where ``NUMBA_CACHE_DIR`` points (or next to the sources when
unset). It must be set before Python starts, since numba fixes a kernel's cache location when the
kernel's module is imported; :func:`check_numba_cache` only creates and checks the folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
import multiprocessing
import os
import tempfile
import time
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from .brain import Brain, ThinkRequest, ThinkResult
from .pool_worker import worker_main

log = logging.getLogger("arbiter.bots")

# The contexts that can start a worker (multiprocessing.get_context names them by start method).
Context = (
    multiprocessing.context.ForkContext
    | multiprocessing.context.SpawnContext
    | (multiprocessing.context.ForkServerContext)
)

READY_TIMEOUT = 300.0  # a cold numba compile of a large brain on a busy machine
MIN_THINK = 0.005  # a worker taking a request with less time than this before its deadline would be late
STOP_GRACE = 2.0


class PoolError(RuntimeError):
    """A decision the pool could not deliver."""


class WorkerCrashed(PoolError):
    """The worker died while thinking (the worker is replaced; other requests go on)."""


class ThinkFailed(PoolError):
    """The brain raised an exception; the message holds the worker's traceback."""


class ThinkTimeout(PoolError):
    """The worker thought past the hard timeout and was killed (and replaced)."""


class PoolClosed(PoolError):
    """The pool was closed, or has no live worker left."""


class DeadlinePassed(PoolError):
    """No worker could take the request before its deadline (``BrainPool.fallback`` answers it)."""


def check_numba_cache() -> str | None:
    """Create and check the folder ``NUMBA_CACHE_DIR`` names; return it (None when unset).

    Raise PoolError when it cannot be written: a worker would otherwise compile every kernel on
    every start, silently, with the clock already running.
    """
    folder = os.environ.get("NUMBA_CACHE_DIR")
    if not folder:
        return None
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise PoolError(f"NUMBA_CACHE_DIR={folder!r} is not a writable folder: {error}") from None
    return folder


@dataclass
class _Job:
    id: int
    request: ThinkRequest
    future: asyncio.Future[ThinkResult]
    timeout: float | None
    queued_at: float = field(default_factory=time.monotonic)
    sent_at: float = 0.0
    after_ponder: bool = False  # sent to a worker that was pondering: sent again if that worker dies


@dataclass
class _Worker:
    """One slot of the pool: its current process, its pipe and its queue of work."""

    index: int
    process: BaseProcess | None = None  # None until first launched
    conn: Connection | None = None  # None while detached (dead, or being replaced)
    pid: int = 0
    ready: asyncio.Future[None] = field(init=False)  # set by each launch, before anything reads it
    queue: deque[_Job | str] = field(default_factory=deque)  # a str is a match id to forget
    current: _Job | None = None
    pondering: bool = False  # a ponder was the last thing sent to it
    timer: asyncio.TimerHandle | None = None
    alive: bool = False
    dead_for_good: bool = False
    matches: set[str] = field(default_factory=set)
    warm_seconds: float = 0.0
    restarts: int = 0

    @property
    def load(self) -> int:
        return len(self.queue) + (self.current is not None)


class BrainPool:
    """Worker processes, each holding one warm instance of ``brain_class``.

    >>> async with BrainPool(RandomBrain, workers=2) as pool:   # doctest: +SKIP
    ...     result = await pool.think(request)

    ``think`` sends a request to one worker (the match's own, when it has one); ``think_all`` sends
    it to every worker with seeds ``seed, seed+1, …`` and returns every answer; ``think_merged``
    combines those with ``brain_class.merge``. None of them blocks the event loop.
    """

    def __init__(
        self,
        brain_class: type[Brain],
        *,
        workers: int | None = None,
        level: int | None = None,
        options: dict[str, Any] | None = None,
        start_method: str = "fork",
    ) -> None:
        count = workers if workers is not None else (os.cpu_count() or 1)
        if count < 1:
            raise ValueError(f"a pool needs at least one worker, not {count}")
        self.brain_class = brain_class
        self.level = level
        self.options = dict(options or {})
        self.start_method = start_method
        self._context: Context = multiprocessing.get_context(start_method)  # type: ignore[assignment]
        self._workers = [_Worker(i) for i in range(count)]
        self._affinity: dict[str, int] = {}
        self._job_ids = itertools.count(1)
        self._started_loop: asyncio.AbstractEventLoop | None = None
        self._replacing: set[asyncio.Task[None]] = set()
        self._closed = False
        self.parent_warm_seconds = 0.0
        self._parent_brain: Brain | None = None  # warm, in this process: fallback moves
        self.ponders = 0  # ponders sent to workers

    # --- life cycle ---------------------------------------------------------------------------
    async def start(self) -> None:
        """Warm the brain here (for ``fork``), start every worker, and wait until each is warm."""
        if self._started_loop is not None:
            raise PoolError("the pool is already started")
        check_numba_cache()
        self._started_loop = asyncio.get_running_loop()
        began = time.perf_counter()
        self._parent_brain = self.brain_class(self.level, **self.options)
        self._parent_brain.warm_up()
        self.parent_warm_seconds = time.perf_counter() - began
        if self.start_method == "forkserver":
            self._context.set_forkserver_preload([self.brain_class.__module__])
        for worker in self._workers:
            self._launch(worker)
        try:
            await asyncio.wait_for(asyncio.gather(*(w.ready for w in self._workers)), READY_TIMEOUT)
        except BaseException:
            await self.close()
            raise

    async def close(self) -> None:
        """Fail what is pending, ask each worker to stop, and kill any that does not in time."""
        if self._closed:
            return
        self._closed = True
        for task in self._replacing:
            task.cancel()
        for worker in self._workers:
            busy = worker.current is not None
            self._fail_all(worker, PoolClosed("the pool was closed"))
            if busy and worker.process is not None:
                worker.process.terminate()  # a search in progress would not read "stop" in time
            elif worker.alive and worker.conn is not None:
                with contextlib.suppress(OSError):
                    worker.conn.send(("stop",))
        deadline = time.monotonic() + STOP_GRACE
        for worker in self._workers:
            process = worker.process
            if process is None:
                continue
            if not await wait_for_exit(process, max(0.0, deadline - time.monotonic())):
                process.kill()
                await wait_for_exit(process)
            self._detach(worker)

    @property
    def _loop(self) -> asyncio.AbstractEventLoop:
        """The loop the pool was started on: it reads the workers' pipes."""
        if self._started_loop is None:
            raise PoolError("the pool is not started")
        return self._started_loop

    async def __aenter__(self) -> BrainPool:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # --- asking -------------------------------------------------------------------------------
    @property
    def size(self) -> int:
        return len(self._workers)

    @property
    def pids(self) -> list[int]:
        """The process id of each worker slot (0 for a slot that is down)."""
        return [w.pid if w.alive else 0 for w in self._workers]

    @property
    def warm_seconds(self) -> list[float]:
        """How long each worker's own warm-up took before it reported ready."""
        return [w.warm_seconds for w in self._workers]

    def worker_of(self, match_id: str) -> int | None:
        """The slot index that holds ``match_id``'s memory, if any."""
        return self._affinity.get(match_id)

    async def think(self, request: ThinkRequest, *, timeout: float | None = None) -> ThinkResult:
        """The brain's answer to ``request`` from the match's worker.

        ``timeout`` (seconds from when the worker starts on it) kills and replaces a worker that
        overruns it, raising ThinkTimeout. A crash raises WorkerCrashed, a brain exception
        ThinkFailed; none of them ever leaves the caller waiting.
        """
        worker = self._worker_for(request.match_id)
        return await self._submit(worker, request, timeout)

    async def think_all(
        self, request: ThinkRequest, *, timeout: float | None = None, return_exceptions: bool = False
    ) -> list[Any]:
        """The answers of every live worker to ``request``, worker ``i`` searching with seed + i.

        Every worker then holds the match (for a brain that keeps a tree per worker). With
        ``return_exceptions`` a failed worker's PoolError takes its place in the list.
        """
        live = [w for w in self._workers if not w.dead_for_good]
        if not live or self._closed:
            raise PoolClosed("the pool has no live worker")
        jobs = []
        for worker in live:
            worker.matches.add(request.match_id)
            seeded = dataclasses.replace(request, seed=request.seed + worker.index)
            jobs.append(self._submit(worker, seeded, timeout))
        self._affinity.setdefault(request.match_id, live[0].index)
        return await asyncio.gather(*jobs, return_exceptions=return_exceptions)

    async def think_merged(self, request: ThinkRequest, *, timeout: float | None = None) -> ThinkResult:
        """``brain_class.merge`` over the answers of every worker that answered (root parallelism)."""
        answers = await self.think_all(request, timeout=timeout, return_exceptions=True)
        results = [a for a in answers if isinstance(a, ThinkResult)]
        if not results:
            raise next(a for a in answers if isinstance(a, BaseException))
        return self.brain_class.merge(results)

    def fallback(self, request: ThinkRequest) -> ThinkResult:
        """The brain's cheapest sound move for ``request``, from the warm brain in this process.

        For a request that cannot be answered in time (``DeadlinePassed``, or its deadline is here
        and the worker is still thinking): it blocks the loop for the few milliseconds it takes.
        """
        if self._parent_brain is None:
            raise PoolError("start the pool first")
        return self._parent_brain.fallback_move(request)

    def ponder(self, request: ThinkRequest) -> bool:
        """Let the match's worker think about ``request`` (the opponent to move) until its next message.

        Sent only when the brain ponders, the pool holds no other match (a ponder would take a core
        from it) and the match's worker is idle; returns whether it was sent. The pool stops it when
        another match comes (``_worker_for``).
        """
        index = self._affinity.get(request.match_id)
        if index is None or len(self._affinity) != 1 or self._closed or not self.brain_class.can_ponder():
            return False
        worker = self._workers[index]
        if not worker.alive or worker.current is not None or worker.queue:
            return False
        self._send(worker, ("ponder", request))
        self.ponders += 1
        return True

    def forget(self, match_id: str) -> None:
        """Tell every worker holding ``match_id`` to drop its memory of it (queued after its work)."""
        self._affinity.pop(match_id, None)
        for worker in self._workers:
            if match_id in worker.matches:
                worker.matches.discard(match_id)
                worker.queue.append(match_id)
                self._pump(worker)

    # --- scheduling ---------------------------------------------------------------------------
    def _worker_for(self, match_id: str) -> _Worker:
        if self._closed:
            raise PoolClosed("the pool is closed")
        index = self._affinity.get(match_id)
        if index is not None and not self._workers[index].dead_for_good:
            return self._workers[index]
        live = [w for w in self._workers if not w.dead_for_good]
        if not live:
            raise PoolClosed("the pool has no live worker")
        worker = min(live, key=lambda w: (len(w.matches), w.load, w.index))
        self._affinity[match_id] = worker.index
        for other in self._workers:  # a second match: no ponder takes a core from it
            if other.pondering:
                self._send(other, ("stop_ponder",))
        worker.matches.add(match_id)
        return worker

    async def _submit(self, worker: _Worker, request: ThinkRequest, timeout: float | None) -> ThinkResult:
        if self._started_loop is None:
            raise PoolError("start the pool first")
        if self._closed:
            raise PoolClosed("the pool is closed")
        job = _Job(next(self._job_ids), request, self._loop.create_future(), timeout)
        worker.queue.append(job)
        self._pump(worker)
        return await job.future

    def _pump(self, worker: _Worker) -> None:
        """Send queued work to an idle live worker: the forgets no queued think still needs, then the
        most urgent think (earliest deadline; without one, in the order asked), its budget cut to the
        time left. A think whose deadline is too near for any search fails with DeadlinePassed."""
        if not worker.alive or worker.current is not None:
            return
        while worker.queue:
            thinks = [job for job in worker.queue if isinstance(job, _Job) and not job.future.done()]
            needed = {job.request.match_id for job in thinks}
            for item in [item for item in worker.queue if isinstance(item, str) and item not in needed]:
                worker.queue.remove(item)
                self._send(worker, ("forget", item))
            worker.queue = deque(item for item in worker.queue if isinstance(item, str) or not item.future.done())
            if not thinks:
                return
            job = min(thinks, key=_urgency)
            worker.queue.remove(job)
            now = time.monotonic()
            request = job.request
            if request.deadline is not None:
                left = request.deadline - now
                if left < MIN_THINK:
                    job.future.set_exception(DeadlinePassed(
                        f"match {request.match_id!r}: waited {now - job.queued_at:.3f} s for worker "
                        f"{worker.index}, {max(left, 0.0) * 1000:.0f} ms were left"))  # fmt: skip
                    continue
                if left < request.budget:
                    request = dataclasses.replace(request, budget=left)
            worker.current = job
            job.sent_at = now
            job.after_ponder = worker.pondering
            if job.timeout is not None:
                worker.timer = self._loop.call_later(job.timeout, self._overrun, worker, job)
            self._send(worker, ("think", job.id, request))
            return

    def _send(self, worker: _Worker, message: tuple[Any, ...]) -> None:
        worker.pondering = message[0] == "ponder"  # whatever else comes stops the ponder
        try:
            if worker.conn is None:
                raise OSError("the worker is detached")
            worker.conn.send(message)
        except OSError:
            self._on_death(worker)

    # --- messages from workers ----------------------------------------------------------------
    def _on_readable(self, worker: _Worker) -> None:
        try:
            if worker.conn is None:
                raise OSError("the worker is detached")
            message = worker.conn.recv()
        except (EOFError, OSError):
            self._on_death(worker)
            return
        kind = message[0]
        if kind == "ready":
            _, worker.pid, worker.warm_seconds = message
            worker.alive = True
            if not worker.ready.done():
                worker.ready.set_result(None)
            self._pump(worker)
        elif kind == "fatal":
            error = PoolError(f"worker {worker.index} could not warm up {self.brain_class.name}:\n{message[1]}")
            if not worker.ready.done():
                worker.ready.set_exception(error)
            worker.dead_for_good = True
            self._fail_all(worker, error)
        elif kind == "ponder_error":
            log.warning("a ponder failed", extra={"worker": worker.index, "error": message[1]})
        elif kind in ("result", "error"):
            job = worker.current
            if job is None or job.id != message[1]:
                return
            self._finish_current(worker)
            if not job.future.done():
                if kind == "result":
                    job.future.set_result(message[2])
                else:
                    job.future.set_exception(ThinkFailed(f"{self.brain_class.name} failed:\n{message[2]}"))
            self._pump(worker)

    def _finish_current(self, worker: _Worker) -> None:
        worker.current = None
        if worker.timer is not None:
            worker.timer.cancel()
            worker.timer = None

    def _overrun(self, worker: _Worker, job: _Job) -> None:
        if worker.current is not job:
            return
        self._finish_current(worker)
        if not job.future.done():
            job.future.set_exception(
                ThinkTimeout(
                    f"worker {worker.index} thought about match {job.request.match_id!r} for more than "
                    f"{job.timeout:.3g} s and was replaced"
                )
            )
        if worker.process is not None:
            worker.process.kill()
        self._on_death(worker)

    def _on_death(self, worker: _Worker) -> None:
        """The worker's pipe closed: fail its current job, then replace it (its queue waits)."""
        if worker.conn is None:
            return
        process = worker.process
        assert process is not None  # a worker with a pipe was launched
        self._detach(worker)
        if self._closed:
            return
        job = worker.current
        self._finish_current(worker)
        if job is not None and job.after_ponder and not job.future.done():
            job.after_ponder = False  # the ponder may have killed it: the think gets the replacement, once
            worker.queue.appendleft(job)
        elif job is not None and not job.future.done():
            job.future.set_exception(
                WorkerCrashed(
                    f"worker {worker.index} (pid {worker.pid}) died while thinking about match "
                    f"{job.request.match_id!r}; it is being replaced"
                )
            )
        if not worker.ready.done():
            worker.ready.set_exception(PoolError(f"worker {worker.index} died while warming up"))
            worker.dead_for_good = True
            self._fail_all(worker, WorkerCrashed(f"worker {worker.index} died while warming up"))
            return
        task = self._loop.create_task(self._replace(worker, process))
        self._replacing.add(task)
        task.add_done_callback(self._replacing.discard)

    async def _replace(self, worker: _Worker, process: BaseProcess) -> None:
        await wait_for_exit(process)  # reap it; the pipe closes just before the exit
        if self._closed:
            return
        worker.restarts += 1
        self._launch(worker)
        try:
            await worker.ready
        except PoolError:
            return
        self._pump(worker)

    def _fail_all(self, worker: _Worker, error: PoolError) -> None:
        jobs = [worker.current, *worker.queue]
        self._finish_current(worker)
        worker.queue.clear()
        for job in jobs:
            if isinstance(job, _Job) and not job.future.done():
                job.future.set_exception(error)

    # --- processes ----------------------------------------------------------------------------
    def _launch(self, worker: _Worker) -> None:
        parent_end, child_end = self._context.Pipe(duplex=True)
        worker.ready = self._loop.create_future()
        worker.ready.add_done_callback(_consume_exception)
        process = self._context.Process(
            target=worker_main,
            args=(child_end, self.brain_class, self.level, self.options, self.start_method == "fork"),
            name=f"{self.brain_class.name}-worker-{worker.index}",
            daemon=True,
        )
        process.start()
        child_end.close()
        worker.process = process
        worker.conn = parent_end
        worker.pid = process.pid or 0
        self._loop.add_reader(parent_end.fileno(), self._on_readable, worker)

    def _detach(self, worker: _Worker) -> None:
        worker.alive = False
        worker.pondering = False
        if worker.conn is not None:
            self._loop.remove_reader(worker.conn.fileno())
            worker.conn.close()
            worker.conn = None


def _urgency(job: _Job) -> tuple[float, int]:
    """Earliest deadline first; requests without one after those with one, in the order asked."""
    deadline = job.request.deadline
    return (float("inf") if deadline is None else deadline, job.id)


def _consume_exception(future: asyncio.Future[None]) -> None:
    if not future.cancelled():
        future.exception()


async def wait_for_exit(process: BaseProcess, timeout: float | None = None) -> bool:
    """Wait until ``process`` has ended, without polling; False if ``timeout`` came first.

    Its ``sentinel`` cannot tell: a forked worker closes the inherited end that would signal its
    exit (``pool_worker.close_inherited_descriptors``). A pidfd (Linux 5.3+) becomes readable when the process
    ends, whatever it closed; reading ``exitcode`` afterwards reaps it.
    """
    if process.exitcode is not None:
        return True
    if process.pid is None:  # never started
        return True
    try:
        pidfd = os.pidfd_open(process.pid)
    except ProcessLookupError:  # already gone and reaped
        return True
    loop = asyncio.get_running_loop()
    ended: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        if not ended.done():
            ended.set_result(None)

    loop.add_reader(pidfd, readable)
    try:
        async with asyncio.timeout(timeout):
            await ended
    except TimeoutError:
        return False
    finally:
        loop.remove_reader(pidfd)
        os.close(pidfd)
    return process.exitcode is not None
