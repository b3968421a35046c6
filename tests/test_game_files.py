"""Standard game files: psq and SGF round-trip every m,n,k game and every rule of five in a row
(renju, caro) exactly, and read other tools' files."""

from __future__ import annotations

import random
import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.engine import create_game
from arbiter.server.results.game_files import FORMATS, GameFileError, read_psq, read_sgf, write_psq, write_sgf
from arbiter.server.store.base import GameRecord, GameStart, MoveRecord

GAMES = [("tictactoe", {}), ("tictactoe4", {}), ("gomoku10", {}), ("gomoku", {"exact": True}), ("gomoku", {}),
         ("mnk", {"m": 7, "n": 5, "k": 4, "exact": False}), ("renju", {}), ("caro", {}), ("caro", {"exact": True}),
         ("five", {"m": 9, "n": 7, "rule": "renju"}), ("gomoku", {"opening": "swap2"}),
         ("renju", {"opening": "swap1"})]  # fmt: skip
names = st.text(string.ascii_letters + string.digits + "_-.", min_size=1, max_size=16).filter(lambda n: n[0].isalnum())
texts = st.text(string.printable + "é中]\\", max_size=16)
millis = st.integers(0, 4_102_444_800_000).map(lambda ms: ms / 1000)
infos = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {},
        optional={
            "score": st.one_of(st.integers(-1000, 1000), st.floats(-1, 1, allow_nan=False)),
            "unit": st.sampled_from(["cp", "win", "mate"]),
            "depth": st.integers(0, 60),
            "nodes": st.integers(0, 10**12),
            "pv": st.lists(st.tuples(st.integers(0, 14), st.integers(0, 14)).map(list), max_size=5),
        },
    ).filter(bool),
)


def played(game_name: str, params: dict, seed: int, plies: int) -> list[list[int]]:
    """Random legal moves from the start, stopping at ``plies`` or the end of the game."""
    game = create_game(game_name, params)
    state, rng, moves = game.new_state(), random.Random(seed), []
    while not state.is_terminal and len(moves) < plies:
        action = int(rng.choice(list(state.legal_actions())))
        state.play_action(action)
        moves.append(game.encode_move(state.moves()[-1]))
    return moves


@st.composite
def records(draw: st.DrawFn) -> GameRecord:
    game, params = draw(st.sampled_from(GAMES))
    moves = played(game, params, draw(st.integers(0, 2**32)), draw(st.integers(0, 60)))
    players = draw(st.tuples(names, names).filter(lambda pair: pair[0] != pair[1]))
    result = draw(st.sampled_from(["1-0", "0-1", "1/2-1/2", None]))
    rated = draw(st.booleans())
    changes = {}
    if rated and result:
        diffs = draw(st.tuples(st.integers(-9999, 9999), st.integers(-9999, 9999)))
        changes = {name: diff / 100 for name, diff in zip(players, diffs, strict=True)}
    clock = draw(st.dictionaries(st.sampled_from(["initial_ms", "increment_ms", "move_limit_ms"]),
                                 st.one_of(st.none(), st.integers(0, 10**7)), max_size=3))  # fmt: skip
    swap = []
    if params.get("opening") and len(moves) >= 3:  # a swap opening's choices, by player name
        choices = draw(st.sampled_from([["white"], ["black"], ["place", "white"], ["place", "black"]]))
        swap = [{"by": players[1 - i % 2], "choice": c, "ply": 3 + 2 * i} for i, c in enumerate(choices)]
    return GameRecord(
        start=GameStart(draw(texts.filter(bool)), game, params, players, clock, rated, draw(millis)),
        moves=[MoveRecord(ply, move, draw(st.integers(0, 10**7)), draw(infos)) for ply, move in enumerate(moves)],
        result=result,
        reason=draw(st.one_of(st.none(), st.sampled_from(["line", "resign", "timeout", "board_full"]), texts)) or None,
        ended=draw(st.one_of(st.none(), millis)),
        rating_changes=changes,
        swap=swap,
    )


