"""The ends a registered player's client has not confirmed reading, as the store keeps them (SPEC section 9).

The store marks a game's end unread for each registered player of the game in the transaction that
records the end, so the mark survives a crash or a restart; the pong that proves the client read the
end marks it read. After a welcome the server sends the player each end still unread, rebuilt from
the stored game, so an end lost to a dying socket comes even when the match is in no server's memory
any more. Only ends of the last UNREAD_DAYS days come, at most UNREAD_PER_WELCOME a welcome (the
last ones). A guest's ends are never stored: a guest does not outlive its server.

Marks are cleared in batches: while one batch is written, the confirmations that arrive meanwhile
wait for the next, so a busy server writes one small transaction at a time, not one per end.
"""

from __future__ import annotations

import asyncio
import logging
import time

from arbiter.server.store.base import GameRecord, Store, StoreError

log = logging.getLogger("arbiter.server")

UNREAD_DAYS = 7  # an end older than this is not sent any more
UNREAD_PER_WELCOME = 16  # ends sent after one welcome, at most (the last ones; the others wait for the next)


class UnreadEnds:
    """Reads the ends the store keeps unread for a player, and marks them read in batches."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._reads: list[tuple[str, str]] = []  # (player, match id) confirmed, not yet written
        self._writing: asyncio.Task[None] | None = None
        self._confirmed = 0  # confirmations so far, and of them those whose batch was written (or failed)
        self._settled = 0
        self._batch_done = asyncio.Condition()

    async def of(self, player: str) -> list[GameRecord]:
        """The games whose end ``player`` has not read, oldest first (StoreError if the store fails),
        once the confirmations made so far are written: an end read before is not sent again."""
        confirmed = self._confirmed
        async with self._batch_done:
            await self._batch_done.wait_for(lambda: self._settled >= confirmed)
        return await self.store.unread_ends(player, time.time() - UNREAD_DAYS * 86400, UNREAD_PER_WELCOME)

    def read(self, player: str, match_id: str) -> None:
        """``player``'s client confirmed reading the match's end: unmark it, with the next batch."""
        self._reads.append((player, match_id))
        self._confirmed += 1
        if self._writing is None:
            self._writing = asyncio.get_running_loop().create_task(self._write())

    async def drain(self) -> None:
        """Wait until every confirmation so far is written (server shutdown, before the store closes)."""
        while self._writing is not None:
            await self._writing

    async def _write(self) -> None:
        try:
            while self._reads:
                reads, self._reads = self._reads, []
                try:
                    await self.store.ends_read(reads)
                except StoreError as error:
                    # They stay unread: sent again after the next welcome, where a client ignores an end it saw.
                    log.warning("store could not mark %d ends read: %s", len(reads), error)
                finally:
                    async with self._batch_done:
                        self._settled += len(reads)
                        self._batch_done.notify_all()
        finally:
            self._writing = None
