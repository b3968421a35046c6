"""Game records as text, in the spirit of PGN: tag pairs, a blank line, the numbered moves.

One record per game, a blank line between records; the notation is specified in
docs/RECORDS.md. Moves are written in each game's own text notation (``Game.move_to_text``)
with the thinking time of each in braces, so a record replays exactly:

    [Game "tictactoe"]
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

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

from arbiter.engine import EngineError, Game, create_game, game_names
from arbiter.server.store.base import AsideMove, GameRecord, GameStart, MoveRecord

from .review_text import move_comment

RESULT_TOKENS = ("1-0", "0-1", "1/2-1/2", "*")  # "*": unfinished, interrupted or aborted
LINE_WIDTH = 80
_TAG = re.compile(r'^\[([A-Za-z][A-Za-z0-9_]*) "((?:[^"\\]|\\.)*)"\]$')
_BARE = re.compile(r"^[A-Za-z0-9_.+:/-]+$")
_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r"}
_UNESCAPES = {"\\": "\\", '"': '"', "n": "\n", "r": "\r"}


class RecordError(ValueError):
    """Text that is not a valid game record; the message names the line."""


# --- writing ---------------------------------------------------------------------------------
def format_record(record: GameRecord, review: dict[str, Any] | None = None) -> str:
    """One game as a record (ending with a newline); with its review, a ``{review …}`` per move."""
    start = record.start
    game = _game(start.game, start.params)
    first, second = start.players
    tags = [
        ("Game", start.game),
        ("Params", format_map(start.params)),
        ("First", first),
        ("Second", second),
        ("Result", record.result or "*"),
        ("Reason", record.reason or ""),
        ("Date", format_time(start.started)),
        ("End", "" if record.ended is None else format_time(record.ended)),
        ("Clock", format_map(start.clock)),
        ("Rated", "true" if start.rated else "false"),
        ("MatchId", start.match_id),
    ]
    for tag, level in (("FirstLevel", start.levels[0]), ("SecondLevel", start.levels[1])):
        if level is not None:
            tags.append((tag, str(level)))
    if start.opening:
        tags.append(("Opening", str(start.opening)))
    if record.swap:  # a swap opening's choices: [{by: name, choice, ply}]
        tags.append(("Swap", json.dumps(record.swap, separators=(",", ":"), ensure_ascii=False)))
    for tag, name in (("FirstRatingDiff", first), ("SecondRatingDiff", second)):
        if name in record.rating_changes:
            tags.append((tag, f"{record.rating_changes[name]:+.2f}"))
    tags += _aside_tags(game, record)
    lines = [f'[{tag} "{_escape(value)}"]' for tag, value in tags]
    return "\n".join(lines) + "\n\n" + _wrap(_movetext(game, record, review)) + "\n"


def _aside_tags(game: Game, record: GameRecord) -> list[tuple[str, str]]:
    """A casual game's moves beside its line (SPEC.md section 15): ``TakenBack`` and ``Hints``, each a
    list of ``ply:colour:move`` (the move in the game's notation), in the order they came."""
    out = []
    for tag, kind in (("TakenBack", "taken_back"), ("Hints", "hint")):
        asides = [a for a in record.asides if a.kind == kind]
        if asides:
            out.append(
                (tag, " ".join(f"{a.ply}:{a.color}:{game.move_to_text(game.decode_move(a.move))}" for a in asides))
            )
    return out


def _parse_asides(game: Game, tags: dict[str, str], at: dict[str, int]) -> list[AsideMove]:
    asides: list[AsideMove] = []
    for tag, kind in (("TakenBack", "taken_back"), ("Hints", "hint")):
        for item in tags.get(tag, "").split():
            try:
                ply, color, text = item.split(":", 2)
                move = game.encode_move(game.move_from_text(text))
                asides.append(AsideMove(kind, int(ply), int(color), move))  # type: ignore[arg-type]
            except (ValueError, EngineError):
                raise RecordError(f"line {at[tag] + 1}: {tag} holds {item!r}, not ply:colour:move") from None
    return asides


def format_records(records: Iterable[GameRecord], reviews: Mapping[str, dict[str, Any]] | None = None) -> Iterator[str]:
    """Records separated by blank lines, one string per game (stream them to a file)."""
    for i, record in enumerate(records):
        yield ("\n" if i else "") + format_record(record, (reviews or {}).get(record.start.match_id))


def _movetext(game: Game, record: GameRecord, review: dict[str, Any] | None = None) -> list[str]:
    tokens = []
    for i, move in enumerate(record.moves):
        if i % 2 == 0:
            tokens.append(f"{i // 2 + 1}.")
        try:
            text = game.move_to_text(game.decode_move(move.move))
        except EngineError as exc:
            raise RecordError(f"match {record.start.match_id}: move {i + 1} {move.move!r}: {exc}") from None
        tokens += [text, f"{{{move.elapsed_ms / 1000:.3f}s}}"]
        if move.info:
            tokens.append(f"{{info {format_map(move.info)}}}")
        if review is not None and i < len(review["moves"]):
            tokens.append(f"{{review {move_comment(review['moves'][i])}}}")
    tokens.append(record.result or "*")
    return tokens


def _wrap(tokens: list[str]) -> str:
    lines, line = [], ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > LINE_WIDTH:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    return "\n".join([*lines, line])


def format_time(unix: float) -> str:
    """UTC, to the millisecond: ``2024-05-01T12:00:00.000Z``."""
    millis = round(unix * 1000)
    moment = datetime.fromtimestamp(millis // 1000, UTC)
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{millis % 1000:03d}Z"


def format_map(values: Mapping[str, Any]) -> str:
    """``key=value`` pairs; values are JSON, with simple words and numbers left unquoted."""
    return " ".join(f"{key}={_format_value(value)}" for key, value in values.items())


def _format_value(value: Any) -> str:
    if isinstance(value, str) and _BARE.match(value) and not _is_json(value):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _escape(text: str) -> str:
    return "".join(_ESCAPES.get(ch, ch) for ch in text)


# --- reading ---------------------------------------------------------------------------------
def parse_records(text: str) -> list[GameRecord]:
    """Every record in ``text``; RecordError (naming the line) on anything malformed."""
    records = []
    lines = [line.removesuffix("\r") for line in text.split("\n")]  # not splitlines(): \v or \f may be in a value
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        record, i = _parse_one(lines, i)
        records.append(record)
    return records


def _parse_one(lines: list[str], i: int) -> tuple[GameRecord, int]:
    tags: dict[str, str] = {}
    at: dict[str, int] = {}  # the line of each tag, for error messages
    first_line = i
    while i < len(lines) and lines[i].startswith("["):
        match = _TAG.match(lines[i].strip())
        if not match:
            raise RecordError(f'line {i + 1}: a tag is [Name "value"], not {lines[i]!r}')
        tags[match[1]] = _unescape(match[2], i)
        at[match[1]] = i
        i += 1
    missing = [t for t in ("Game", "First", "Second", "Result", "Date", "MatchId") if t not in tags]
    if missing:
        raise RecordError(f"line {first_line + 1}: the record has no {missing[0]} tag")
    tokens: list[tuple[str, int]] = []
    while i < len(lines) and not lines[i].startswith("["):
        tokens += [(token, i) for token in _tokens(lines[i])]
        if tokens and tokens[-1][0] in RESULT_TOKENS:
            i += 1
            break
        i += 1
    else:
        if not tokens or tokens[-1][0] not in RESULT_TOKENS:
            raise RecordError(f"line {i}: the moves of match {tags['MatchId']!r} do not end with a result")
    params = parse_map(tags.get("Params", ""), at.get("Params", first_line))
    known = tags["Game"] in game_names()  # an unknown name is the Game tag's fault, else the Params'
    game = _game(tags["Game"], params, at.get("Params", first_line) if known else at["Game"])
    result_token = tokens.pop()[0]
    result = None if result_token == "*" else result_token
    if (tags["Result"] if tags["Result"] != "*" else None) != result:
        raise RecordError(f"line {at['Result'] + 1}: Result tag {tags['Result']!r} but the moves end {result_token!r}")
    start = GameStart(
        match_id=tags["MatchId"],
        game=tags["Game"],
        params=params,
        players=(tags["First"], tags["Second"]),
        clock=parse_map(tags.get("Clock", ""), at.get("Clock", first_line)),
        rated=_parse_bool(tags.get("Rated", "false"), at.get("Rated", first_line)),
        started=parse_time(tags["Date"], at["Date"]),
        levels=(_parse_count(tags, at, "FirstLevel"), _parse_count(tags, at, "SecondLevel")),
        opening=_parse_count(tags, at, "Opening") or 0,
    )
    changes = {
        name: _parse_float(tags[tag], at[tag])
        for tag, name in (("FirstRatingDiff", start.players[0]), ("SecondRatingDiff", start.players[1]))
        if tag in tags
    }
    record = GameRecord(
        start=start,
        moves=_parse_moves(game, tokens),
        result=result,
        reason=tags.get("Reason") or None,
        ended=parse_time(tags["End"], at["End"]) if tags.get("End") else None,
        rating_changes=changes,
        asides=_parse_asides(game, tags, at),
        swap=_parse_swap(tags, at),
    )
    return record, i


def _tokens(line: str) -> list[str]:
    """Split a movetext line; a {comment} is one token even if it had spaces."""
    return re.findall(r"\{[^}]*\}|[^\s{}]+", line)


def _parse_moves(game: Game, tokens: list[tuple[str, int]]) -> list[MoveRecord]:
    moves: list[MoveRecord] = []
    for token, line in tokens:
        if token.startswith("{"):
            if not moves:
                raise RecordError(f"line {line + 1}: a time {token} before any move")
            last = moves[-1]
            if token.startswith("{review "):
                continue  # the server's review, made again on demand: not part of the game
            if token.startswith("{info "):
                info = parse_map(token[len("{info ") : -1], line)
                moves[-1] = MoveRecord(last.ply, last.move, last.elapsed_ms, info or None)
            else:
                moves[-1] = MoveRecord(last.ply, last.move, _parse_elapsed(token, line), last.info)
        elif token.endswith(".") and token[:-1].isdigit():
            expected = len(moves) // 2 + 1
            if int(token[:-1]) != expected or len(moves) % 2:
                raise RecordError(f"line {line + 1}: move number {token} where {expected}. belongs")
        else:
            try:
                wire = game.encode_move(game.move_from_text(token))
            except EngineError as exc:
                raise RecordError(f"line {line + 1}: {exc}") from None
            moves.append(MoveRecord(len(moves), wire, 0))
    return moves


def _parse_elapsed(token: str, line: int) -> int:
    body = token[1:-1].strip()
    if not body.endswith("s"):
        raise RecordError(f"line {line + 1}: a move time is like {{1.250s}}, not {token}")
    return round(_parse_float(body[:-1], line) * 1000)


def parse_time(text: str, line: int = 0) -> float:
    """The inverse of format_time."""
    try:
        moment = datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    except ValueError:
        raise RecordError(f"line {line + 1}: a time is like 2024-05-01T12:00:00.000Z, not {text!r}") from None
    return moment.timestamp()


def parse_map(text: str, line: int = 0) -> dict[str, Any]:
    """The inverse of format_map."""
    values: dict[str, Any] = {}
    decoder = json.JSONDecoder()
    pos = 0
    while pos < len(text):
        if text[pos] == " ":
            pos += 1
            continue
        key = _KEY.match(text, pos)
        if not key:
            raise RecordError(f"line {line + 1}: expected key=value at {text[pos:]!r}")
        pos = key.end()
        try:
            value, end = decoder.raw_decode(text, pos)
        except ValueError:
            value, end = None, pos
        if end == pos or (end < len(text) and text[end] != " "):
            end = text.find(" ", pos)
            end = len(text) if end < 0 else end
            value = text[pos:end]
        values[key[1]] = value
        pos = end
    return values


def _game(name: str, params: Mapping[str, Any], line: int | None = None) -> Game:
    try:
        return create_game(name, params)
    except EngineError as exc:
        where = f"line {line + 1}: " if line is not None else ""
        raise RecordError(f"{where}{exc}") from None


def _parse_bool(text: str, line: int) -> bool:
    if text not in ("true", "false"):
        raise RecordError(f"line {line + 1}: Rated is true or false, not {text!r}")
    return text == "true"


def _parse_float(text: str, line: int) -> float:
    try:
        return float(text)
    except ValueError:
        raise RecordError(f"line {line + 1}: {text!r} is not a number") from None


def _unescape(text: str, line: int) -> str:
    out, chars = [], iter(text)
    for ch in chars:
        if ch == "\\":
            escaped = next(chars, "")
            if escaped not in _UNESCAPES:
                raise RecordError(f"line {line + 1}: unknown escape \\{escaped} in a tag value")
            out.append(_UNESCAPES[escaped])
        else:
            out.append(ch)
    return "".join(out)


def _parse_swap(tags: dict[str, str], at: dict[str, int]) -> list[dict[str, Any]]:
    """The Swap tag: a swap opening's choices, a JSON list of maps (none without the tag)."""
    if "Swap" not in tags:
        return []
    try:
        choices = json.loads(tags["Swap"])
    except ValueError:
        choices = None
    if not isinstance(choices, list) or not all(isinstance(c, dict) for c in choices):
        raise RecordError(f"line {at['Swap'] + 1}: the Swap tag is a JSON list of choices, not {tags['Swap']!r}")
    return choices


def _parse_count(tags: dict[str, str], at: dict[str, int], tag: str) -> int | None:
    """An optional tag holding a positive integer (a level, the opening's plies), or None."""
    if tag not in tags:
        return None
    text = tags[tag]
    if not text.isdigit() or int(text) < 1:
        raise RecordError(f"line {at[tag] + 1}: {tag} {text!r} is not a positive integer")
    return int(text)
