"""The search's board under renju and caro against the engine's rules, and positions the rule decides.

The board's fives (its sets of fours) and black's forbidden points (board.forbidden_for) are checked
against the pure-Python reference rules (arbiter.engine.reference.five) along random walks; then the
search and its threat searches on positions built here by hand, each turning on the rule: a white four
whose one block is black's forbidden point wins (RIF article 9.3: a forbidden point may not be played,
so it is no defence), black's double four is no win, a black three that only a forbidden point would
make a straight four is no three (RIF article 3.6 with 9.3, as arbiter.engine.five reads them), and a
caro five between two opponent stones is no five. Last, the gomoku and MCTS bots at every level, black
to move in many renju positions with forbidden points, never send one.
"""

from __future__ import annotations

import random

import pytest
from board_walks import random_walk
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.bots.brain import ThinkRequest
from arbiter.bots.gomoku.board import S_BOARD, S_MOVES, Board, double_threat, forbidden_for, winning_cells
from arbiter.bots.gomoku.brain import GomokuBrain
from arbiter.bots.gomoku.geometry import RULE_CARO, RULE_FREE, RULE_RENJU
from arbiter.bots.gomoku.searcher import SearchConfig, Searcher
from arbiter.bots.gomoku.vcf import find_vcf, new_vcf_work
from arbiter.bots.mcts.brain import MctsBrain
from arbiter.engine import create_game
from arbiter.engine.reference.five import DIRECTIONS, ReferenceFive

SIZE = 15
RULE_NAMES = {RULE_RENJU: "renju", RULE_CARO: "caro"}


def cell(x: int, y: int) -> int:
    return y * SIZE + x


def interleave(black: list[tuple[int, int]], white: list[tuple[int, int]]) -> list[int]:
    """Black's and white's stones as a game's cells, alternately, black first."""
    cells = []
    for i in range(max(len(black), len(white))):
        cells += [cell(*stones[i]) for stones in (black, white) if i < len(stones)]
    return cells


def reference_of(board: Board, rule: int) -> ReferenceFive:
    reference = ReferenceFive(SIZE, SIZE, RULE_NAMES[rule], False)
    reference.board = [board.stone(c) for c in range(board.cells)]
    return reference


def wins_there(reference: ReferenceFive, c: int, stone: int) -> bool:
    """Whether ``stone`` on the empty ``c`` makes a winning run through it, by the reference's rule."""
    reference.board[c] = stone
    x, y = c % SIZE, c // SIZE
    won = False
    for dx, dy in DIRECTIONS:
        back = 0
        while reference._at(x - (back + 1) * dx, y - (back + 1) * dy) == stone:
            back += 1
        ahead = 0
        while reference._at(x + (ahead + 1) * dx, y + (ahead + 1) * dy) == stone:
            ahead += 1
        before = reference._at(x - (back + 1) * dx, y - (back + 1) * dy)
        after = reference._at(x + (ahead + 1) * dx, y + (ahead + 1) * dy)
        won = won or reference._run_wins(stone, back + ahead + 1, before, after)
    reference.board[c] = 0
    return won


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([RULE_RENJU, RULE_CARO]), st.data())
def test_the_boards_fives_and_forbidden_points_are_the_reference_rules(rule: int, data: st.DataObject) -> None:
    board = Board(SIZE, SIZE, 5, False, rule=rule)
    for _ in random_walk(board, data, 60):
        pass
    reference = reference_of(board, rule)
    out = board.s.copy()
    for p in range(2):
        found = {int(c) for c in out[: winning_cells(board.g, board.s, p, out, 0)]}
        expected = {c for c in range(board.cells) if board.stone(c) == 0 and wins_there(reference, c, p + 1)}
        assert found == expected, (p, board.s[board.s[S_MOVES] : board.s[S_MOVES] + board.stones].tolist())
    if rule == RULE_RENJU:
        reference.to_move = 0
        for c in range(board.cells):
            if board.stone(c) == 0:
                assert forbidden_for(board.g, board.s, 0, c) == (reference.forbidden(c) is not None), c
                assert not forbidden_for(board.g, board.s, 1, c)
    assert board.s[board.s[S_BOARD] : board.s[S_BOARD] + board.cells].tolist() == reference.board
    replayed = Board.from_moves(
        SIZE, SIZE, 5, False, board.s[board.s[S_MOVES] : board.s[S_MOVES] + board.stones].tolist(), rule=rule
    )
    assert replayed.window_codes().tolist() == board.window_codes().tolist()  # the undos restored every window


