"""Log lines (JSON for machines, console for a terminal) and the Prometheus exposition."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import time
from collections.abc import Iterator
from typing import IO

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from arbiter.cli import main
from arbiter.cli.logs import configure_logging, render_console
from arbiter.server.metrics import ServerMetrics
from arbiter.stack.status import relay_json

CONSOLE_LINE = re.compile(r"^\d\d:\d\d:\d\d\.\d{3} INFO    arbiter\.test move accepted match=m1 player=alice ply=3$")


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


def test_console_lines_show_time_level_logger_message_and_fields() -> None:
    stream = io.StringIO()
    configure_logging("info", "console", stream=stream)
    log = logging.getLogger("arbiter.test")
    log.info("move accepted", extra={"match": "m1", "player": "alice", "ply": 3})
    log.warning("odd", extra={"why": "two words", "players": ["a", "b"], "empty": ""})
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        log.exception("failed")
    first, second, third, *traceback = stream.getvalue().splitlines()
    assert CONSOLE_LINE.match(first), first  # not a terminal: no colour codes
    assert second.endswith(' WARNING arbiter.test odd why="two words" players=["a","b"] empty=""'), second
    assert " ERROR   arbiter.test failed" in third and traceback[-1] == "RuntimeError: boom"


@pytest.fixture
def terminal() -> Iterator[IO[str]]:
    """The writing end of a real pseudo-terminal, read on the other end so writes never block."""
    reader, writer = os.openpty()
    stream = open(writer, "w")  # noqa: SIM115 - closed below, with the reading end
    yield stream
    stream.close()
    os.close(reader)


def _one_line(level: str, log_format: str, stream: IO[str]) -> str:
    captured = io.StringIO()
    configure_logging(level, log_format, stream=stream)
    handler = logging.getLogger("arbiter").handlers[0]
    handler.setStream(captured)  # the format was chosen for ``stream``; read what it writes here
    logging.getLogger("arbiter.test").info("move accepted", extra={"match": "m1", "player": "alice", "ply": 3})
    return captured.getvalue().rstrip("\n")


def test_auto_format_is_console_on_a_terminal_and_json_elsewhere(
    terminal: IO[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert json.loads(_one_line("info", "auto", io.StringIO()))["msg"] == "move accepted"
    coloured = _one_line("info", "auto", terminal)
    assert "\x1b[32mINFO" in coloured and CONSOLE_LINE.match(re.sub(r"\x1b\[[0-9;]*m", "", coloured)), coloured
    assert json.loads(_one_line("info", "json", terminal))["player"] == "alice"  # --log-format json on a terminal
    assert CONSOLE_LINE.match(_one_line("info", "console", io.StringIO()))  # forced, and plain off a terminal
    monkeypatch.setenv("NO_COLOR", "1")
    assert CONSOLE_LINE.match(_one_line("info", "auto", terminal))
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert CONSOLE_LINE.match(_one_line("info", "auto", terminal))


def test_unknown_log_format_is_refused() -> None:
    with pytest.raises(ValueError, match="log format"):
        configure_logging("info", "xml")
    for command in (["serve"], ["up"], ["bot", "random"], ["series", "random", "random", "tictactoe"]):
        result = CliRunner().invoke(main, [*command, "--log-format", "xml"])
        assert result.exit_code == 2, (command, result.output)
        assert "Invalid value for '--log-format': 'xml' is not one of 'auto', 'json', 'console'" in result.output


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)


@given(st.text(), st.dictionaries(st.text(min_size=1), JSON_VALUES))
def test_a_console_line_is_one_line_whatever_the_message_and_fields(msg: str, fields: dict) -> None:
    """A player's name or a peer's error text in a record cannot start a second, forged line."""
    record = {"ts": 1_700_000_000.25, "level": "warning", "logger": "arbiter.test", "msg": msg, **fields}
    line = render_console(record, colour=False)
    assert line.isprintable()  # no newline, no carriage return, no escape sequence
    assert relay_json(json.dumps(record)) == record  # what a launcher reads back from a child's JSON line


@given(st.text())
def test_any_line_from_a_child_is_a_record_or_passed_on(line: str) -> None:
    fields = relay_json(line)
    assert fields is None or "msg" in fields


def test_a_line_nested_past_the_parsers_depth_is_passed_on() -> None:
    assert relay_json('{"msg": ' + "[" * 100_000) is None


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
