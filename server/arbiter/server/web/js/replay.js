// @ts-check
// Finished games: a list to pick from, and a replay that steps through a game move by move (a
// paper soccer turn is replayed step by step), with the move list, the clock use and the result.

import { createBoard, moveText } from "./boards.js";
import { reviewTools } from "./review.js";
import { describeResult, describeRules, errorText, fetchJson, fill, formatClock, h, playerLink } from "./ui.js";

const CHOICES = { black: "took black", white: "took white", place: "placed two more" };

/** A swap opening's choices, as the record keeps them ({by: name, choice, ply}): "after 3 stones bob placed two more; …". */
function describeChoices(choices) {
  return choices.map(({ by, choice, ply }) => `after ${ply} stones ${by} ${CHOICES[choice] || choice}`).join("; ");
}

function failure(text) {
  return h("div", { class: "panel error", role: "alert" }, text);
}

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} ctx
 */
export function mountReplayList(root, ctx) {
  const filter = h(
    "select",
    { id: "replay-game", "aria-label": "game" },
    h("option", { value: "" }, "every game"),
    ctx.games.map((g) => h("option", { value: g.name }, g.name)),
  );
  const list = h("ul", { class: "list games", id: "finished-games" }, h("li", { class: "empty" }, "Loading…"));
  let alive = true;

  async function load() {
    const query = filter.value ? `?game=${encodeURIComponent(filter.value)}` : "";
    try {
      const { games } = await fetchJson(`/games.json${query}`);
      if (!alive) return;
      fill(
        list,
        games.length
          ? games.map((g) =>
              h(
                "li",
                { "data-match": g.match },
                h("span", { class: "what" }, h("b", {}, g.game), " ", describeRules(ctx.game(g.game), g.params)),
                h("span", { class: "who" }, playerLink(g.players[0]), " vs ", playerLink(g.players[1])),
                h("span", { class: "muted" }, `${describeResult(g.result, g.reason)} · ${g.plies} moves`),
                h("span", { class: "muted" }, new Date(g.ended_ms).toLocaleString()),
                h("a", { class: "button small", href: `#/replay/${g.match}` }, "Replay"),
              ),
            )
          : h("li", { class: "empty" }, "No finished games yet."),
      );
    } catch (error) {
      if (alive) fill(list, h("li", { class: "empty error" }, `The games did not load: ${errorText(error)}`));
    }
  }

  filter.addEventListener("change", load);
  const head = h("div", { class: "card-head" }, h("h2", {}, "Finished games"), filter);
  root.append(h("section", { class: "card wide" }, head, list));
  load();
  return {
    unmount() {
      alive = false;
    },
  };
}

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} ctx
 */
export function mountReplay(root, ctx, arg, { review = false } = {}) {
  // #/replay/ID opens at the final position, #/replay/ID/PLY after PLY moves (a failure report's link);
  // #/review/ID opens it with its review asked for.
  const [matchId, plyText] = arg.split("/");
  const holder = h("div", { class: "replay" }, h("p", { class: "loading" }, "Loading the game…"));
  root.append(holder);
  let alive = true;
  let keys = null;
  let tools = null; // the review and the analysis board (review.js)

  fetchJson(`/game.json?match=${encodeURIComponent(matchId)}`).then(
    (game) => alive && show(game),
    (error) => alive && fill(holder, failure(`This game cannot be replayed: ${errorText(error)}`)),
  );

  function show(game) {
    const info = ctx.game(game.game);
    if (!info) {
      fill(holder, failure(`This server no longer hosts ${game.game}.`));
      return;
    }
    const moves = game.moves.map((m) => m.move);
    const board = createBoard(info.family, game.params, { hint: () => {} });
    const asked = Number.parseInt(plyText, 10);
    let ply = Number.isInteger(asked) ? Math.max(0, Math.min(moves.length, asked)) : moves.length;
    let busy = Promise.resolve();

    const counter = h("span", { class: "ply", id: "replay-ply" });
    const slider = h("input", { type: "range", min: 0, max: moves.length, value: ply, "aria-label": "move" });
    const list = h(
      "ol",
      { class: "moves replay-moves" },
      moves.map((move, i) =>
        h(
          "li",
          {
            class: `move p${i % 2}${i < game.opening ? " book" : ""}`,
            "data-ply": i,
            title: i < game.opening ? "a move of the balanced opening the server chose" : undefined,
            onclick: () => go(i + 1),
          },
          h("span", {}, moveText(info.family, game.params, move)),
          h("small", { class: "muted" }, i < game.opening ? "opening" : formatClock(game.moves[i].elapsed_ms)),
        ),
      ),
    );
    const button = (label, title, target) =>
      h("button", { class: "small", title, "aria-label": title, onclick: () => go(target()) }, label);
    const controls = h(
      "div",
      { class: "replay-controls" },
      button("⏮", "first position", () => 0),
      button("◀", "previous move", () => ply - 1),
      counter,
      button("▶", "next move", () => ply + 1),
      button("⏭", "final position", () => moves.length),
    );

    function render() {
      counter.textContent = `${ply} / ${moves.length}`;
      slider.value = ply;
      for (const item of list.children) item.classList.toggle("current", Number(item.dataset.ply) === ply - 1);
      const current = list.children[ply - 1];
      if (current) current.scrollIntoView({ block: "nearest" });
      board.setOver(ply === moves.length);
      tools.show(ply);
    }

    function go(target) {
      const next = Math.max(0, Math.min(moves.length, target));
      busy = busy.then(async () => {
        if (next === ply + 1) await board.push(moves[ply], { animate: true });
        else if (next !== ply) board.reset(moves.slice(0, next));
        ply = next;
        render();
      });
    }

    slider.addEventListener("input", () => go(Number(slider.value)));
    keys = (event) => {
      if (tools.busy()) return; // the analysis board's own keys
      if (event.target.closest && event.target.closest("input, select, textarea")) return;
      if (event.key === "ArrowRight") go(ply + 1);
      else if (event.key === "ArrowLeft") go(ply - 1);
      else if (event.key === "Home") go(0);
      else if (event.key === "End") go(moves.length);
    };
    document.addEventListener("keydown", keys);

    board.reset(moves.slice(0, ply));
    tools = reviewTools({ ctx, matchId, game, family: info.family, board, list, go, ply: () => ply, review });
    const names = game.players.map((name, color) =>
      h("span", { class: `player p${color}` }, h("span", { class: `side-mark p${color}` }), playerLink(name)),
    );
    fill(
      holder,
      h(
        "div",
        { class: "match replaying", "data-match": matchId, "data-pieces": board.style },
        h(
          "div",
          { class: "board-col" },
          h("div", { class: "board-holder", "data-family": info.family }, board.el),
          controls,
          slider,
        ),
        h(
          "aside",
          { class: "side card" },
          h("h2", { class: "match-title" }, game.game, " ",
            h("small", { class: "muted" }, describeRules(info, game.params))),
          h("p", { class: "players" }, names[0], " vs ", names[1]),
          game.swap && game.swap.length ? h("p", { class: "swap-record", id: "swap-record" }, describeChoices(game.swap)) : null,
          h("div", { class: "result", id: "result" }, h("strong", {}, describeResult(game.result, game.reason))),
          tools.buttons,
          tools.section,
          h("h3", {}, "Moves"),
          list,
        ),
      ),
      tools.analysing,
    );
    tools.start();
    render();
  }

  return {
    unmount() {
      alive = false;
      if (keys) document.removeEventListener("keydown", keys);
      if (tools) tools.unmount();
    },
  };
}
