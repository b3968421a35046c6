"""Gomocup's names for the five-in-a-row rules: the ``INFO rule`` values and the rule names of records.

``INFO rule`` is, in the Gomocup AI protocol (plastovicka.github.io/protocl2en.htm, "INFO"), a
"bitmask or sum of: 1 = exactly five in a row win, 2 = continuous game, 4 = renju, 8 = caro"; the
manager Piskvork sends 0 (free style), 1 (exact five, Gomocup's "standard"), 4 (renju), 8 (caro,
an overline wins) or 9 (standard caro, exact five). Bit 2 (a continuous game, played on after a
five) is no rule of ours and is ignored. The names are Gomocup's league names, which SGF's ``RU``
carries (FF[4] leaves ``RU``'s values to each game; for gomoku none are registered).
"""

from __future__ import annotations

from typing import Any

from .base import Game, ParamError

RULE_EXACT = 1
RULE_CONTINUOUS = 2
RULE_RENJU = 4
RULE_CARO = 8

# INFO rule → (its name, the family, the family's parameters besides the board)
RULES: dict[int, tuple[str, str, dict[str, Any]]] = {
    0: ("Freestyle", "mnk", {"k": 5}),
    RULE_EXACT: ("Standard", "mnk", {"k": 5, "exact": True}),
    RULE_RENJU: ("Renju", "five", {"rule": "renju"}),
    RULE_CARO: ("Caro", "five", {"rule": "caro"}),
    RULE_CARO | RULE_EXACT: ("Standard Caro", "five", {"rule": "caro", "exact": True}),
}


def info_rule(game: Game) -> int | None:
    """The ``INFO rule`` of ``game``, or None for a game that is not five in a row."""
    params = game.params
    if game.family == "mnk" and params["k"] == 5:
        return RULE_EXACT if params["exact"] else 0
    if game.family == "five":
        return RULE_RENJU if params["rule"] == "renju" else RULE_CARO | (RULE_EXACT if params["exact"] else 0)
    return None


def rule_name(game: Game) -> str | None:
    """The rule's name ("Freestyle", "Standard", "Renju", "Caro", "Standard Caro"), or None."""
    rule = info_rule(game)
    return None if rule is None else RULES[rule][0]


def rule_named(name: str) -> int:
    """The ``INFO rule`` of a rule's name (any case); ParamError for a name that is none of them."""
    for rule, (known, _, _) in RULES.items():
        if known.lower() == name.strip().lower():
            return rule
    raise ParamError(f"{name!r} is not a rule of five in a row: {', '.join(known for known, _, _ in RULES.values())}")


def rule_params(width: int, height: int, rule: int) -> tuple[str, dict[str, Any]]:
    """The family and parameters of five in a row on a width×height board under ``INFO rule``
    (bit 2 ignored); ParamError for a combination that is no rule (renju and caro at once)."""
    entry = RULES.get(rule & ~RULE_CONTINUOUS)
    if entry is None:
        raise ParamError(f"INFO rule {rule} is none of 0, 1, 4, 8, 9 (with 2 for a continuous game)")
    _, family, params = entry
    return family, {"m": width, "n": height, **params}
