"""The score of a series as the strength scripts print it: W/D/L, score, Wilson 95% interval, Elo.

Shared by the lab's tools that measure a bot's strength (gomoku_gauntlet.py), so each prints the
same figures computed the same way as ``arbiter series`` (src/arbiter/stack/series.py).
"""

from __future__ import annotations

from arbiter.stack.series import elo_difference, wilson_interval, z_value


def score_interval(wins: int, draws: int, losses: int) -> tuple[float, float, float]:
    """The score (wins + draws / 2) / games and its Wilson 95% interval."""
    games = wins + draws + losses
    low, high = wilson_interval(wins + draws / 2, games, z_value())
    return (wins + draws / 2) / games, low, high


def score_text(wins: int, draws: int, losses: int) -> str:
    """``W.. D.. L.. score ..% [95% ..%-..%] Elo ±.. [.., ..]`` (no Elo at 0% or 100%, where it is infinite)."""
    score, low, high = score_interval(wins, draws, losses)
    text = f"W{wins:<4} D{draws:<3} L{losses:<4} score {score:6.1%} [95% {low:.1%}-{high:.1%}]"
    if low > 0 and high < 1 and 0 < score < 1:
        text += f" Elo {elo_difference(score):+.0f} [{elo_difference(low):+.0f}, {elo_difference(high):+.0f}]"
    return text
