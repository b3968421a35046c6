"""Structured log lines and the Prometheus exposition."""

from __future__ import annotations

import io
import json
import logging
import time

import pytest

from arbiter.cli.logs import configure_logging
from arbiter.server.metrics import ServerMetrics


def test_log_records_are_one_json_object_per_line_with_ids() -> None:
    stream = io.StringIO()
    configure_logging("info", stream=stream)
    log = logging.getLogger("arbiter.test")
    log.info("move accepted", extra={"match": "m1", "player": "alice", "ply": 3})
    log.debug("not shown at info")
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        log.exception("failed", extra={"match": "m2"})
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert first["msg"] == "move accepted" and first["match"] == "m1" and first["player"] == "alice"
    assert first["level"] == "info" and first["ply"] == 3
    assert second["level"] == "error" and "RuntimeError: boom" in second["exc"]


def test_unknown_log_level_is_refused() -> None:
    with pytest.raises(ValueError, match="log level"):
        configure_logging("loud")


def test_metrics_render_counters_histogram_and_labels() -> None:
    metrics = ServerMetrics()
    metrics.connections.inc()
    metrics.moves.accepted(0.003, time.monotonic())
    metrics.moves.accepted(0.2, time.monotonic())
    metrics.errors.labels("illegal_move").inc()
    metrics.ladder_queue.labels("gomoku").set(4)
    text = metrics.render().decode()
    assert "arbiter_connections 1.0" in text
    assert "arbiter_moves_total 2.0" in text
    assert 'arbiter_move_latency_seconds_bucket{le="0.005"} 1.0' in text
    assert 'arbiter_errors_total{code="illegal_move"} 1.0' in text
    assert 'arbiter_ladder_queue_size{game="gomoku"} 4.0' in text
    assert "arbiter_moves_per_second 0.2" in text  # two moves over the ten-second window
    assert ServerMetrics().render().count(b"arbiter_moves_total 0.0") == 1  # registries are separate