def test_a_swap_opening_is_named_in_sgf_on_and_read_back() -> None:
    start = GameStart("s1", "gomoku", {"opening": "swap2"}, ("ann", "bob"), {}, False, 0.0)
    swap = [{"by": "bob", "choice": "place", "ply": 3}, {"by": "ann", "choice": "white", "ply": 5}]
    moves = [MoveRecord(ply, move, 0) for ply, move in enumerate([[7, 7], [8, 7], [7, 9], [6, 8], [9, 6]])]
    record = GameRecord(start, moves, None, None, None, swap=swap)
    text = write_sgf([record])
    assert "ON[swap2; bob placed two more; ann took white]" in text
    assert read_sgf(text) == [record] and read_psq(write_psq([record]))[0].swap == swap


@settings(derandomize=True, max_examples=120, deadline=None)
@given(records())
def test_psq_round_trips_every_game(record: GameRecord) -> None:
    assert read_psq(write_psq([record])) == [record]


@settings(derandomize=True, max_examples=120, deadline=None)
@given(st.lists(records(), min_size=1, max_size=3))
def test_sgf_round_trips_every_collection(games: list[GameRecord]) -> None:
    assert read_sgf(write_sgf(games)) == games


@settings(derandomize=True, max_examples=40, deadline=None)
@given(st.lists(records(), min_size=1, max_size=3))
def test_every_format_by_name_round_trips(games: list[GameRecord]) -> None:
    for fmt in FORMATS.values():
        batch = games[:1] if fmt.one_game_per_file else games
        assert fmt.read(fmt.write(batch)) == batch, fmt.name


# A Gomocup file as Piskvork writes it: 1-based x,y with the mover's milliseconds, then the two
# engines and -1. Black (first) makes five in a row along x = 10..14 on y = 10.
GOMOCUP_PSQ = """Piskvorky 20x20, 11:11, 0
10,10,1250
10,11,980
11,10,1100
11,11,1003
12,10,870
12,11,990
13,10,801
13,11,1200
14,10,750
pbrain-first.zip
pbrain-second.zip
-1
"""


def test_a_gomocup_psq_file_is_read_as_five_in_a_row_on_its_board() -> None:
    (record,) = read_psq(GOMOCUP_PSQ, match_id="cup-1", started=1_700_000_000.0)
    assert (record.start.game, record.start.params) == ("mnk", {"m": 20, "n": 20, "k": 5})
    assert record.start.players == ("pbrain-first.zip", "pbrain-second.zip")
    assert record.start.match_id == "cup-1" and record.start.started == 1_700_000_000.0
    assert [m.move for m in record.moves[:2]] == [[9, 9], [9, 10]] and record.moves[0].elapsed_ms == 1250
    assert (record.result, record.reason) == ("1-0", "line")  # the engine replayed the moves
    assert record.start.rated is False


def test_a_foreign_sgf_takes_its_preset_and_the_result_the_moves_cannot_give() -> None:
    text = "(;FF[4]GM[4]SZ[15]PB[Black]PW[White]RE[W+R];B[hh];W[ii]C[a comment];B[hi])"
    (record,) = read_sgf(text, match_id="x")
    assert (record.start.game, record.start.params) == ("gomoku", {})
    assert [m.move for m in record.moves] == [[7, 7], [8, 8], [7, 8]]
    assert (record.result, record.reason) == ("0-1", "resign")


