// @ts-check
// A finished game's review in its replay: the server's analysis workers evaluate every position
// (SPEC.md section 18: the page asks with `review`, follows `review_state` until it is done, then
// reads it from /review.json). The page then shows the evaluation graph from the viewer's side,
// each move's class in the move list (by the mover's drop in win probability, at the thresholds
// the review names), the best move and its line drawn on the board at each inaccuracy, mistake and
// blunder, a summary per player, and beside each move the bot's own `info` from the game.

import { scoreText } from "./analysis.js";
import { clearLine, drawLine } from "./bestline.js";
import { moveText } from "./boards.js";
import { EvalGraph } from "./evalgraph.js";
import { ErrorCode } from "./protocol.js";
import { errorText, fetchJson, fill, h } from "./ui.js";
import { mountVariations } from "./variations.js";

/** How each class reads in the move list: a glyph as annotators write it, and its name. */
export const JUDGEMENTS = {
  best: { glyph: "★", name: "best move" },
  good: { glyph: "", name: "good move" },
  inaccuracy: { glyph: "?!", name: "inaccuracy" },
  mistake: { glyph: "?", name: "mistake" },
  blunder: { glyph: "??", name: "blunder" },
  opening: { glyph: "", name: "a move of the balanced opening the server chose" },
};
const FLAWED = new Set(["inaccuracy", "mistake", "blunder"]);

/** Why no review came, as the person reads it. */
function refusalText(error, game) {
  if (error.code === ErrorCode.NO_ANALYSIS_WORKER) {
    return `No analysis worker is online for ${game}, so this game cannot be reviewed now. Try again later.`;
  }
  if (error.code === ErrorCode.ANALYSIS_QUEUE_FULL) return "The server's review queue is full: try again in a minute.";
  if (error.code === ErrorCode.ANALYSIS_FAILED) return `The analysis failed: ${errorText(error)}`;
  return `No review: ${errorText(error)}`;
}

const percent = (p) => `${Math.round(p * 100)}%`;

/**
 * The review of the replayed game, drawn into `holder`; the replay calls show(ply) whenever it shows
 * another position.
 * @param {HTMLElement} holder
 * @param {{ ctx: import("./app.js").Context, matchId: string, game: any, family: string, board: any,
 *   list: HTMLElement, go: (ply: number) => void }} view
 */
