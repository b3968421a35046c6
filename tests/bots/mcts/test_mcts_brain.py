"""The mcts brain: options, instant wins in every game, whole turns, the clock, tree reuse, merge."""

from __future__ import annotations

import random
import time

import pytest

from arbiter.bots.brain import ThinkRequest, ThinkResult
from arbiter.bots.mcts import brain as mcts_brain
from arbiter.bots.mcts.brain import MctsBrain, MctsOptionError
from arbiter.bots.mcts.tree import INITIAL_CAPACITY
from arbiter.bots.pool import BrainPool
from arbiter.bots.registry import brain_class
from arbiter.engine import State, create_game, game_names


def request(name: str, moves: list, *, budget: float = 1.0, match: str = "m", seed: int = 1, **options) -> ThinkRequest:
    return ThinkRequest(match, name, {}, [list(m) for m in moves], budget, seed=seed, options=options)


def replay(name: str, moves: list) -> State:
    game = create_game(name)
    state = game.new_state()
    for move in moves:
        state.play(game.decode_move(list(move)))
    return state


@pytest.fixture(scope="module", autouse=True)
def compiled() -> None:
    """Load (or compile) every kernel before any test reads the clock."""
    MctsBrain().warm_up()


def test_registered_and_plays_every_game() -> None:
    assert brain_class("mcts") is MctsBrain
    assert all(MctsBrain.plays(create_game(name)) for name in game_names())


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"exploration": -1}, "exploration"),
        ({"exploration": "x"}, "exploration"),
        ({"simulations": 0}, "simulations"),
        ({"simulations": 1.5}, "simulations"),
        ({"policy": "heavy"}, "policy"),
        ({"solver": "yes"}, "solver"),
        ({"max_nodes": True}, "max_nodes"),
        ({"depth": 3}, "unknown option 'depth'"),
    ],
)
def test_bad_options_are_refused_by_name(options: dict, message: str) -> None:
    with pytest.raises(MctsOptionError, match=message):
        MctsBrain(**options)
    brain = MctsBrain()
    with pytest.raises(MctsOptionError, match=message):
        brain.think(request("tictactoe", [], **options))
    assert brain._trees == {}  # nothing was kept from the refused request


def test_a_finished_game_is_refused() -> None:
    with pytest.raises(ValueError, match="over"):
        MctsBrain().think(request("tictactoe", [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]))


# --- wins in one, found at once ------------------------------------------------------------------
def winning_first_actions(state: State) -> list[int]:
    wins = []
    for action in state.legal_actions().tolist():
        trial = state.copy()
        trial.play_action(action)
        if trial.outcome is not None and trial.outcome.winner == state.to_move:
            wins.append(action)
    return wins


def position_with_a_win(name: str, seed: int) -> list:
    """The moves of a random game up to a position where the side to move can win with its first action."""
    rng = random.Random(seed)
    while True:
        state = create_game(name).new_state()
        while not state.is_terminal:
            if state.ply >= 4 and winning_first_actions(state):
                return state.moves()
            mover = state.to_move
            while not state.is_terminal and state.to_move == mover:  # a whole move, step by step
                state.play_action(rng.choice(state.legal_actions().tolist()))


GOMOKU_FOUR = [(3, 7), (3, 9), (4, 7), (4, 9), (5, 7), (5, 9), (6, 7), (6, 9)]  # x to move: c8 or h8 wins


@pytest.mark.parametrize(
    ("name", "moves"),
    [
        ("tictactoe", position_with_a_win("tictactoe", 1)),
        ("tictactoe4", position_with_a_win("tictactoe4", 2)),
        ("gomoku", GOMOKU_FOUR),
        ("gomoku10", GOMOKU_FOUR),
        ("vanishing", position_with_a_win("vanishing", 3)),
        ("ttt3d", position_with_a_win("ttt3d", 4)),
        ("qubic", position_with_a_win("qubic", 5)),
        ("paper_soccer", position_with_a_win("paper_soccer", 6)),
    ],
)
def test_a_win_in_one_is_played_at_once(name: str, moves: list) -> None:
    brain = MctsBrain()
    started = time.perf_counter()
    result = brain.think(request(name, moves, budget=10.0))
    assert time.perf_counter() - started < 2.0  # proven: no need to spend the 10 s budget
    assert result.info["proven"] == "win"
    state = replay(name, moves)
    mover = state.to_move
    state.play(state.game.decode_move(result.move))
    assert state.outcome is not None and state.outcome.winner == mover


