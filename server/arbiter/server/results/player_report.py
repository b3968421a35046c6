"""A player's report: ratings per pool with their history, recent games, and for a bot's author
the failure report (games lost, on time, by refused moves, abandoned) with the thinking times
against the clock. Computed here once for the player page (``/player.json``) and ``arbiter report``.

Every link is a path of the browser client: ``/#/replay/MATCH/PLY`` opens the replay at that ply.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from arbiter.engine import EngineError, create_game

from ..basics.clock import ClockSpec
from ..store.base import RESIGNED, GameRecord, Rating, RefusedMove, Store, UnknownPlayer

RECENT_GAMES = 20  # games listed unless asked otherwise
MAX_RECENT_GAMES = 500
SCANNED_GAMES = 200  # the newest finished games the failure report looks through
FAILURES_SHOWN = 50  # failure games listed in detail (all of the scanned ones are counted)


def replay_path(match_id: str, ply: int | None = None) -> str:
    """The browser client's replay of ``match_id``, at ``ply`` (moves played) if given."""
    return f"/#/replay/{match_id}" + ("" if ply is None else f"/{ply}")


def request_path(match_id: str, ply: int) -> str:
    """The request file of ``match_id``'s turn at ``ply`` (``failure_request``), to download."""
    return f"/request.json?match={match_id}&ply={ply}"


async def player_report(
    store: Store, name: str, *, games: int = RECENT_GAMES, match: str | None = None
) -> dict[str, Any]:
    """The report of player ``name`` as JSON-ready data; UnknownPlayer if there is none, ValueError
    if ``match`` is not one of its finished games. ``match`` picks the game whose thinking times are
    shown (else its newest game in which it moved)."""
    player = await store.get_player(name)
    if player is None:
        raise UnknownPlayer(f"no player named {name!r}")
    name = player.name
    records = await store.list_games(player=name, limit=max(games, SCANNED_GAMES), finished=True)
    chosen = _chosen(records, name) if match is None else await _game_of(store, name, match)
    return {
        "player": {
            "name": name,
            "kind": player.kind,
            "created": player.created,
            "created_ms": unix_ms(player.created),
            "revoked": player.revoked,
            "owner": player.owner,
        },
        "ratings": [await _rating_entry(store, rating) for rating in await _ratings(store, name)],
        "games": [_game_entry(record, name) for record in records[:games]],
        "failures": _failures(records, name),
        "thinking": None if chosen is None else thinking_times(chosen, _color(chosen, name)),
    }


# --- ratings --------------------------------------------------------------------------------------
async def _ratings(store: Store, name: str) -> list[Rating]:
    """The player's rated identities (each level apart), pool by pool."""
    found = []
    for pool in await store.rating_pools():
        found += [r for r in await store.leaderboard(pool) if r.player.lower() == name.lower()]
    return found


async def _rating_entry(store: Store, rating: Rating) -> dict[str, Any]:
    history = await store.rating_history(rating.player, rating.pool, rating.level)
    return {
        "pool": rating.pool,
        "level": rating.level,
        "label": rating.label,
        "rating": rating.rating,
        "deviation": rating.deviation,
        "provisional": rating.provisional,
        "games": rating.games,
        "wins": rating.wins,
        "draws": rating.draws,
        "losses": rating.losses,
        "history": [
            {"at": at, "at_ms": unix_ms(at), "rating": value, "deviation": deviation}
            for at, value, deviation in history
        ],
    }


# --- games ----------------------------------------------------------------------------------------
def _color(record: GameRecord, name: str) -> int:
    return 0 if record.start.players[0].lower() == name.lower() else 1


def own_plies(record: GameRecord, color: int) -> range:
    """The plies of ``color``'s own moves (colours alternate; the opening's moves are nobody's)."""
    opening = record.start.opening
    return range(opening + (color - opening) % 2, len(record.moves), 2)


