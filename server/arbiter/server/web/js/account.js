// @ts-check
// The account page (#/account): sign up, sign in and out, change the password, and a person's
// bots (create one and copy its token, shown once; rotate or revoke a token).
//
// The server's account API takes no request body (docs/ACCOUNTS.md): a name and password go as
// `Authorization: Basic`, a new password as the `X-New-Password` header (base64 of UTF-8), a bot's
// name in the query. Every POST carries the page's CSRF token from /account.json. The session is an
// HttpOnly cookie the page never sees; after signing in or out the websocket reconnects so the
// server greets the new identity.

import { ServerError } from "./connection.js";
import { errorText, fill, h, notify } from "./ui.js";

function base64(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The account API: GET /account.json, and POSTs that keep the CSRF token current. */
export class AccountApi {
  constructor() {
    this.csrf = "";
  }

  async state() {
    const data = await this._json(await fetch("/account.json", { cache: "no-store", credentials: "same-origin" }));
    this.csrf = data.csrf;
    return data;
  }

  /**
   * @param {string} path
   * @param {{ name?: string, password?: string, newPassword?: string, query?: Record<string, string> }} [credentials]
   */
  async post(path, { name, password, newPassword, query } = {}) {
    const headers = { "X-CSRF-Token": this.csrf };
    if (name !== undefined) headers.Authorization = `Basic ${base64(`${name}:${password}`)}`;
    if (newPassword !== undefined) headers["X-New-Password"] = base64(newPassword);
    const search = query ? `?${new URLSearchParams(query)}` : "";
    const data = await this._json(await fetch(`${path}${search}`, { method: "POST", headers, credentials: "same-origin" }));
    if (data.csrf) this.csrf = data.csrf;
    return data;
  }

  async _json(response) {
    const data = await response.json().catch(() => ({}));
    if (!response.ok) {
      const message = data.error ? data.error.message : `the server answered ${response.status}`;
      throw new ServerError(data.error ? data.error.code : "http", message);
    }
    return data;
  }
}

function field(label, attrs) {
  return h("label", { class: "field" }, h("span", {}, label), h("input", { required: true, ...attrs }));
}

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} ctx
 */
