"""Our bots as analysis workers (SPEC.md section 18): ``arbiter analyse --server URL``.

A worker is an ordinary client whose hello says ``analysis``: the server hands it ``analysis_job``s
(a game's moves, the positions to evaluate, a budget per position) and takes back one
``analysis_result`` each. Every position is searched by the best of our bots for its game
(``BEST_BOTS``: the perfect solver where it plays, gomoku's alpha-beta on five in a row, the soccer
search on paper soccer, MCTS elsewhere), in processes of our own (warm before the hello), so the
event loop only reads and writes frames. The worker says each position's chance for the side to
move: MCTS's mean value as it is, the perfect solver's result, an alpha-beta's score through a
logistic curve (a forced win is 1).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from importlib.metadata import version
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from arbiter.engine import EngineError, create_game, game_names
from arbiter.protocol.codec import decode, encode
from arbiter.protocol.messages import MAX_PV, PROTOCOL_VERSION

from .brain import Brain, ThinkRequest
from .registry import brain_class

log = logging.getLogger("arbiter.bots.analysis")
CLIENT = f"arbiter-analyse/{version('arbiter-bots')}"
BEST_BOTS = ("perfect", "gomoku", "soccer", "mcts")  # the first that plays a game searches it
# An alpha-beta's score (its own units) at which the side to move's chance is 1/(1+e^-1) ≈ 73%.
SCORE_SCALE = {"gomoku": 400.0, "soccer": 40.0}
DEFAULT_SCALE = 400.0
FORCED = 900_000  # a score past this is a forced result (both searches' wins are about 10^6 and more)
RETRY_S = 1.0

_brains: dict[str, Brain] = {}  # in each process of the pool: one brain per bot, kept warm


def best_bot(game_name: str, params: dict[str, Any] | None = None) -> str:
    """The bot that searches ``game_name``'s positions."""
    game = create_game(game_name, params)
    return next(name for name in BEST_BOTS if brain_class(name).plays(game))


def _brain(name: str) -> Brain:
    if name not in _brains:
        _brains[name] = brain_class(name)()
    return _brains[name]


def warm(names: list[str]) -> None:
    """Compile and run each bot's kernels in this process (the pool's initializer)."""
    for name in names:
        _brain(name).warm_up()


def chance(bot: str, info: dict[str, Any]) -> float:
    """The side to move's winning chance (a draw ½) from a search's ``info``."""
    value = info.get("value")
    if isinstance(value, str):  # the perfect solver: the exact result
        return {"win": 1.0, "loss": 0.0}.get(value, 0.5)
    if brain_class(bot).score_unit == "win" and isinstance(value, int | float) and math.isfinite(value):
        return min(1.0, max(0.0, float(value)))
    score = info.get("score")
    if not isinstance(score, int | float) or not math.isfinite(score):
        return 0.5
    if abs(score) >= FORCED:
        return 1.0 if score > 0 else 0.0
    return 1.0 / (1.0 + math.exp(-score / SCORE_SCALE.get(bot, DEFAULT_SCALE)))


def evaluate(job: dict[str, Any]) -> list[dict[str, Any]]:
    """One job's evaluations, in a process of the pool: each position searched for ``budget_ms``."""
    game = create_game(job["game"], job["params"])
    bot = best_bot(job["game"], job["params"])
    brain = _brain(bot)
    out = []
    for ply in job["plies"]:
        request = ThinkRequest(f"{job['job']}-{ply}", job["game"], job["params"], job["moves"][:ply],
                               job["budget_ms"] / 1000)  # fmt: skip
        result = brain.think(request)
        brain.forget(request.match_id)
        analysis = type(brain).analysis(result) or {}
        evaluation: dict[str, Any] = {"ply": ply, "win": round(chance(bot, result.info), 4), "best": result.move}
        evaluation["pv"] = legal_line(request, result.move, analysis.get("pv") or [], game)
        for key in ("depth", "nodes"):
            if key in analysis:
                evaluation[key] = analysis[key]
        out.append(evaluation)
    return out