def test_a_win_beats_blocking_the_opponent() -> None:
    # both sides have an open four; x to move must complete its own line, not block
    moves = [*GOMOKU_FOUR[:7], (6, 9)]
    result = MctsBrain().think(request("gomoku", moves, budget=10.0))
    assert result.move in ([2, 7], [7, 7])


# --- whole moves, legal moves, the clock ---------------------------------------------------------
@pytest.mark.parametrize("name", game_names())
def test_short_budgets_give_legal_moves_in_every_game(name: str) -> None:
    brain = MctsBrain()
    state = create_game(name).new_state()
    moves: list = []
    for _ in range(6):
        if state.is_terminal:
            break
        result = brain.think(request(name, moves, budget=0.05))
        assert result.info["simulations"] >= 1 or result.info["proven"] is not None
        state.play(state.game.decode_move(result.move))  # raises on an illegal move
        moves.append(result.move)


def test_a_soccer_move_is_a_whole_turn_chosen_step_by_step() -> None:
    brain = MctsBrain(simulations=400)
    state = create_game("paper_soccer").new_state()
    moves: list = []
    multi_step = 0
    while not state.is_terminal and len(moves) < 30:
        mover = state.to_move
        result = brain.think(request("paper_soccer", moves))
        assert result.info["steps"] == result.move
        state.play(state.game.decode_move(result.move))  # refuses an unfinished turn
        assert state.is_terminal or state.to_move != mover
        multi_step += len(result.move) > 1
        moves.append(result.move)
    assert multi_step > 0


def test_the_clock_is_kept() -> None:
    brain = MctsBrain()
    started = time.perf_counter()
    result = brain.think(request("gomoku", [], budget=0.3))
    elapsed = time.perf_counter() - started
    assert 0.15 < elapsed < 0.3 + 0.15  # the margin: scheduling on a machine busy with other work
    assert result.info["simulations"] > 100


def test_a_fixed_simulation_count_is_deterministic() -> None:
    first = MctsBrain(simulations=3000).think(request("gomoku10", [(4, 4)], seed=5))
    second = MctsBrain(simulations=3000).think(request("gomoku10", [(4, 4)], seed=5))
    assert first.move == second.move and first.info["root"] == second.info["root"]
    assert first.info["simulations"] == 3000


# --- the tree kept between moves -----------------------------------------------------------------
def test_the_tree_follows_the_game_between_moves() -> None:
    brain = MctsBrain(simulations=5000)
    first = brain.think(request("tictactoe4", []))
    reply = next(row[4] for row in first.info["root"] if row[4] not in (None, first.move))  # a cell for o
    second = brain.think(request("tictactoe4", [first.move, reply]))
    assert second.info["reused"] is True
    assert second.info["simulations"] < 5000  # the subtree already held some of the visits
    third = brain.think(request("tictactoe4", [first.move, reply], match="other"))
    assert third.info["reused"] is False and third.info["simulations"] == 5000


def test_a_move_list_that_does_not_extend_the_tree_starts_afresh() -> None:
    brain = MctsBrain(simulations=2000)
    brain.think(request("tictactoe", [(1, 1)]))
    result = brain.think(request("tictactoe", [(0, 0)]))  # a different game under the same match id
    assert result.info["reused"] is False
    replay("tictactoe", [(0, 0), result.move])
    brain.forget("m")
    assert "m" not in brain._trees


def test_soccer_trees_are_reused_across_turns() -> None:
    brain = MctsBrain(simulations=2000)
    opponent = MctsBrain(simulations=200)
    moves: list = []
    reused = 0
    state = create_game("paper_soccer").new_state()
    for turn in range(8):
        if state.is_terminal:
            break
        player = brain if turn % 2 == 0 else opponent
        result = player.think(request("paper_soccer", moves, match="a" if player is brain else "b"))
        reused += bool(result.info["reused"])
        state.play(state.game.decode_move(result.move))
        moves.append(result.move)
    assert reused >= 2


