"""``arbiter bridge pbrain`` with a real Gomocup engine: Rapfi (github.com/dhbloo/rapfi), built by
scripts/build-rapfi (`make engines`, run by `make install-test`; a built binary is reused). The probe
finds the rules it plays (free style, exact five, renju; caro it refuses with ERROR) and SWAP2BOARD;
its swap2 decisions come back checked; it plays a whole renju game on a real server (white, against
a person's random moves), every move its own."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest
from bridge_helpers import bridge_process, finished_records, logged, play_against

from arbiter.bots.brain import ThinkRequest
from arbiter.bots.bridge.engines import EnginePool
from arbiter.server import RunningServer

pytestmark = pytest.mark.timeout(300)

BUILD = Path(__file__).parents[2] / "scripts" / "build-rapfi"


@pytest.fixture(scope="module")
def rapfi() -> list[str]:
    """The engine's command line; the build script fails the test (no skip) when it cannot build it."""
    built = subprocess.run([str(BUILD)], capture_output=True, text=True, timeout=1200, check=False)
    assert built.returncode == 0, f"scripts/build-rapfi failed:\n{built.stderr[-2000:]}"
    return [built.stdout.strip().splitlines()[-1]]


async def test_the_probe_finds_rapfi_s_rules_and_swap2_and_its_decisions_are_legal(rapfi: list[str]) -> None:
    pool = EnginePool(rapfi, slots=1)
    try:
        await pool.probe([15, 20], {1, 4, 8, 9})
        assert pool.about.startswith('name="Rapfi')
        assert pool.squares == {15, 20} and pool.rules == {0, 1, 4} and pool.swap2
        assert pool.refusal("caro", {}) == "the engine does not play Caro (INFO rule 8)"
        assert pool.refusal("renju", {"opening": "swap2"}) is None
        loop = asyncio.get_running_loop()

        def request(moves: list[list[int]]) -> ThinkRequest:
            return ThinkRequest("m1", "renju", {}, moves, 0.3, deadline=loop.time() + 3)

        proposal = await pool.swap(request([]))  # checked by the pool: three legal stones
        assert proposal.take is None and len(proposal.stones) == 3
        choice = await pool.swap(request([[7, 7], [8, 7], [7, 9]]))
        assert choice.take in ("black", "white", None) and len(choice.stones) == {"black": 0, "white": 1}.get(
            str(choice.take), 2
        )
        five = await pool.swap(request([[7, 7], [8, 7], [7, 9], [8, 8], [6, 6]]))
        assert five.take in ("black", "white") and len(five.stones) == (five.take == "white")
        # After a decision its next move comes from the whole position.
        moves = [[7, 7], [8, 7], [7, 9], [8, 8], [6, 6], [6, 8]]
        answer = await pool.think(request(moves))
        assert answer.move not in moves
    finally:
        await pool.close()


@pytest.mark.process
async def test_rapfi_plays_a_whole_renju_game_through_the_bridge(
    server: RunningServer, tmp_path: Path, rapfi: list[str]
) -> None:
    process = await bridge_process(server, tmp_path, "pbrain", rapfi, games="renju")
    try:
        await logged(process, '"connected"')
        end, moves = await play_against(server, "renju", clock={"initial_ms": 30_000, "increment_ms": 0})
        assert moves and end["reason"] != "resign"  # a forbidden point would be resigned as an illegal move
        (record,) = await finished_records(tmp_path, process)
        assert record["resigned"] is None and all(d["source"] == "brain" for d in record["decisions"])
        assert record["game"] == "renju"
    finally:
        if process.returncode is None:
            process.kill()
