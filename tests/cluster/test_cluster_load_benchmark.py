"""benchmarks/cluster_load.py end to end on a small load: every layout plays every move over sockets.

The script starts its own PostgreSQL and Redis and its nodes as `arbiter serve` processes, with the
flags a load from one address needs; a new cap of `arbiter serve` that the script does not lift
fails here, not in the next person's measurement.
"""

from __future__ import annotations

import re
import subprocess
import sys

from tests.support.benchmark_scripts import BENCHMARKS


def test_the_cluster_load_benchmark_plays_every_move_in_each_layout() -> None:
    # Six players: more than `arbiter serve` lets in as guests from one address by default.
    command = [sys.executable, str(BENCHMARKS / "cluster_load.py"), "--matches", "3"]
    output = subprocess.run(command, capture_output=True, text=True, timeout=300, check=True).stdout
    rows = re.findall(r"^\s*(one node|same node|across)\s+(\d+)\s", output, re.MULTILINE)
    assert rows == [("one node", "1950"), ("same node", "1950"), ("across", "1950")], output
    assert "across / one node: cpu per move" in output
