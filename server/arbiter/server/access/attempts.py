"""Attempts per client address, for sign-in and sign-up: a token bucket per address, in bounded memory.
The same limiter counts by any other key too (an account's name: its failed sign-ins; one key for
every sign-in of the server).

    limiter = AttemptLimiter(per_minute=10, burst=10)  # one per route (sign-in, sign-up), kept by the server
    client = hub.guard.client_of_request(connection, request)
    if client is not None and not limiter.allow(client):
        ...  # answer 429 with Retry-After: math.ceil(limiter.retry_after(client))

Each address key (an IPv4 address, an IPv6 /64) may make ``burst`` attempts at once, then one more
every ``60 / per_minute`` seconds. Only the ``max_addresses`` most recently seen keys are kept: the
least recently seen is forgotten first, which can only let an old address try again sooner, never
refuse anyone wrongly. A key whose bucket has refilled holds nothing worth keeping either.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

from arbiter.server.net.client_address import ClientAddress


class AttemptLimiter:
    def __init__(
        self,
        *,
        per_minute: float,
        burst: int,
        max_addresses: int = 100_000,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        if per_minute <= 0 or burst < 1 or max_addresses < 1:
            raise ValueError("per_minute must be positive, burst and max_addresses at least 1")
        self.rate = per_minute / 60.0  # tokens per second
        self.burst = float(burst)
        self.max_addresses = max_addresses
        self.now = now
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # key → (tokens, when)

    def __len__(self) -> int:
        """Addresses remembered now."""
        return len(self._buckets)

    def allow(self, client: ClientAddress | str) -> bool:
        """Count one attempt from ``client`` (or under a key): True if it may go ahead, False if it
        must wait (nothing counted)."""
        key, now = _key(client), self.now()
        tokens = self._tokens(key, now)
        if tokens < 1.0:
            return False
        self._buckets[key] = (tokens - 1.0, now)
        self._buckets.move_to_end(key)
        while len(self._buckets) > self.max_addresses:
            self._buckets.popitem(last=False)
        return True

    def retry_after(self, client: ClientAddress | str) -> float:
        """Seconds until ``client`` (or a key) may make its next attempt (0: now)."""
        return max(0.0, (1.0 - self._tokens(_key(client), self.now())) / self.rate)

    def _tokens(self, key: str, now: float) -> float:
        kept = self._buckets.get(key)
        if kept is None:
            return self.burst
        tokens, when = kept
        return min(self.burst, tokens + (now - when) * self.rate)


def _key(client: ClientAddress | str) -> str:
    return client if isinstance(client, str) else client.key
