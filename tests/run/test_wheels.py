"""The split is real: the parts install and work as separate wheels.

The wheels of protocol, engine, server and bots are built from their folders. One fresh venv gets
protocol, engine and bots only (what a bot author runs), another the server's wheel with what it
depends on (protocol and engine). ``arbiter serve`` in the second and ``arbiter bot random`` in the
first then play a whole game, over a real socket, against a guest that this test plays. Neither venv
can import the other's part.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from arbiter.engine import create_game
from tests.support.wsclient import Client, play_move, random_move

ROOT = Path(__file__).resolve().parents[2]
PARTS = ["protocol", "engine", "server", "bots"]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def run(*command: str | Path, **kwargs) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True, timeout=600, **kwargs)
    assert result.returncode == 0, f"{command}: {result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One wheel per part, built from its folder."""
    folder = tmp_path_factory.mktemp("wheels")
    sources = tmp_path_factory.mktemp("sources")  # built from a copy: no build/ left in the checkout
    skip = shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "node_modules")
    for part in PARTS:
        shutil.copytree(ROOT / part, sources / part, ignore=skip)
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", folder,
        *(sources / part for part in PARTS))  # fmt: skip
    built = {path.name.split("-")[0]: path for path in folder.glob("*.whl")}
    assert sorted(built) == [f"arbiter_{part}" for part in sorted(PARTS)], built
    for path in built.values():  # `arbiter` stays a namespace every part adds to: none may own it
        assert "arbiter/__init__.py" not in zipfile.ZipFile(path).namelist(), path.name
    return {part: built[f"arbiter_{part}"] for part in PARTS}


def make_venv(where: Path, wheels: list[Path]) -> Path:
    """A fresh venv with only these wheels (and their third-party dependencies from the index)."""
    venv.create(where, with_pip=True)
    python = where / "bin" / "python"
    run(python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *wheels)
    return where / "bin"


@pytest.fixture(scope="module")
def venvs(tmp_path_factory: pytest.TempPathFactory, wheels: dict[str, Path]) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("venvs")
    return {
        "bots": make_venv(base / "bots", [wheels["protocol"], wheels["engine"], wheels["bots"]]),
        "server": make_venv(base / "server", [wheels["server"], wheels["protocol"], wheels["engine"]]),
    }


def isolated_env(tmp_path: Path) -> dict[str, str]:
    """No path of the developer's checkout leaks in; numba compiles into a folder of this test."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "NUMBA_CACHE_DIR")}
    return {**env, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "PYTHONUNBUFFERED": "1"}


def test_each_venv_has_its_parts_only(venvs: dict[str, Path], tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    for name, bin_dir in venvs.items():
        result = subprocess.run([bin_dir / "python", "-c", "import arbiter.server, arbiter.bots"],
                                capture_output=True, text=True, env=env, cwd=tmp_path)  # fmt: skip
        missing = "arbiter.server" if name == "bots" else "arbiter.bots"
        assert result.returncode != 0 and f"No module named '{missing}'" in result.stderr, result.stderr
    version = run(venvs["bots"] / "arbiter", "--version", env=env, cwd=tmp_path).stdout
    assert "arbiter-bots 0.1.0" in version and "arbiter-server" not in version
    commands = run(venvs["bots"] / "arbiter", "--help", env=env, cwd=tmp_path).stdout
    assert " bot " in commands and " serve " not in commands
    commands = run(venvs["server"] / "arbiter", "--help", env=env, cwd=tmp_path).stdout
    assert " serve " in commands and " bot " not in commands


async def test_a_bot_from_its_wheels_plays_a_server_from_its_wheel(venvs: dict[str, Path], tmp_path: Path) -> None:
    env = isolated_env(tmp_path)
    db = tmp_path / "arbiter.db"
    token = run(venvs["server"] / "arbiter", "player", "add", "wheelbot", "--kind", "bot", "--db", db,
                env=env, cwd=tmp_path).stdout.strip()  # fmt: skip
    server = await asyncio.create_subprocess_exec(
        venvs["server"] / "arbiter",
        "serve",
        "--port",
        "0",
        "--db",
        str(db),
        "--no-warm",
        stderr=asyncio.subprocess.PIPE,
        env=env,
        cwd=tmp_path,
    )
    bot = None
    try:
        async with asyncio.timeout(120):
            while not (line := (await server.stderr.readline()).decode()).startswith("listening on "):
                assert line, "the server exited before listening"
        url = line.split()[-1]
        bot = await asyncio.create_subprocess_exec(
            venvs["bots"] / "arbiter",
            "bot",
            "random",
            "--server",
            url,
            "--token",
            token,
            "--games",
            "tictactoe",
            "--workers",
            "1",
            stderr=asyncio.subprocess.DEVNULL,
            env=env,
            cwd=tmp_path,
        )
        guest = await Client.connect(url)
        async with asyncio.timeout(180):  # the bot compiles its kernels before it logs in
            while not any(p["name"] == "wheelbot" for p in (await guest.request("lobby"))["players"]):
                await asyncio.sleep(0.2)
        created = await guest.request("challenge", to="wheelbot", game="tictactoe", color="first",
                                      clock={"initial_ms": 120_000})  # fmt: skip
        assert created["type"] == "challenge_created", created
        match = (await guest.expect("match_start", timeout=60))["match"]
        game = create_game("tictactoe")
        state = game.new_state()
        rng = random.Random(14)
        while not state.is_terminal:
            if state.to_move == 0:
                move = random_move(state, rng)
                assert (await play_move(guest, match, state.ply, move))["type"] == "moved"
            else:
                move = (await guest.expect("moved", match=match, ply=state.ply, timeout=60))["move"]
            state.play(game.decode_move(move))
        end = await guest.expect("end", match=match, timeout=30)
        assert end["ply"] == state.ply and end["result"] == state.outcome.result, end
        await guest.close()
    finally:
        for process in (bot, server):
            if process is not None and process.returncode is None:
                process.terminate()
                await process.wait()
