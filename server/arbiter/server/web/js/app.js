// @ts-check
// The page shell: one connection, the header, notices, and a hash router over the views.
//
// Routes: #/ (lobby), #/match/ID (play or watch a live match), #/replays, #/replay/ID (or
// #/replay/ID/PLY: at that ply), #/leaderboard/GAME, #/player/NAME (the server's /player/NAME),
// #/account. The hash keeps a refresh on the same view; the connection brings back the
// same guest, so a refreshed match view carries on where it was. #/review/ID is a replay with its
// review asked for (review.js).

import { mountAccount } from "./account.js";
import { Connection } from "./connection.js";
import { mountLeaderboard } from "./leaderboard.js";
import { mountLobby } from "./lobby.js";
import { mountMatch } from "./match.js";
import { mountPlayer } from "./player.js";
import { mountReplay, mountReplayList } from "./replay.js";
import { soundSwitch } from "./sound.js";
import { errorText, fill, h, notify } from "./ui.js";

window.arbiterStarted = true;

const scheme = location.protocol === "https:" ? "wss" : "ws";
const conn = new Connection(`${scheme}://${location.host}/`);
// The page's own elements (index.html), always there.
const view = /** @type {HTMLElement} */ (document.getElementById("view"));
const statusBadge = /** @type {HTMLElement} */ (document.getElementById("status"));
const meBadge = /** @type {HTMLElement} */ (document.getElementById("me"));
meBadge.before(soundSwitch()); // off by default, remembered across visits

const ctx = {
  conn,
  /** @type {import("arbiter-protocol").GameInfo[]} */
  games: [],
  /**
   * A game's description from welcome.games.
   * @param {string} name
   */
  game(name) {
    return ctx.games.find((g) => g.name === name);
  },
  navigate(hash) {
    if (location.hash !== hash) location.hash = hash;
  },
};

/** What every view is given: the connection, the server's games, and navigation. @typedef {typeof ctx} Context */

const ROUTES = {
  "": mountLobby,
  match: mountMatch,
  replays: mountReplayList,
  replay: mountReplay,
  review: (root, ctx, arg) => mountReplay(root, ctx, arg, { review: true }),
  leaderboard: mountLeaderboard,
  account: mountAccount,
  player: mountPlayer,
};

let current = null;

function route() {
  const [name = "", ...rest] = location.hash.replace(/^#\/?/, "").split("/");
  return { name: ROUTES[name] ? name : "", arg: rest.map(decodeURIComponent).join("/") };
}

function render() {
  if (!conn.welcome) return; // the first welcome renders
  if (current) current.unmount();
  view.replaceChildren();
  const { name, arg } = route();
  for (const link of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-nav]"))) {
    const section = name === "match" ? "" : name.replace(/^(replay|review)$/, "replays");
    link.classList.toggle("active", link.dataset.nav === (section || "lobby"));
  }
  try {
    current = ROUTES[name](view, ctx, arg);
  } catch (error) {
    console.error(error);
    current = null;
    fill(view, h("div", { class: "panel error", role: "alert" }, `This page failed: ${errorText(error)}`));
  }
}

window.addEventListener("hashchange", render);

let shownAs = null; // the player the views were drawn for
conn.on("welcome", (welcome) => {
  ctx.games = welcome.games;
  const me = welcome.player;
  fill(meBadge, h("span", { class: `who ${me.kind}` }, me.name), me.guest ? h("small", {}, " guest") : null);
  if (shownAs === me.name) return; // the same player reconnected: each view resyncs itself
  const first = shownAs === null;
  shownAs = me.name;
  if (first && welcome.resumed.length && route().name === "") {
    ctx.navigate(`#/match/${welcome.resumed[0]}`); // back to the game in progress; hashchange renders it
    return;
  }
  render(); // first welcome, or another identity (signed in or out, or a new guest)
});

let countdown = null;
conn.on("state", ({ state, retryAt }) => {
  statusBadge.dataset.state = state;
  clearInterval(countdown);
  if (state === "open") statusBadge.textContent = "online";
  else if (state === "connecting") statusBadge.textContent = "connecting…";
  else if (state === "replaced") {
    statusBadge.textContent = "opened elsewhere";
    notify("This player was opened in another tab or window, so this page stopped.", "error", {
      timeoutMs: 0,
      actions: [{ label: "Use this page", run: () => conn.reconnect() }],
    });
  } else if (state === "banned") {
    statusBadge.textContent = "banned";
    notify("This server has banned this account or your address.", "error", { timeoutMs: 0 });
    if (!conn.welcome && route().name === "account" && !current) {
      view.replaceChildren();
      current = mountAccount(view, ctx); // no welcome will come: the account page says why, over HTTP
    }
  } else {
    const tick = () => {
      statusBadge.textContent = `offline · retry in ${Math.max(0, Math.ceil((retryAt - Date.now()) / 1000))} s`;
    };
    tick();
    countdown = setInterval(tick, 500);
    if (!conn.welcome) showUnreachable();
  }
});
statusBadge.addEventListener("click", () => {
  if (conn.state !== "open") conn.reconnect();
});

function showUnreachable() {
  if (document.getElementById("unreachable")) return;
  fill(
    view,
    h(
      "div",
      { class: "panel error", id: "unreachable", role: "alert" },
      h("h2", {}, "Cannot reach the server"),
      h("p", {}, "The page keeps trying to connect. Check that the server is running."),
      h("button", { onclick: () => conn.reconnect() }, "Try now"),
    ),
  );
}

conn.on("error", (error) => notify(errorText(error), "error"));
conn.on("client_error", (error) => notify(`Something went wrong on this page: ${errorText(error)}`, "error"));

// A match of mine started (a bot or a player took my challenge or seek): go to it.
conn.on("match_start", (start) => ctx.navigate(`#/match/${start.match}`));

// Someone challenged me directly.
conn.on("challenge_offered", ({ challenge }) => {
  const game = challenge.game;
  notify(`${challenge.from} challenges you to ${game}.`, "info", {
    timeoutMs: challenge.expires_ms,
    actions: [
      {
        label: "Accept",
        run: () => conn.request("accept", { challenge: challenge.id }).catch((e) => notify(errorText(e), "error")),
      },
      { label: "Decline", run: () => conn.request("decline", { challenge: challenge.id }).catch(() => {}) },
    ],
  });
});

window.addEventListener("error", (event) => notify(`Something went wrong on this page: ${event.message}`, "error"));
window.addEventListener("unhandledrejection", (event) => {
  notify(`Something went wrong: ${errorText(event.reason)}`, "error");
});

conn.start();
