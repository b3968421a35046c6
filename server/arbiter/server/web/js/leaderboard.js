// @ts-check
// The standings of one game's rating pool (its ladder's first; the others from a menu): Glicko-2
// rating (provisional while the deviation is high), deviation, games and wins/draws/losses, read
// from the server's /leaderboard.json. A bot's levels are rated apart ("name@level"). With no game
// in the address, the server picks the first game whose ladder has ratings.

import { errorText, fill, h, playerLink, ratingCells } from "./ui.js";

const COLUMNS = ["#", "player", "rating", "RD", "games", "W", "D", "L"];

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} ctx
 */
export function mountLeaderboard(root, ctx, gameName) {
  let game = ctx.game(gameName) ? gameName : null; // null: the server's choice, known once loaded
  const select = h(
    "select",
    { id: "leaderboard-game", "aria-label": "game" },
    ctx.games.map((g) => h("option", { value: g.name, selected: g.name === game }, g.name)),
  );
  select.addEventListener("change", () => ctx.navigate(`#/leaderboard/${select.value}`));
  const poolSelect = h("select", { id: "leaderboard-pool", "aria-label": "rating pool" });
  poolSelect.addEventListener("change", () => load(poolSelect.value));
  const body = h("div", { class: "standings" }, h("p", { class: "loading" }, "Loading…"));
  const crosstable = h("a", {}, "Crosstable and game records");
  root.append(
    h(
      "section",
      { class: "card wide" },
      h("div", { class: "card-head" }, h("h2", {}, "Leaderboard"), select, poolSelect),
      body,
      h("p", { class: "muted" }, "? marks a provisional rating (few games so far). ", crosstable),
    ),
  );
  let alive = true;

  function load(pool) {
    const query = new URLSearchParams({ ...(game ? { game } : {}), ...(pool ? { pool } : {}) });
    fetch(`/leaderboard.json?${query}`, { cache: "no-store" })
      .then(async (response) => {
        const data = await response.json().catch(() => ({}));
        if (!response.ok) throw new Error(data.error || `the server answered ${response.status}`);
        return data;
      })
      .then(show)
      .catch((error) => {
        if (alive) fill(body, h("p", { class: "empty error" }, `The leaderboard did not load: ${errorText(error)}`));
      });
  }

  function show({ game: shown, pool, pools, ratings }) {
    if (!alive) return;
    game = shown;
    select.value = game;
    crosstable.href = `/leaderboard?game=${encodeURIComponent(game)}`;
    const choices = [...new Set([pool, ...pools])].sort();
    fill(poolSelect, choices.map((p) => h("option", { value: p, selected: p === pool }, p)));
    if (!ratings.length) {
      fill(body, h("p", { class: "empty" }, `No rated games in ${pool} yet. Bots on the ladder will fill this.`));
      return;
    }
    fill(
      body,
      h(
        "table",
        { class: "table", id: "leaderboard" },
        h("thead", {}, h("tr", {}, COLUMNS.map((c) => h("th", {}, c)))),
        h(
          "tbody",
          {},
          ratings.map((r, i) =>
            h(
              "tr",
              {},
              h("td", {}, i + 1),
              h("td", { class: "name" }, playerLink(r.player, r.label)),
              ratingCells(r),
            ),
          ),
        ),
      ),
    );
  }

  load(null);
  return {
    unmount() {
      alive = false;
    },
  };
}
