"""The distinct-turn walk against the engine's own list of turns, and the goal finder against it too."""

from __future__ import annotations

import pytest
from soccer_reference import distinct_turns, random_position, shortest_goal

from arbiter.bots.soccer.search import TurnSearch
from arbiter.bots.soccer.turns import (
    C_NODE_CAP,
    C_TRUNCATED,
    FALLBACK_DRAW,
    FALLBACK_LOSS,
    FALLBACK_NONE,
    M_FALLBACK,
    M_FALLBACK_NODE,
    M_FALLBACK_STEP,
    M_TRUNCATED,
    M_TURNS,
    M_WIN_NODE,
    M_WIN_STEP,
    U_KEY,
    U_NODE,
    U_STEP,
    can_score,
    generate_turns,
    goal_steps,
    turn_steps,
)
from arbiter.engine import create_game
from arbiter.engine.paper_soccer import PaperSoccerState

FIELDS = [
    {"width": 4, "length": 4},
    {"width": 4, "length": 6, "stuck": "draw"},
    {"width": 6, "length": 6},
    {"width": 6, "length": 8, "stuck": "draw"},
]
ENGINE_LIMIT = 5_000  # positions with more step orders than this are skipped (the engine lists orders)


def walk(search: TurnSearch, state: PaperSoccerState) -> bool:
    s = state.s.copy()
    won = generate_turns(
        search.p,
        s,
        0,
        search.tree,
        search.turns,
        search.meta,
        search.visited,
        search.walk,
        search.ctl,
        search.dist,
        True,
    )
    assert (s == state.s).all(), "the walk must leave the position as it found it"
    return bool(won)


def engine_turns(state: PaperSoccerState) -> tuple[set[int], set[int | None], bool]:
    """The engine's turns, collapsed: end keys of the passing turns, winners of the ending ones."""
    keys: set[int] = set()
    results: set[int | None] = set()
    turns = state.legal_turns(ENGINE_LIMIT)
    for turn in turns:
        child = state.copy()
        child.play(turn)
        if child.is_terminal:
            results.add(child.outcome.winner)
        else:
            keys.add(child.key())
    return keys, results, len(turns) < ENGINE_LIMIT


def played(state: PaperSoccerState, steps: list[int]) -> PaperSoccerState:
    child = state.copy()
    child.play(tuple(steps))  # raises IllegalMove unless it is one whole legal turn
    return child


@pytest.mark.parametrize("params", FIELDS, ids=lambda p: "x".join(str(v) for v in p.values()))
def test_distinct_turns_agree_with_the_engine(params: dict) -> None:
    search = TurnSearch(create_game("paper_soccer", params), tt_bits=10, node_cap=1 << 14, turn_cap=1 << 14)
    compared = 0
    for seed in range(30):
        state = random_position(params, 3 + seed % 12, seed)
        if state.is_terminal:
            continue
        keys, results, complete = engine_turns(state)
        if not complete:
            continue
        compared += 1
        mover = state.to_move
        won = walk(search, state)
        assert won == (mover in results)
        meta = search.meta[0]
        if won:
            child = played(state, turn_steps(search.tree, 0, int(meta[M_WIN_NODE]), int(meta[M_WIN_STEP])))
            assert child.outcome.winner == mover
            continue
        count = int(meta[M_TURNS])
        listed = [int(k) for k in search.turns[0, U_KEY, :count]]
        assert len(set(listed)) == count, "a turn is listed twice"
        assert set(listed) == keys
        for i in range(count):
            steps = turn_steps(search.tree, 0, int(search.turns[0, U_NODE, i]), int(search.turns[0, U_STEP, i]))
            assert played(state, steps).key() == listed[i]
        expected = FALLBACK_DRAW if None in results else FALLBACK_LOSS if results else FALLBACK_NONE
        assert meta[M_FALLBACK] == expected
        if expected != FALLBACK_NONE:
            steps = turn_steps(search.tree, 0, int(meta[M_FALLBACK_NODE]), int(meta[M_FALLBACK_STEP]))
            ending = played(state, steps)
            assert ending.is_terminal and ending.outcome.winner == (None if expected == FALLBACK_DRAW else 1 - mover)
    assert compared >= 15


