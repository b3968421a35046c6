"""The ban list as a server holds it, and the watch that keeps it current from the store.

Bans are written by ``arbiter ban …``, another process, straight into the store. Every server (each
node of a cluster) reads the store's ban version every ``ban_check_interval_s`` and, when it changed,
the whole list, and hands it to the hub, which closes what the new list bans. ``arbiter player
revoke`` moves the version too: then the hub also looks up the accounts online and closes those
revoked. A store that fails a read leaves the last list in force until it answers again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable

from arbiter.server.net.client_address import IPAddress, IPNetwork, parse_network
from arbiter.server.store.base import Ban, Store, StoreError

log = logging.getLogger("arbiter.server")


class BanList:
    """Who is banned: registered players by name (any case) and IP networks. A person's ban covers
    the bots it owns too."""

    def __init__(self, bans: Iterable[Ban] = ()) -> None:
        self.bans = list(bans)
        self._players = {ban.target.lower(): ban for ban in self.bans if ban.kind == "player"}
        self._networks: list[IPNetwork] = [parse_network(ban.target) for ban in self.bans if ban.kind == "network"]

    def __len__(self) -> int:
        return len(self.bans)

    def player_banned(self, name: str) -> bool:
        return name.lower() in self._players

    def ban_of(self, name: str, owner: str | None = None) -> Ban | None:
        """The ban that keeps the player ``name`` out: its own, else its owner's (None: not banned)."""
        return self._players.get(name.lower()) or (None if owner is None else self._players.get(owner.lower()))

    def address_banned(self, ip: IPAddress) -> bool:
        return any(ip.version == network.version and ip in network for network in self._networks)


class BanWatch:
    """Polls the store's ban version; on a change, reads the list and calls ``on_change`` with it,
    then awaits ``recheck`` (the accounts online, for revocations)."""

    def __init__(
        self,
        store: Store,
        interval_s: float,
        on_change: Callable[[BanList], None],
        recheck: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self.store = store
        self.interval_s = interval_s
        self.on_change = on_change
        self.recheck = recheck
        self._version: int | None = None
        self._task: asyncio.Task[None] | None = None

    async def check(self) -> None:
        """Read the version, and the list if it changed (StoreError from the store)."""
        version = await self.store.bans_version()
        if version == self._version:
            return
        bans = BanList(await self.store.list_bans())
        log.info("ban list loaded", extra={"bans": len(bans)})
        self.on_change(bans)
        if self.recheck is not None:
            await self.recheck()
        self._version = version  # (a recheck that failed is tried again at the next look)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            try:
                await self.check()
            except StoreError as error:
                log.warning("cannot read the ban list; the last one stays in force: %s", error)
