"""Server metrics in the Prometheus text format, served at ``GET /metrics``.

Each server owns its own registry (tests start several servers in one process). Counters are the
Prometheus way to express rates (``rate(arbiter_moves_total[1m])``); ``arbiter_moves_per_second``
is also exported, averaged over the last ten seconds, for people reading the page by eye.
"""

from __future__ import annotations

import time
from collections import deque

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
CONTENT_TYPE = CONTENT_TYPE_LATEST


class ServerMetrics:
    """Every metric the server exports, registered in a registry of its own."""

    def __init__(self, *, window_s: float = 10.0) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.connections = Gauge("arbiter_connections", "Open websocket connections.", registry=r)
        self.live_matches = Gauge("arbiter_live_matches", "Matches in progress.", registry=r)
        self.moves = Counter("arbiter_moves", "Moves accepted.", registry=r)
        self.move_latency = Histogram(
            "arbiter_move_latency_seconds",
            "From a move's frame arriving to its broadcast being queued to every recipient.",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.errors = Counter("arbiter_errors", "Error replies sent, by protocol error code.", ["code"], registry=r)
        self.refused = Counter(
            "arbiter_connections_refused",
            "Websocket handshakes refused: banned (403), per_ip (429), full (503).",
            ["reason"],
            registry=r,
        )
        self.fallbacks = Counter(
            "arbiter_fallback_moves",
            "Moves a bot said were not its search's (move.info.fallback), by player and cause.",
            ["player", "cause"],
            registry=r,
        )
        self.resignations = Counter(
            "arbiter_bot_resignations",
            "Resignations a bot gave a cause for (resign.cause: its engine crashed, hung, …), by player and cause.",
            ["player", "cause"],
            registry=r,
        )
        self.ladder_queue = Gauge(
            "arbiter_ladder_queue_size", "Players waiting in a ladder queue.", ["game"], registry=r
        )
        self.store_write = Histogram(
            "arbiter_store_write_seconds",
            "Time of one store write batch or commit.",
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.node = Gauge("arbiter_cluster_node", "1 on a node of a cluster, labelled with its id.", ["node"],
                          registry=r)  # fmt: skip
        self.ladder_pairing = Gauge(
            "arbiter_ladder_pairing", "1 if this server pairs the ladder (a cluster's node: while it holds the lease).",
            registry=r,
        )  # fmt: skip
        self._window_s = window_s
        self._recent_moves: deque[float] = deque()
        Gauge(
            "arbiter_moves_per_second", "Moves accepted per second over the last ten seconds.", registry=r
        ).set_function(self.moves_per_second)

    def move_accepted(self, latency_s: float) -> None:
        """Count one move and its latency."""
        self.moves.inc()
        self.move_latency.observe(latency_s)
        now = time.monotonic()
        self._recent_moves.append(now)
        self._trim(now)

    def moves_per_second(self) -> float:
        now = time.monotonic()
        self._trim(now)
        return len(self._recent_moves) / self._window_s

    def _trim(self, now: float) -> None:
        while self._recent_moves and self._recent_moves[0] < now - self._window_s:
            self._recent_moves.popleft()

    def render(self) -> bytes:
        """The whole registry in the Prometheus text exposition format."""
        return generate_latest(self.registry)