export function mountAccount(root, ctx) {
  const api = new AccountApi();
  const body = h("div", { class: "account-page" }, h("p", { class: "loading" }, "Loading…"));
  root.append(h("section", { class: "card wide" }, h("h2", {}, "Account"), body));
  const tokenBox = h("div", { id: "new-token" }); // a new token stays shown while the list reloads
  let alive = true;

  function failed(error) {
    notify(errorText(error), "error");
  }

  async function load() {
    let state;
    try {
      state = await api.state();
    } catch (error) {
      if (alive) fill(body, h("p", { class: "error" }, `Accounts are unavailable: ${errorText(error)}`));
      return;
    }
    if (!alive) return;
    if (state.player) showSignedIn(state);
    else if (ctx.conn.player && !ctx.conn.player.guest) showTokenAccount(ctx.conn.player);
    else showSignedOut(state);
  }

  function signedIn(message) {
    notify(message, "info");
    ctx.conn.signedIn(); // hello again: the server greets the cookie's account
    load();
  }

  function showSignedOut(state) {
    const signIn = h(
      "form",
      {
        id: "sign-in",
        onsubmit: (event) => {
          event.preventDefault();
          const f = event.target.elements;
          api.post("/account/signin", { name: f.name.value.trim(), password: f.password.value })
            .then((data) => signedIn(`Signed in as ${data.player.name}.`), failed);
        },
      },
      h("h3", {}, "Sign in"),
      field("Name", { name: "name", autocomplete: "username" }),
      field("Password", { name: "password", type: "password", autocomplete: "current-password" }),
      h("button", { type: "submit" }, "Sign in"),
    );
    const signUp =
      state.registration === "open"
        ? h(
            "form",
            {
              id: "sign-up",
              onsubmit: (event) => {
                event.preventDefault();
                const f = event.target.elements;
                if (f.password.value !== f.again.value) {
                  notify("The two passwords differ.", "error");
                  return;
                }
                api.post("/account/signup", { name: f.name.value.trim(), password: f.password.value })
                  .then((data) => signedIn(`Welcome, ${data.player.name}: your account is ready.`), failed);
              },
            },
            h("h3", {}, "Create an account"),
            field("Name", { name: "name", autocomplete: "username", maxlength: 32 }),
            field("Password", { name: "password", type: "password", autocomplete: "new-password", minlength: 8 }),
            field("Password again", { name: "again", type: "password", autocomplete: "new-password", minlength: 8 }),
            h("button", { type: "submit" }, "Create account"),
          )
        : h("p", { id: "sign-up-closed", class: "muted" }, "This server does not take new accounts.");
    const withToken = h(
      "form",
      {
        id: "token-sign-in",
        onsubmit: (event) => {
          event.preventDefault();
          const token = event.target.elements.token.value.trim();
          if (token) ctx.conn.setAccountToken(token);
        },
      },
      h("h3", {}, "Sign in with a token"),
      h("input", { name: "token", type: "password", placeholder: "token from `arbiter player add`", autocomplete: "off" }),
      h("button", { class: "small", type: "submit" }, "Sign in"),
    );
    fill(body, h("div", { class: "account-forms" }, signIn, signUp), withToken);
  }

  function showTokenAccount(player) {
    // Signed in with a token (kept in this browser), not a password: no session, nothing to manage here.
    fill(
      body,
      h("p", {}, "Signed in as ", h("a", { href: `#/player/${encodeURIComponent(player.name)}` }, player.name),
        " with a token. ",
        h("button", { id: "sign-out", onclick: () => { ctx.conn.setAccountToken(null); notify("Signed out.", "info"); } },
          "Sign out")),
    );
  }

  function banText(ban, name) {
    const whose = ban.target.toLowerCase() === name.toLowerCase() ? "Banned" : `Banned with its owner ${ban.target}`;
    return `${whose} from this server${ban.reason ? `: ${ban.reason}` : ""}.`;
  }

  function botStatus(bot) {
    // Why a bot cannot play: a ban (its own or its owner's) first, then who revoked its token.
    if (bot.banned) return banText(bot.banned, bot.name);
    if (bot.revoked_by === "operator") return "revoked by the operator (only the operator can lift it)";
    return bot.revoked ? "revoked" : "active";
  }

  function showSignedIn(state) {
    const me = state.player;

    function showToken(bot, token) {
      const input = h("input", { id: "bot-token", readonly: true, value: token, size: 60 });
      fill(
        tokenBox,
        h(
          "div",
          { class: "panel token" },
          h("p", {}, `The token of ${bot}. It is shown only now: copy it into your bot's settings.`),
          input,
          h("button", {
            class: "small",
            id: "copy-token",
            onclick: () => {
              input.select();
              navigator.clipboard.writeText(token).then(() => notify("Token copied.", "info"), () => {});
            },
          }, "Copy"),
          h("p", { class: "muted" }, `Run it with: arbiter bot gomoku --name ${bot} --token <token>`),
        ),
      );
    }

    const bots = h(
      "table",
      { class: "bots", id: "my-bots" },
      h("tr", {}, h("th", {}, "bot"), h("th", {}, "token"), h("th", {}, "")),
      state.bots.map((bot) =>
        h(
          "tr",
          { "data-bot": bot.name },
          h("td", {}, h("a", { href: `#/player/${encodeURIComponent(bot.name)}` }, bot.name)),
          h("td", { class: "bot-status" }, botStatus(bot)),
          h(
            "td",
            {},
            bot.revoked_by === "operator" || bot.banned ? null : h("button", {
              class: "small",
              onclick: () =>
                api.post("/account/bots/rotate", { query: { name: bot.name } })
                  .then((data) => { showToken(data.bot, data.token); load(); }, failed),
            }, bot.revoked ? "New token" : "Rotate token"),
            bot.revoked
              ? null
              : h("button", {
                  class: "small",
                  onclick: () =>
                    api.post("/account/bots/revoke", { query: { name: bot.name } })
                      .then(() => { notify(`${bot.name}'s token is revoked.`, "info"); load(); }, failed),
                }, "Revoke"),
          ),
        ),
      ),
    );
    const newBot = h(
      "form",
      {
        id: "new-bot",
        onsubmit: (event) => {
          event.preventDefault();
          const name = event.target.elements.bot.value.trim();
          api.post("/account/bots/new", { query: { name } }).then((data) => {
            showToken(data.bot, data.token);
            load();
          }, failed);
        },
      },
      h("input", { name: "bot", required: true, maxlength: 32, placeholder: "new bot's name" }),
      h("button", { class: "small", type: "submit" }, "Create bot"),
    );
    const password = h(
      "form",
      {
        id: "change-password",
        onsubmit: (event) => {
          event.preventDefault();
          const f = event.target.elements;
          api.post("/account/password", { name: me.name, password: f.current.value, newPassword: f.fresh.value })
            .then(() => { notify("Password changed; your other sessions are signed out.", "info"); load(); }, failed);
        },
      },
      h("h3", {}, "Change password"),
      field("Current password", { name: "current", type: "password", autocomplete: "current-password" }),
      field("New password", { name: "fresh", type: "password", autocomplete: "new-password", minlength: 8 }),
      h("button", { class: "small", type: "submit" }, "Change"),
    );
    const signOut = h("button", {
      id: "sign-out",
      onclick: () =>
        api.post("/account/signout").then(() => {
          notify("Signed out.", "info");
          ctx.conn.setAccountToken(null);
          load();
        }, failed),
    }, "Sign out");
    fill(
      body,
      h("p", {}, "Signed in as ", h("a", { href: `#/player/${encodeURIComponent(me.name)}` }, me.name), ". ", signOut),
      me.banned ? h("p", { id: "account-banned", class: "panel error" }, banText(me.banned, me.name)) : null,
      h("h3", {}, "Your bots"),
      h("p", { class: "muted" }, "A bot connects with its own token and plays as an ordinary player; the lobby shows you as its owner."),
      tokenBox,
      bots,
      newBot,
      password,
    );
  }

  load();
  return {
    unmount() {
      alive = false;
    },
  };
}