@pytest.mark.parametrize("params", FIELDS[:2], ids=lambda p: "x".join(str(v) for v in p.values()))
def test_distinct_turns_agree_with_the_plain_walk_and_can_score_with_both(params: dict) -> None:
    search = TurnSearch(create_game("paper_soccer", params), tt_bits=10, node_cap=1 << 14, turn_cap=1 << 14)
    for seed in range(100, 115):
        state = random_position(params, 2 + seed % 10, seed)
        if state.is_terminal:
            continue
        passing, ending = distinct_turns(state)
        scores = any(winner == state.to_move for _, winner in ending)
        assert can_score(search.p, state.s.copy(), search.visited, search.walk, search.ctl) == scores
        assert walk(search, state) == scores
        if not scores:
            assert set(search.turns[0, U_KEY, : search.meta[0, M_TURNS]].tolist()) == set(passing)


def test_a_walk_cut_short_keeps_legal_distinct_turns() -> None:
    params = {"width": 6, "length": 8}
    full = TurnSearch(create_game("paper_soccer", params), tt_bits=10, node_cap=1 << 14, turn_cap=1 << 14)
    capped = TurnSearch(create_game("paper_soccer", params), tt_bits=10, node_cap=3)
    assert capped.ctl[C_NODE_CAP] == 3
    cut = 0
    for seed in range(60):
        state = random_position(params, 8 + seed % 10, seed)
        if state.is_terminal or walk(full, state) or full.meta[0, M_TRUNCATED]:
            continue  # (a few positions here have over 400,000 distinct turns)
        walk(capped, state)
        if not capped.meta[0, M_TRUNCATED]:
            assert capped.meta[0, M_TURNS] == full.meta[0, M_TURNS]
            continue
        cut += 1
        count = int(capped.meta[0, M_TURNS])
        keys = set(capped.turns[0, U_KEY, :count].tolist())
        assert 0 < count == len(keys) < full.meta[0, M_TURNS]
        assert keys <= set(full.turns[0, U_KEY, : full.meta[0, M_TURNS]].tolist())
        for i in range(count):
            played(state, turn_steps(capped.tree, 0, int(capped.turns[0, U_NODE, i]), int(capped.turns[0, U_STEP, i])))
    assert cut >= 5 and capped.ctl[C_TRUNCATED] == cut


@pytest.mark.parametrize("params", FIELDS, ids=lambda p: "x".join(str(v) for v in p.values()))
def test_goal_steps_is_the_shortest_scoring_turn(params: dict) -> None:
    search = TurnSearch(create_game("paper_soccer", params), tt_bits=10)
    goals = 0
    for seed in range(200, 260):
        state = random_position(params, 4 + seed % 12, seed)
        if state.is_terminal:
            continue
        s = state.s.copy()
        steps = goal_steps(search.p, s, 6, 1 << 30, search.walk)
        assert (s == state.s).all(), "the look must leave the position as it found it"
        assert steps == shortest_goal(state, 6), seed
        goals += steps > 1
    assert goals >= 5, "the positions must include goals that take bounces"


def test_goal_steps_gives_up_at_its_cap() -> None:
    search = TurnSearch(create_game("paper_soccer", FIELDS[0]), tt_bits=10)
    for seed in range(200, 260):
        state = random_position(FIELDS[0], 4 + seed % 12, seed)
        if not state.is_terminal and shortest_goal(state, 6) > 2:
            assert goal_steps(search.p, state.s.copy(), 6, 2, search.walk) == -1
            return
    raise AssertionError("no position with a goal of three steps or more")
