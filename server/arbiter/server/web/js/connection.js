// @ts-check
// The websocket to the Arbiter server: msgpack frames, request ids, events, and reconnecting.
//
// Every request gets a fresh integer `id`; the server echoes it as `re` on its reply or error, so
// request() returns a promise of the reply (or rejects with a ServerError carrying the error code).
// A move has no reply of its own: the server answers with the `moved` event everyone gets, so
// request() can also resolve on a later message that a predicate recognises.
//
// Identity across refreshes: a guest's `resume_token` (from welcome) is kept in sessionStorage, so
// a reload of this tab says hello with it and the server gives back the same guest and resyncs its
// live matches (within the server's reconnect grace). A registered player's token is kept in
// localStorage. Each tab keeps its own guest, so two tabs never fight over one connection. A person
// signed in with a password has neither: the handshake carries its session cookie, and a hello
// without a token is greeted as that account.

import { decode, encode } from "/vendor/msgpack/index.mjs"; // served by the server (web_routes.py)
import { CloseCode, ErrorCode, PROTOCOL_VERSION } from "./protocol.js";

// The messages' types, for tsc only: the protocol's generated protocol.d.ts (tsconfig.json's paths).
/** @typedef {import("arbiter-protocol").ClientMessage} ClientMessage */
/** @typedef {import("arbiter-protocol").ServerMessage} ServerMessage */
/** @typedef {import("arbiter-protocol").Welcome} Welcome */
/**
 * A client message's fields, but for `type` and the request `id` this module adds.
 * @template {ClientMessage["type"]} T
 * @typedef {Omit<Extract<ClientMessage, { type: T }>, "type" | "id">} Fields
 */
/** @typedef {{ until?: (message: any) => boolean }} RequestOptions */
/**
 * What a listener of `on(type)` is given: the server message of that type; for "error", a ServerError
 * (from an error message or this client); for "state", the state and when the next retry is.
 * @template {string} T
 * @typedef {T extends "error" ? ServerError : T extends "state" ? { state: string, retryAt: number } :
 *   T extends ServerMessage["type"] ? Extract<ServerMessage, { type: T }> : unknown} Detail
 */

const CLIENT_NAME = "arbiter-web/1";
const RESUME_KEY = "arbiter.resume_token";
const TOKEN_KEY = "arbiter.token";
const RETRY_DELAYS_MS = [300, 1000, 2000, 4000, 8000];
const REQUEST_TIMEOUT_MS = 15000;

export class ServerError extends Error {
  /**
   * @param {string} code one of ErrorCode, or this client's own: offline, disconnected, timeout, http
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

function storageGet(storage, key) {
  try {
    return storage.getItem(key);
  } catch {
    return null; // storage disabled (private mode): identity simply does not survive a reload
  }
}

function storageSet(storage, key, value) {
  try {
    if (value === null) storage.removeItem(key);
    else storage.setItem(key, value);
  } catch {
    /* as above */
  }
}

export class Connection {
  constructor(url) {
    this.url = url;
    this.state = "connecting"; // connecting | open | waiting | replaced | banned
    /** @type {Welcome | null} */
    this.welcome = null;
    this._socket = null;
    this._nextId = 1;
    this._pending = new Map(); // id -> {resolve, reject, timer, until}
    this._listeners = new Map(); // type -> Set of handlers
    this._attempt = 0;
    /** @type {number | undefined} */
    this._retryTimer = undefined;
    this._retryAt = 0;
    this._usedToken = null; // "resume" | "account" | null: which stored token the last hello carried
  }

  get player() {
    return this.welcome ? this.welcome.player : null;
  }

  /**
   * Listen to a server message type, or to "state" / "welcome" / "error"; returns the unsubscriber.
   * @template {ServerMessage["type"] | "state" | "client_error"} T
   * @param {T} type
   * @param {(detail: Detail<T>) => void} handler
   */
  on(type, handler) {
    if (!this._listeners.has(type)) this._listeners.set(type, new Set());
    this._listeners.get(type).add(handler);
    return () => this._listeners.get(type).delete(handler);
  }

  _emit(type, detail) {
    for (const handler of [...(this._listeners.get(type) || [])]) {
      try {
        handler(detail);
      } catch (error) {
        console.error(error);
        this._emit("client_error", error);
      }
    }
  }

  _setState(state) {
    this.state = state;
    this._emit("state", { state, retryAt: this._retryAt });
  }

  start() {
    this._open();
  }

  /** Connect again now (after "replaced", or to skip the back-off wait). */
  reconnect() {
    clearTimeout(this._retryTimer);
    if (this._socket) this._socket.close(1000, "reconnecting");
    else this._open();
  }

  /** Use a registered player's token from now on (null: back to guest), and reconnect. */
  setAccountToken(token) {
    storageSet(localStorage, TOKEN_KEY, token);
    storageSet(sessionStorage, RESUME_KEY, null);
    this.reconnect();
  }

  /** The browser signed in with a password (a session cookie): drop stored tokens and say hello again. */
  signedIn() {
    this.setAccountToken(null);
  }

  hasAccountToken() {
    return storageGet(localStorage, TOKEN_KEY) !== null;
  }

