"""``arbiter conformance``: our server passes every check a client makes; our bots, the example and
the starter kits pass every check of a bot; a broken bot fails the rows of what it breaks; and each
starter kit plays every game it knows against ``arbiter bot random`` on a real server's ladder."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from arbiter.engine import create_game
from arbiter.protocol import ErrorCode
from arbiter.server import ServerConfig, run_server
from arbiter.server.basics.clock import ClockSpec
from arbiter.server.config import LadderConfig
from arbiter.server.store.memory import MemoryStore
from arbiter.stack.conformance.bot_suite import FORCED_STUCK, RULE_ENDS, SMALL_FIELD, BotSuite
from arbiter.stack.conformance.report import Report
from arbiter.stack.conformance.server_suite import ServerSuite
from tests.support.wsclient import Client

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
JS_KIT = ROOT / "examples" / "js_kit"
KITS = {
    "python_kit": [sys.executable, str(ROOT / "examples" / "python_kit" / "bot.py")],
    "js_kit": ["node", str(JS_KIT / "bot.js")],
}
BOTS = {
    "random": (
        [str(BIN / "arbiter"), "bot", "random", "--workers", "1", "--server", "{url}", "--token", "{token}"],
        None,
    ),
    "mcts": (
        [
            str(BIN / "arbiter"),
            "bot",
            "mcts",
            "--workers",
            "1",
            "--option",
            "simulations=100",
            "--server",
            "{url}",
            "--token",
            "{token}",
        ],
        "tictactoe,vanishing,paper_soccer",
    ),
    "minimal_bot": ([sys.executable, str(ROOT / "examples" / "minimal_bot.py"), "{url}", "{token}"], None),
    **{name: ([*command, "{url}", "{token}"], None) for name, command in KITS.items()},
}


DYING_SOCKET = "a win sent just as the socket died: its end comes after the next welcome"


def js_kit_installed() -> None:
    assert (JS_KIT / "node_modules" / "ws").is_dir(), "the JS kit's packages are missing: run `make install-test`"


@pytest.mark.parametrize("registered", [True, False], ids=["token", "guests"])
async def test_our_server_passes_every_check_a_client_makes(registered: bool) -> None:
    store = MemoryStore()
    async with run_server(ServerConfig(port=0, warm_engine=False, hello_timeout_s=2.0), store) as server:
        token = await store.add_player("conformer", "bot") if registered else None
        report = Report(timeout_s=10)
        await ServerSuite(server.url, token, report).run()
    assert not report.failed, report.render()
    assert DYING_SOCKET in {row.check for row in report.rows}
    checked = {row.check for row in report.rows if row.status == "pass"}
    assert len(checked) >= 50
    assert any("missed while away" in check for check in checked)
    assert any("ending stuck" in check for check in checked)
    everything = " ".join(row.check for row in report.rows)
    assert not [code.value for code in ErrorCode if code.value not in everything]  # each one checked or listed


@pytest.mark.parametrize("name", sorted(BOTS))
def test_our_bots_and_kits_pass_every_check_of_a_bot(name: str) -> None:
    if name == "js_kit":
        js_kit_installed()
    command, games = BOTS[name]
    flags = ["--timeout", "10", *(["--games", games] if games else [])]
    run = subprocess.run(
        [str(BIN / "arbiter"), "conformance", *flags, "--bot", "--", *command],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    assert " 0 failed, 0 skipped" in run.stdout, run.stdout
    assert "PASS    §9" in run.stdout


def test_the_scripted_stuck_position_leaves_only_turns_that_end_stuck() -> None:
    state = create_game("paper_soccer", SMALL_FIELD).new_state()
    for turn in FORCED_STUCK:
        state.play(tuple(turn))
    turns = state.legal_turns(100)
    assert turns and not state.is_terminal
    for turn in turns:
        probe = state.copy()
        probe.play(turn)
        assert (
            probe.outcome is not None and probe.outcome.reason == "stuck" and probe.outcome.winner == 1 - state.to_move
        )


async def test_a_broken_bot_fails_the_rows_of_what_it_breaks() -> None:
    report = Report(timeout_s=5)
    await BotSuite([sys.executable, str(Path(__file__).parent / "broken_bot.py"), "{url}", "{token}"], report,
                   clock_ms=3000).run()  # fmt: skip
    status = {row.check: row for row in report.rows}
    failed = {check for check, row in status.items() if row.status == "fail"}
    assert status["plays tictactoe to its end by the rules, as first and as second"].status == "pass"
    soccer = status["plays paper_soccer to its end by the rules, as first and as second"]
    assert soccer.status == "fail" and "timeout" in soccer.seen, soccer
    assert any("comes back with its token" in check for check in failed), report.render()
    assert any("missed while away" in check for check in failed), report.render()
    refused = status["the server refused none of the bot's messages"]
    assert refused.status == "fail" and "illegal_move" in refused.seen and "incomplete turn" in refused.seen, refused
    assert "the bot is still running at the end" in failed
    assert "FAIL" in report.render() and "expected:" in report.render()


@pytest.mark.parametrize("kit", sorted(KITS))
async def test_each_starter_kit_plays_every_game_against_the_random_bot(kit: str) -> None:
    if kit == "js_kit":
        js_kit_installed()
    store = MemoryStore()
    quick = ClockSpec(initial_ms=5000, increment_ms=100)
    async with run_server(ServerConfig(port=0, warm_engine=False), store) as server:
        offered = (await Client.connect(server.url)).welcome["games"]
    # The protocol kits decline renju and caro (their READMEs say why): every other game is theirs.
    games = [game["name"] for game in offered if game["family"] != "five"]
    # Each game's queue pairs the two once (no rematch within the hour), so the ladder goes through them all.
    ladder = LadderConfig(
        clocks=dict.fromkeys(games, quick), window=1000.0, rematch_after_s=3600.0, retry_s=0.05, seed=7
    )
    async with run_server(ServerConfig(port=0, warm_engine=False, ladder=ladder), store) as server:
        kit_token, random_token = await store.add_player("kit", "bot"), await store.add_player("randombot", "bot")
        watcher = await Client.connect(server.url)
        await watcher.request("subscribe")
        processes = [
            await asyncio.create_subprocess_exec(*KITS[kit], server.url, kit_token, "--ladder"),
            await asyncio.create_subprocess_exec(
                str(BIN / "arbiter"), "bot", "random", "--workers", "1", "--ladder", "--server", server.url,
                "--token", random_token,
            ),
        ]  # fmt: skip
        try:
            listed: dict[str, str] = {}
            ended: dict[str, str] = {}  # game -> the first end's reason
            async with asyncio.timeout(120):
                while set(ended) != set(games):
                    message = await watcher.expect()
                    if message["type"] == "match_listed":
                        assert set(message["match"]["players"]) == {"kit", "randombot"}
                        listed[message["match"]["match"]] = message["match"]["game"]
                    elif message["type"] == "match_unlisted" and message["match"] in listed:
                        ended.setdefault(listed[message["match"]], message["reason"])
            assert all(reason in RULE_ENDS for reason in ended.values()), ended
        finally:
            for process in processes:
                process.terminate()
                await process.wait()
            await watcher.close()


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["ws://127.0.0.1:1/"], "cannot open a websocket to ws://127.0.0.1:1/"),
        (["http://127.0.0.1:8765/"], "give one server address like ws://"),
        (["ws://127.0.0.1:1/", "--games", "tictactoe"], "--games is for --bot"),
        (["--bot", "--", "/no/such/bot", "{url}"], "cannot start the bot '/no/such/bot': No such file or directory"),
    ],
)
def test_the_command_says_in_one_line_what_it_cannot_check(args: list[str], says: str) -> None:
    run = subprocess.run([str(BIN / "arbiter"), "conformance", *args], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and says in run.stderr and run.stdout == "", run
