"""benchmarks/server_load.py end to end on a small load: all three servers play every move over sockets."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.support.benchmark_scripts import BENCHMARKS


def test_the_server_load_benchmark_plays_every_move_on_each_server() -> None:
    command = [sys.executable, str(BENCHMARKS / "server_load.py"), "--matches", "2", "--idle", "0",
               "--loop", "asyncio", "--direct-relay"]  # fmt: skip
    output = subprocess.run(command, capture_output=True, text=True, timeout=240, check=True).stdout
    rows = re.findall(r"^\s+2\s+asyncio\s+(\S+)\s+(\d+)\s", output, re.MULTILINE)
    assert rows == [("relay", "1300"), ("relay-direct", "1300"), ("arbiter", "1300")], output
    assert "the relay's (target <= 1.2; run by run" in output
    assert "the relay's with the same ways in and out" in output