def legal_line(request: ThinkRequest, best: Any, pv: list[Any], game: Any) -> list[Any]:
    """The search's line from the position, starting with ``best``, cut where it stops being legal."""
    line = pv if pv and pv[0] == best else [best]
    state = request.position()
    kept = []
    for move in line[:MAX_PV]:
        if state.is_terminal:
            break
        try:
            state.play_wire(move)
        except EngineError:
            break
        kept.append(move)
    return kept


class AnalysisWorker:
    """One connection to a server as an analysis worker, reconnecting while it runs; ``jobs``
    processes search (one job each at a time)."""

    def __init__(self, url: str, *, token: str | None = None, jobs: int = 1, games: list[str] | None = None) -> None:
        self.url = url
        self.token = token
        self.jobs = jobs
        self.games = games or [name for name in game_names() if any(
            brain_class(bot).plays(create_game(name)) for bot in BEST_BOTS)]  # fmt: skip
        self.done = 0  # jobs answered (for tests and logs)
        self.connected = asyncio.Event()

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Warm the search processes, then serve the server's jobs until ``stop`` is set."""
        stop = stop or asyncio.Event()
        bots = sorted({best_bot(name) for name in self.games})
        context = multiprocessing.get_context("fork")  # the parent has imported the rules: children start at once
        with ProcessPoolExecutor(self.jobs, mp_context=context, initializer=warm, initargs=(bots,)) as pool:
            loop = asyncio.get_running_loop()
            await asyncio.gather(*(loop.run_in_executor(pool, warm, []) for _ in range(self.jobs)))
            while not stop.is_set():
                try:
                    await self._serve(pool, stop)
                except (OSError, ConnectionClosed, InvalidHandshake, InvalidURI, TimeoutError) as error:
                    log.warning("analysis worker: connection lost (%s); retrying", error)
                self.connected.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), RETRY_S)

    async def _serve(self, pool: ProcessPoolExecutor, stop: asyncio.Event) -> None:
        async with connect(self.url, compression=None) as ws:
            hello: dict[str, Any] = {"type": "hello", "protocol": PROTOCOL_VERSION, "client": CLIENT,
                                     "games": self.games, "analysis": self.jobs}  # fmt: skip
            if self.token:
                hello["token"] = self.token
            await ws.send(encode(hello))
            tasks: set[asyncio.Task[None]] = set()
            stopping = asyncio.ensure_future(stop.wait())
            try:
                while True:
                    receiving = asyncio.ensure_future(ws.recv())
                    await asyncio.wait({receiving, stopping}, return_when=asyncio.FIRST_COMPLETED)
                    if not receiving.done():
                        receiving.cancel()
                        return
                    message = decode(receiving.result())
                    kind = message.get("type")
                    if kind == "welcome":
                        log.info("analysis worker ready", extra={"games": len(self.games), "jobs": self.jobs})
                        self.connected.set()
                    elif kind == "analysis_job":
                        task = asyncio.create_task(self._answer(ws, pool, message))
                        tasks.add(task)
                        task.add_done_callback(tasks.discard)
                    elif kind == "error":
                        log.warning("analysis worker: server said %s: %s", message.get("code"), message.get("message"))
            finally:
                stopping.cancel()
                for task in tasks:
                    task.cancel()

    async def _answer(self, ws: Any, pool: ProcessPoolExecutor, job: dict[str, Any]) -> None:
        try:
            evals = await asyncio.get_running_loop().run_in_executor(pool, evaluate, job)
        except Exception:  # a search that fails loses the job: the server gives it to another worker
            log.exception("analysis job failed", extra={"job": job.get("job")})
            return
        await ws.send(encode({"type": "analysis_result", "id": job["job"], "job": job["job"], "evals": evals}))
        self.done += 1
