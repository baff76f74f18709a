/* The room page, part 3: the socket and versioning.

   The server is the only authority (docs/protocol.md). The page keeps the last
   snapshot and `version` (store.js), redraws from it, and sends intentions. An
   update that skips a version waits a moment for the missing one (a busy server
   can publish a table's moves out of order); if it does not come, the page
   reconnects, which brings a fresh snapshot. It reconnects on its
   own with backoff (0.5 s doubling to 8 s, with jitter) and says so on screen;
   actions are disabled while it is not connected. After each snapshot or update
   is applied and drawn, the page dispatches `kg:update` (described in store.js). */
(function () {
  "use strict";
  var KG = window.KG, R = KG.room, S = KG.state, fmt = KG.fmt, el = KG.el;
  var BACKOFF_MIN = 500, BACKOFF_MAX = 8000;
  // A seated page's messages keep its seat "present"; a seat silent for 40 s counts as away.
  var PING_EVERY = 25000, PONG_WITHIN = 8000;
  // Seconds: a round trip longer than this is a stall, not the link's pace.
  var LAG_AT_MOST = 3;
  // Past capacity two server processes can publish one table's moves out of
  // order (docs/performance.md): an update that arrives before the one it
  // follows waits this long for it, then the page reconnects for the truth.
  R.REORDER_WAIT = 1500;
  var early = {};  // version -> an update that came before the one it follows

  function wsUrl() {
    return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/rooms/" + R.CODE + "/";
  }

  R.connect = function () {
    R.stop("retry");
    if (S.ws) return;
    R.setNet("connecting");
    var ws;
    try { ws = new WebSocket(wsUrl()); } catch (e) { scheduleRetry(); return; }
    S.ws = ws;
    ws.onopen = function () {
      S.connected = true;
      S.seedFor = null;
      startPing();
    };
    ws.onmessage = function (ev) {
      var msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      receive(msg);
    };
    ws.onclose = function (ev) {
      if (S.ws !== ws) return;
      S.ws = null;
      S.connected = false;
      S.pending = false;
      stopPing();
      if (ev.code === 4004) { R.setNet("gone"); R.render(); return; }
      scheduleRetry();
      R.render();
    };
    ws.onerror = function () { /* onclose follows */ };
  };

  function scheduleRetry(now) {
    if (S.timers.retry !== undefined) return;
    var base = Math.min(BACKOFF_MAX, BACKOFF_MIN * Math.pow(2, S.attempt));
    var delay = now ? 0 : Math.round(base / 2 + Math.random() * base / 2);  // jitter
    S.attempt += 1;
    S.retryAt = Date.now() + delay;
    R.setNet(navigator.onLine === false ? "offline" : "retrying");
    R.after("retry", R.connect, delay);
  }

  /* Drop the socket and come back with a fresh snapshot, now. */
  function resync() {
    if (S.ws) {
      var ws = S.ws;
      S.ws = null;
      S.connected = false;
      ws.onclose = null;
      try { ws.close(); } catch (e) { /* already closed */ }
    }
    stopPing();
    S.attempt = 0;
    // Now, not after the backoff's pending wait (up to 8 s): scheduleRetry
    // keeps a retry already waiting, and the network coming back found one.
    R.stop("retry");
    scheduleRetry(true);
  }

  function startPing() {
    R.every("ping", function () {
      timedPing();
      // A socket that stays silent is dead even if the browser has not noticed.
      R.after("pong", resync, PONG_WITHIN);
    }, PING_EVERY);
  }
  /* A ping whose pong times the link (S.lag, which the countdowns allow for). */
  function timedPing() {
    S.pingNo = (S.pingNo || 0) + 1;
    S.pingSent = { id: "lag" + S.pingNo, at: performance.now(), hidden: document.hidden };
    R.send({ type: "ping", id: S.pingSent.id });
  }
  function timed(pong) {
    var sent = S.pingSent;
    if (!sent || pong.id !== sent.id) return;
    S.pingSent = null;
    // A hidden page's timers and messages wait on the browser: no measure of the link.
    if (sent.hidden || document.hidden) return;
    var took = Math.min(LAG_AT_MOST, (performance.now() - sent.at) / 1000);
    S.lag = S.lag ? (S.lag + took) / 2 : took;
  }
  function stopPing() { R.stop("ping"); R.stop("pong"); }

  R.send = function (msg) {
    if (!S.ws || S.ws.readyState !== 1) return false;
    S.ws.send(JSON.stringify(msg));
    return true;
  };
  KG.send = R.send;

  /* A game move, once: further taps wait for the server's answer. A phone
     that several players share says for whom (the seat it shows). */
  R.act = function (action) {
    if (!S.connected || S.pending) return;
    var msg = { type: "action", version: S.version, action: action };
    if (R.device() && R.youSeat() !== null) msg.seat = R.youSeat();
    if (R.send(msg)) {
      S.timeUp = false;
      S.moveOut = true;
      S.lateMove = false;
      S.pending = true;
      R.render();
    }
  };

  window.addEventListener("offline", function () {
    R.setNet("offline");
    resync();
  });
  window.addEventListener("online", function () { resync(); });
  // A page hidden longer than this (ms) checks its socket as it comes back.
  R.CHECK_AFTER_HIDDEN = 5000;
  document.addEventListener("visibilitychange", function () {
    // Phones freeze background tabs; on return, make sure we are live.
    if (document.hidden) { S.hiddenAt = Date.now(); return; }
    var hiddenFor = S.hiddenAt ? Date.now() - S.hiddenAt : 0;
    S.hiddenAt = null;
    if (!S.connected) { resync(); return; }
    // A phone that slept may hold a socket whose connection died meanwhile
    // (a carrier's NAT forgets an idle one in minutes) without the browser
    // knowing: the next scheduled ping could be 25 s away, and the table
    // would sit stale and deaf to taps until then. Ask now: the answer, or
    // any message, keeps it; silence brings a fresh socket (and snapshot).
    if (hiddenFor > R.CHECK_AFTER_HIDDEN) {
      timedPing();
      R.after("pong", resync, PONG_WITHIN);
    }
  });

  // ---- messages from the server ---------------------------------------------------

  function receive(msg) {
    R.stop("pong");
    switch (msg.type) {
      case "snapshot":
        early = {};
        R.stop("reorder");
        S.attempt = 0;
        R.setNet("online");
        var hold = R.ownHold();
        R.adopt(msg, []);
        S.pending = false;
        contribute();
        R.sayWhileAway(hold);
        R.render();
        R.promptTurn();
        R.announceUpdate([], false);
        timedPing();  // the link's pace now, not 25 s later
        break;
      case "update":
        if (S.version !== null && msg.version !== S.version + 1) {
          // Something we have: but a snapshot sent straight to this socket
          // (after a stale move) can overtake the room's update it includes,
          // and that update's events were never said: say them now.
          if (msg.version <= S.version) {
            if (msg.version > (S.saidUpTo || 0)) {
              S.saidUpTo = msg.version;
              R.describeEvents(msg.events || [], R.youSeat());
            }
            return;
          }
          early[msg.version] = msg;               // a gap: wait a moment for what it skipped
          if (S.timers.reorder === undefined) {
            R.after("reorder", function () { R.stop("reorder"); early = {}; resync(); }, R.REORDER_WAIT);
          }
          return;
        }
        applyUpdate(msg);
        while (early[S.version + 1]) {
          var next = early[S.version + 1];
          delete early[next.version];
          applyUpdate(next);
        }
        Object.keys(early).forEach(function (v) { if (+v <= S.version) delete early[v]; });
        if (Object.keys(early).length === 0) R.stop("reorder");
        break;
      case "reaction":
        R.showReaction(msg.seat, msg.reaction);
        break;
      case "ratings":
        // Not versioned: the server sends it once the finished game's ratings
        // are updated, which may be before or after the update that ended it.
        if (R.adoptRatings(msg.game, msg.changes)) R.ratingsArrived(msg.game);
        break;
      case "error":
        // A move that reached the table after its turn's time ran out: the
        // table has moved on, and the player should know why their move did
        // not count (the computer made it for them).
        var late = msg.code === "stale_version" && S.lateMove;
        var said = late ? gettext("Too late: your time ran out before your move reached the table") : msg.message;
        S.pending = false;
        S.moveOut = S.lateMove = false;
        S.leaving = false;  // a refused "leave" keeps the player here
        if (msg.code !== "stale_version" || late) KG.announce(said || gettext("Something went wrong"));
        R.showError(said);
        R.render();
        break;
      case "pong":
        timed(msg);
        break;
      case "ok":
        break;
    }
  }

  function applyUpdate(msg) {
    S.pending = false;
    var seatBefore = R.youSeat(), events = msg.events || [];
    // The timer acted for this page while its move was on the way: the table
    // will refuse that move as stale, and says why then (receive, "error").
    // The first event of this seat after the move was sent tells which came
    // first: the move (it landed) or the timeout.
    var mine = S.moveOut ? events.filter(function (ev) { return ev.seat === seatBefore; })[0] : null;
    if (mine) {
      S.lateMove = mine.type === "timeout";
      S.moveOut = false;
    }
    var hold = R.ownHold();
    R.adopt(msg, events);
    contribute();
    S.saidUpTo = msg.version;
    if (seatBefore === null && R.youSeat() !== null) R.clearError();  // seated now
    R.describeEvents(events, seatBefore, hold);
    R.sayWhileAway(hold);
    R.render(events);
    R.promptTurn();
    R.announceUpdate(events, true);
  }

  /* Fair dice (docs/protocol.md): once the room shows the commitment for the
     next game (in the lobby, and again on the results after every game), a
     seated page sends a fresh contribution for it, once. */
  function contribute() {
    var you = S.snap.you, room = S.snap.room;
    var between = room.status === "lobby" || room.status === "finished";
    if (you && you.seat !== null && you.seat !== undefined && between && S.seedFor !== room.next_seed_hash) {
      if (R.send({ type: "seed", client_seed: KG.clientSeed() })) S.seedFor = room.next_seed_hash;
    }
  }

  // ---- the connection line ------------------------------------------------------

  var NET_TEXT = {
    connecting: function () { return gettext("Connecting…"); },
    online: function () { return gettext("Connected"); },
    offline: function () { return gettext("You are offline. We will reconnect as soon as the network is back."); },
    gone: function () { return gettext("This room is no longer available."); },
  };
  R.setNet = function (state) {
    S.net = state;
    var box = document.getElementById("net-status");
    R.stop("net");
    document.body.classList.toggle("is-offline", state !== "online");
    if (!box) return;
    box.dataset.state = state;
    // The box is a live region: what it says is said once per kind of trouble.
    // The seconds to the next try, and each try between them ("Connecting…"
    // after a loss), show on screen only; a screen reader heard them every
    // half second.
    var lost = state === "retrying" || (state === "connecting" && S.attempt > 0);
    var said = lost ? gettext("Connection lost. Reconnecting…") : NET_TEXT[state] ? NET_TEXT[state]() : "";
    var spoken = box.querySelector(".net-said"), shown = box.querySelector(".net-shown");
    if (!spoken || !shown) {
      KG.clear(box);
      spoken = box.appendChild(el("span", { class: "net-said visually-hidden" }));
      shown = box.appendChild(el("span", { class: "net-shown", "aria-hidden": "true" }));
    }
    if (spoken.textContent !== said) spoken.textContent = said;
    function paint() {
      if (state === "retrying") {
        var secs = Math.max(0, Math.ceil((S.retryAt - Date.now()) / 1000));
        shown.textContent = secs > 0
          ? fmt(gettext("Connection lost. Reconnecting in %(n)s s…"), { n: secs })
          : gettext("Connection lost. Reconnecting…");
      } else {
        shown.textContent = NET_TEXT[state] ? NET_TEXT[state]() : "";
      }
    }
    paint();
    if (state === "retrying") R.every("net", paint, 500);
  };
})();
