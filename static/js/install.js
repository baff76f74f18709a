/* Registers the service worker that makes Khelaghor installable and keeps the
   rules readable offline (templates/installable/sw.js). */
(function () {
  "use strict";
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
