"""The alpha-beta over whole turns: plain minimax's values, forced goals found, both stuck rules, the clock.

The positions below were found by playing random turns and searching them; each is a game's turns
in text notation (``"0 3 17"``: three turns), replayed step by step on the engine. The tests do not
trust how they were found: a forced goal is checked by walking every reply with the reference.
"""

from __future__ import annotations

import functools
import time

import pytest
from soccer_reference import can_score, distinct_turns, random_position, shortest_goal, turn_value

from arbiter.bots.brain import ThinkRequest
from arbiter.bots.soccer.brain import SoccerBrain
from arbiter.bots.soccer.search import LOST_GOAL_LIMIT, MATE_BOUND, WIN, TurnSearch, search_root
from arbiter.bots.soccer.turns import (
    FALLBACK_LOSS,
    FALLBACK_NONE,
    M_FALLBACK,
    M_TRUNCATED,
    M_TURNS,
    U_NODE,
    U_STEP,
    generate_turns,
    play_turn,
)
from arbiter.bots.soccer.turns import can_score as kernel_can_score
from arbiter.engine import create_game
from arbiter.engine.base import TO_MOVE
from arbiter.engine.paper_soccer import PaperSoccerState, undo

GOAL_IN_ONE = [
    ({}, "5 0 7 4 221 4 1 4 77 0 0 6 6 1433 1 3 25 35 71017 54 23676305210 57"),
    ({}, "0 3 1 2 17 4 16175 4"),
    ({}, "0 1 4 3 0 1 17 74 4 335"),
    ({}, "0 3 1 4 3 35 7 4 6 5 0 3 01117 54 727 44 25"),
    ({}, "6 4 11 3 0 3 17 27 250175 2"),
    ({"width": 6, "length": 8, "stuck": "draw"}, "0 3 67 4 11 4 660 2 21 6 135 543 17 4"),
    ({"width": 6, "length": 8, "stuck": "draw"}, "6 4 11 4 1 35 77 6 302217 4"),
    ({"width": 6, "length": 8, "stuck": "draw"}, "5 4 1 4 7200 3 67 0 0 3 57 52"),
    ({"width": 6, "length": 8, "stuck": "draw"}, "4 4 1 4 7270 3 56 34 7"),
    ({"width": 6, "length": 8, "stuck": "draw"}, "0 3 0 0 0 3"),
]

GOAL_IN_TWO = [
    ({}, "0 6 4 21 7 6 7 2 0 6 74 4 3 2323 3 4 4 357 47 2501 6 1 2361657 6 6 0 34 74 4 117 77 5 53 4"),
    ({}, "6 4 5 6 3 6 061 61 2"),
    ({}, "4 2 3 5 2 01 27 436 63"),
    ({}, "5 4 6 5 2 2 4 57 41 07 1 32 1 0 0 50 6 4 457 52245717220 6 6303111 2 1 174 75 6 6 1"),
    ({}, "5 5 3 6 1 41 76 5 53 13 50 50231 4 1 0 2 7 7 2 41 7 1 0 6 31 0 6"),
    ({}, "1 1 0 2 27 6 45 44 7 0 0 30 65 4 4 7 0 7"),
    ({"width": 6, "length": 8, "stuck": "draw"}, "1 2 25 2716 7 2 4446 7 5 6"),
    ({"width": 6, "length": 8, "stuck": "draw"}, "4 3 5 4 67 1 7 71 2 32 3"),
    (
        {"width": 6, "length": 8, "stuck": "draw"},
        "7 7 1 05 2743 3 1 4 646 3 2 4 4 5 7 1 4 650 61 632771 63 14 4 161441711 4",
    ),
    ({"width": 6, "length": 8, "stuck": "draw"}, "4 3 4 7 5 6 0 61 1 4 661 336 11 661 31 0 7 6 0"),
    ({"width": 6, "length": 8, "stuck": "draw"}, "4 4 3 6 52 20501 3 417 525701"),
    ({"width": 6, "length": 8, "stuck": "draw"}, "0 7 6 1 1 3 5 5 4 3 1 2 7 0 3 0 25435 36 7 0 745"),
]

STUCK_OR_LOSE = [
    "6 0 1 3 0 2 0 35 5 3 35 27 7 5 0 013 2564 774 10 67 714",
    "2 1 17 75 4 4 5 6 61 61 41 330 57 54 4 52 713 2 7 00244 13 35",
    "2 0 54 6 0 1 6 433 2 27 6 5 6 4 2 70177 63 611 3 1 2",
    "6 3 5 5 631 1 1 2 7 6366 33 30",
]


def replay(params: dict, moves: str) -> PaperSoccerState:
    state = create_game("paper_soccer", params).new_state()
    for turn in moves.split():
        state.play(state.game.move_from_text(turn))
    assert not state.is_terminal
    return state


@functools.cache
def warm_brain(**options) -> SoccerBrain:
    """A bot with every kernel loaded, so that loading none of them eats into a test's clock."""
    brain = SoccerBrain(**options)
    brain.warm_up()
    return brain


def bot_turn(state: PaperSoccerState, budget: float = 0.2, **options) -> tuple[PaperSoccerState, dict]:
    wire = [state.game.encode_move(m) for m in state.moves()]
    result = warm_brain(**options).think(ThinkRequest("m", "paper_soccer", dict(state.game.params), wire, budget))
    child = state.copy()
    child.play(state.game.decode_move(result.move))
    return child, result.info


def label(case: tuple[dict, str]) -> str:
    params, moves = case
    return f"{params.get('width', 8)}x{params.get('length', 10)}-{len(moves.split())}turns"


