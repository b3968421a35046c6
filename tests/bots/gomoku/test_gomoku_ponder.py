"""Pondering: the gomoku brain searches its answer to the expected reply on the opponent's time, stops
within a millisecond or so when told, and the next think says what was pondered."""

from __future__ import annotations

import threading
import time

import pytest

from arbiter.bots.brain import ThinkRequest
from arbiter.bots.gomoku.brain import LEVELS, PONDER_SECONDS, TIME_MARGIN, TIME_SHARE, GomokuBrain, Settings
from arbiter.bots.gomoku.searcher import SearchConfig, Searcher
from arbiter.bots.mcts.brain import MctsBrain
from arbiter.bots.random_bot import RandomBrain

pytestmark = pytest.mark.timeout(120)

# Our move (white, [6, 10]) is the last: black is to move.
PONDERED = [[7, 7], [8, 8], [7, 8], [7, 9], [6, 9], [8, 7], [9, 6], [6, 7], [8, 9], [9, 9], [5, 8], [6, 10]]
STOP_WITHIN = 0.25  # seconds; measured: median 0.2 ms, tens of ms when a loaded machine leaves it no core


def request(moves: list, budget: float = 0.3, **kw: object) -> ThinkRequest:
    return ThinkRequest("match", "gomoku", {}, moves, budget=budget, seed=5, **kw)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def brain() -> GomokuBrain:
    brain = GomokuBrain()
    brain.warm_up()
    return brain


class Ponder:
    """``brain.ponder`` in a thread, as a pool worker runs it."""

    def __init__(self, brain: GomokuBrain, req: ThinkRequest) -> None:
        self.brain = brain
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=brain.ponder, args=(req, self.stop_event))
        self.thread.start()

    def stop(self) -> float:
        """Stop it as the worker does; the seconds until its thread ended."""
        began = time.perf_counter()
        self.stop_event.set()
        self.brain.stop_ponder()
        self.thread.join(timeout=10)
        assert not self.thread.is_alive()
        return time.perf_counter() - began


def expected_reply(brain: GomokuBrain) -> list[int]:
    reply = brain._pondered["match"].reply
    return [reply % 15, reply // 15]


def test_only_brains_that_implement_it_ponder() -> None:
    assert GomokuBrain.can_ponder()
    assert not RandomBrain.can_ponder() and not MctsBrain.can_ponder()


def test_a_ponder_searches_until_stopped_and_the_next_think_reports_a_hit(brain: GomokuBrain) -> None:
    ponder = Ponder(brain, request(PONDERED))
    time.sleep(0.3)  # the opponent's thinking time, which the ponder fills
    assert ponder.thread.is_alive()  # a 60 s ponder: only the stop ends it
    assert ponder.stop() < STOP_WITHIN
    result = brain.think(request([*PONDERED, expected_reply(brain)]))
    report = result.info["ponder"]
    assert report["hit"] is True and report["depth"] >= 2 and report["nodes"] > 1000
    assert 0.25 < report["seconds"] < 0.3 + STOP_WITHIN
    assert result.info["depth"] >= 2  # the think itself searched normally after the stop


def test_a_ponder_stops_within_milliseconds_wherever_it_is(brain: GomokuBrain) -> None:
    latencies = []
    for wait in (0.0, 0.001, 0.005, 0.02, 0.1, 0.4):  # in the prediction, the threat search, alpha-beta
        ponder = Ponder(brain, request(PONDERED))
        time.sleep(wait)
        latencies.append(ponder.stop())
    assert max(latencies) < STOP_WITHIN, latencies


def test_another_reply_is_reported_as_a_miss(brain: GomokuBrain) -> None:
    ponder = Ponder(brain, request(PONDERED))
    time.sleep(0.1)
    ponder.stop()
    other = next(cell for cell in ([0, 0], [14, 14]) if cell != expected_reply(brain))
    report = brain.think(request([*PONDERED, other])).info["ponder"]
    assert report["hit"] is False and report["nodes"] > 0


def test_a_stop_before_the_ponder_begins_leaves_nothing(brain: GomokuBrain) -> None:
    brain._pondered.clear()
    stop = threading.Event()
    stop.set()
    began = time.perf_counter()
    brain.ponder(request(PONDERED), stop)
    assert time.perf_counter() - began < STOP_WITHIN
    assert "ponder" not in brain.think(request([*PONDERED, [0, 0]])).info


def test_a_report_is_for_the_next_move_only(brain: GomokuBrain) -> None:
    ponder = Ponder(brain, request(PONDERED))
    time.sleep(0.05)
    ponder.stop()
    assert "ponder" not in brain.think(request(PONDERED[:-2])).info  # not the position after the ponder's
    assert "ponder" not in brain.think(request([*PONDERED, [0, 0]])).info  # taken by the think before


@pytest.mark.parametrize(("level", "options"), [(1, {}), (2, {}), (3, {}), (4, {"nodes": 50_000}), (4, {"depth": 6})])
def test_a_search_with_a_fixed_budget_does_not_ponder(brain: GomokuBrain, level: int, options: dict) -> None:
    brain._pondered.clear()
    began = time.perf_counter()
    brain.ponder(request(PONDERED, level=level, options=options), threading.Event())  # never stopped
    assert time.perf_counter() - began < STOP_WITHIN and not brain._pondered


def test_a_finished_game_is_not_pondered(brain: GomokuBrain) -> None:
    five = [[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1], [3, 0], [3, 1], [4, 0]]
    brain.ponder(request(five), threading.Event())
    assert "match" not in brain._pondered


def test_a_stopped_searcher_aborts_every_search_until_resumed() -> None:
    searcher = Searcher(15, 15, 5, False)
    cells = [7 * 15 + 7, 8 * 15 + 8, 7 * 15 + 8]
    config = SearchConfig(max_depth=8, root_vcf=10_000, root_vct=5_000)
    searcher.set_position(cells)
    searcher.stop()
    stopped = searcher.think(config)
    assert stopped.depth == 0 and stopped.nodes <= 1024  # the kernel reads the stop every 1024 nodes
    searcher.resume()
    assert searcher.think(config).depth == 8


@pytest.mark.parametrize("budget", [0.5, 1.0, 1.25, 3.0])
def test_a_ponder_has_the_threat_searches_of_the_think_that_follows(budget: float) -> None:
    """The root VCF's and VCT's budgets, and the VCT's floor, are a think's of the same budget, whose search
    has TIME_SHARE of it: at 1 s a move neither runs the VCT, at 1.25 s both do. Only the time limit differs."""
    search = budget * TIME_SHARE - TIME_MARGIN  # a think's search, no preparation counted
    ponder, think = LEVELS[4].ponder_config(budget), LEVELS[4].config(search)
    assert ponder.time_limit == PONDER_SECONDS
    assert (ponder.root_vcf, ponder.root_vct, ponder.shallow_vct) == (think.root_vcf, think.root_vct, think.shallow_vct)
    assert (ponder.root_vct > 0) == (budget > 1.2)
    capped = Settings.parse(4, {"time": 0.5}).ponder_config(budget)  # the time option caps a think, so a ponder too
    assert capped.root_vct == 0 and capped.root_vcf == LEVELS[4].config(min(search, 0.5)).root_vcf
