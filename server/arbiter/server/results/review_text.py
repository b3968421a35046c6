"""A game's review as text: the terminal's ``arbiter review`` and the comments a reviewed game's
files carry (SPEC.md section 18). Reads the review's JSON as the store keeps it; computes nothing."""

from __future__ import annotations

from typing import Any

MARKS = {"best": "", "good": "", "inaccuracy": "?!", "mistake": "?", "blunder": "??", "opening": ""}


def move_comment(move: dict[str, Any]) -> str:
    """One move's verdict, e.g. ``blunder (-50%), best [1, 1] line [1, 1] [0, 2]``."""
    text = f"{move['class']} ({-move['loss']:.0%}, {move['win_before']:.0%} → {move['win_after']:.0%})"
    if move["class"] in ("inaccuracy", "mistake", "blunder") and move["best"] is not None:
        text += f", best {move['best']} line {' '.join(map(str, move['pv']))}"
    return text


def format_review(review: dict[str, Any]) -> str:
    """The whole review: a line per move (the mover's chance after it, the class, the best move at
    each mistake, the mover's own analysis when it sent one), then each side's summary."""
    thresholds = review["thresholds"]
    lines = [
        f"Review of {review['match']} ({review['game']}): {' vs '.join(review['players'])}, "
        f"result {review['result'] or 'none'}; {review['budget_ms']} ms a position by {review['engine'] or '-'}",
        "classes by the mover's drop in winning chance: "
        + ", ".join(f"{name} ≥ {value:.0%}" for name, value in thresholds.items()),
        "",
    ]
    for move in review["moves"]:
        own = f"  [own: {move['info']}]" if move.get("info") else ""
        lines.append(f"{move['ply'] + 1:>4}. {move['name']:<16} {move['move']!s:<12}"
                     f"{MARKS[move['class']]:<3} {move_comment(move)}{own}")  # fmt: skip
    lines.append("")
    for side in review["summary"]:
        counts = ", ".join(f"{n} {name}" for name, n in side["counts"].items() if n)
        accuracy = "-" if side["accuracy"] is None else f"{side['accuracy']:.1f}"
        average = "-" if side["average_loss"] is None else f"{side['average_loss']:.1%}"
        lines.append(f"{side['name']}: accuracy {accuracy}, average loss {average} over {side['moves']} moves"
                     f"{': ' + counts if counts else ''}")  # fmt: skip
    return "\n".join(lines) + "\n"