  _open() {
    this._socket = null;
    this._setState("connecting");
    let socket;
    try {
      socket = new WebSocket(this.url);
    } catch (error) {
      this._scheduleRetry();
      return;
    }
    socket.binaryType = "arraybuffer";
    this._socket = socket;
    socket.onopen = () => this._greet();
    socket.onmessage = (event) => this._receive(event.data);
    socket.onclose = (event) => this._closed(socket, event);
  }

  async _greet() {
    const account = storageGet(localStorage, TOKEN_KEY);
    const resume = storageGet(sessionStorage, RESUME_KEY);
    const token = account || resume;
    this._usedToken = account ? "account" : resume ? "resume" : null;
    /** @type {Fields<"hello">} */
    const fields = { protocol: PROTOCOL_VERSION, client: CLIENT_NAME, features: ["swap"] }; // the swap openings' choices
    if (token) fields.token = token;
    let welcome;
    try {
      welcome = await this._request("hello", fields, {});
    } catch (error) {
      this._helloRefused(error);
      return;
    }
    this._attempt = 0;
    this.welcome = welcome;
    if (welcome.player.guest) storageSet(sessionStorage, RESUME_KEY, welcome.resume_token);
    this._setState("open");
    this._emit("welcome", welcome);
  }

  _helloRefused(error) {
    if (!(error instanceof ServerError)) return; // the socket closed meanwhile: _closed retries
    if (error.code === ErrorCode.AUTH_FAILED && this._usedToken === "resume") {
      // The server forgot this guest (it left with no game, or past the grace): start as a new guest.
      storageSet(sessionStorage, RESUME_KEY, null);
      this._attempt = 0;
    } else if (error.code === ErrorCode.AUTH_FAILED && this._usedToken === "account") {
      storageSet(localStorage, TOKEN_KEY, null);
      this._attempt = 0;
      const text = `The server refused your token (${error.message}); playing as a guest.`;
      this._emit("error", new ServerError(error.code, text));
    } else {
      this._emit("error", error);
    }
  }

  _closed(socket, event) {
    if (socket !== this._socket) return;
    this._socket = null;
    for (const [id, pending] of this._pending) {
      clearTimeout(pending.timer);
      pending.reject(new ServerError("disconnected", "the connection to the server was lost"));
      this._pending.delete(id);
    }
    if (event.code === CloseCode.REPLACED) {
      this._setState("replaced");
      return;
    }
    if (event.code === CloseCode.BANNED) {
      this._setState("banned"); // coming back would be refused: no retries
      return;
    }
    if (event.code === CloseCode.HANDSHAKE_FAILED && this._attempt === 0) {
      this._open(); // a stale token was just dropped: try again at once
      this._attempt = 1;
      return;
    }
    this._scheduleRetry();
  }

  _scheduleRetry() {
    const delay = RETRY_DELAYS_MS[Math.min(this._attempt, RETRY_DELAYS_MS.length - 1)];
    this._attempt += 1;
    this._retryAt = Date.now() + delay;
    this._setState("waiting");
    clearTimeout(this._retryTimer);
    this._retryTimer = setTimeout(() => this._open(), delay);
  }

  _receive(data) {
    /** @type {any} */
    let message; // any value until the checks below
    try {
      message = decode(new Uint8Array(data));
    } catch (error) {
      this._emit("error", new ServerError(ErrorCode.BAD_FRAME, `could not read a message from the server: ${/** @type {Error} */ (error).message}`));
      return;
    }
    if (!message || typeof message !== "object" || typeof message.type !== "string") return;
    const pending = message.re !== undefined ? this._pending.get(message.re) : undefined;
    if (pending) {
      this._settle(message.re, pending, message);
      return;
    }
    for (const [id, waiting] of this._pending) {
      if (waiting.until && waiting.until(message)) this._settle(id, waiting, message);
    }
    if (message.type === "error") this._emit("error", new ServerError(message.code, message.message));
    this._emit(message.type, message);
  }

  _settle(id, pending, message) {
    this._pending.delete(id);
    clearTimeout(pending.timer);
    if (message.type === "error") pending.reject(new ServerError(message.code, message.message));
    else pending.resolve(message);
  }

  /**
   * Send a request; resolve with its reply, or with the first message `until(message)` accepts.
   * Rejects with ServerError: the server's error code, "offline", "disconnected" or "timeout".
   * @template {ClientMessage["type"]} T
   * @param {T} type
   * @param {Fields<T>} [fields]
   * @param {RequestOptions} [options]
   * @returns {Promise<any>}
   */
  request(type, fields = /** @type {Fields<T>} */ ({}), { until } = {}) {
    if (this.state !== "open") {
      return Promise.reject(new ServerError("offline", "not connected to the server; reconnecting"));
    }
    return this._request(type, fields, { until });
  }

  /**
   * @template {ClientMessage["type"]} T
   * @param {T} type
   * @param {Fields<T>} fields
   * @param {RequestOptions} options
   * @returns {Promise<any>}
   */
  _request(type, fields, { until }) {
    const socket = this._socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      return Promise.reject(new ServerError("offline", "not connected to the server; reconnecting"));
    }
    const id = this._nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this._pending.delete(id);
        reject(new ServerError("timeout", `the server did not answer ${type} in time`));
      }, REQUEST_TIMEOUT_MS);
      this._pending.set(id, { resolve, reject, timer, until });
      const message = { type, id };
      for (const [key, value] of Object.entries(fields)) {
        if (value !== undefined) message[key] = value;
      }
      socket.send(encode(message));
    });
  }
}