export function mountReview(holder, { ctx, matchId, game, family, board, list, go }) {
  const { conn } = ctx;
  const me = conn.player ? game.players.indexOf(conn.player.name) : -1;
  const viewer = me >= 0 ? me : 0; // a player sees their own chances; anyone else the first player's
  const status = h("p", { class: "review-status", id: "review-status", role: "status" }, "Asking for a review…");
  const progress = h("progress", { id: "review-progress", "aria-label": "positions analysed", max: 1, value: 0,
    hidden: true });
  const retry = h("button", { class: "small", id: "review-retry", hidden: true, onclick: () => ask() }, "Try again");
  const graph = new EvalGraph({ viewer, viewerName: game.players[viewer], onPick: go });
  graph.el.setAttribute("hidden", "");
  const detail = h("div", { class: "review-detail", id: "review-detail", "aria-live": "polite" });
  const summary = h("div", { class: "review-summary", id: "review-summary" });
  fill(holder, h("section", { class: "review", id: "review" }, h("h3", {}, "Review"), status, retry, progress, graph.el, detail,
    summary));
  let review = null;
  let reading = false; // the finished review is being read
  let ply = 0;
  let alive = true;
  const text = (move) => moveText(family, game.params, move);

  function apply(state) {
    if (!alive || reading || state.match !== matchId) return;
    if (state.status === "done") {
      reading = true; // the review is stored: read it once
      progress.hidden = true;
      status.textContent = "Reading the review…";
      fetchJson(`/review.json?match=${encodeURIComponent(matchId)}`).then(
        (stored) => {
          if (!alive) return;
          review = stored;
          shown();
        },
        (error) => {
          reading = false;
          if (alive) status.textContent = `The review did not load: ${errorText(error)}`;
        },
      );
      return;
    }
    if (state.status === "failed") {
      status.textContent = "The analysis failed: no worker could analyse this game. Try again later.";
      progress.hidden = true;
      retry.hidden = false;
      return;
    }
    progress.hidden = false;
    progress.max = Math.max(1, state.total);
    progress.value = state.done;
    status.textContent = state.status === "queued"
      ? "Waiting for an analysis worker…"
      : `Analysing: ${state.done} of ${state.total} positions`;
  }

  function ask() {
    if (reading) return;
    retry.hidden = true;
    delete status.dataset.code;
    status.textContent = "Asking for a review…";
    conn.request("review", { match: matchId }).then(apply, (error) => {
      if (!alive) return;
      progress.hidden = true;
      retry.hidden = false;
      status.textContent = refusalText(error, game.game);
      status.dataset.code = error.code;
    });
  }

  /** The finished review: the graph, the marks in the move list, the summary. */
  function shown() {
    const { thresholds } = review;
    status.textContent = `Analysed at ${review.budget_ms} ms a position by ${review.engine}. ` +
      `Moves losing ${percent(thresholds.inaccuracy)} of win chance or more are inaccuracies, ` +
      `${percent(thresholds.mistake)} mistakes, ${percent(thresholds.blunder)} blunders.`;
    const marks = review.moves
      .filter((m) => FLAWED.has(m.class))
      .map((m) => ({ ply: m.ply, kind: m.class, text: `${m.ply + 1}. ${text(m.move)}: ${JUDGEMENTS[m.class].name}` }));
    graph.update(review.positions.map((p) => (p.win ? p.win[0] : null)), marks);
    graph.el.removeAttribute("hidden");
    for (const m of review.moves) {
      const item = /** @type {HTMLElement | null} */ (list.querySelector(`[data-ply="${m.ply}"]`));
      if (!item) continue;
      const judgement = JUDGEMENTS[m.class];
      item.dataset.judgement = m.class;
      item.querySelector(".judgement")?.remove();
      item.firstElementChild?.append(
        h("span", { class: `judgement ${m.class}`, title: judgement.name }, judgement.glyph,
          h("span", { class: "sr-only" }, ` ${judgement.name}`)),
      );
    }
    fill(
      summary,
      h(
        "table",
        { class: "table review-table" },
        h("thead", {}, h("tr", {}, ["Player", "Accuracy", "Avg loss", "?!", "?", "??"].map((t) => h("th", {}, t)))),
        h(
          "tbody",
          {},
          review.summary.map((side) =>
            h(
              "tr",
              { "data-side": side.side },
              h("td", { class: "name" }, h("span", { class: `side-mark p${side.side}` }), " ", side.name),
              h("td", {}, side.moves ? `${side.accuracy.toFixed(1)}%` : "–"),
              h("td", {}, side.moves ? percent(side.average_loss) : "–"),
              ["inaccuracy", "mistake", "blunder"].map((kind) => h("td", {}, side.counts[kind] || 0)),
            ),
          ),
        ),
      ),
    );
    show(ply);
  }

  /** What the review says about the position after `at` moves and the move that led to it. */
  function show(at) {
    ply = at;
    if (!review) return;
    graph.setPly(at);
    clearLine(board);
    const position = review.positions[at];
    const chance = position && position.win
      ? h("p", { class: "review-chance" }, `${game.players[viewer]}: ${percent(position.win[viewer])} to win`)
      : null;
    const move = at > 0 ? review.moves[at - 1] : null;
    if (!move) {
      fill(detail, chance, h("p", { class: "muted" }, "Step through the moves, or click the graph."));
      return;
    }
    const judgement = JUDGEMENTS[move.class];
    const flawed = FLAWED.has(move.class) && move.best;
    if (flawed) {
      const before = game.moves.slice(0, move.ply).map((m) => m.move);
      drawLine(board, family, game.params, before, move.pv?.length ? move.pv : [move.best]);
    }
    fill(
      detail,
      h(
        "p",
        { class: `review-move ${move.class}`, id: "review-move", "data-judgement": move.class },
        h("strong", {}, `${move.ply + 1}. ${text(move.move)}`),
        ` by ${move.name}: ${judgement.name}`,
        ` (win chance ${percent(move.win_before)} → ${percent(move.win_after)})`,
      ),
      flawed
        ? h(
            "p",
            { class: "review-best", id: "review-best" },
            "Better was ",
            h("strong", {}, text(move.best)),
            move.pv?.length > 1 ? `, then ${move.pv.slice(1, 6).map(text).join(" ")}` : "",
            " (drawn on the board).",
          )
        : null,
      chance,
      move.info ? botInfo(move.name, move.info) : null,
    );
  }

  /** The bot's own view of its move, as it said it during the game. */
  function botInfo(name, info) {
    const facts = [scoreText(info), info.depth !== undefined ? `depth ${info.depth}` : ""].filter(Boolean);
    const pv = (info.pv || []).map((m) => {
      try {
        return text(m);
      } catch {
        return "?";
      }
    });
    return h(
      "p",
      { class: "review-info", id: "review-info" },
      `${name} said during the game: ${facts.join(", ") || "no score"}`,
      pv.length ? ` · line ${pv.join(" ")}` : "",
    );
  }

  const offs = [conn.on("review_state", apply), conn.on("welcome", ask)]; // a reconnect asks again
  ask();
  return {
    show,
    unmount() {
      alive = false;
      for (const off of offs) off();
      clearLine(board);
    },
  };
}

/**
 * What a replay gets for its review and its analysis board: the "Review" and "Analyse from here"
 * buttons, the review's section for its side panel, and the analysis board shown in place of the
 * replay (`layout`) until "Back to the game". The replay calls show(ply) on every position it shows.
 * @param {{ ctx: import("./app.js").Context, matchId: string, game: any, family: string, board: any,
 *   list: HTMLElement, go: (ply: number) => void, ply: () => number, review: boolean }} view
 */
export function reviewTools(view) {
  const { ctx, game, family } = view;
  const section = h("div", { class: "review-holder" });
  const analysing = h("div", { class: "variations-holder", hidden: true });
  let layout = null;
  let review = null;
  let variations = null;
  const start = () => {
    reviewButton.hidden = true;
    review = mountReview(section, view);
    review.show(view.ply());
  };
  const back = () => {
    variations?.unmount();
    variations = null;
    analysing.replaceChildren();
    analysing.hidden = true;
    if (layout) layout.hidden = false;
  };
  const analyse = () => {
    layout = section.closest(".match");
    if (layout) layout.hidden = true;
    analysing.hidden = false;
    const moves = game.moves.slice(0, view.ply()).map((m) => m.move);
    variations = mountVariations(analysing, { ctx, game: game.game, params: game.params, family, players: game.players,
      start: moves, onBack: back });
  };
  const reviewButton = h("button", { class: "small primary", id: "review-button", onclick: start }, "Review");
  const buttons = h("div", { class: "match-actions" }, reviewButton,
    h("button", { class: "small", id: "analyse-button", onclick: analyse }, "Analyse from here"));
  return {
    buttons,
    section,
    analysing,
    /** Whether the analysis board is shown (the replay's keys wait). */
    busy: () => variations !== null,
    start: () => view.review && start(),
    show: (ply) => review?.show(ply),
    unmount() {
      review?.unmount();
      variations?.unmount();
    },
  };
}