def test_sgf_keeps_the_main_line_and_skips_variations() -> None:
    text = "(;GM[4]SZ[3];B[aa](;W[bb];B[ab](;W[cc])(;W[ca]))(;W[ba]))"
    (record,) = read_sgf(text)
    assert [m.move for m in record.moves] == [[0, 0], [1, 1], [0, 1], [2, 2]]
    assert record.start.game == "tictactoe"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Gomoku 15x15\n", "line 1: a .psq file starts with"),
        ("Piskvorky 15x15, 8:8, 0\n1,1,0\n1,1,0\n", "line 3: move 2"),
        ("Piskvorky 15x15, 8:8, 0\n16,1,0\n", "line 2: move 1"),
    ],
)
def test_bad_psq_names_its_line(text: str, message: str) -> None:
    with pytest.raises(GameFileError, match=message):
        read_psq(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "no game tree"),
        ("(;GM[1]SZ[19];B[aa])", "not gomoku"),
        ("(;GM[4]SZ[15];B[hh];B[ii])", "node 3: W is to move"),
        ("(;GM[4]SZ[15];B[h])", "node 2: B\\[h\\] is not a point"),
        ("(;GM[4]SZ[15];B[hh]", "expected '\\)'"),
        ("(;GM[4]SZ[15];B[hh", "inside a property value"),
    ],
)
def test_bad_sgf_is_refused_with_where(text: str, message: str) -> None:
    with pytest.raises(GameFileError, match=message):
        read_sgf(text)


def test_games_without_a_board_are_refused() -> None:
    start = GameStart("s1", "paper_soccer", {}, ("a", "b"), {}, False, 0.0)
    record = GameRecord(start, [], None, None, None)
    for write in (write_psq, write_sgf):
        with pytest.raises(GameFileError, match="not an m,n,k game; use the text format"):
            write([record])


# Piskvork reads a psq header with fscanf("Piskvorky %dx%d, %d:%d, %d") and takes the file only if
# the last number (who began) is 0 or 1 (plastovicka/Piskvork, openPsq).
PISKVORK_HEADER = re.compile(r"Piskvorky (\d+)x(\d+), (\d+):(\d+), ([01])")


@pytest.mark.parametrize(
    ("game", "params", "rule"),
    [("gomoku", {}, "Freestyle"), ("gomoku", {"exact": True}, "Standard"), ("renju", {}, "Renju"),
     ("caro", {}, "Caro"), ("caro", {"exact": True}, "Standard Caro"), ("tictactoe", {}, None)],
)  # fmt: skip
def test_the_files_headers_say_the_board_and_sgf_the_rule(game: str, params: dict, rule: str | None) -> None:
    moves = played(game, params, 5, 9)
    start = GameStart("r1", game, params, ("alice", "bob"), {}, False, 0.0)
    record = GameRecord(start, [MoveRecord(i, move, 10, None) for i, move in enumerate(moves)], None, None, None)
    header = PISKVORK_HEADER.fullmatch(write_psq([record]).splitlines()[0])
    size = create_game(game, params).params["m"]
    assert header is not None and header[1] == header[2] == str(size)
    sgf = write_sgf([record])
    assert (re.search(r"RU\[([^]]*)\]", sgf) or [None, None])[1] == rule
    assert read_sgf(sgf) == read_psq(write_psq([record])) == [record]


def test_a_foreign_sgf_s_rule_picks_the_game_and_its_forbidden_points_are_illegal() -> None:
    (record,) = read_sgf("(;FF[4]GM[4]SZ[15]RU[renju];B[hh];W[ih])")
    assert (record.start.game, record.start.params) == ("renju", {})
    (record,) = read_sgf("(;FF[4]GM[4]SZ[15]RU[Standard Caro];B[hh])")
    assert (record.start.game, record.start.params) == ("caro", {"exact": True})
    (record,) = read_sgf("(;FF[4]GM[4]SZ[19]RU[Standard];B[hh])")
    assert (record.start.game, record.start.params) == ("mnk", {"m": 19, "n": 19, "k": 5, "exact": True})
    # black's fifth stone h8 makes two threes at once (g8-h8-i8 and h7-h8-h9): a double-three
    double_three = "(;GM[4]SZ[15]RU[Renju];B[gh];W[aa];B[ih];W[ao];B[hg];W[oa];B[hi];W[oo];B[hh])"
    with pytest.raises(GameFileError, match=r"node 10: move 9: .* forbidden for black \(double-three\)"):
        read_sgf(double_three)
    with pytest.raises(GameFileError, match="RU: 'Japanese' is not a rule of five in a row"):
        read_sgf("(;GM[4]SZ[15]RU[Japanese];B[hh])")
