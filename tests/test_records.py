"""Game records: format → parse gives back the same games (hypothesis), and bad text is refused."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.server.results.records import (
    RecordError,
    format_map,
    format_record,
    format_records,
    parse_map,
    parse_records,
)
from arbiter.server.store.base import GameRecord, GameStart, MoveRecord

GAMES = {  # name → (params, board size)
    "tictactoe": ({}, (3, 3)),
    "gomoku": ({"exact": True}, (15, 15)),
    "gomoku10": ({}, (10, 10)),
    "mnk": ({"m": 7, "n": 5, "k": 4, "exact": False}, (7, 5)),
}
names = st.text(string.ascii_letters + string.digits + ' "\\\n\t_-.é中\x0b\x0c\x85\u2028', min_size=1, max_size=20)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(string.printable + "é", max_size=12),
)
clocks = st.dictionaries(st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True), scalars, max_size=4)
millis = st.integers(0, 4_102_444_800_000).map(lambda ms: ms / 1000)
infos = st.one_of(  # a move's analysis (protocol: move.info)
    st.none(),
    st.fixed_dictionaries(
        {},
        optional={
            "score": st.one_of(st.integers(-1000, 1000), st.floats(-1, 1, allow_nan=False)),
            "unit": st.sampled_from(["cp", "win", "mate"]),
            "depth": st.integers(0, 60),
            "pv": st.lists(st.tuples(st.integers(0, 14), st.integers(0, 14)).map(list), max_size=5),
        },
    ).filter(bool),
)


@st.composite
def records(draw: st.DrawFn) -> GameRecord:
    game = draw(st.sampled_from(sorted(GAMES)))
    params, (width, height) = GAMES[game]
    cells = st.tuples(st.integers(0, width - 1), st.integers(0, height - 1)).map(list)
    moves = draw(st.lists(st.tuples(cells, st.integers(0, 10**7)), max_size=40))
    players = draw(st.tuples(names, names).filter(lambda pair: pair[0] != pair[1]))
    result = draw(st.sampled_from(["1-0", "0-1", "1/2-1/2", None]))
    rated = draw(st.booleans())
    changes = {}
    if rated and result:
        diffs = draw(st.tuples(st.integers(-9999, 9999), st.integers(-9999, 9999)))
        changes = {name: diff / 100 for name, diff in zip(players, diffs, strict=True)}
    return GameRecord(
        start=GameStart(
            match_id=draw(names),
            game=game,
            params=params,
            players=players,
            clock=draw(clocks),
            rated=rated,
            started=draw(millis),
        ),
        moves=[MoveRecord(ply, move, elapsed, draw(infos)) for ply, (move, elapsed) in enumerate(moves)],
        result=result,
        reason=draw(st.one_of(st.none(), st.sampled_from(["line", "resign", "timeout", "abort"]), names)),
        ended=draw(st.one_of(st.none(), millis)),
        rating_changes=changes,
    )


@settings(derandomize=True, max_examples=150, deadline=None)
@given(st.lists(records(), min_size=1, max_size=3))
def test_records_round_trip(games: list[GameRecord]) -> None:
    text = "".join(format_records(games))
    assert parse_records(text) == games


@settings(derandomize=True, max_examples=300)
@given(clocks)
def test_key_value_maps_round_trip(values: dict) -> None:
    assert parse_map(format_map(values)) == values


SAMPLE = """[Game "tictactoe"]
[Params ""]
[First "alice"]
[Second "bob"]
[Result "1-0"]
[Reason "line"]
[Date "2024-05-01T12:00:00.000Z"]
[End "2024-05-01T12:00:09.500Z"]
[Clock "initial=60 increment=1"]
[Rated "true"]
[MatchId "m1"]

1. a1 {0.120s} b1 {0.300s} 2. a2 {0.100s} b2 {0.250s} 3. a3 {0.090s} 1-0
"""


def test_the_documented_sample_parses() -> None:
    [record] = parse_records(SAMPLE)
    assert record.start.players == ("alice", "bob") and record.start.clock == {"initial": 60, "increment": 1}
    assert [m.move for m in record.moves] == [[0, 0], [1, 0], [0, 1], [1, 1], [0, 2]]
    assert [m.elapsed_ms for m in record.moves] == [120, 300, 100, 250, 90]
    assert record.ended is not None and record.ended - record.start.started == 9.5
    assert format_record(record) == SAMPLE


def test_long_games_wrap_and_times_are_optional() -> None:
    [record] = parse_records(SAMPLE.replace("{0.120s} ", "").replace("\n\n1. a1", "\n\n1.\na1"))
    assert record.moves[0].elapsed_ms == 0 and len(record.moves) == 5
    moves = [MoveRecord(i, [i % 15, i // 15], 1000) for i in range(200)]
    long = GameRecord(GameStart("x", "gomoku", {}, ("a", "b"), {}, False, 0.0), moves, None, None, None)
    text = format_record(long)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert parse_records(text) == [long]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('[First "alice"]', '[First "alice]'), "line 3: a tag is"),
        (('[MatchId "m1"]\n', ""), "no MatchId tag"),
        (("a3 {0.090s} 1-0", "a3 {0.090s}"), "do not end with a result"),
        (("a3 {0.090s} 1-0", "a3 {0.090s} 0-1"), "Result tag '1-0' but the moves end '0-1'"),
        (("2. a2", "3. a2"), "move number 3. where 2. belongs"),
        (("b1 {0.300s}", "z9 {0.300s}"), "line 13"),
        (("{0.120s}", "{fast}"), "a move time is like"),
        (('"tictactoe"', '"chess"'), "line 1: unknown game 'chess'"),
        (('[Params ""]', '[Params "k=9"]'), "line 2: tictactoe fixes k=3"),
        (("2024-05-01T12:00:00.000Z", "yesterday"), "line 7: a time is like"),
        (('[Rated "true"]', '[Rated "yes"]'), "Rated is true or false"),
        (('[First "alice"]', '[First "al\\ice"]'), "unknown escape"),
        (('[Clock "initial=60 increment=1"]', '[Clock "=60"]'), "expected key=value"),
    ],
)
def test_bad_records_name_the_problem(change: tuple[str, str], message: str) -> None:
    assert change[0] in SAMPLE
    with pytest.raises(RecordError, match=message.replace("[", r"\[").replace(".", r"\.")):
        parse_records(SAMPLE.replace(*change, 1))
