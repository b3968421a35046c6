"""``perfect`` and ``arbiter winning-move`` against a brute-force solver written plainly here.

The brute force is minimax without pruning (memoised only on exact values, which is sound), over
boards as tuples, with its own line check — it shares no code with the bot's bitboard search.
"""

from __future__ import annotations

import functools
import random
import time

import pytest
from click.testing import CliRunner

from arbiter.bots.brain import ThinkRequest
from arbiter.bots.perfect import WIN, LineSolver, PerfectBrain, mnk_lines, vanishing_index, vanishing_table
from arbiter.bots.random_bot import RandomBrain
from arbiter.cli import main
from arbiter.engine import create_game

pytestmark = pytest.mark.timeout(300)


# --- the brute force -----------------------------------------------------------------------------
def has_line(board: tuple[int, ...], m: int, n: int, k: int, cell: int) -> bool:
    """Whether the stone on ``cell`` is part of k in a row (scanning the board around it)."""
    x, y, stone = cell % m, cell // m, board[cell]
    for dx, dy in ((1, 0), (0, 1), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            cx, cy = x + sign * dx, y + sign * dy
            while 0 <= cx < m and 0 <= cy < n and board[cy * m + cx] == stone:
                run += 1
                cx, cy = cx + sign * dx, cy + sign * dy
        if run >= k:
            return True
    return False


@functools.cache
def brute_value(board: tuple[int, ...], m: int, n: int, k: int) -> int:
    """Minimax score for the side to move: WIN - stones at the end for a win, negated for a loss."""
    stones = sum(1 for v in board if v)
    player = 1 if board.count(1) == board.count(2) else 2
    if stones == len(board):
        return 0
    return max(brute_child(board, m, n, k, cell, player) for cell in range(len(board)) if board[cell] == 0)


def brute_child(board: tuple[int, ...], m: int, n: int, k: int, cell: int, player: int) -> int:
    """The mover's score after ``player`` plays ``cell``."""
    child = (*board[:cell], player, *board[cell + 1 :])
    if has_line(child, m, n, k, cell):
        return WIN - sum(1 for v in child if v)
    return -brute_value(child, m, n, k)


def any_line(board: tuple[int, ...], m: int, n: int, k: int) -> bool:
    return any(board[c] and has_line(board, m, n, k, c) for c in range(len(board)))


def random_positions(m: int, n: int, k: int, stones: range, count: int, seed: int) -> list[tuple[int, ...]]:
    """Positions reached by random play (first player = 1), without a line, with empty cells."""
    rng = random.Random(seed)
    found: list[tuple[int, ...]] = []
    while len(found) < count:
        board = [0] * (m * n)
        for i, cell in enumerate(rng.sample(range(m * n), rng.choice(stones))):
            board[cell] = 1 + i % 2
        position = tuple(board)
        if not any_line(position, m, n, k) and 0 in position:
            found.append(position)
    return found


def to_masks(board: tuple[int, ...]) -> tuple[int, int]:
    """(side to move's mask, opponent's mask)."""
    mover = 1 if board.count(1) == board.count(2) else 2
    me = sum(1 << c for c, v in enumerate(board) if v == mover)
    opp = sum(1 << c for c, v in enumerate(board) if v == 3 - mover)
    return me, opp


# --- placement games -------------------------------------------------------------------------------
def test_every_3x3_position_gets_an_optimal_move_and_its_exact_score() -> None:
    solver = LineSolver(9, mnk_lines(3, 3, 3))
    checked = 0
    for position in set(reachable_3x3()):
        me, opp = to_masks(position)
        score, cell = solver.best(me, opp)
        mover = 1 if position.count(1) == position.count(2) else 2
        assert score == brute_value(position, 3, 3, 3)
        assert brute_child(position, 3, 3, 3, cell, mover) == score
        checked += 1
    assert checked == 4520  # every non-final position of tic-tac-toe


def reachable_3x3() -> list[tuple[int, ...]]:
    out, frontier = [], [(0,) * 9]
    seen = set(frontier)
    while frontier:
        board = frontier.pop()
        out.append(board)
        player = 1 if board.count(1) == board.count(2) else 2
        for cell in range(9):
            if board[cell] == 0:
                child = (*board[:cell], player, *board[cell + 1 :])
                if child not in seen and not has_line(child, 3, 3, 3, cell) and 0 in child:
                    seen.add(child)
                    frontier.append(child)
    return out


@pytest.mark.parametrize(("m", "n", "k"), [(4, 4, 4), (4, 4, 3), (4, 3, 3)])
def test_random_positions_match_the_brute_force(m: int, n: int, k: int) -> None:
    solver = PerfectBrain().solver(create_game("mnk", {"m": m, "n": n, "k": k}))
    for position in random_positions(m, n, k, range(max(0, m * n - 10), m * n), count=25, seed=m * 100 + k):
        mover = 1 if position.count(1) == position.count(2) else 2
        score, cell = solver.best(*to_masks(position))
        assert score == brute_value(position, m, n, k)
        assert brute_child(position, m, n, k, cell, mover) == score


def test_the_brain_answers_wire_moves_with_exact_values() -> None:
    brain = PerfectBrain()
    assert brain.think(ThinkRequest("m", "tictactoe", {}, [], 1.0)).info["value"] == "draw"
    # x: a1 b1, o: a2 b2 — x completes the top row at once.
    result = brain.think(ThinkRequest("m", "tictactoe", {}, [[0, 0], [0, 1], [1, 0], [1, 1]], 1.0))
    assert result.move == [2, 0] and result.info == {"value": "win", "plies": 1, "score": WIN - 5, "nodes": 0}
    cube = brain.think(ThinkRequest("m", "ttt3d", {}, [], 1.0))
    assert cube.info["value"] == "win" and cube.info["plies"] == 7  # the first player wins 3×3×3 at once
    assert cube.move == [1, 1, 1]  # by taking the centre
    four = brain.think(ThinkRequest("m", "tictactoe4", {}, [], 5.0))
    assert four.info["value"] == "draw"


def test_ttt3d_positions_match_the_brute_force() -> None:
    rng = random.Random(3)
    solver = PerfectBrain().solver(create_game("ttt3d"))
    lines = [frozenset(c for c in range(27) if line >> c & 1) for line in solver.lines.tolist()]
    assert len(lines) == 49

    @functools.cache
    def value(board: tuple[int, ...]) -> int:
        player = 1 if board.count(1) == board.count(2) else 2
        stones = 27 - board.count(0)
        if stones == 27:
            return 0
        best = -WIN
        for cell in range(27):
            if board[cell] == 0:
                child = (*board[:cell], player, *board[cell + 1 :])
                won = any(cell in line and all(child[c] == player for c in line) for line in lines)
                best = max(best, WIN - (stones + 1) if won else -value(child))
        return best

    checked = 0
    while checked < 12:
        board = [0] * 27
        for i, cell in enumerate(rng.sample(range(27), 19)):
            board[cell] = 1 + i % 2
        position = tuple(board)
        if any(all(position[c] == p for c in line) for line in lines for p in (1, 2)):
            continue
        assert solver.best(*to_masks(position))[0] == value(position)
        checked += 1


# --- vanishing tic-tac-toe -------------------------------------------------------------------------
def test_vanishing_openings_match_the_seed_claims() -> None:
    """The seed: the first player wins by opening on an edge; a corner or the centre draws."""
    value, _ = vanishing_table()
    start = create_game("vanishing").new_state()
    for action in range(9):
        child = start.copy()
        child.play_action(action)
        expected = 2 if action in (1, 3, 5, 7) else 0  # 2: the second player, to move, loses
        assert value[vanishing_index(child)] == expected


def test_the_vanishing_table_is_consistent_with_the_engine_rules() -> None:
    """Each sampled position's value and distance follow from its children, which the engine makes."""
    value, distance = vanishing_table()
    game = create_game("vanishing", {"repetition": 0, "ply_limit": 1000})
    rng = random.Random(5)
    state = game.new_state()
    kinds = {0: 0, 1: 0, 2: 0}
    for _ in range(3000):
        if state.is_terminal or state.ply > 900:
            state = game.new_state()
        children = []
        for action in state.legal_actions().tolist():
            child = state.copy()
            child.play_action(action)
            children.append(
                ("line", 0) if child.is_terminal else (value[vanishing_index(child)], distance[vanishing_index(child)])
            )
        here = vanishing_index(state)
        if ("line", 0) in children:
            expected = (1, 1)
        elif any(v == 2 for v, _ in children):
            expected = (1, 1 + min(d for v, d in children if v == 2))
        elif all(v == 1 for v, _ in children):
            expected = (2, 1 + max(d for _, d in children))
        else:
            expected = (0, 0)
        assert (value[here], distance[here]) == expected
        kinds[expected[0]] += 1
        state.play_action(int(rng.choice(state.legal_actions().tolist())))
    assert min(kinds.values()) > 50  # the walk met wins, losses and draws


def test_vanishing_wins_count_only_under_the_ply_limit() -> None:
    brain = PerfectBrain()
    on_time = brain.think(ThinkRequest("m", "vanishing", {"ply_limit": 13}, [], 1.0))
    assert on_time.info["value"] == "win" and on_time.info["plies"] == 13
    assert on_time.move in ([1, 0], [0, 1], [2, 1], [1, 2])  # an edge
    too_late = brain.think(ThinkRequest("m", "vanishing", {"ply_limit": 12}, [], 1.0))
    assert too_late.info["value"] == "draw"


def test_vanishing_takes_a_repetition_draw_when_lost() -> None:
    """Eight cells played in a cycle repeat every position each 8 plies; after 21 plies the side to
    move is lost, but its cycle move makes a position's third occurrence: perfect takes that draw."""
    cycle = [0, 1, 5, 7, 4, 8, 6, 3]
    state = create_game("vanishing").new_state()
    for ply in range(21):
        state.play_action(cycle[ply % 8])
    value, _ = vanishing_table()
    assert not state.is_terminal and value[vanishing_index(state)] == 2  # lost without the rule
    result = PerfectBrain().think(ThinkRequest("m", "vanishing", {}, [list(m) for m in state.moves()], 1.0))
    assert result.info["value"] == "draw"
    state.play(tuple(result.move))
    assert state.outcome.reason == "repetition"


# --- perfect against random, in process ------------------------------------------------------------
@pytest.mark.parametrize("game_name", ["tictactoe", "tictactoe4", "vanishing", "ttt3d"])
def test_perfect_never_loses_to_random_and_keeps_its_promises(game_name: str) -> None:
    perfect, rand = PerfectBrain(), RandomBrain()
    game = create_game(game_name)
    results = {"win": 0, "draw": 0}
    rank = {"loss": 0, "draw": 1, "win": 2}
    for number in range(200):
        perfect_side = number % 2
        state = game.new_state()
        promise = None  # the ply by which perfect has said it wins at the latest
        floor = "loss"  # the best value perfect has seen: it must never fall below it
        while not state.is_terminal:
            request = ThinkRequest(
                f"g{number}", game_name, {}, [game.encode_move(m) for m in state.moves()], 1.0, seed=number
            )
            if state.to_move == perfect_side:
                answer = perfect.think(request)
                assert rank[answer.info["value"]] >= rank[floor]
                floor = answer.info["value"]
                if answer.info["value"] == "win":
                    deadline = state.ply + answer.info["plies"]
                    assert promise is None or deadline <= promise  # never lets a win slip further away
                    promise = deadline
            else:
                answer = rand.think(request)
            state.play(game.decode_move(answer.move))
        outcome = state.outcome
        assert outcome.winner in (None, perfect_side)
        if promise is not None:
            assert outcome.winner == perfect_side and state.ply <= promise
        results["win" if outcome.winner == perfect_side else "draw"] += 1
    assert results["win"] > 100  # random blunders most games away


# --- arbiter winning-move (POJ 1568) ----------------------------------------------------------------
SAMPLE = "?\n....\n.xo.\n.ox.\n....\n?\no...\n.ox.\n.xxx\nxooo\n$\n"


def run_cli(text: str):
    return CliRunner().invoke(main, ["winning-move"], input=text)


def test_the_poj_sample() -> None:
    result = run_cli(SAMPLE)
    assert result.exit_code == 0
    assert result.output == "#####\n(0,1)\n"


def first_forcing_square(board: tuple[int, ...]) -> str:
    """By brute force: the first square from which x (stone 1, to move) forces a win."""
    for cell in range(16):
        if board[cell] == 0 and brute_child(board, 4, 4, 4, cell, 1) > 0:
            return f"({cell // 4},{cell % 4})"
    return "#####"


def test_generated_puzzles_match_the_brute_force() -> None:
    boards = random_positions(4, 4, 4, range(6, 15, 2), count=40, seed=1568)  # x to move: equal counts
    text = (
        "".join(
            "?\n" + "\n".join("".join(".xo"[v] for v in b[r * 4 : r * 4 + 4]) for r in range(4)) + "\n" for b in boards
        )
        + "$\n"
    )
    result = run_cli(text)
    assert result.exit_code == 0
    expected = [first_forcing_square(b) for b in boards]
    assert result.output.splitlines() == expected
    assert 5 < sum(e != "#####" for e in expected) < 35  # both answers occur


def test_sparse_boards_are_each_solved_within_a_second() -> None:
    rng = random.Random(7)
    boards = [(0,) * 16] + [tuple(rng.choice((0, 0, 0, 1, 2)) for _ in range(16)) for _ in range(10)]
    for board in boards:
        x = sum(1 << c for c, v in enumerate(board) if v == 1)
        o = sum(1 << c for c, v in enumerate(board) if v == 2)
        solver = LineSolver(16, mnk_lines(4, 4, 4))  # a cold table every time
        if solver.has_line(x) or solver.has_line(o):
            continue
        began = time.perf_counter()
        solver.first_forcing_cell(x, o)
        assert time.perf_counter() - began < 1.0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "does not end with a '$'"),
        ("?\n....\n....\n", "ends inside a board"),
        ("?\n....\n.xq.\n....\n....\n$\n", "line 3"),
        ("?\n.....\n", "line 2"),
        ("x...\n$\n", "expected '?' or '$'"),
        ("$\n?\n", "after the final '$'"),
    ],
)
def test_malformed_input_is_one_line_and_exit_2(text: str, message: str) -> None:
    result = run_cli(text)
    assert result.exit_code == 2
    assert message in result.output and result.output.count("\n") == 1
    assert "#####" not in result.output  # nothing is answered from a bad input
