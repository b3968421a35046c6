// @ts-check
// A classic script, not a module: it runs even when the modules cannot (a missing library, an old
// browser), and then says so instead of leaving a blank page. It lives in a file because the page's
// Content-Security-Policy runs no inline script.
setTimeout(function () {
  if (window.arbiterStarted) return;
  var loading = document.getElementById("loading");
  if (loading) loading.outerHTML = '<div class="panel error" role="alert"><h2>The client did not start</h2>' +
    "<p>The page's scripts failed to load. If you run this server, install the client's library " +
    "with <code>npm ci</code> and restart it; otherwise try reloading the page.</p></div>";
}, 4000);
