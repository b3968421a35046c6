"""The alpha-beta search against the brute-force solver: the forced wins it claims, and the ones it must see."""

from __future__ import annotations

from gomoku_solver import Position, forced_win
from hypothesis import given, settings
from hypothesis import strategies as st

from arbiter.bots.gomoku.searcher import SearchConfig, Searcher


def searched(cells: list[int], m: int, k: int, exact: bool) -> bool:
    """Whether ``cells`` (played in order) never complete a line and leave a position the bot searches:
    neither side can complete a line at once (a five is played, a four blocked, without a search)."""
    position = Position(m, m, k, exact)
    for i, c in enumerate(cells):
        if position.completes(c, 1 + i % 2):
            return False
        position.board[c] = 1 + i % 2
    return not position.winning_cells(1) and not position.winning_cells(2)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(exact=st.booleans(), k=st.sampled_from([4, 5]), data=st.data())
def test_a_win_in_three_plies_is_seen_and_every_claimed_one_is_real(exact: bool, k: int, data) -> None:
    m = 9
    centre = [y * m + x for y in range(1, 8) for x in range(1, 8)]
    cells = data.draw(st.lists(st.sampled_from(centre), unique=True, min_size=4, max_size=18), label="moves")
    if not searched(cells, m, k, exact):
        return
    position = Position(m, m, k, exact, cells)
    searcher = Searcher(m, m, k, exact, tt_bits=14)
    searcher.set_position(cells)
    result = searcher.think(SearchConfig(max_depth=4))
    mover = position.to_move
    wins_in_three = forced_win(position, mover, 3)
    if wins_in_three:
        assert result.mate_in is not None and 0 < result.mate_in <= 3
    if result.mate_in is not None and 0 < result.mate_in <= 3:
        assert wins_in_three
    if result.mate_in is not None and -4 <= result.mate_in < 0:  # longer losses cost the solver minutes
        assert forced_win(position, 3 - mover, -result.mate_in)