def outcome(record: GameRecord, color: int) -> str:
    """The side ``color``'s outcome: "win", "loss", "draw", or "none" (aborted, voided, abandoned by both)."""
    if record.result is None:
        return "none"
    if record.result == "1/2-1/2":
        return "draw"
    return "win" if record.result == ("1-0", "0-1")[color] else "loss"


def unix_ms(unix: float | None) -> int | None:
    """A moment as integer Unix milliseconds, the protocol's unit (float seconds beside it: older clients)."""
    return None if unix is None else round(unix * 1000)


def _game_entry(record: GameRecord, name: str) -> dict[str, Any]:
    color = _color(record, name)
    start = record.start
    own = [record.moves[ply].elapsed_ms for ply in own_plies(record, color)]
    return {
        "match": start.match_id,
        "game": start.game,
        "pool": start.pool,
        "rated": start.rated,
        "color": color,
        "opponent": start.players[1 - color],
        "level": start.levels[color],
        "outcome": outcome(record, color),
        "result": record.result,
        "reason": record.reason,
        "plies": len(record.moves),
        "ended": record.ended,
        "ended_ms": unix_ms(record.ended),
        "think_mean_ms": round(statistics.fmean(own)) if own else None,
        "think_max_ms": max(own) if own else None,
        "replay": replay_path(start.match_id),
    }


def _failures(records: list[GameRecord], name: str) -> dict[str, Any]:
    """Counts over the scanned games, and the newest failure games in detail."""
    counts: dict[str, Any] = {"lost": 0, "timeout": 0, "abandoned": 0, "refused_moves": 0,
                              "games_with_refused_moves": 0, "resigned": {}}  # fmt: skip
    shown: list[dict[str, Any]] = []
    for record in records:
        color = _color(record, name)
        result = outcome(record, color)
        own = [r for r in record.refusals if r.color == color]
        refusals = [r for r in own if not r.code.startswith(RESIGNED)]
        cause = next((r.code[len(RESIGNED) :] for r in own if r.code.startswith(RESIGNED)), None)
        lost = result == "loss"
        abandoned = record.reason == "abandoned" and result in ("loss", "none")
        if not (lost or abandoned or refusals):
            continue
        counts["lost"] += lost
        counts["timeout"] += lost and record.reason == "timeout"
        counts["abandoned"] += abandoned
        counts["refused_moves"] += len(refusals)
        counts["games_with_refused_moves"] += bool(refusals)
        if cause is not None:
            counts["resigned"][cause] = counts["resigned"].get(cause, 0) + 1
        if len(shown) < FAILURES_SHOWN:
            shown.append(_failure_entry(record, color, refusals, cause))
    return {"scanned": len(records), "counts": counts, "games": shown}


def _failure_entry(record: GameRecord, color: int, refusals: list[RefusedMove], cause: str | None) -> dict[str, Any]:
    """A failure game: where it went wrong (its first refused move, else its last move), why (the
    cause a bot resigned for, else the end's reason), each refused move with the position it was
    refused in, and the request file of that turn."""
    start = record.start
    ply = refusals[0].ply if refusals else len(record.moves)
    return {
        **_game_entry(record, start.players[color]),
        "ply": ply,
        "cause": cause or (refusals[0].code if refusals else record.reason),
        "replay": replay_path(start.match_id, ply),
        "request": request_path(start.match_id, ply),
        "refused_beyond_kept": record.refused - len(record.refusals),  # counted, not kept: side unknown
        "refusals": _refusal_entries(record, refusals),
    }


def _refusal_entries(record: GameRecord, refusals: list[RefusedMove]) -> list[dict[str, Any]]:
    entries = [
        {
            "ply": r.ply,
            "move": r.move,
            "code": r.code,
            "at": r.at,
            "at_ms": unix_ms(r.at),
            "replay": replay_path(record.start.match_id, r.ply),
            "request": request_path(record.start.match_id, r.ply),
            "position": None,
        }
        for r in refusals
    ]
    if not entries:
        return entries
    try:
        game = create_game(record.start.game, record.start.params)
        state = game.new_state()
        played = 0
        for refusal, entry in zip(refusals, entries, strict=True):  # in the order they came, so by ply
            while played < min(refusal.ply, len(record.moves)):
                state.play(game.decode_move(record.moves[played].move))
                played += 1
            entry["position"] = state.diagram()
    except EngineError:  # a game this server no longer plays the same way: the replay link still shows it
        pass
    return entries