# Black (5,7),(6,7),(7,5),(7,6): (7,7) is a double three. White's three (9,9)-(11,11), black on (12,12):
# white's four on (8,8) can only be completed on (7,7), which black may not take.
FORBIDDEN_BLOCK = interleave([(5, 7), (6, 7), (7, 5), (7, 6), (12, 12)], [(9, 9), (10, 10), (11, 11), (0, 0)])


def test_a_white_four_whose_one_block_is_a_forbidden_point_wins() -> None:
    for rule, wins in ((RULE_RENJU, True), (RULE_FREE, False)):
        board = Board.from_moves(SIZE, SIZE, 5, False, FORBIDDEN_BLOCK, rule=rule)
        line = find_vcf(board.g, board.s, new_vcf_work(board.cells), 1, 10, 100_000)
        assert (line is not None and line[0] == cell(8, 8)) == wins, (rule, line)
    searcher = Searcher(SIZE, SIZE, 5, False, tt_bits=14, rule=RULE_RENJU)
    searcher.set_position(FORBIDDEN_BLOCK)
    result = searcher.think(SearchConfig(max_depth=4, root_vcf=10_000))
    assert (result.cell, result.reason) == (cell(8, 8), "vcf")


def test_the_search_sees_the_forbidden_block_without_the_threat_search() -> None:
    """No root VCF: the alpha-beta itself scores white's four on (8,8) as a win (its forced reply is forbidden)."""
    searcher = Searcher(SIZE, SIZE, 5, False, tt_bits=14, rule=RULE_RENJU)
    searcher.set_position(FORBIDDEN_BLOCK)
    result = searcher.think(SearchConfig(max_depth=3))
    assert result.cell == cell(8, 8) and result.mate_in is not None and result.mate_in > 0, result


