"""What every bridge's move source shares: program processes lent to live matches, given back at the end.

A bridge stands where a bot's ``BrainPool`` stands for the client: it answers ``think`` requests,
each from the program process of that request's match, and holds at most ``slots`` of them (the
bot announces that many matches as its capacity). When a match ends its process goes back through
``_release`` (which readies it for the next match, or kills it); a crashed or killed one is
replaced for the next match. A bridged program has no fallback move: a failure resigns the match.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Sequence
from typing import Any, Generic, TypeVar

from arbiter.engine import create_game

from ..brain import ThinkRequest, ThinkResult
from ..client.deciding import GiveUp
from .process import LineProcess

log = logging.getLogger("arbiter.bots.bridge")

ANSWER_MARGIN = 0.03  # seconds before the client's deadline by which the program must have answered
SETUP_TIMEOUT = 5.0  # seconds for a program's set-up: its handshake, START, RESTART, a warm-up search

P = TypeVar("P", bound=LineProcess)


def answer_deadline(request: ThinkRequest, began: float) -> float:
    """When the program's answer must be in (time.monotonic()): a margin before the client's deadline."""
    return (request.deadline or began + request.budget + 1.0) - ANSWER_MARGIN


def warm_rules(games: Sequence[str]) -> None:
    """Play two moves of each game, so that its kernels are compiled (or loaded from the cache) here
    and not on a first move's clock: a bridge replays every position it is asked about."""
    for game in games:
        state = create_game(game).new_state()
        for _ in range(2):
            state.play(state.legal_moves()[0])


class ProcessPool(Generic[P]):
    """Processes of ``argv``, at most ``slots`` at once; subclasses say how one is readied and released."""

    def __init__(self, argv: Sequence[str], *, slots: int) -> None:
        self.argv = list(argv)
        self.slots = slots
        self._idle: list[P] = []
        self._busy: dict[str, P] = {}  # match id → its process
        self._closing: set[asyncio.Task[None]] = set()

    def fallback(self, request: ThinkRequest) -> ThinkResult:
        raise GiveUp("timeout", "a bridged program has no fallback move")

    def forget(self, match_id: str) -> None:
        """The match is over: its process is readied for the next (``_release``), or replaced."""
        process = self._busy.pop(match_id, None)
        if process is not None:
            self._background(self._release_or_kill(process))

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` on its own; ``close`` waits for it."""
        task = asyncio.get_running_loop().create_task(work)
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def _release_or_kill(self, process: P) -> None:
        try:
            if not process.alive:
                raise GiveUp("crash", "gone")
            await self._release(process)
            self._idle.append(process)
        except GiveUp as error:
            log.info("process replaced", extra={"program": process.name, "why": str(error)})
            await process.kill()

    async def _release(self, process: P) -> None:
        """Ready ``process`` for its next match (GiveUp if it cannot be)."""

    async def close(self) -> None:
        """Stop every process (the bot is stopping)."""
        await asyncio.gather(*self._closing, return_exceptions=True)
        processes = [*self._idle, *self._busy.values()]
        self._idle, self._busy = [], {}
        await asyncio.gather(*(process.close() for process in processes), return_exceptions=True)
