"""``arbiter series``: the statistics on known values and by simulation, series over a real server
(perfect never loses to random, colours alternate, a timeout and a failing brain are survived and
reported, an existing server with tokens), and the command line's errors."""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from arbiter.bots.brain import Brain, ThinkRequest, ThinkResult
from arbiter.bots.gomoku.brain import GomokuBrain
from arbiter.bots.perfect import PerfectBrain
from arbiter.bots.random_bot import RandomBrain
from arbiter.bots.timeman import TimeManager
from arbiter.cli import main
from arbiter.engine import Game, create_game
from arbiter.server import ServerConfig, run_server
from arbiter.server.store.memory import MemoryStore
from arbiter.stack.series import (
    GameOutcome,
    SeriesConfig,
    SeriesError,
    SeriesPlayer,
    SeriesResult,
    Tally,
    elo_difference,
    estimate,
    opening,
    outcome_of,
    run_series,
    wilson_interval,
    z_value,
)

pytestmark = pytest.mark.timeout(120)

CLOCK = {"initial_ms": 10_000, "increment_ms": 200, "move_limit_ms": None}


# --- statistics ----------------------------------------------------------------------------------
def test_elo_difference_known_values() -> None:
    assert elo_difference(0.5) == 0
    assert elo_difference(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo_difference(0.25) == pytest.approx(-190.85, abs=0.01)
    assert elo_difference(10 / 11) == pytest.approx(400, abs=1e-9)  # ten to one is 400 points
    assert elo_difference(1.0) == math.inf and elo_difference(0.0) == -math.inf
    with pytest.raises(ValueError):
        elo_difference(1.2)


def test_wilson_interval_known_values() -> None:
    z = z_value(0.95)
    assert z == pytest.approx(1.959964, abs=1e-6)
    low, high = wilson_interval(50, 100, z)
    assert (low, high) == (pytest.approx(0.4038, abs=1e-4), pytest.approx(0.5962, abs=1e-4))
    low, high = wilson_interval(10, 10, z)
    assert low == pytest.approx(10 / (10 + z * z)) and high == 1.0  # all wins: the lower end is n / (n + z²)
    with pytest.raises(ValueError):
        wilson_interval(11, 10, z)
    with pytest.raises(ValueError):
        wilson_interval(0, 0, z)


def test_estimate_of_a_75_percent_score() -> None:
    found = estimate(Tally(wins=70, draws=10, losses=20))
    assert found.score == 0.75
    assert found.elo == pytest.approx(190.85, abs=0.01)
    assert found.low < 0.75 < found.high
    assert found.elo_low < found.elo < found.elo_high
    assert found.elo_low == pytest.approx(elo_difference(found.low))
    assert found.elo_margin == pytest.approx((found.elo_high - found.elo_low) / 2)


def test_interval_shrinks_with_more_games() -> None:
    widths = []
    for games in (10, 100, 1000, 10_000):
        found = estimate(Tally(wins=6 * games // 10, losses=4 * games // 10))
        widths.append(found.high - found.low)
        assert found.low < 0.6 < found.high
    assert widths == sorted(widths, reverse=True)
    assert widths[-1] < widths[0] / 25  # about 1/sqrt(n): 1000 times the games, ~1/32 of the width


def test_perfect_scores_keep_a_finite_bound() -> None:
    found = estimate(Tally(wins=200))
    assert found.score == 1 and found.high == 1 and found.elo == math.inf and found.elo_high == math.inf
    assert found.low > 0.98 and math.isfinite(found.elo_low) and found.elo_low > 600
    assert found.elo_margin is None
    drawn = estimate(Tally(draws=20))  # all draws: 50%, and still an interval, not a point
    assert drawn.elo == 0 and drawn.low < 0.5 < drawn.high


def coverage(win: float, draw: float, games: int) -> float:
    """The exact probability that the interval holds the true score, over every W/D/L split of ``games``."""
    true_score, loss, z, total = win + draw / 2, 1 - win - draw, z_value(), 0.0
    for wins in range(games + 1):
        for draws in range(games - wins + 1):
            losses = games - wins - draws
            chance = math.comb(games, wins) * math.comb(games - wins, draws) * win**wins * draw**draws * loss**losses
            low, high = wilson_interval(wins + draws / 2, games, z)
            total += chance * (low <= true_score <= high)
    return total


@pytest.mark.parametrize(("win", "draw"), [(0.45, 0.3), (0.3, 0.6), (0.7, 0.2), (0.1, 0.5)])
def test_with_draws_the_interval_is_conservative(win: float, draw: float) -> None:
    assert coverage(win, draw, 40) >= 0.95


def test_for_decisive_games_the_interval_holds_95_percent_on_average() -> None:
    covered = [coverage(p / 20, 0.0, 40) for p in range(1, 20)]
    assert min(covered) >= 0.92  # Wilson's coverage oscillates around the nominal level (Brown, Cai, DasGupta 2001)
    assert sum(covered) / len(covered) == pytest.approx(0.95, abs=0.01)


def test_tally_counts_only_whole_and_half_points() -> None:
    tally = Tally().add(1).add(0.5).add(0).add(1)
    assert (tally.wins, tally.draws, tally.losses, tally.points, tally.score) == (2, 1, 1, 2.5, 0.625)
    with pytest.raises(ValueError):
        tally.add(0.25)


# --- outcomes and the summary, without sockets ---------------------------------------------------
def record(color: int, winner: int | None, result: str | None, reason: str, sources: list[str]) -> dict:
    return {
        "color": color,
        "winner": winner,
        "result": result,
        "reason": reason,
        "moves": [[0, 0]] * len(sources),
        "decisions": [{"source": s} for s in sources],
    }


def test_outcomes_from_either_side_s_record() -> None:
    won = outcome_of(0, "m1", record(0, 0, "1-0", "line", ["brain"] * 3), record(1, 0, "1-0", "line", ["brain"]))
    assert (won.a_color, won.a_points, won.reason, won.error) == (0, 1.0, "line", None)
    fell_back = outcome_of(1, "m2", None, record(0, None, "1/2-1/2", "board_full", ["brain", "fallback: x"]))
    assert (fell_back.a_color, fell_back.a_points, fell_back.fallbacks) == (1, 0.5, (0, 1))
    flagged = outcome_of(2, "m3", record(0, 1, "0-1", "timeout", ["brain"]), None)
    assert flagged.a_points == 0.0 and flagged.error == "ended by timeout (A lost)"
    aborted = outcome_of(3, "m4", record(1, None, None, "abort", []), None)
    assert aborted.a_points is None
    lost = outcome_of(4, "m5", None, None)
    assert lost.a_points is None and lost.reason == "unknown" and lost.error


def test_summary_and_json_of_a_result() -> None:
    config = SeriesConfig(SeriesPlayer(PerfectBrain), SeriesPlayer(RandomBrain), "tictactoe", 6, CLOCK)
    result = SeriesResult(config, names=("perfect-A", "random-B"))
    result.outcomes += [
        GameOutcome(0, 0, 1.0, "line"),
        GameOutcome(1, 1, 0.5, "board_full"),
        GameOutcome(2, 0, 1.0, "timeout", error="ended by timeout (B lost)"),
        GameOutcome(3, 1, None, "not_started", error="the challenge closed: declined"),
    ]
    assert result.tally() == Tally(2, 1, 0)
    assert result.tally(0) == Tally(2, 0, 0) and result.tally(1) == Tally(0, 1, 0)
    text = "\n".join(result.summary_lines())
    assert "A: 2 W  1 D  0 L   score 83.3%" in text
    assert "Elo difference A−B: +280" in text
    assert "A moving first: 2 games: 2 W" in text and "A moving second: 1 game: 0 W  1 D" in text
    assert "timeout 1" in text and "game 4: the challenge closed: declined" in text
    data = json.loads(json.dumps(result.as_json(), allow_nan=False))
    assert (data["wins"], data["draws"], data["losses"], data["played"], data["scored"]) == (2, 1, 0, 4, 3)
    assert data["by_color"]["first"] == {"wins": 2, "draws": 0, "losses": 0}
    assert data["params"] == {"m": 3, "n": 3, "k": 3, "exact": False, "opening": "none"}
    all_won = SeriesResult(config, outcomes=[GameOutcome(0, 0, 1.0, "line")])
    assert all_won.as_json()["elo"] is None and all_won.as_json()["elo_ci"][1] is None


# --- series over a real server -------------------------------------------------------------------
class SlowBrain(Brain):
    """Thinks longer than any clock in these tests allows."""

    name = "slow"

    @classmethod
    def plays(cls, game: Game) -> bool:
        return True

    def think(self, request: ThinkRequest) -> ThinkResult:
        time.sleep(0.6)
        return RandomBrain().think(request)


class BrokenBrain(Brain):
    """Raises on every decision: the client must play on with its fallback moves."""

    name = "broken"

    @classmethod
    def plays(cls, game: Game) -> bool:
        return True

    def think(self, request: ThinkRequest) -> ThinkResult:
        raise RuntimeError("this brain always fails")


class UnwarmableBrain(RandomBrain):
    """Cannot even start: its warm-up fails."""

    def warm_up(self) -> None:
        raise RuntimeError("no kernels today")


async def test_a_bot_that_cannot_start_stops_the_series_before_any_game() -> None:
    config = SeriesConfig(SeriesPlayer(RandomBrain), SeriesPlayer(UnwarmableBrain), "tictactoe", 2, CLOCK)
    with pytest.raises(SeriesError, match="bot B could not start: "):
        await run_series(config)


async def test_perfect_never_loses_ten_alternating_games_to_random() -> None:
    config = SeriesConfig(SeriesPlayer(PerfectBrain), SeriesPlayer(RandomBrain), "tictactoe", 10, CLOCK, seed=3)
    seen: list[int] = []
    result = await run_series(config, on_game=lambda outcome, _: seen.append(outcome.number))
    assert seen == list(range(10))
    assert result.names == ("perfect-A", "random-B") and result.stopped is None
    assert [o.a_color for o in result.outcomes] == [0, 1] * 5
    assert all(o.a_points in (1.0, 0.5) for o in result.outcomes)  # perfect never loses
    assert all(o.reason in ("line", "board_full") and o.fallbacks == (0, 0) for o in result.outcomes)
    tally = result.tally()
    assert tally.games == 10 and tally.losses == 0 and tally.wins >= 6
    assert estimate(tally).elo > 0


async def test_the_same_bot_on_both_sides_and_the_same_seed_replays_the_series() -> None:
    config = SeriesConfig(SeriesPlayer(RandomBrain, 1), SeriesPlayer(RandomBrain), "tictactoe", 6, CLOCK, seed=11)
    first = await run_series(config)
    again = await run_series(config)
    assert first.names == ("random-1-A", "random-B")
    assert [(o.a_points, o.moves_hash) for o in first.outcomes] == [(o.a_points, o.moves_hash) for o in again.outcomes]
    assert first.distinct_games() == 6
    other = await run_series(SeriesConfig(config.a, config.b, "tictactoe", 6, CLOCK, seed=12))
    assert [o.moves_hash for o in other.outcomes] != [o.moves_hash for o in first.outcomes]


async def test_bots_that_never_vary_are_reported_as_repeating_their_games() -> None:
    config = SeriesConfig(SeriesPlayer(PerfectBrain), SeriesPlayer(PerfectBrain), "tictactoe", 4, CLOCK)
    result = await run_series(config)
    assert result.tally() == Tally(draws=4) and result.distinct_games() == 2  # one game per colour, replayed
    assert "distinct games: 2 of 4 (repeated games are not independent samples)" in result.summary_lines()


async def test_random_openings_vary_the_games_and_each_pair_shares_one(tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"
    config = SeriesConfig(
        SeriesPlayer(PerfectBrain), SeriesPlayer(PerfectBrain), "tictactoe4", 6, CLOCK, opening_plies=3, game_log=log
    )
    result = await run_series(config)
    records = [json.loads(line) for line in log.read_text().splitlines()]
    openings = [record["moves"][:3] for record in records]
    assert openings[0] == openings[1] and openings[2] == openings[3] and openings[4] == openings[5]
    assert len({json.dumps(o) for o in openings}) == 3
    assert [record["color"] for record in records] == [0, 1] * 3
    assert all(d["info"] == {"opening": True} for r in records for d in r["decisions"] if d["ply"] < 3)
    assert all(d["info"] != {"opening": True} for r in records for d in r["decisions"] if d["ply"] >= 3)
    assert result.distinct_games() == 6
    assert "each pair of games opens with the same 3 random plies, colours swapped" in result.summary_lines()


async def test_book_openings_open_each_pair_of_games_from_the_game_s_book(tmp_path: Path) -> None:
    from arbiter.server.ranking.openings import book

    log = tmp_path / "games.jsonl"
    player = SeriesPlayer(GomokuBrain, 1)  # the source's G+Q player: quick games
    config = SeriesConfig(player, player, "gomoku", 4, CLOCK, book=True, game_log=log)
    result = await run_series(config)
    records = [json.loads(line) for line in log.read_text().splitlines()]
    openings = [record["moves"][:3] for record in records]
    assert openings[0] == openings[1] and openings[2] == openings[3] and openings[0] != openings[2]
    assert all(tuple(map(tuple, o)) in book("gomoku") for o in openings)
    assert all((d["info"] == {"opening": True}) == (d["ply"] < 3) for r in records for d in r["decisions"])
    assert "each pair of games opens with one opening of gomoku's book, colours swapped" in result.summary_lines()
    assert result.as_json()["book"] is True


def test_an_opening_never_ends_the_game() -> None:
    for pair in range(50):
        moves = opening("tictactoe", {}, 5, pair, 8)  # 8 random plies often complete a line: drawn again
        state = create_game("tictactoe").new_state()
        for move in moves:
            state.play(state.game.decode_move(move))
        assert len(moves) == 8 and not state.is_terminal


async def test_a_series_survives_timeouts_and_a_failing_brain() -> None:
    reckless = TimeManager(safety=-1.0)  # plans past the clock, so the slow brain flags
    config = SeriesConfig(
        SeriesPlayer(SlowBrain, timeman=reckless),
        SeriesPlayer(BrokenBrain),
        "tictactoe",
        3,
        {"initial_ms": 300, "increment_ms": 0, "move_limit_ms": None},
    )
    result = await run_series(config)
    assert result.stopped is None and len(result.outcomes) == 3
    assert [o.reason for o in result.outcomes] == ["timeout"] * 3
    assert all(o.a_points == 0.0 and o.error == "ended by timeout (A lost)" for o in result.outcomes)
    # B moved only in game 2 (A second), by fallback since its brain fails; A flagged before moving
    assert [o.fallbacks for o in result.outcomes] == [(0, 0), (0, 1), (0, 0)]
    text = "\n".join(result.summary_lines())
    assert "ends: timeout 3" in text and "moves sent without the brain's answer: A 0, B 1" in text
    assert "game 1: ended by timeout (A lost)" in text


async def test_a_series_on_an_existing_server_with_tokens() -> None:
    store = MemoryStore()
    async with run_server(ServerConfig(port=0, max_initial_ms=60_000), store) as server:
        tokens = [await store.add_player(name, "bot") for name in ("alice", "bob")]
        played = await run_series(
            SeriesConfig(
                SeriesPlayer(PerfectBrain, token=tokens[0]),
                SeriesPlayer(RandomBrain, token=tokens[1]),
                "tictactoe4",
                2,
                CLOCK,
                server=server.url,
            )
        )
        assert played.names == ("alice", "bob") and [o.a_points for o in played.outcomes] != [0.0, 0.0]

        too_long = {"initial_ms": 600_000, "increment_ms": 0, "move_limit_ms": None}  # over this server's limit
        refused = await run_series(
            SeriesConfig(
                SeriesPlayer(RandomBrain, token=tokens[0]),
                SeriesPlayer(RandomBrain, token=tokens[1]),
                "tictactoe",
                10,
                too_long,
                server=server.url,
            )
        )
        assert [o.reason for o in refused.outcomes] == ["not_started"] * 3
        assert refused.stopped and "bad_clock" in refused.stopped

        with pytest.raises(SeriesError, match=r"bot B could not join.*auth_failed"):
            await run_series(
                SeriesConfig(
                    SeriesPlayer(RandomBrain, token=tokens[0]),
                    SeriesPlayer(RandomBrain, token="not-a-token"),
                    "tictactoe",
                    2,
                    CLOCK,
                    server=server.url,
                )
            )


# --- the command line ----------------------------------------------------------------------------
def run_cli(command: str) -> Result:
    """``arbiter COMMAND`` in this process (the words split on spaces)."""
    return CliRunner().invoke(main, command.split())


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    """The command points the ``arbiter`` logger at the runner's captured stderr; put it back after."""
    logger = logging.getLogger("arbiter")
    saved = (logger.handlers[:], logger.level, logger.propagate)
    yield
    logger.handlers[:], logger.level, logger.propagate = saved[0], saved[1], saved[2]


def test_the_command_plays_and_prints_json() -> None:
    outcome = CliRunner().invoke(
        main, ["series", "perfect", "random", "--game", "tictactoe", "--games", "4", "--clock", "5+0.1", "--json"]
    )
    assert outcome.exit_code == 0, outcome.output
    data = json.loads(outcome.stdout)
    assert data["a"]["name"] == "perfect-A" and data["b"]["name"] == "random-B"
    assert data["played"] == 4 and data["losses"] == 0 and data["clock"]["initial_ms"] == 5000
    assert [o["a_color"] for o in data["outcomes"]] == [0, 1, 0, 1]


def test_the_command_prints_the_summary() -> None:
    outcome = run_cli("series random:1 random --game mnk -p m=4 -p n=3 -p k=3 --games 2 --move-time 500")
    assert outcome.exit_code == 0, outcome.output
    assert "A = random-1-A (random)   B = random-B (random)" in outcome.stdout
    assert "mnk (m=4 n=3 k=3 exact=False opening=none), clock 5+0.5 s, 500 ms per move, 2 of 2 games" in outcome.stdout
    assert "95% CI" in outcome.stdout and "Elo difference" in outcome.stdout


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ("nobody random --game tictactoe", "unknown bot 'nobody'"),
        ("perfect:9 random --game tictactoe", "perfect has levels 1 to 1, not 9"),
        ("random:x random --game tictactoe", "BOT:LEVEL"),
        ("random:1 random --level-a 2 --game tictactoe", "give it once"),
        ("random random", "Missing option '--game'"),
        ("random random --game chess", "unknown game 'chess'"),
        ("random random --game tictactoe -p m=5", "tictactoe fixes m=3"),
        ("random random --game mnk -p m", "--param takes key=value"),
        ("perfect random --game gomoku", "bot A (perfect) does not play gomoku"),
        ("random random --game tictactoe --games 0", "'--games'"),
        ("random random --game tictactoe --clock fast", "--clock takes SECS+INC"),
        ("random random --game tictactoe --clock 0+1", "initial time must be positive"),
        ("random random --game tictactoe --move-time 50", "--move-time must be 100 to"),
        ("random random --game tictactoe --token-a t", "go with --server"),
        ("random random --game tictactoe --server ws://x/", "needs both --token-a and --token-b"),
        ("random random --game tictactoe --server http://x/ --token-a a --token-b b", "ws://"),
        ("random random --game tictactoe --server ws://x/ --token-a a --token-b a", "the same player"),
        ("random random --game tictactoe --bogus", "No such option '--bogus'"),
        ("random random --game gomoku --book --opening-plies 3", "give one of them"),
        ("random random --game tictactoe --book", "tictactoe has no book of openings"),
        ("random random --game gomoku -p exact=true --book", "gomoku has no book of openings with these"),
    ],
)
def test_bad_flags_fail_on_one_line_with_exit_code_2(arguments: str, message: str) -> None:
    outcome = run_cli(f"series {arguments}")
    assert outcome.exit_code == 2
    assert outcome.stdout == ""
    lines = outcome.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("arbiter: error: ") and message in lines[0], lines


def test_a_bad_brain_option_is_refused_before_anything_starts() -> None:
    from arbiter.bots.registry import bot_names

    if "gomoku" not in bot_names():
        pytest.skip("the gomoku bot is not registered")
    outcome = CliRunner().invoke(main, ["series", "gomoku", "random", "--game", "gomoku10", "--option-a", "depth=-1"])
    assert outcome.exit_code == 2 and outcome.stderr.startswith("arbiter: error: bot A: ")
    assert len(outcome.stderr.splitlines()) == 1


def test_an_unreachable_server_fails_with_exit_code_1(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("arbiter.stack.series.CONNECT_TIMEOUT", 1.0)
    outcome = run_cli("series random random --game tictactoe --server ws://127.0.0.1:9/ --token-a a --token-b b")
    assert outcome.exit_code == 1
    # Whichever comes first: the series' 1 s wait, or the bot giving up on a refused connection.
    assert (
        "could not connect to ws://127.0.0.1:9/ within 1 s" in outcome.stderr
        or "could not join ws://127.0.0.1:9/: cannot reach the server" in outcome.stderr
    ), outcome.stderr


def test_the_flags_are_documented() -> None:
    outcome = CliRunner().invoke(main, ["series", "--help"])
    assert outcome.exit_code == 0
    for flag in (
        "--level-a",
        "--option-a",
        "--clock",
        "--move-time",
        "--workers",
        "--seed",
        "--opening-plies",
        "--book",
        "--json",
    ):
        assert flag in outcome.output


@pytest.mark.parametrize("ponder", [True, False])
async def test_a_side_ponders_only_when_told(tmp_path: Path, ponder: bool) -> None:
    log = tmp_path / "games.jsonl"
    clock = {"initial_ms": 3_000, "increment_ms": 200, "move_limit_ms": None}
    config = SeriesConfig(SeriesPlayer(GomokuBrain, ponder=ponder), SeriesPlayer(GomokuBrain, 1), "gomoku", 2, clock,
                          game_log=log)  # fmt: skip
    result = await run_series(config)
    infos = [d["info"] for line in log.read_text().splitlines() for d in json.loads(line)["decisions"]]
    assert any("ponder_stop_ms" in info for info in infos) is ponder  # A's worker stopped a ponder for a think
    assert result.as_json()["a"]["ponder"] is ponder and result.as_json()["b"]["ponder"] is False
    assert ("(ponder)" in config.a.label) is ponder