def test_black_facing_the_forbidden_block_takes_the_four_away() -> None:
    """Black to move (white's far stone on (14,14) passed the move): white threatens the four on (8,8),
    so black takes (8,8), its one defence; in gomoku (7,7) would block and nothing threatens."""
    cells = [*FORBIDDEN_BLOCK, cell(14, 14)]
    state = create_game("renju").new_state()
    for c in cells:
        state.play(state.game.decode_move([c % SIZE, c // SIZE]))
    forbidden = frozenset(cell(x, y) for x, y in state.forbidden_points())
    assert cell(7, 7) in forbidden
    searcher = Searcher(SIZE, SIZE, 5, False, tt_bits=14, rule=RULE_RENJU)
    searcher.set_position(cells)
    result = searcher.think(SearchConfig(max_depth=4, root_vcf=10_000), forbidden=forbidden)
    assert result.cell == cell(8, 8), result


# Black (4,7),(5,7),(6,7) and (7,4),(7,5),(7,6), white on (3,7) and (7,3): (7,7) makes two fours.
DOUBLE_FOUR = interleave([(4, 7), (5, 7), (6, 7), (7, 4), (7, 5), (7, 6)], [(3, 7), (7, 3), (0, 0), (14, 0), (0, 14)])


def test_blacks_double_four_is_no_win_in_renju() -> None:
    for rule, threat in ((RULE_RENJU, -1), (RULE_FREE, cell(7, 7))):
        board = Board.from_moves(SIZE, SIZE, 5, False, DOUBLE_FOUR, rule=rule)
        assert double_threat(board.g, board.s, 0) == threat
        line = find_vcf(board.g, board.s, new_vcf_work(board.cells), 0, 10, 100_000)
        assert (line is not None) == (rule == RULE_FREE), (rule, line)


# Black's three (5,7)-(7,7), white on (3,7): only (8,7) would make it a straight four, and (8,7) is a
# four-three-three for black (with (8,5),(8,6) and (9,6),(10,5)): a double three, forbidden.
FALSE_THREE = interleave(
    [(5, 7), (6, 7), (7, 7), (8, 5), (8, 6), (9, 6), (10, 5)],
    [(3, 7), (0, 0), (14, 0), (0, 14), (14, 14), (1, 13), (13, 1)],
)


def test_a_three_only_a_forbidden_point_would_open_is_no_threat() -> None:
    state = create_game("renju").new_state()
    for c in FALSE_THREE:
        state.play(state.game.decode_move([c % SIZE, c // SIZE]))
    assert state.forbidden_kind(state.game.decode_move([8, 7])) == "double-three"
    for rule, opens in ((RULE_RENJU, False), (RULE_FREE, True)):
        board = Board.from_moves(SIZE, SIZE, 5, False, FALSE_THREE, rule=rule)
        assert (double_threat(board.g, board.s, 0) >= 0) == opens, rule


def test_a_caro_five_between_two_opponent_stones_is_no_five() -> None:
    # Black (3..6, 7) between white (2,7) and (8,7): (7,7) would make a five blocked at both ends.
    blocked = interleave([(3, 7), (4, 7), (5, 7), (6, 7), (7, 12)], [(2, 7), (8, 7), (0, 0), (14, 14)])
    # Black (0..3, 7) against the edge, white on (5,7): the edge is no block, so (4,7) wins.
    edge = interleave([(0, 7), (1, 7), (2, 7), (3, 7), (7, 12)], [(5, 7), (9, 9), (0, 0), (14, 14)])
    out = Board(SIZE, SIZE, 5).s.copy()
    for rule, blocked_wins in ((RULE_CARO, 0), (RULE_FREE, 1)):
        board = Board.from_moves(SIZE, SIZE, 5, False, blocked[:-1], rule=rule)
        assert winning_cells(board.g, board.s, 0, out, 0) == blocked_wins
        board = Board.from_moves(SIZE, SIZE, 5, False, edge[:-1], rule=rule)
        assert winning_cells(board.g, board.s, 0, out, 0) == 1
    searcher = Searcher(SIZE, SIZE, 5, False, tt_bits=14, rule=RULE_CARO)
    searcher.set_position(blocked[:-1])  # white to move need not block (7,7)
    assert searcher.think(SearchConfig(max_depth=2)).reason != "block"


def renju_positions(count: int, seed: int) -> list[list[list[int]]]:
    """Renju positions with black to move and at least one forbidden point: random legal moves near the
    centre, so the stones crowd into the shapes that forbid."""
    rng = random.Random(seed)
    game = create_game("renju")
    found: list[list[list[int]]] = []
    while len(found) < count:
        state = game.new_state()
        for _ in range(rng.randrange(16, 40)):
            near = [move for move in state.legal_moves() if abs(move[0] - 7) <= 3 and abs(move[1] - 7) <= 3]
            if state.is_terminal or not near:
                break
            state.play(rng.choice(near))
            if not state.is_terminal and state.to_move == 0 and state.forbidden_points():
                found.append([list(move) for move in state.moves()])
                break
    return found


POSITIONS = renju_positions(40, seed=58)


@pytest.mark.parametrize(("brain", "level"), [*((GomokuBrain, level) for level in range(1, 5)), (MctsBrain, 1)])
def test_no_level_of_either_bot_plays_a_forbidden_point(brain: type, level: int) -> None:
    """Asked the same position as freestyle gomoku, the gomoku bot takes one of black's forbidden points
    in several of them (8 to 14 of the 40, by level): those are the positions the rule decides."""
    player = brain(level)
    game = create_game("renju")
    tempted = 0
    for i, moves in enumerate(POSITIONS):
        state = game.new_state()
        for move in moves:
            state.play(game.decode_move(move))
        forbidden = state.forbidden_points()
        move = player.think(ThinkRequest(f"m{i}", "renju", {}, moves, 0.15, seed=i)).move
        (action,) = state._move_to_actions(game.decode_move(move))
        assert state.is_legal_action(action), (moves, move, forbidden)
        if brain is GomokuBrain:
            freestyle = player.think(ThinkRequest(f"g{i}", "gomoku", {}, moves, 0.15, seed=i)).move
            tempted += game.decode_move(freestyle) in forbidden
    assert brain is not GomokuBrain or tempted >= 4, tempted
