"""Every game Arbiter hosts, by name: the rule families and the presets built from them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .base import Game, ParamError, State
from .five import FiveGame
from .mnk import MnkGame
from .paper_soccer import PaperSoccerGame
from .ttt3d import Ttt3dGame
from .vanishing import VanishingGame

FAMILIES: dict[str, type[Game]] = {
    cls.family: cls for cls in (MnkGame, VanishingGame, Ttt3dGame, PaperSoccerGame, FiveGame)
}


@dataclass(frozen=True)
class Preset:
    """A named game: a family with some parameters fixed and the others at their defaults."""

    name: str
    family: str
    fixed: Mapping[str, Any] = field(default_factory=dict)
    doc: str = ""


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("tictactoe", "mnk", {"m": 3, "n": 3, "k": 3}, "3x3 tic-tac-toe"),
        Preset("tictactoe4", "mnk", {"m": 4, "n": 4, "k": 4}, "4x4 tic-tac-toe (POJ 1568)"),
        Preset("gomoku10", "mnk", {"m": 10, "n": 10, "k": 5}, "10x10 five in a row (Machinarium)"),
        Preset("gomoku", "mnk", {"m": 15, "n": 15, "k": 5}, "15x15 gomoku; exact=true for exact five"),
        Preset("qubic", "ttt3d", {"n": 4}, "4x4x4 cube tic-tac-toe (Qubic)"),
        Preset(
            "renju",
            "five",
            {"m": 15, "n": 15, "rule": "renju", "exact": False},
            "15x15 renju (RIF rules): black's double-three, double-four and overline are forbidden",
        ),
        Preset(
            "caro",
            "five",
            {"m": 15, "n": 15, "rule": "caro"},
            "15x15 caro: a five blocked at both ends does not win; exact=true: no overline wins",
        ),
    )
}


def game_names() -> list[str]:
    """The games the server offers: the presets, then the families."""
    return [*PRESETS, *FAMILIES]


def create_game(name: str, params: Mapping[str, Any] | None = None) -> Game:
    """The game called ``name`` (a preset or a family) with ``params``; ParamError if invalid."""
    params = dict(params or {})
    if not isinstance(name, str):
        raise ParamError(f"a game name is a string, not {name!r}")
    preset = PRESETS.get(name)
    if preset is not None:
        declared = {p.name: p for p in FAMILIES[preset.family].PARAMS}
        for key, value in params.items():
            if key in preset.fixed and declared[key].coerce(value) != preset.fixed[key]:
                raise ParamError(
                    f"{name} fixes {key}={preset.fixed[key]}; use the game {preset.family!r} for other values"
                )
        return FAMILIES[preset.family]({**params, **preset.fixed}, name=name)
    family = FAMILIES.get(name)
    if family is None:
        raise ParamError(f"unknown game {name!r}; known games: {', '.join(game_names())}")
    return family(params)


def describe_games() -> list[dict[str, Any]]:
    """Every offered game with its parameters and defaults, as msgpack-able maps (the server's welcome)."""
    out = []
    for name in game_names():
        preset = PRESETS.get(name)
        family = FAMILIES[preset.family if preset else name]
        fixed = dict(preset.fixed) if preset else {}
        out.append(
            {
                "name": name,
                "family": family.family,
                "doc": preset.doc if preset else (family.__doc__ or "").strip().splitlines()[0],
                "fixed": fixed,
                "params": [p.describe() for p in family.PARAMS if p.name not in fixed],
                "draw_offers": family.allows_draw_offer,
            }
        )
    return out


def decode_state(value: Mapping[str, Any]) -> State:
    """Rebuild a position from State.encode(): the game, then its moves replayed and checked."""
    game_info = value["game"]
    game = create_game(game_info["name"], game_info.get("params"))
    state = game.new_state()
    for wire_move in value["moves"]:
        state.play(game.decode_move(wire_move))
    return state