@pytest.mark.parametrize("case", GOAL_IN_ONE, ids=label)
@pytest.mark.parametrize("options", [{}, {"depth": 1}], ids=["full", "depth1"])
def test_a_goal_in_one_turn_is_scored(case: tuple[dict, str], options: dict) -> None:
    state = replay(*case)
    child, info = bot_turn(state, **options)
    assert child.is_terminal and child.outcome.winner == state.to_move, state.diagram()
    assert info["proven"] == "win" and info["reason"] == "win"


@pytest.mark.parametrize("case", GOAL_IN_TWO, ids=label)
def test_a_forced_goal_in_two_turns_is_found(case: tuple[dict, str]) -> None:
    """Every reply to the bot's turn is walked (with the turn walk and goal finder that
    test_soccer_turns checks against the engine: the plain Python walk is too slow here).

    The search is bound by depth (three turns: ours, the reply, our goal), not by a fraction of a second, so the
    proof does not depend on the machine's load: the budget is only a cap. Each takes a few milliseconds."""
    state = replay(*case)
    mover = state.to_move
    assert not can_score(state), "no goal this turn: the win takes two"
    child, info = bot_turn(state, budget=30.0, depth=3)
    assert not child.is_terminal and info["proven"] == "win"
    walker = TurnSearch(child.game, tt_bits=10, node_cap=1 << 14, turn_cap=1 << 14)
    p, s = walker.p, child.s.copy()
    scores = generate_turns(
        p, s, 0, walker.tree, walker.turns, walker.meta, walker.visited, walker.walk, walker.ctl, walker.dist, False
    )
    assert not scores and not walker.meta[0, M_TRUNCATED]
    assert walker.meta[0, M_FALLBACK] in (FALLBACK_NONE, FALLBACK_LOSS), "a reply that ends the game must lose it"
    for i in range(walker.meta[0, M_TURNS]):
        played = play_turn(p, s, walker.tree, 0, walker.turns[0, U_NODE, i], walker.turns[0, U_STEP, i], walker.walk)
        assert s[TO_MOVE] == mover and kernel_can_score(p, s, walker.visited, walker.walk, walker.ctl)
        for _ in range(played):
            undo(p, s)


@pytest.mark.parametrize("moves", STUCK_OR_LOSE)
def test_the_stuck_rule_decides_whether_getting_stuck_is_the_way_out(moves: str) -> None:
    """Every turn that passes lets the opponent score; one turn runs the ball into a dead end."""
    draw = replay({"width": 6, "length": 8, "stuck": "draw"}, moves)
    child, info = bot_turn(draw)
    assert child.is_terminal and child.outcome.winner is None and child.outcome.reason == "stuck"
    assert info["score"] == 0

    lose = replay({"width": 6, "length": 8, "stuck": "lose"}, moves)
    child, info = bot_turn(lose)
    assert not child.is_terminal, "stuck loses at once under stuck=lose: any other turn lasts longer"
    assert info["proven"] == "loss"


@pytest.mark.parametrize("moves", STUCK_OR_LOSE)
def test_a_lost_position_leaves_the_goal_hardest_to_find(moves: str) -> None:
    """Every turn lets the opponent score: the one chosen makes the opponent's shortest goal the longest."""
    state = replay({"width": 6, "length": 8, "stuck": "lose"}, moves)
    child, info = bot_turn(state)
    assert info["proven"] == "loss" and info["reason"] == "lost"

    passing, _ = distinct_turns(state)
    hardest = 0
    for steps in passing.values():
        after = state.copy()
        after.play(steps)
        goal = shortest_goal(after, LOST_GOAL_LIMIT)
        assert goal > 0, "the position is lost: every turn lets the opponent score"
        hardest = max(hardest, goal)
    assert shortest_goal(child, LOST_GOAL_LIMIT) == hardest > 1


POSITIONS_COMPARED = 4  # the plain minimax walks every turn in Python: a few seconds a position


@pytest.mark.parametrize(
    ("params", "depths"),
    [({"width": 4, "length": 4}, (1, 2, 3)), ({"width": 4, "length": 6, "stuck": "draw"}, (1, 2)), ({}, (1, 2))],
    ids=["4x4", "4x6-draw", "8x10"],
)
def test_alpha_beta_scores_agree_with_plain_minimax(params: dict, depths: tuple[int, ...]) -> None:
    game = create_game("paper_soccer", params)
    compared = 0
    for seed in range(40):
        state = random_position(params, 2 + seed % 7, seed)
        if state.is_terminal or can_score(state):
            continue
        for depth in depths:
            search = TurnSearch(game, tt_bits=12)
            s = state.s.copy()
            value = search_root(
                search.p,
                s,
                depth,
                search.tree,
                search.turns,
                search.meta,
                search.visited,
                search.walk,
                search.tt,
                search.dist,
                search.ctl,
                0,
            )
            assert (s == state.s).all()
            assert value == turn_value(state, depth, 0, search.dist), (seed, depth)
        compared += 1
        if compared == POSITIONS_COMPARED:
            break
    assert compared == POSITIONS_COMPARED


def test_the_clock_stops_the_search() -> None:
    game = create_game("paper_soccer")
    state = replay({}, GOAL_IN_TWO[0][1])
    search = TurnSearch(game)
    search.choose(state, max_depth=1)  # the kernels are loaded before the clock runs
    began = time.perf_counter()
    result = search.choose(state, seconds=0.05)
    assert time.perf_counter() - began < 0.15
    assert result.depth >= 1 and result.steps
    fixed = TurnSearch(game).choose(state, max_depth=2)
    assert fixed.depth == 2 and abs(fixed.score) <= WIN and (fixed.score > MATE_BOUND) == (fixed.proven == "win")
