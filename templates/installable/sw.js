/* Khelaghor's service worker (served at /sw.js by config.installable).
 *
 * - Static files: from the cache first when their names carry a hash of their
 *   content (production); from the network first otherwise (development).
 * - The offline page and the rules pages: stored at install, then fetched from
 *   the network first and stored again, so the rules stay readable offline in
 *   the language last read.
 * - Any other page: the network; without one, the offline page.
 * - Live rooms, sockets, the API, the admin and accounts (CONFIG.never) are
 *   never answered from a cache nor stored: a table must never look live when
 *   it is not. Offline, opening one shows the offline page.
 */
"use strict";

const CONFIG = {{ config|safe }};
const CACHE = "khelaghor-" + CONFIG.version;
// Pages vary by cookie and language; offline, the stored copy is the one to show.
const MATCH = { ignoreVary: true };

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll(CONFIG.pages.concat(CONFIG.assets)).then(() => noteLanguage(cache)))
      .then(() => self.skipWaiting())
  );
});

// The pages just stored are in the language the server chose for this browser
// (its cookie, else Accept-Language), which is the page's own on a first
// visit: noted, so the page's "language" message does not fetch them all again.
async function noteLanguage(cache) {
  const stored = await cache.match(CONFIG.offline, MATCH);
  const lang = stored && stored.headers.get("Content-Language");
  if (lang) await cache.put("/__language", new Response(lang));
}

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(
        keys.filter((key) => key.startsWith("khelaghor-") && key !== CACHE)
          .map((key) => caches.delete(key))))
      .then(() => self.clients.claim())
  );
});

// The page says which language it shows; the stored pages follow it.
self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.type !== "language" || typeof data.lang !== "string") return;
  event.waitUntil(caches.open(CACHE).then(async (cache) => {
    const marker = await cache.match("/__language", MATCH);
    if (marker && (await marker.text()) === data.lang) return;
    await cache.addAll(CONFIG.pages);
    await cache.put("/__language", new Response(data.lang));
  }));
});

function neverCached(url) {
  return CONFIG.never.some((prefix) => url.pathname.startsWith(prefix));
}

async function fromCacheFirst(request) {
  const cached = await caches.match(request, MATCH);
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) (await caches.open(CACHE)).put(request, response.clone());
  return response;
}

async function fromNetworkFirst(request, store) {
  try {
    const response = await fetch(request);
    if (store && response.ok) (await caches.open(CACHE)).put(request, response.clone());
    return response;
  } catch (offline) {
    const cached = store ? await caches.match(request, { ignoreSearch: true, ignoreVary: true }) : null;
    const fallback = request.mode === "navigate" ? await caches.match(CONFIG.offline, MATCH) : null;
    return cached || fallback || Response.error();
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) {
    return; // the browser fetches it as if there were no worker
  }
  if (neverCached(url)) {
    // Live: straight from the network, never stored. Opening one offline
    // shows the offline page rather than the browser's error.
    if (request.mode === "navigate") event.respondWith(fromNetworkFirst(request, false));
    return;
  }
  if (url.pathname.startsWith(CONFIG.staticPrefix)) {
    event.respondWith(CONFIG.staticHashed ? fromCacheFirst(request) : fromNetworkFirst(request, true));
  } else if (CONFIG.pages.includes(url.pathname)) {
    event.respondWith(fromNetworkFirst(request, true));
  } else if (request.mode === "navigate") {
    event.respondWith(fromNetworkFirst(request, false));
  }
});
