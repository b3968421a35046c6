"""The browser's paper soccer rules (arbiter/web/js/soccer_rules.js) agree with the engine: over
random games on several fields, the same legal steps at every point, the same ball, side to move
and result, and taking steps back restores the start. The engine is the oracle; Chromium runs the JS."""

from __future__ import annotations

import numpy as np
import pytest

from arbiter.engine import create_game

pytestmark = pytest.mark.asyncio(loop_scope="module")

FIELDS = [{"width": 8, "length": 10, "stuck": "lose"}, {"width": 4, "length": 4, "stuck": "draw"},
          {"width": 6, "length": 12, "stuck": "lose"}]  # fmt: skip
GAMES_PER_FIELD = 20

REPLAY = """async ({params, games}) => {
  const { SoccerField } = await import("/js/soccer_rules.js");
  const problems = [];
  games.forEach((game, g) => {
    const field = new SoccerField(params);
    game.forEach((step, i) => {
      const seen = { legal: field.legalSteps(), ball: [field.ball.x, field.ball.y], toMove: field.toMove };
      const want = { legal: step.legal, ball: step.ball, toMove: step.to_move };
      if (JSON.stringify(seen) !== JSON.stringify(want)) problems.push({ game: g, step: i, seen, want });
      if (field.whyIllegal(step.action) !== null) problems.push({ game: g, step: i, refused: step.action });
      const illegal = [0, 1, 2, 3, 4, 5, 6, 7].filter((d) => !step.legal.includes(d));
      for (const d of illegal) if (field.whyIllegal(d) === null) problems.push({ game: g, step: i, allowed: d });
      field.play(step.action);
    });
    const end = game.at(-1).after;
    if (field.status !== end.status || field.reason !== end.reason) {
      problems.push({ game: g, end: [field.status, field.reason], want: end });
    }
    const fresh = new SoccerField(params);
    while (field.steps.length) field.undo();
    if (field.closed.join() !== fresh.closed.join() || field.toMove !== 0) problems.push({ game: g, undo: true });
  });
  return problems;
}"""


def random_game(params: dict, rng: np.random.Generator) -> list[dict]:
    state = create_game("paper_soccer", params).new_state()
    steps = []
    while not state.is_terminal:
        legal = [int(a) for a in state.legal_actions()]
        action = legal[rng.integers(len(legal))]
        steps.append({"legal": legal, "ball": list(state.ball), "to_move": state.to_move, "action": action})
        state.play_action(action)
    outcome = state.outcome
    status = "draw" if outcome.winner is None else f"win{outcome.winner}"
    steps[-1]["after"] = {"status": status, "reason": outcome.reason}
    return steps


@pytest.mark.parametrize("params", FIELDS, ids=lambda p: f"{p['width']}x{p['length']}-{p['stuck']}")
async def test_the_browser_rules_match_the_engine(new_page, params: dict) -> None:
    rng = np.random.default_rng(20240611)
    games = [random_game(params, rng) for _ in range(GAMES_PER_FIELD)]
    assert sum(len(g) for g in games) > 100
    page = await new_page()
    problems = await page.evaluate(REPLAY, {"params": params, "games": games})
    assert problems == []


async def test_a_wrong_expectation_is_caught(new_page) -> None:
    """The comparison can fail: a game whose recorded legal steps are wrong is reported."""
    params = FIELDS[0]
    game = random_game(params, np.random.default_rng(1))
    game[3]["legal"] = game[3]["legal"][1:]
    page = await new_page()
    problems = await page.evaluate(REPLAY, {"params": params, "games": [game]})
    assert problems and problems[0]["step"] == 3
