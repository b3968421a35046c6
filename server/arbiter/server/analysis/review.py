"""A game's review from its positions' evaluations: pure functions, no I/O.

The workers say, for each position, the chance that the side to move there wins (a draw ½), its
best move and line; ``check_eval`` holds each of those to the rules before the server uses it, and
``build_review`` turns them into the review: the chances from both sides, each move's drop in its
mover's chance and its class, and each side's accuracy (SPEC.md section 18, lichess's thresholds).
"""

from __future__ import annotations

import math
from typing import Any

from arbiter.engine import EngineError, Game, State

# The mover's drop in winning chance from which a move is each class (lichess's).
THRESHOLDS = {"inaccuracy": 0.10, "mistake": 0.20, "blunder": 0.30}
BEST_LOSS = 0.02  # a move losing less than this is as good as the worker's best
CLASSES = ("best", "good", "inaccuracy", "mistake", "blunder")
REVIEW_PV = 8  # moves of each position's line kept in a review


def positions(game: Game, moves: list[Any]) -> list[State]:
    """The positions of a game: ``[k]`` is after the first k moves (k = 0..len(moves)).
    EngineError (MoveFormatError, IllegalMove) names the first move that does not replay."""
    state = game.new_state()
    out = [state.copy()]
    for move in moves:
        state.play_wire(move)
        out.append(state.copy())
    return out


def to_evaluate(states: list[State]) -> list[int]:
    """The plies a worker must evaluate: every position not over (a finished one's value is its result)."""
    return [ply for ply, state in enumerate(states) if not state.is_terminal]


def check_eval(state: State, evaluation: dict[str, Any]) -> str | None:
    """Why a worker's evaluation of ``state`` cannot be used (None: it can): its best move must be
    legal there and its line legal from there, starting with it. (The protocol checked the shapes
    and that ``win`` is a probability.)"""
    best, line = evaluation["best"], evaluation.get("pv", [])
    if best is None:
        return f"ply {evaluation['ply']}: the position is not over, best must be a move"
    if line and line[0] != best:
        return f"ply {evaluation['ply']}: the line must start with the best move"
    board = state.copy()
    for index, move in enumerate(line or [best]):
        if board.is_terminal:
            return f"ply {evaluation['ply']}: the line goes on after the game is over (move {index})"
        try:
            board.play_wire(move)
        except EngineError as error:
            what = "best move" if index == 0 else f"line's move {index}"
            return f"ply {evaluation['ply']}: the {what} {move!r} is not legal: {error}"
    return None


def chances(state: State, win: float | None) -> list[float]:
    """[first's chance, second's] at ``state``: from the side to move's ``win``, or the result when over."""
    outcome = state.outcome
    if outcome is not None:
        return [0.5, 0.5] if outcome.winner is None else [1.0 - outcome.winner, float(outcome.winner)]
    assert win is not None
    return [win, 1.0 - win] if state.to_move == 0 else [1.0 - win, win]


def classify(loss: float, played_best: bool) -> str:
    """A move's class by its mover's drop in winning chance."""
    if played_best or loss < BEST_LOSS:
        return "best"
    for name in ("blunder", "mistake", "inaccuracy"):
        if loss >= THRESHOLDS[name]:
            return name
    return "good"


def accuracy(loss: float) -> float:
    """A move's accuracy, 0..100, by lichess's fit of its drop in winning percentage."""
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * loss * 100) - 3.1669))


def build_review(
    header: dict[str, Any],
    states: list[State],
    moves: list[Any],
    infos: list[dict[str, Any] | None],
    evals: dict[int, dict[str, Any]],
    *,
    opening: int = 0,
) -> dict[str, Any]:
    """The review (SPEC.md section 14, ``/review.json``) of a game whose positions are ``states``,
    evaluated in ``evals`` (by ply, every position not over). ``header`` carries match, game, params,
    players, result, budget_ms and engine as they are; the first ``opening`` moves were given, not
    chosen, and are classed ``opening``, outside the summary."""
    players = header["players"]
    out_positions: list[dict[str, Any]] = []
    for ply, state in enumerate(states):
        evaluation = evals.get(ply)
        out_positions.append(
            {
                "ply": ply,
                "to_move": state.to_move,
                "win": [round(p, 4) for p in chances(state, None if evaluation is None else evaluation["win"])],
                "best": None if evaluation is None else evaluation["best"],
                "pv": [] if evaluation is None else list(evaluation.get("pv") or [evaluation["best"]])[:REVIEW_PV],
            }
        )
    out_moves = []
    for ply, move in enumerate(moves):
        before, after = out_positions[ply], out_positions[ply + 1]
        side = before["to_move"]
        loss = max(0.0, before["win"][side] - after["win"][side])
        out_moves.append(
            {
                "ply": ply,
                "side": side,
                "name": players[side],
                "move": move,
                "win_before": before["win"][side],
                "win_after": after["win"][side],
                "loss": round(loss, 4),
                "class": "opening" if ply < opening else classify(loss, move == before["best"]),
                "best": before["best"],
                "pv": before["pv"],
                "info": infos[ply] if ply < len(infos) else None,
            }
        )
    return {**header, "thresholds": THRESHOLDS, "positions": out_positions, "moves": out_moves,
            "summary": [summary(side, players[side], out_moves) for side in (0, 1)]}  # fmt: skip


def summary(side: int, name: str, moves: list[dict[str, Any]]) -> dict[str, Any]:
    """One side's accuracy, mean drop and count of each class, over the moves it chose."""
    own = [m for m in moves if m["side"] == side and m["class"] != "opening"]
    counts = dict.fromkeys(CLASSES, 0)
    for move in own:
        counts[move["class"]] += 1
    return {
        "side": side,
        "name": name,
        "moves": len(own),
        "accuracy": round(sum(accuracy(m["loss"]) for m in own) / len(own), 1) if own else None,
        "average_loss": round(sum(m["loss"] for m in own) / len(own), 4) if own else None,
        "counts": counts,
    }
