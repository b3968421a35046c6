"""Server metrics in the Prometheus text format, served at ``GET /metrics``.

Each server owns its own registry (tests start several servers in one process). Counters are the
Prometheus way to express rates (``rate(arbiter_moves_total[1m])``); ``arbiter_moves_per_second``
is also exported, averaged over the last ten seconds, for people reading the page by eye.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections import deque
from collections.abc import Iterator

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.utils import floatToGoString

LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
CONTENT_TYPE = CONTENT_TYPE_LATEST


class ServerMetrics:
    """Every metric the server exports, registered in a registry of its own."""

    def __init__(self, *, window_s: float = 10.0) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.connections = Gauge("arbiter_connections", "Open websocket connections.", registry=r)
        self.live_matches = Gauge("arbiter_live_matches", "Matches in progress.", registry=r)
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
        self.ladder_members = Gauge(
            "arbiter_ladder_members", "Players in a ladder queue, waiting or playing.", ["game"], registry=r
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
        self.moves = MoveMeter(window_s)
        r.register(self.moves)

    def render(self) -> bytes:
        """The whole registry in the Prometheus text exposition format."""
        return generate_latest(self.registry)


class MoveMeter:
    """Moves accepted, their latency histogram and the recent rate: plain numbers, read when scraped.

    Every accepted move is counted here, on the server's hottest path. prometheus_client's Counter
    and Histogram take a lock and several calls per update (about a microsecond a move); these
    are an int, a bucket list and a float, exported by this custom collector only when scraped.
    The rate is kept as one (time, count) sample a second, so the ten-second window is whole seconds.
    """

    def __init__(self, window_s: float) -> None:
        self.total = 0
        self.latency_counts = [0] * (len(LATENCY_BUCKETS) + 1)  # the last one: above every bound
        self.latency_sum = 0.0
        self._window_s = window_s
        self._samples: deque[tuple[float, int]] = deque()  # (when, moves counted before then)
        self._next_sample = 0.0

    def accepted(self, latency_s: float, now: float) -> None:
        if now >= self._next_sample:
            self._samples.append((now, self.total))
            self._next_sample = now + 1.0
        self.total += 1
        self.latency_counts[bisect_left(LATENCY_BUCKETS, latency_s)] += 1  # a bucket holds values <= its bound
        self.latency_sum += latency_s

    def per_second(self, now: float) -> float:
        """Moves a second over the window before ``now`` (to its first sample inside the window)."""
        samples = self._samples
        while samples and samples[0][0] < now - self._window_s:
            samples.popleft()
        return (self.total - samples[0][1]) / self._window_s if samples else 0.0

    def collect(self) -> Iterator[Metric]:
        yield CounterMetricFamily("arbiter_moves", "Moves accepted.", value=self.total)
        cumulative, buckets = 0, []
        for bound, count in zip((*LATENCY_BUCKETS, float("inf")), self.latency_counts, strict=True):
            cumulative += count
            buckets.append((floatToGoString(bound), cumulative))
        yield HistogramMetricFamily(
            "arbiter_move_latency_seconds",
            "From a move's frame arriving to its broadcast being queued to every recipient.",
            buckets=buckets,
            sum_value=self.latency_sum,
        )
        yield GaugeMetricFamily(
            "arbiter_moves_per_second",
            "Moves accepted per second over the last ten seconds.",
            value=self.per_second(time.monotonic()),
        )
