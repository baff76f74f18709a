/* Registers the service worker that makes Khelaghor installable and keeps the
   rules readable offline (templates/installable/sw.js). */
(function () {
  "use strict";
  // The offline page stands in for whatever address was opened (a room's,
  // reloaded on a train): "Try again" and the network coming back open that
  // address again, not the home page, which dropped the player's table.
  if (document.body && document.body.classList.contains("page-offline")) {
    var again = document.querySelector("[data-testid=offline-retry]");
    var own = again && again.dataset.offlinePath === location.pathname;
    if (again && !own) again.href = location.href;
    if (!own) window.addEventListener("online", function () { location.reload(); });
  }
  if (!("serviceWorker" in navigator)) return;
  var lang = document.documentElement.lang || "bn";
  window.addEventListener("load", function () {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (registration) {
      if (registration.active) registration.active.postMessage({ type: "language", lang: lang });
    }).catch(function () { /* no worker: the site works as before, online */ });
  });
})();