def failure_request(record: GameRecord, ply: int) -> dict[str, Any]:
    """What the player to move at ``ply`` was given for that turn, rebuilt from the game record: the
    moves before it, both clocks as the turn began, and the protocol message that gave the turn
    (``match_start``, or the opponent's ``moved``). ``arbiter bridge stdio --replay`` turns it into
    the stdio bridge's turn line. ValueError if ``ply`` is not a turn of the game after its opening."""
    start = record.start
    if not start.opening <= ply <= len(record.moves):
        raise ValueError(f"ply must be from {start.opening} to {len(record.moves)}")
    color = ply % 2  # colours alternate from the first ply, the opening's included
    clock = ClockSpec.from_description(start.clock)
    clocks = [clock.initial_ms, clock.initial_ms]
    for index in range(start.opening, ply):
        clocks[index % 2] += clock.increment_ms - record.moves[index].elapsed_ms
    moves = [m.move for m in record.moves[:ply]]
    if ply == start.opening:
        received = {"type": "match_start", "match": start.match_id, "game": start.game, "params": start.params,
                    "players": [{"name": name} for name in start.players], "color": color,
                    "clock": clock.describe(), "clocks": clocks, "rated": start.rated, "to_move": color,
                    "moves": moves}  # fmt: skip
    else:
        last = record.moves[ply - 1]
        received = {"type": "moved", "match": start.match_id, "ply": ply - 1, "move": last.move, "by": 1 - color,
                    "clocks": clocks, "elapsed_ms": last.elapsed_ms}  # fmt: skip
    position = None
    try:
        game = create_game(start.game, start.params)
        state = game.new_state()
        for move in moves:
            state.play(game.decode_move(move))
        position = state.diagram()
    except EngineError:  # a game this server no longer plays the same way
        pass
    return {
        "arbiter_request": 1,
        "match": start.match_id,
        "player": start.players[color],
        "game": start.game,
        "params": start.params,
        "ply": ply,
        "color": color,
        "clock": clock.describe(),
        "clocks": clocks,
        "moves": moves,
        "position": position,
        "received": [received],
        "failures": [{"move": r.move, "code": r.code} for r in record.refusals if r.ply == ply and r.color == color],
        "result": record.result,
        "reason": record.reason,
    }


# --- thinking times -------------------------------------------------------------------------------
def thinking_times(record: GameRecord, color: int) -> dict[str, Any]:
    """Each of ``color``'s moves in ``record`` (after the opening): the time it took and the clock
    it left (before the increment is added), from the stored elapsed times and the clock settings."""
    clock = ClockSpec.from_description(record.start.clock)
    remaining = clock.initial_ms
    moves = []
    for ply in own_plies(record, color):
        elapsed = record.moves[ply].elapsed_ms
        remaining -= elapsed
        moves.append({"ply": ply, "elapsed_ms": elapsed, "clock_ms": max(0, remaining)})
        remaining += clock.increment_ms
    elapsed_all = [m["elapsed_ms"] for m in moves]
    clocks_left = [m["clock_ms"] for m in moves]
    return {
        "match": record.start.match_id,
        "game": record.start.game,
        "color": color,
        "opponent": record.start.players[1 - color],
        "outcome": outcome(record, color),
        "reason": record.reason,
        "clock": clock.describe(),
        "moves": moves,
        "summary": {
            "moves": len(moves),
            "mean_ms": round(statistics.fmean(elapsed_all)) if moves else None,
            "max_ms": max(elapsed_all) if moves else None,
            "min_clock_ms": min(clocks_left) if moves else None,
        },
        "replay": replay_path(record.start.match_id),
    }


def _chosen(records: list[GameRecord], name: str) -> GameRecord | None:
    """The newest game in which the player made a move."""
    return next((r for r in records if own_plies(r, _color(r, name))), None)


