"""Finding a move for a ``Think``: the search within its plan, or the brain's cheapest sound move.

The pool is asked within the time plan; when no sound answer comes by the deadline (the request
waited too long for a worker, the worker overran, or the pool failed) or the answer is illegal,
the move is the brain's own cheapest (``BrainPool.fallback``: level 1 on a tiny budget), never a
random one; a random legal move only if the brain itself fails. Each fallback names its cause,
which the core counts and the move's ``info`` carries to the server's metrics.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import numpy as np

from arbiter.engine import EngineError, State

from ..brain import Brain, ThinkRequest, ThinkResult
from ..pool import DeadlinePassed, PoolError, ThinkTimeout
from ..random_bot import random_move
from .core import Decision, Think

log = logging.getLogger("arbiter.bots")

Search = Callable[[ThinkRequest], Awaitable[ThinkResult]]
RESIGN_CAUSES = ("crash", "timeout", "illegal_move", "protocol_error")


class GiveUp(Exception):
    """Raised by a search that cannot go on with this match (a bridged engine crashed, hung, answered
    an illegal move or broke its protocol): the bot resigns it, with ``cause``, instead of moving."""

    def __init__(self, cause: str, detail: str) -> None:
        assert cause in RESIGN_CAUSES, cause
        super().__init__(f"{cause}: {detail}")
        self.cause = cause
        self.request: dict[str, Any] | None = None  # what the program was sent, if it had a request (a stdio turn line)


class Fallbacks(Protocol):
    """What a decision needs of the move source besides the search: the brain's analysis and fallback."""

    brain_class: type[Brain]

    def fallback(self, request: ThinkRequest) -> ThinkResult: ...


async def decide(think: Think, search: Search, pool: Fallbacks) -> Decision:
    """The move for ``think``: ``search``'s answer if it is legal and in time, else a fallback."""
    loop = asyncio.get_running_loop()
    began = loop.time()
    source, info, cause = "brain", {}, ""
    analysis: dict[str, Any] | None = None
    move: Any = None
    resign = ""
    request: dict[str, Any] | None = None
    try:
        answer = await asyncio.wait_for(search(think.request), max(0.0, think.deadline - began))
        move, info = answer.move, answer.info
        if acceptable(think, move):
            analysis = pool.brain_class.analysis(answer)
        else:
            cause, source = "illegal", f"fallback: the brain's move {move!r} is illegal"
    except GiveUp as error:
        resign, source, request = error.cause, f"resigned: {error}".splitlines()[0], error.request
    except (TimeoutError, DeadlinePassed, ThinkTimeout) as error:
        cause, source = "deadline", f"fallback: {error or 'the deadline came first'}".splitlines()[0]
    except PoolError as error:
        cause, source = "pool", f"fallback: {error}".splitlines()[0]
    except Exception as error:  # a search that fails in any other way still owes the clock a move
        log.exception("the search failed", extra={"match": think.match, "ply": think.ply})
        cause, source = "pool", f"fallback: the search failed: {error!r}".splitlines()[0]
    if cause:
        log.warning("fallback move", extra={"match": think.match, "ply": think.ply, "cause": cause, "why": source})
        try:
            move, cause = fallback_move(think, pool, cause)
            analysis = {"fallback": cause}  # the server counts it (/metrics), spectators see it
        except GiveUp as error:  # a move source with no fallback (a bridged program): the match is resigned
            move, cause, resign, request = None, "", error.cause, error.request
            source = f"resigned: {error}".splitlines()[0]
    entry = {
        "ply": think.ply,
        "budget": round(think.plan.budget, 4),
        "deadline": round(think.plan.deadline, 4),
        "used": round(loop.time() - began, 4),
        "latency": round(think.latency, 4),
        "source": source,
        "info": info,
        **({"request": request} if request is not None else {}),  # replayable: arbiter bridge stdio --replay
    }
    return Decision(move, analysis, entry, cause, resign)


def fallback_move(think: Think, pool: Fallbacks, cause: str) -> tuple[Any, str]:
    """The brain's cheapest sound move from the pool's warm brain, with ``cause``; a random legal
    move only if the brain itself fails (cause ``random``). GiveUp from a pool that has no fallback."""
    phase = think.request.swap
    if phase is not None and phase["phase"] == "choose":  # a swap opening's choice: any option will do
        return random.Random(think.request.seed).choice(phase["options"]), cause
    try:
        move = pool.fallback(think.request).move
        if legal(think.state, move):
            return move, cause
    except GiveUp:
        raise
    except Exception:
        log.exception("the fallback move failed", extra={"match": think.match})
    game = think.state.game
    return game.encode_move(random_move(think.state, np.random.default_rng(think.request.seed))), "random"


def acceptable(think: Think, move: Any) -> bool:
    """Whether ``move`` answers ``think``: a legal move, or one of a swap opening's options."""
    phase = think.request.swap
    if phase is not None and phase["phase"] == "choose":
        return move in phase["options"]
    return legal(think.state, move)


def legal(state: State, move: Any) -> bool:
    trial = state.copy()
    try:
        trial.play(state.game.decode_move(move))
    except EngineError:
        return False
    return True
