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
    // "online" comes as soon as there is a link, often before it carries
    // anything: the address is asked for first, and opened once it answers
    // (a reload that failed showed this page again, with no second "online").
    var tries = 0;
    var reopen = function () {
      fetch(location.href, { cache: "no-store", credentials: "same-origin" })
        .then(function (answer) { if (answer.ok) location.reload(); else throw answer; })
        .catch(function () { if (++tries < 30) setTimeout(reopen, 1000); });
    };
    if (!own) window.addEventListener("online", function () { tries = 0; reopen(); });
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