async def _game_of(store: Store, name: str, match: str) -> GameRecord:
    record = await store.get_game(match)
    if record is None or record.ended is None:
        raise ValueError(f"no finished game {match!r}")
    if name.lower() not in (p.lower() for p in record.start.players):
        raise ValueError(f"{name} did not play game {match!r}")
    return record


# --- for a terminal -------------------------------------------------------------------------------
def format_report(report: dict[str, Any]) -> str:
    """The report as plain text: ratings, recent games, failures (with positions), thinking times."""
    player = report["player"]
    owner = f", a bot of {player['owner']}" if player.get("owner") else ""
    lines = [f"{player['name']} ({player['kind']}{owner}{', revoked' if player['revoked'] else ''})", ""]
    lines.append("Ratings:")
    for r in report["ratings"]:
        lines.append(
            f"  {r['pool']:<28} {r['label']:<20} {r['rating']:6.0f}{'?' if r['provisional'] else ' '}"
            f" ±{r['deviation']:<4.0f} {r['games']} games ({r['wins']}/{r['draws']}/{r['losses']})"
        )
    if not report["ratings"]:
        lines.append("  no rated games yet")
    lines += ["", "Recent games:"]
    for g in report["games"]:
        lines.append(f"  {_when(g['ended'])}  {_game_line(g)}  {g['replay']}")
    if not report["games"]:
        lines.append("  no finished games yet")
    failures = report["failures"]
    counts = failures["counts"]
    lines += [
        "",
        f"Failures in the last {failures['scanned']} games: {counts['lost']} lost ({counts['timeout']} on time),"
        f" {counts['abandoned']} abandoned, {counts['refused_moves']} refused moves"
        f" in {counts['games_with_refused_moves']} games",
    ]
    for f in failures["games"]:
        lines.append(f"  {_when(f['ended'])}  {_game_line(f)}  at ply {f['ply']}: {f['replay']}"
                     f"  ({f['cause']}; its request: {f['request']})")  # fmt: skip
        shown_at = None  # a position is printed once for the refusals at its ply
        for r in f["refusals"]:
            lines.append(f"    refused at ply {r['ply']}: {r['move']} ({r['code']})  {r['replay']}")
            if r["position"] and r["ply"] != shown_at:
                lines += ["      " + row for row in r["position"].splitlines()]
                shown_at = r["ply"]
        if f["refused_beyond_kept"]:
            lines.append(f"    and {f['refused_beyond_kept']} more refused moves, counted but not kept")
    thinking = report["thinking"]
    if thinking is not None:
        lines += ["", _thinking_line(thinking)]
        for m in thinking["moves"]:
            lines.append(
                f"  ply {m['ply']:>3}  {m['elapsed_ms'] / 1000:8.3f} s  clock left {m['clock_ms'] / 1000:8.3f} s"
            )
    return "\n".join(lines) + "\n"


def _when(unix: float | None) -> str:
    return "-" if unix is None else time.strftime("%Y-%m-%d %H:%M", time.gmtime(unix))


def _game_line(g: dict[str, Any]) -> str:
    return f"{g['game']} vs {g['opponent']}: {g['outcome']} ({g['reason']}, {g['plies']} plies)"


def _thinking_line(t: dict[str, Any]) -> str:
    s, clock = t["summary"], t["clock"]
    control = f"{clock['initial_ms'] / 1000:g}+{clock['increment_ms'] / 1000:g} s"
    if clock["move_limit_ms"]:
        control += f", {clock['move_limit_ms'] / 1000:g} s a move"
    if not s["moves"]:
        return f"Thinking times in {t['match']} ({control}): no moves"
    return (
        f"Thinking times in {t['match']} vs {t['opponent']} ({control}, {t['outcome']} by {t['reason']}):"
        f" {s['moves']} moves, mean {s['mean_ms'] / 1000:.3f} s, longest {s['max_ms'] / 1000:.3f} s,"
        f" least clock left {s['min_clock_ms'] / 1000:.3f} s"
    )
