"""How many connections and guests a node holds: in all, per client address (key), guests per key.

The counts are this node's own: a cluster's nodes each cap what they hold, so a client may hold up
to the cap on every node. A slot is taken when a websocket handshake is admitted and given back
when the connection is gone, whatever the way it went; a guest slot is taken when a guest's hello
is welcomed and given back with its connection. None as a cap means no cap.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a connection is refused: the HTTP status to answer the handshake with, one line for the
    client, and the cause as the metrics count it."""

    status: int
    reason: str
    cause: str


class ConnectionCaps:
    def __init__(
        self, *, total: int | None = None, per_address: int | None = None, guests_per_address: int | None = None
    ) -> None:
        self.total = total
        self.per_address = per_address
        self.guests_per_address = guests_per_address
        self._connections: Counter[str] = Counter()
        self._guests: Counter[str] = Counter()
        self._open = 0

    @property
    def open(self) -> int:
        """Connections holding a slot now."""
        return self._open

    def connections_of(self, key: str) -> int:
        return self._connections[key]

    def guests_of(self, key: str) -> int:
        return self._guests[key]

    def admit(self, key: str) -> Refusal | None:
        """Take a connection slot for ``key``, or say why not (the node is full: 503; the address: 429)."""
        if self.total is not None and self._open >= self.total:
            return Refusal(503, "the server is full; try again later", "full")
        if self.per_address is not None and self._connections[key] >= self.per_address:
            return Refusal(429, f"too many connections from your address (at most {self.per_address})", "per_ip")
        self._open += 1
        self._connections[key] += 1
        return None

    def release(self, key: str) -> None:
        """Give back a slot ``admit`` took."""
        self._open -= 1
        _decrement(self._connections, key)

    def guest_allowed(self, key: str) -> bool:
        return self.guests_per_address is None or self._guests[key] < self.guests_per_address

    def add_guest(self, key: str) -> None:
        self._guests[key] += 1

    def remove_guest(self, key: str) -> None:
        _decrement(self._guests, key)


def _decrement(counter: Counter[str], key: str) -> None:
    """One less under ``key``; a key at zero is forgotten (the counters never grow with past clients)."""
    if counter[key] <= 1:
        counter.pop(key, None)
    else:
        counter[key] -= 1
