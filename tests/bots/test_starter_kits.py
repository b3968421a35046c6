"""The compiled starter kits (examples/cpp, examples/rust) built with the machine's g++ and cargo
(offline, no crates) and played through ``arbiter bridge stdio`` against ``arbiter bot random`` on
a real server's ladder, one match of every game each: every move the kit made was legal and in
time (no fallback, no resignation), whatever the opening, the bounces or a stuck ball."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from bot_process import BotProcess
from bridge_helpers import bridge_process, finished_records, logged

from arbiter.engine import game_names
from arbiter.server import RunningServer, ServerConfig, run_server
from arbiter.server.basics.clock import ClockSpec
from arbiter.server.config import LadderConfig

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
GAMES = game_names()
LADDER_CLOCK = ClockSpec(initial_ms=20_000, increment_ms=100)


def build(kit: str, out: Path) -> list[str]:
    """Compile a kit as its README says (no network: no crates, no downloads); the command to run it."""
    tool = {"cpp": "g++", "rust": "cargo"}[kit]
    assert shutil.which(tool), f"{tool} is missing: `make install-test` installs it (scripts/install-system-deps)"
    if kit == "cpp":
        binary = out / "bot"
        source = EXAMPLES / "cpp" / "bot.cpp"
        subprocess.run(["g++", "-O2", "-std=c++17", "-Wall", "-Werror", "-o", str(binary), str(source)],
                       check=True, timeout=240)  # fmt: skip
        return [str(binary)]
    subprocess.run(["cargo", "build", "--release", "--offline", "--quiet", "--target-dir", str(out)],
                   cwd=EXAMPLES / "rust", check=True, timeout=240)  # fmt: skip
    return [str(out / "release" / "arbiter-starter")]


@pytest.fixture
async def server() -> AsyncIterator[RunningServer]:
    ladder = LadderConfig(clocks={game: LADDER_CLOCK for game in GAMES}, retry_s=0.2, seed=5)
    async with run_server(ServerConfig(port=0, ladder=ladder)) as running:
        yield running


@pytest.mark.process
@pytest.mark.parametrize("kit", ["cpp", "rust"])
async def test_a_starter_kit_plays_every_game_legally_against_random(
    server: RunningServer, tmp_path: Path, kit: str
) -> None:
    program = await asyncio.to_thread(build, kit, tmp_path)
    everything = ",".join(GAMES)
    capacity = str(len(GAMES))
    random_bot = await BotProcess.start(server, tmp_path, "random", "--ladder", "--capacity", capacity,
                                        "--max-matches", capacity, games=everything)  # fmt: skip
    bridge = await bridge_process(server, tmp_path, "stdio", program, games=everything, account=kit,
                                  flags=["--ladder", "--capacity", capacity])  # fmt: skip
    try:
        await logged(bridge, '"connected"')
        for _ in GAMES:  # one ladder match of each game at once; the same pair meets again only later
            await logged(bridge, '"match over"')
        records = await finished_records(tmp_path, bridge)
    finally:
        random_bot.kill()
        await random_bot.process.wait()
        if bridge.returncode is None:
            bridge.kill()
            await bridge.wait()
    assert sorted(r["game"] for r in records) == sorted(GAMES)
    for record in records:
        assert record["resigned"] is None, record
        assert all(d["source"] == "brain" for d in record["decisions"]), record["decisions"]
        assert record["reason"] != "timeout", record


@pytest.mark.process
@pytest.mark.parametrize("kit", ["cpp", "rust"])
def test_a_compiled_kit_through_the_stdio_bridge_passes_every_check_of_a_bot(kit: str, tmp_path: Path) -> None:
    """``arbiter conformance --bot`` drives the bridge and the kit behind it: reconnects, a missed end,
    low clocks, a bounce turn and a forced stuck position, every row passed."""
    program = build(kit, tmp_path)
    arbiter = str(Path(sys.executable).parent / "arbiter")
    bridge = [arbiter, "bridge", "stdio", "--server", "{url}", "--token", "{token}", "--", *program]
    run = subprocess.run([arbiter, "conformance", "--timeout", "10", "--bot", "--", *bridge],
                         capture_output=True, text=True, timeout=600)  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert " 0 failed, 0 skipped" in run.stdout, run.stdout