# --- root parallelism -----------------------------------------------------------------------------
def test_merge_adds_up_visits_and_keeps_a_legal_move() -> None:
    moves = [(2, 2), (1, 1)]
    results = [MctsBrain(simulations=4000).think(request("gomoku10", moves, seed=s)) for s in (1, 2, 3)]
    merged = MctsBrain.merge(results)
    assert merged.info["simulations"] == sum(r.info["simulations"] for r in results)
    assert merged.info["workers"] == 3
    totals: dict[int, int] = {}
    for result in results:
        for action, visits, *_ in result.info["root"]:
            totals[action] = totals.get(action, 0) + visits
    best = max(totals, key=totals.get)
    assert merged.info["steps"][0] == best
    state = replay("gomoku10", moves)
    state.play(state.game.decode_move(merged.move))


def test_merge_can_choose_an_action_no_worker_chose() -> None:
    def answer(move: list, rows: list) -> ThinkResult:
        return ThinkResult(move, {"root": rows, "steps": [rows[0][0]], "simulations": 100})

    a = answer(
        [0, 0], [[0, 50, 30.0, "unknown", [0, 0]], [1, 45, 25.0, "unknown", [1, 0]], [2, 5, 1.0, "unknown", None]]
    )
    b = answer(
        [2, 0], [[2, 50, 30.0, "unknown", [2, 0]], [1, 45, 25.0, "unknown", [1, 0]], [0, 5, 1.0, "unknown", None]]
    )
    merged = MctsBrain.merge([a, b])  # action 1: 90 visits in all, against 55 for each worker's own choice
    assert merged.move == [1, 0] and merged.info["steps"] == [1]


def test_merge_trusts_a_proof_from_any_worker() -> None:
    def answer(move: list, rows: list) -> ThinkResult:
        return ThinkResult(move, {"root": rows, "steps": [rows[0][0]], "simulations": 10})

    a = answer([0, 0], [[0, 90, 60.0, "unknown", [0, 0]], [1, 10, 2.0, "unknown", [1, 0]]])
    b = answer([1, 0], [[1, 3, 3.0, "win", [1, 0]], [0, 90, 50.0, "unknown", [0, 0]]])
    assert MctsBrain.merge([a, b]).move == [1, 0]


def test_warm_up_runs_every_game() -> None:
    MctsBrain().warm_up()


async def test_root_parallelism_over_the_warm_pool() -> None:
    """Two worker processes search each decision with their own seeds and trees; merge adds up."""
    async with BrainPool(MctsBrain, workers=2, options={"simulations": 3000}) as pool:
        moves: list = []
        state = create_game("gomoku10").new_state()
        for turn in range(4):
            answers = await pool.think_all(request("gomoku10", moves, seed=10 * turn))
            assert len(answers) == 2
            assert answers[0].info["root"] != answers[1].info["root"]  # different seeds, different searches
            if turn >= 2:  # each worker kept its own tree of the match from its previous decision
                assert all(answer.info["reused"] for answer in answers)
            merged = MctsBrain.merge(answers)
            assert merged.info["workers"] == 2
            assert merged.info["simulations"] == sum(a.info["simulations"] for a in answers)
            state.play(state.game.decode_move(merged.move))
            moves.append(merged.move)
        merged = await pool.think_merged(request("gomoku10", moves))
        assert merged.info["workers"] == 2


def test_kept_trees_are_bounded_by_their_nodes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mcts_brain, "MAX_KEPT_NODES", 2 * INITIAL_CAPACITY)
    brain = MctsBrain(simulations=200)
    for match in ("a", "b", "c"):
        brain.think(request("tictactoe", [], match=match))
    assert list(brain._trees) == ["b", "c"]  # the least recently used went first
    brain.think(request("tictactoe", [], match="b"))
    brain.think(request("tictactoe", [], match="d"))
    assert list(brain._trees) == ["b", "d"]
