"""The analysis queue: reviews and analysis-board requests cut into jobs, handed to the workers
connected over the protocol, their results checked, reviews kept in the store (SPEC.md section 18).

The server never searches (it imports no bot): a worker is a session whose hello said ``analysis``.
The queue holds at most ``config.analysis_queue`` requests at once, every requester's together
(past it ``analysis_queue_full``), and refuses at once with ``no_analysis_worker`` when no worker
analyses the game, so nothing waits on a worker that is not there. Nothing here runs long on the
loop: a request replays its game once; a result is checked move by move against the rules.
A live match is not touched: its moves never go through here, and the searches run in the workers'
own processes.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arbiter.engine import EngineError, Game, IllegalMove, ParamError, State, create_game, game_names
from arbiter.protocol.analysis import Analyse, AnalysisResult, Review
from arbiter.protocol.codec import encode
from arbiter.protocol.errors import ErrorCode, ProtocolError
from arbiter.protocol.messages import Request
from arbiter.server.config import ServerConfig
from arbiter.server.store.base import GameRecord, Store, StoreError

from ..play.ratelimit import TokenBucket, Verdict
from ..play.session import Handler, Session
from .review import build_review, chances, check_eval, positions, to_evaluate

log = logging.getLogger("arbiter.server.analysis")
REVIEW_JOB_PLIES = 8  # positions per job of a review: a review is shared by the workers, and shows progress
MAX_ATTEMPTS = 3  # a job refused or lost this often fails its request
RESULTS = {"1-0": "first", "0-1": "second", "1/2-1/2": "draw"}


@dataclass(eq=False)
class Worker:
    session: Session
    games: frozenset[str]
    capacity: int
    name: str
    jobs: dict[str, Job] = field(default_factory=dict)

    def free(self, game: str) -> bool:
        return game in self.games and len(self.jobs) < self.capacity


@dataclass(eq=False)
class Task:
    """One request in the queue: a review of a game, or one analysis-board position."""

    game: Game
    states: list[State]
    moves: list[Any]
    budget_ms: int
    evals: dict[int, dict[str, Any]] = field(default_factory=dict)
    pending: int = 0  # jobs not yet answered
    total: int = 0  # positions to evaluate
    engines: set[str] = field(default_factory=set)  # the workers' client names
    failed: bool = False
    # A review: its game and who waits for it; a board request: the request and its session.
    record: GameRecord | None = None
    watchers: list[tuple[Session, Request | None]] = field(default_factory=list)


@dataclass(eq=False)
class Job:
    id: str
    task: Task
    plies: list[int]
    attempts: int = 0
    tried: set[Worker] = field(default_factory=set)
    timer: asyncio.TimerHandle | None = None

    def message(self) -> bytes:
        task = self.task
        return encode({"type": "analysis_job", "job": self.id, "game": task.game.name, "params": task.game.params,
                       "moves": task.moves, "plies": self.plies, "budget_ms": task.budget_ms})  # fmt: skip


class Analysis:
    """The feature: the workers, the queue, and the handlers of review, analyse and analysis_result."""

    def __init__(self, config: ServerConfig, store: Store, *, now: Callable[[], float]) -> None:
        self.config = config
        self.store = store
        self.now = now
        self.workers: dict[Session, Worker] = {}
        self.tasks: set[Task] = set()  # every request held: the queue's bound counts these
        self.reviews: dict[str, Task] = {}  # by match id, while being made
        self.waiting: deque[Job] = deque()  # jobs no worker has; the analysis board's go first
        self.buckets: dict[str, TokenBucket] = {}  # analyse requests per person
        self._ids = itertools.count(1)
        self.answered = 0  # results taken

    def handlers(self) -> dict[type[Request], Handler]:
        return {Review: self.on_review, Analyse: self.on_analyse, AnalysisResult: self.on_result}

    # --- workers -----------------------------------------------------------------------------------
    def add_worker(self, session: Session, games: list[str], capacity: int, name: str) -> None:
        """``session``'s hello said it analyses ``games``, ``capacity`` jobs at once."""
        self.workers[session] = Worker(session, frozenset(games), capacity, name)
        log.info("analysis worker connected", extra={"games": sorted(games), "capacity": capacity})
        self._dispatch()

    def disconnected(self, session: Session) -> None:
        """A session is gone: a worker's jobs go to the others; a requester stops hearing of reviews."""
        worker = self.workers.pop(session, None)
        if worker is not None:
            for job in list(worker.jobs.values()):
                self._lost(worker, job, "its worker disconnected")
        for task in self.reviews.values():
            task.watchers = [w for w in task.watchers if w[0] is not session]

    def _worker_for(self, game: str) -> bool:
        return any(game in worker.games for worker in self.workers.values())

    # --- requests ----------------------------------------------------------------------------------
    async def on_review(self, session: Session, msg: Review) -> None:
        try:
            kept = await self.store.get_review(msg.match)
            record = None if kept is not None or msg.match in self.reviews else await self.store.get_game(msg.match)
        except StoreError:
            raise ProtocolError(ErrorCode.UNAVAILABLE, "the store cannot read reviews right now") from None
        if kept is not None:
            total = sum(1 for p in kept["positions"] if p["best"] is not None)
            session.reply(msg, _state(msg.match, "done", total, total))
            return
        task = self.reviews.get(msg.match)  # asked for already (perhaps while the store was read)
        if task is None:
            if record is None:
                raise ProtocolError(ErrorCode.UNKNOWN_MATCH, f"no game {msg.match!r} is stored")
            if record.ended is None:
                raise ProtocolError(ErrorCode.GAME_NOT_OVER, f"game {msg.match!r} is still being played")
            game = create_game(record.start.game, record.start.params)
            task = self._task(game, [m.move for m in record.moves], self.config.review_budget_ms)
            task.record = record
            self.reviews[msg.match] = task
            self._queue(task, to_evaluate(task.states), REVIEW_JOB_PLIES, first=False)
            if not task.pending:  # nothing to evaluate: every position is over (a game of no move left)
                await self._review_done(msg.match, task)
        session.reply(msg, self._review_state(msg.match, task))
        if not task.pending and not task.failed:
            return
        task.watchers.append((session, None))

    def on_analyse(self, session: Session, msg: Analyse) -> None:
        if session.player is not None and session.player.playing:  # its live games on every node
            raise ProtocolError(
                ErrorCode.ANALYSIS_WHILE_PLAYING, "the analysis board is closed while you play: it opens at the end"
            )
        person = session.player.name if session.player is not None else str(id(session))
        bucket = self.buckets.get(person)
        if bucket is None:
            bucket = TokenBucket(self.config.analyse_per_s, self.config.analyse_burst, 0, self.now())
            self.buckets[person] = bucket
        if len(self.buckets) > 10_000:  # full buckets forget nothing worth keeping
            self.buckets = {person: bucket}
        if msg.game not in game_names():
            raise ProtocolError(ErrorCode.UNKNOWN_GAME, f"no game {msg.game!r}; see welcome.games")
        try:
            game = create_game(msg.game, msg.params)
        except ParamError as error:
            raise ProtocolError(ErrorCode.BAD_PARAMS, str(error)) from None
        if bucket.take(self.now()) is not Verdict.ALLOW:
            bucket.tokens = max(bucket.tokens, 0.0)  # refused, not in debt: no flood to close here
            raise ProtocolError(ErrorCode.RATE_LIMITED, "at most one analysis a second (a burst of a few)")
        task = self._task(game, msg.moves, msg.budget_ms or self.config.review_budget_ms)
        last = task.states[-1]
        if last.is_terminal:
            session.reply(msg, {"type": "analysis", "win": chances(last, None), "best": None, "pv": []})
            return
        task.watchers.append((session, msg))
        self._queue(task, [len(msg.moves)], 1, first=True)

    def _task(self, game: Game, moves: list[Any], budget_ms: int) -> Task:
        """A new request's replayed positions, or the error that refuses it (nothing is queued yet)."""
        if not self._worker_for(game.name):
            raise ProtocolError(ErrorCode.NO_ANALYSIS_WORKER, f"no analysis worker for {game.name} is connected")
        if len(self.tasks) >= self.config.analysis_queue:
            raise ProtocolError(
                ErrorCode.ANALYSIS_QUEUE_FULL, f"the analysis queue holds {len(self.tasks)} requests; try again later"
            )
        try:
            states = positions(game, moves)
        except IllegalMove as error:
            raise ProtocolError(ErrorCode.ILLEGAL_MOVE, str(error)) from None
        except EngineError as error:
            raise ProtocolError(ErrorCode.BAD_MOVE, str(error)) from None
        return Task(game, states, moves, budget_ms)

    def _queue(self, task: Task, plies: list[int], size: int, *, first: bool) -> None:
        task.total = len(plies)
        if not plies:
            return
        self.tasks.add(task)
        for start in range(0, len(plies), size):
            job = Job(f"j{next(self._ids)}", task, plies[start : start + size])
            task.pending += 1
            if first:
                self.waiting.appendleft(job)
            else:
                self.waiting.append(job)
        self._dispatch()

    # --- jobs --------------------------------------------------------------------------------------
    def _dispatch(self) -> None:
        """Hand waiting jobs to free workers, a worker that has not failed the job first; a job no
        worker takes stays waiting (the workers are busy) or fails (none analyses its game any more)."""
        kept: deque[Job] = deque()
        while self.waiting:
            job = self.waiting.popleft()
            if job.task.failed:
                continue
            game = job.task.game.name
            if not self._worker_for(game):
                self._fail(job.task, "no analysis worker for the game is connected any more")
                continue
            free = [w for w in self.workers.values() if w.free(game)]
            worker = next((w for w in free if w not in job.tried), free[0] if free else None)
            if worker is None:
                kept.append(job)
                continue
            self._give(worker, job)
        self.waiting = kept

    def _give(self, worker: Worker, job: Job) -> None:
        worker.jobs[job.id] = job
        job.tried.add(worker)
        allowed = job.task.budget_ms * len(job.plies) * 3 / 1000 + 5
        job.timer = asyncio.get_running_loop().call_later(allowed, self._timed_out, worker, job)
        worker.session.send(job.message())

    def _timed_out(self, worker: Worker, job: Job) -> None:
        if worker.jobs.get(job.id) is job:
            self._lost(worker, job, "its worker took too long")

    def _lost(self, worker: Worker, job: Job, why: str) -> None:
        """``worker`` gave up ``job`` (refused result, gone, too slow): another try, or its request fails."""
        worker.jobs.pop(job.id, None)
        if job.timer is not None:
            job.timer.cancel()
        job.attempts += 1
        log.info("analysis job lost", extra={"job": job.id, "why": why, "attempts": job.attempts})
        if job.attempts >= MAX_ATTEMPTS:
            self._fail(job.task, why)
        else:
            self.waiting.appendleft(job)
        self._dispatch()

    def on_result(self, session: Session, msg: AnalysisResult) -> None:
        worker = self.workers.get(session)
        job = None if worker is None else worker.jobs.get(msg.job)
        if worker is None or job is None:
            raise ProtocolError(ErrorCode.UNKNOWN_JOB, f"no analysis job {msg.job!r} is this connection's")
        problem = self._check(job, msg.evals)
        if problem is not None:
            self._lost(worker, job, problem)
            raise ProtocolError(ErrorCode.BAD_ANALYSIS, problem)
        worker.jobs.pop(job.id)
        if job.timer is not None:
            job.timer.cancel()
        session.ok(msg)
        self.answered += 1
        task = job.task
        task.engines.add(worker.name)
        task.evals.update((e["ply"], e) for e in msg.evals)
        task.pending -= 1
        self._dispatch()
        if task.failed:
            return
        if task.record is None:
            self._answer_board(task)
        elif task.pending:
            self._tell(task, self._review_state(task.record.start.match_id, task))
        else:
            asyncio.get_running_loop().create_task(self._review_done(task.record.start.match_id, task))

    def _check(self, job: Job, evals: list[dict[str, Any]]) -> str | None:
        plies = [e["ply"] for e in evals]
        if sorted(plies) != sorted(job.plies):
            return f"the job asked for plies {job.plies}, the result has {plies}"
        for evaluation in evals:
            problem = check_eval(job.task.states[evaluation["ply"]], evaluation)
            if problem is not None:
                return problem
        return None

    # --- answers -----------------------------------------------------------------------------------
    def _answer_board(self, task: Task) -> None:
        self.tasks.discard(task)
        ply = len(task.moves)
        evaluation = task.evals[ply]
        win = chances(task.states[ply], evaluation["win"])
        line = evaluation.get("pv") or [evaluation["best"]]
        reply: dict[str, Any] = {"type": "analysis", "win": win, "best": evaluation["best"], "pv": line}
        for key in ("depth", "nodes"):
            if key in evaluation:
                reply[key] = evaluation[key]
        for session, request in task.watchers:
            assert request is not None
            session.reply(request, reply)

    async def _review_done(self, match_id: str, task: Task) -> None:
        """Every position is evaluated: the review is built, kept, and its watchers told."""
        record = task.record
        assert record is not None
        start = record.start
        header = {"match": match_id, "game": start.game, "params": task.game.params, "players": list(start.players),
                  "result": RESULTS.get(record.result or ""), "reason": record.reason,
                  "budget_ms": task.budget_ms, "engine": "+".join(sorted(task.engines))}  # fmt: skip
        review = build_review(header, task.states, task.moves, [m.info for m in record.moves], task.evals,
                              opening=start.opening)  # fmt: skip
        try:
            await self.store.save_review(match_id, review)
        except StoreError as error:
            log.error("review not kept: %s", error, extra={"match": match_id})
            self._fail(task, "the store cannot keep the review")
            return
        self.tasks.discard(task)
        self.reviews.pop(match_id, None)
        self._tell(task, _state(match_id, "done", task.total, task.total))

    def _fail(self, task: Task, why: str) -> None:
        if task.failed:
            return
        task.failed = True
        self.tasks.discard(task)
        if task.record is not None:
            match_id = task.record.start.match_id
            self.reviews.pop(match_id, None)
            self._tell(task, _state(match_id, "failed", len(task.evals), task.total))
        else:
            error = ProtocolError(ErrorCode.ANALYSIS_FAILED, f"the analysis failed: {why}")
            for session, request in task.watchers:
                assert request is not None
                error.re = request.id
                session.send(encode(error.to_message()))

    def _tell(self, task: Task, message: dict[str, Any]) -> None:
        data = encode(message)
        for session, _ in task.watchers:
            session.send(data)

    def _review_state(self, match_id: str, task: Task) -> dict[str, Any]:
        if task.failed:
            return _state(match_id, "failed", len(task.evals), task.total)
        if not task.pending:
            return _state(match_id, "done", task.total, task.total)
        taken = any(job.task is task for worker in self.workers.values() for job in worker.jobs.values())
        status = "running" if task.evals or taken else "queued"
        return _state(match_id, status, len(task.evals), task.total)


def _state(match_id: str, status: str, done: int, total: int) -> dict[str, Any]:
    return {"type": "review_state", "match": match_id, "status": status, "done": done, "total": total}
