// What the browser client's modules share beyond their imports, for tsc only (tsconfig.json).

interface Window {
  /** Set by app.js once the modules run: otherwise boot.js says the client did not start. */
  arbiterStarted?: boolean;
}
