"""Pondering, from a bot's game log: how fast each ponder stopped, how often the reply was guessed,
and how deep the thinks after a ponder went.

    arbiter series gomoku gomoku --game gomoku --ponder-a --clock 3+0.2 --game-log games.jsonl ...
    python -m arbiter.lab.ponder_stats games.jsonl

Reads the decisions of every game in the log (the bot's own moves): ``info["ponder_stop_ms"]`` is
how long the worker took to stop a ponder when the think came (the pool's worker measures it);
``info["ponder"]`` is what the gomoku brain pondered before that move (absent when the ponder was
stopped before it had a search to report).
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any


def decisions(path: Path) -> list[dict[str, Any]]:
    """The ``info`` of every decision in the game log, in order."""
    infos = []
    for line in path.read_text().splitlines():
        if line.strip():
            infos += [decision["info"] for decision in json.loads(line)["decisions"]]
    return infos


def summary(infos: list[dict[str, Any]]) -> dict[str, Any]:
    stops = sorted(info["ponder_stop_ms"] for info in infos if "ponder_stop_ms" in info)
    reports = [info["ponder"] for info in infos if "ponder" in info]
    hits = [report for report in reports if report["hit"]]
    searched = [info for info in infos if info.get("reason") == "search"]
    after_hit = [info["depth"] for info in searched if info.get("ponder", {}).get("hit")]
    otherwise = [info["depth"] for info in searched if not info.get("ponder", {}).get("hit")]
    return {
        "decisions": len(infos),
        "ponders_stopped": len(stops),
        "stop_ms_median": statistics.median(stops) if stops else None,
        "stop_ms_p99": stops[min(len(stops) - 1, int(0.99 * len(stops)))] if stops else None,
        "stop_ms_max": stops[-1] if stops else None,
        "ponders_reported": len(reports),
        "hit_rate": len(hits) / len(reports) if reports else None,
        "ponder_seconds_median": statistics.median(r["seconds"] for r in reports) if reports else None,
        "ponder_depth_median": statistics.median(r["depth"] for r in reports) if reports else None,
        "think_depth_median_after_hit": statistics.median(after_hit) if after_hit else None,
        "think_depth_median_otherwise": statistics.median(otherwise) if otherwise else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game_log", type=Path, help="a bot's game log (arbiter bot/series --game-log)")
    args = parser.parse_args()
    print(json.dumps(summary(decisions(args.game_log)), indent=2))


if __name__ == "__main__":
    main()
