/* The room page: one socket, one state, three faces (lobby, table, results).

   The server is the only authority (docs/protocol.md). This file keeps the last
   snapshot and `version`, redraws from it, and sends intentions. On a version
   gap it reconnects, which brings a fresh snapshot. It reconnects on its own
   with backoff (0.5 s doubling to 8 s, with jitter) and says so on screen;
   actions are disabled while it is not connected. The game-specific drawing
   lives in liars_dice.js, ludo.js and snakes.js (KG.games[name]). */
(function () {
  "use strict";
  var KG = window.KG, t = KG.t, el = KG.el, fmt = KG.fmt, digits = KG.digits;
  var root = document.getElementById("room");
  if (!root) return;

  var CODE = root.dataset.code;
  var SHARE_URL = root.dataset.shareUrl || location.href;
  var BACKOFF_MIN = 500, BACKOFF_MAX = 8000;
  // A seated page's messages keep its seat "present"; a seat silent for 40 s counts as away.
  var PING_EVERY = 25000, PONG_WITHIN = 8000;

  var S = {
    snap: null,            // the last snapshot/update merged: {version, you, room, game}
    version: null,
    ws: null,
    connected: false,
    attempt: 0,
    retryAt: 0,
    retryTimer: null,
    pingTimer: null,
    pongTimer: null,
    offset: 0,             // server clock minus ours, in seconds (from server_time)
    removed: false,        // a moderator took this page's player out of their seat
    luck: {},              // game id -> the luck report, or "loading"
    pending: false,        // an action is on its way; avoid double taps
    seedFor: null,         // the server-seed commitment this page has contributed to
    lastEvents: [],
  };
  KG.state = S;

  var initial = document.getElementById("room-snapshot");
  if (initial) {
    try { adopt(JSON.parse(initial.textContent), []); } catch (e) { /* the socket brings one */ }
  }

  // ---- the socket ----------------------------------------------------------------

  function wsUrl() {
    return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/rooms/" + CODE + "/";
  }

  function connect() {
    clearTimeout(S.retryTimer);
    S.retryTimer = null;
    if (S.ws) return;
    setNet("connecting");
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
      if (ev.code === 4004) { setNet("gone"); render(); return; }
      scheduleRetry();
      render();
    };
    ws.onerror = function () { /* onclose follows */ };
  }

  function scheduleRetry(now) {
    if (S.retryTimer) return;
    var base = Math.min(BACKOFF_MAX, BACKOFF_MIN * Math.pow(2, S.attempt));
    var delay = now ? 0 : Math.round(base / 2 + Math.random() * base / 2);  // jitter
    S.attempt += 1;
    S.retryAt = Date.now() + delay;
    setNet(navigator.onLine === false ? "offline" : "retrying");
    S.retryTimer = setTimeout(connect, delay);
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
    scheduleRetry(true);
  }

  function startPing() {
    stopPing();
    S.pingTimer = setInterval(function () {
      send({ type: "ping" });
      clearTimeout(S.pongTimer);
      // A socket that stays silent is dead even if the browser has not noticed.
      S.pongTimer = setTimeout(function () { resync(); }, PONG_WITHIN);
    }, PING_EVERY);
  }
  function stopPing() {
    clearInterval(S.pingTimer);
    clearTimeout(S.pongTimer);
  }

  function send(msg) {
    if (!S.ws || S.ws.readyState !== 1) return false;
    S.ws.send(JSON.stringify(msg));
    return true;
  }
  KG.send = send;

  function act(action) {
    if (!S.connected || S.pending) return;
    if (send({ type: "action", version: S.version, action: action })) {
      S.pending = true;
      render();
    }
  }

  window.addEventListener("offline", function () {
    setNet("offline");
    resync();
  });
  window.addEventListener("online", function () { resync(); });
  document.addEventListener("visibilitychange", function () {
    // Phones freeze background tabs; on return, make sure we are live.
    if (!document.hidden && !S.connected) resync();
  });

  // ---- messages from the server ---------------------------------------------------

  function receive(msg) {
    clearTimeout(S.pongTimer);
    switch (msg.type) {
      case "snapshot":
        S.attempt = 0;
        setNet("online");
        adopt(msg, []);
        S.pending = false;
        afterConnect();
        render();
        break;
      case "update":
        if (S.version !== null && msg.version !== S.version + 1) {
          if (msg.version <= S.version) return;  // an echo of something we have
          resync();                                // a gap: ask for the truth
          return;
        }
        S.pending = false;
        var seatBefore = youSeat();
        adopt(msg, msg.events || []);
        contribute();
        describeEvents(msg.events || [], seatBefore);
        render(msg.events || []);
        break;
      case "reaction":
        showReaction(msg.seat, msg.reaction);
        break;
      case "error":
        S.pending = false;
        if (msg.code !== "stale_version") KG.announce(msg.message || gettext("Something went wrong"));
        showError(msg.message);
        render();
        break;
      case "pong":
      case "ok":
        break;
    }
  }

  function adopt(msg, events) {
    var prev = S.snap;
    // The countdown runs on the server's clock: deadline - server_time is what is
    // left, however far off this device's clock is.
    if (typeof msg.server_time === "number") S.offset = msg.server_time - Date.now() / 1000;
    S.prevGame = prev && prev.game;
    S.snap = {
      version: msg.version,
      you: msg.you || (prev && prev.you) || { seat: null, is_host: false },
      room: msg.room || (prev && prev.room),
      game: msg.game !== undefined ? msg.game : prev && prev.game,
    };
    S.version = msg.version;
    S.lastEvents = events;
    document.dispatchEvent(new CustomEvent("kg:update", { detail: { events: events, snap: S.snap, you: youSeat(), fresh: msg.type === "update" } }));  // kg:update hook (feel)
  }

  function afterConnect() {
    contribute();
  }

  /* Fair dice (docs/protocol.md): once the room shows the commitment for the
     next game (in the lobby, and again on the results after every game), a
     seated page sends a fresh contribution for it, once. */
  function contribute() {
    var you = S.snap.you, room = S.snap.room;
    var between = room.status === "lobby" || room.status === "finished";
    if (you && you.seat !== null && you.seat !== undefined && between && S.seedFor !== room.next_seed_hash) {
      if (send({ type: "seed", client_seed: KG.clientSeed() })) S.seedFor = room.next_seed_hash;
    }
  }

  // ---- names and words ------------------------------------------------------------

  function seatOf(i) {
    var seats = (S.snap && S.snap.room && S.snap.room.seats) || [];
    return seats[i] || { seat: i, kind: "open" };
  }
  function nameOf(i) {
    if (i === null || i === undefined) return "";
    var s = seatOf(i);
    if (s.name) return s.name;
    if (s.kind === "bot") return fmt(gettext("Computer %(n)s"), { n: i + 1 });
    return fmt(gettext("Seat %(n)s"), { n: i + 1 });
  }
  KG.nameOf = nameOf;
  function youSeat() {
    var you = S.snap && S.snap.you;
    return you && typeof you.seat === "number" ? you.seat : null;
  }

  var GAME_TITLES = {
    liars_dice: function () { return gettext("Liar's Dice"); },
    ludo: function () { return gettext("Ludo"); },
    snakes: function () { return gettext("Snakes & Ladders"); },
  };

  // Reasons the server itself gives for closing a room, translated where shown.
  function gettext_noop(x) { return x; }
  gettext_noop("Closed after sitting idle");
  gettext_noop("This room has been closed");
  function reasonText(reason) { return reason ? t(reason) : ""; }

  function describeEvents(events, seatBefore) {
    var mod = KG.games[S.snap.room.game], finished = false;
    events.forEach(function (ev) {
      var who = nameOf(ev.seat), text = null;
      switch (ev.type) {
        case "joined": text = fmt(gettext("%(name)s sat down"), { name: who }); break;
        case "left": text = fmt(gettext("%(name)s left the seat"), { name: who }); break;
        case "started": text = gettext("The game has started"); S.removed = false; break;
        case "timeout": text = fmt(gettext("Time up for %(name)s"), { name: who }); break;
        case "takeover": text = fmt(gettext("The computer is holding %(name)s's seat"), { name: who }); break;
        case "reclaim": text = fmt(gettext("%(name)s is back"), { name: who }); break;
        case "removed":
          if (ev.seat === seatBefore) {
            S.removed = true;
            text = gettext("A moderator removed you from this seat");
          } else {
            text = S.snap.room.status === "playing"
              ? fmt(gettext("A moderator removed the player in seat %(n)s; a computer plays it now"), { n: ev.seat + 1 })
              : fmt(gettext("A moderator removed the player in seat %(n)s"), { n: ev.seat + 1 });
          }
          break;
        case "renamed":
          text = ev.seat === youSeat()
            ? fmt(gettext("A moderator changed your name to %(name)s"), { name: who })
            : fmt(gettext("A moderator changed the name in seat %(n)s to %(name)s"), { n: ev.seat + 1, name: who });
          break;
        case "closed":
          text = ev.reason ? fmt(gettext("The room was closed: %(reason)s"), { reason: reasonText(ev.reason) }) : gettext("The room was closed");
          break;
        case "finished":
          finished = true;
          text = finishedText(ev.placings || []);
          break;
        default: if (mod && mod.describe) text = mod.describe(ev, ctx());
      }
      if (text) KG.announce(text);
    });
    var g = S.snap.game;
    if (!finished && g && g.status !== "in_progress" && S.prevGame && S.prevGame.status === "in_progress" &&
        S.snap.room.status !== "closed") {
      KG.announce(gettext("The game is over"));
    }
  }

  function finishedText(placings) {
    if (!placings.length) return gettext("The game is over");
    var text = fmt(gettext("The game is over. %(name)s wins."), { name: nameOf(placings[0]) });
    if (placings.length > 1) {
      text += " " + fmt(gettext("Places: %(list)s."), {
        list: placings.map(function (seat, i) { return ordinal(i + 1) + " " + nameOf(seat); }).join(", "),
      });
    }
    return text;
  }

  // ---- drawing --------------------------------------------------------------------

  var NET_TEXT = {
    connecting: function () { return gettext("Connecting…"); },
    online: function () { return gettext("Connected"); },
    offline: function () { return gettext("You are offline. We will reconnect as soon as the network is back."); },
    gone: function () { return gettext("This room is no longer available."); },
  };
  var netState = "connecting", netTicker = null;
  function setNet(state) {
    netState = state;
    var box = document.getElementById("net-status");
    if (!box) return;
    box.dataset.state = state;
    clearInterval(netTicker);
    function paint() {
      if (state === "retrying") {
        var secs = Math.max(0, Math.ceil((S.retryAt - Date.now()) / 1000));
        box.textContent = secs > 0
          ? fmt(gettext("Connection lost. Reconnecting in %(n)s s…"), { n: secs })
          : gettext("Connection lost. Reconnecting…");
      } else {
        box.textContent = NET_TEXT[state] ? NET_TEXT[state]() : "";
      }
    }
    paint();
    if (state === "retrying") netTicker = setInterval(paint, 500);
    document.body.classList.toggle("is-offline", state !== "online");
  }

  var errorTimer = null;
  function showError(message) {
    var box = document.getElementById("room-error");
    if (!box || !message) return;
    box.textContent = message;
    box.hidden = false;
    clearTimeout(errorTimer);
    errorTimer = setTimeout(function () { box.hidden = true; }, 5000);
  }

  function ctx() {
    var snap = S.snap, game = snap.game || {};
    var you = youSeat();
    return {
      snap: snap, room: snap.room, game: snap.game, view: game.view || {},
      prevView: S.prevGame && S.prevGame.view, events: S.lastEvents || [],
      you: you, legal: game.legal || [], canAct: S.connected && !S.pending,
      act: act, nameOf: nameOf, seat: seatOf,
    };
  }

  /* Rebuild the page from the state, keeping the focused control focused. */
  function render(events) {
    if (!S.snap || !S.snap.room) return;
    var active = document.activeElement, focusKey = active && active.dataset && active.dataset.key;
    var status = S.snap.room.status;
    var view = status === "lobby" ? "lobby" : status === "closed" ? "closed" : "table";
    if (root.dataset.view !== view) {
      KG.clear(root);
      root.dataset.view = view;
      if (view === "table") buildTableShell();
    }
    if (view === "lobby") renderLobby();
    else if (view === "closed") renderClosed();
    else renderTable(events || []);
    placeReport();
    // State the page is in, for tests and for styling.
    root.dataset.status = status;
    root.dataset.connected = S.connected ? "yes" : "no";
    root.dataset.version = String(S.version);
    root.dataset.youSeat = youSeat() === null ? "" : String(youSeat());
    if (focusKey && document.activeElement !== active) {
      var again = root.querySelector('[data-key="' + focusKey + '"]');
      if (again && !again.disabled) again.focus();
    }
  }
  KG.render = render;

  function header(title) {
    return el("div", { class: "room-head" },
      el("h1", { class: "room-title" }, title, " ",
        el("span", { class: "room-code-small", "aria-label": fmt(gettext("room code %(code)s"), { code: CODE.split("").join(" ") }) }, CODE)),
      el("p", { id: "room-error", class: "message message-error", role: "alert", hidden: true }));
  }

  // ---- lobby ----------------------------------------------------------------------

  function renderLobby() {
    var room = S.snap.room, you = S.snap.you || {}, mine = youSeat();
    var isHost = !!you.is_host;
    var seats = room.seats || [];
    var open = seats.filter(function (s) { return s.kind === "open"; }).length;
    KG.clear(root);
    root.appendChild(header(GAME_TITLES[room.game] ? GAME_TITLES[room.game]() : room.game));

    // The code, large, with ways to pass it on.
    var share = el("section", { class: "card lobby-code", "aria-labelledby": "code-title" },
      el("h2", { id: "code-title" }, gettext("Room code")),
      el("p", { class: "big-code", "data-testid": "room-code" }, CODE),
      el("p", { class: "hint" }, gettext("Friends type this code on the home page, or open the link.")),
      el("div", { class: "share-row" },
        el("button", { type: "button", "data-key": "copy", onclick: copyLink }, gettext("Copy link")),
        navigator.share ? el("button", { type: "button", "data-key": "share", onclick: shareLink }, gettext("Share")) : null,
        el("a", {
          class: "button", href: "https://wa.me/?text=" + encodeURIComponent(fmt(gettext("Play %(game)s with me on Khelaghor: %(url)s"),
            { game: GAME_TITLES[room.game] ? GAME_TITLES[room.game]() : room.game, url: SHARE_URL })),
          target: "_blank", rel: "noopener noreferrer",
        }, gettext("WhatsApp"))),
      el("p", { id: "copy-status", class: "hint", role: "status" }));
    root.appendChild(share);

    // Who is here.
    var list = el("ul", { class: "seat-list", "aria-label": gettext("Seats") });
    seats.forEach(function (s) {
      var row = el("li", { class: "seat-row" + (s.seat === mine ? " is-you" : ""), "data-seat": s.seat },
        KG.seatBadge(s.seat),
        connDot(s),
        el("span", { class: "seat-name" }, s.kind === "open" ? gettext("Empty seat") : nameOf(s.seat)),
        s.seat === 0 && s.kind === "human" ? el("span", { class: "tag" }, gettext("host")) : null,
        s.kind === "bot" ? el("span", { class: "tag" }, s.bot === EASY_BOT[room.game] ? gettext("computer, easy") : gettext("computer")) : null,
        s.seat === mine ? el("span", { class: "tag" }, gettext("you")) : null);
      if (s.kind === "open" && mine === null) {
        row.appendChild(el("button", {
          type: "button", class: "button-small button-primary", "data-key": "sit-" + s.seat,
          disabled: !S.connected, onclick: function () { join(s.seat); },
        }, gettext("Sit here")));
      }
      if (isHost && s.kind === "open") {
        row.appendChild(el("button", {
          type: "button", class: "button-small", "data-key": "bot-" + s.seat, "data-testid": "add-bot",
          disabled: !S.connected, onclick: function () { send({ type: "add_bot", seat: s.seat, bot: botLevel(room) }); },
        }, gettext("Add computer")));
      }
      if (isHost && s.kind === "bot") {
        row.appendChild(el("button", {
          type: "button", class: "button-small", "data-key": "rm-" + s.seat,
          disabled: !S.connected, onclick: function () { send({ type: "remove_bot", seat: s.seat }); },
        }, gettext("Remove")));
      }
      list.appendChild(row);
    });
    var seatsCard = el("section", { class: "card", "aria-labelledby": "seats-title" },
      el("h2", { id: "seats-title" }, gettext("Players")), list);
    if (mine === null) {
      var nameInput = el("input", { id: "join-name", maxlength: "20", value: you.name || "", autocomplete: "nickname", "data-key": "join-name" });
      seatsCard.appendChild(el("form", { class: "stack", style: { marginTop: "0.75rem" }, onsubmit: function (ev) { ev.preventDefault(); join(null, nameInput.value); } },
        el("label", { for: "join-name" }, gettext("Your nickname")), nameInput,
        el("button", { type: "submit", class: "button-primary", "data-key": "join", "data-testid": "join-seat", disabled: !S.connected || open === 0 },
          open ? gettext("Take a seat") : gettext("The table is full"))));
    } else if (!isHost) {
      seatsCard.appendChild(el("p", { class: "controls", style: { marginTop: "0.5rem" } },
        el("span", { class: "grow hint" }, room.visibility === "public" ? gettext("The game starts by itself in a moment.") : gettext("Waiting for the host to start the game.")),
        el("button", { type: "button", "data-key": "leave", disabled: !S.connected, onclick: function () { send({ type: "leave" }); } }, gettext("Leave seat"))));
    }
    root.appendChild(seatsCard);

    if (isHost) root.appendChild(hostControls(room, open));

    root.appendChild(el("section", { class: "card fairness" },
      el("h2", {}, gettext("Fair dice")),
      el("p", { class: "hint" }, gettext("The fingerprint of the next game's secret seed. It is revealed after the game so anyone can check the dice.")),
      el("p", { class: "seed-hash", "data-testid": "seed-hash" }, room.next_seed_hash || "")));
    root.appendChild(reactionBar());
  }

  // The easier computer of each game (games/bots): Liar's Dice `easy`, Ludo `smart`.
  var EASY_BOT = { liars_dice: "easy", ludo: "smart" };

  function botLevel(room) {
    return S.botLevel && (S.botLevel === "standard" || S.botLevel === EASY_BOT[room.game]) ? S.botLevel : "standard";
  }

  function hostControls(room, open) {
    var box = el("section", { class: "card host-controls", "aria-labelledby": "host-title" },
      el("h2", { id: "host-title" }, gettext("Host")));
    var pace = el("select", { id: "pace-select", "data-key": "pace", disabled: !S.connected, onchange: function () {
      send({ type: "set_options", options: {}, pace: pace.value });
    } },
      el("option", { value: "normal", selected: room.pace === "normal" }, gettext("Normal: 15 seconds a move")),
      el("option", { value: "party", selected: room.pace === "party" }, gettext("Party: 30 seconds a move, for new players")));
    box.appendChild(el("label", { for: "pace-select" }, gettext("Pace")));
    box.appendChild(pace);
    if (EASY_BOT[room.game]) {
      // Two levels for new players: the strong `standard` computer, or an easier one.
      var level = el("select", { id: "bot-level", "data-key": "bot-level", onchange: function () { S.botLevel = level.value; } },
        el("option", { value: "standard", selected: botLevel(room) === "standard" }, gettext("Strong")),
        el("option", { value: EASY_BOT[room.game], selected: botLevel(room) !== "standard" }, gettext("Easy")));
      box.appendChild(el("label", { for: "bot-level" }, gettext("Computer players")));
      box.appendChild(level);
    }
    if (room.game === "ludo" && room.visibility !== "public") {
      var on = !room.options || room.options.home_bonus_roll !== false;
      var cb = el("input", { type: "checkbox", id: "home-bonus", checked: on, "data-key": "home-bonus", disabled: !S.connected, onchange: function () {
        send({ type: "set_options", options: { home_bonus_roll: cb.checked } });
      } });
      box.appendChild(el("label", { class: "choice" }, cb, el("span", {}, gettext("Bringing a token home earns another roll"))));
    }
    if (room.visibility !== "public") {
      // Quick play is always rated; a private table only when its host says so.
      var rated = el("input", { type: "checkbox", id: "rated", checked: !!(room.options && room.options.rated), "data-key": "rated", "data-testid": "rated", disabled: !S.connected, onchange: function () {
        send({ type: "set_options", options: { rated: rated.checked } });
      } });
      box.appendChild(el("label", { class: "choice" }, rated, el("span", {}, gettext("Rated game: the results change the ratings of players with an account"))));
    }
    if (open) {
      box.appendChild(el("button", { type: "button", "data-key": "fill", "data-testid": "fill-bots", disabled: !S.connected, onclick: function () {
        (room.seats || []).forEach(function (s) { if (s.kind === "open") send({ type: "add_bot", seat: s.seat, bot: botLevel(room) }); });
      } }, gettext("Fill empty seats with computers")));
    }
    box.appendChild(el("button", {
      type: "button", class: "button-primary big-button", "data-key": "start", "data-testid": "start",
      disabled: !S.connected || open > 0, onclick: function () { send({ type: "start" }); },
    }, gettext("Start the game")));
    if (open) box.appendChild(el("p", { class: "hint" }, gettext("Every seat needs a player or a computer before the start.")));
    return box;
  }

  function join(seat, name) {
    var msg = { type: "join", client_seed: KG.clientSeed() };
    if (seat !== null && seat !== undefined) msg.seat = seat;
    if (name) msg.name = name;
    if (send(msg)) S.seedFor = S.snap.room.next_seed_hash;
  }

  function copyLink() {
    var status = document.getElementById("copy-status");
    function done(ok) { if (status) status.textContent = ok ? gettext("Link copied") : SHARE_URL; }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(SHARE_URL).then(function () { done(true); }, function () { done(false); });
    } else done(false);
  }
  function shareLink() {
    navigator.share({ title: gettext("Khelaghor"), text: fmt(gettext("Room code %(code)s"), { code: CODE }), url: SHARE_URL })
      .catch(function () { /* the person closed the sheet */ });
  }

  function connDot(s) {
    if (s.kind === "bot") return el("span", { class: "conn bot", title: gettext("computer"), "aria-label": gettext("computer") });
    if (s.kind !== "human") return el("span", { class: "conn", "aria-hidden": "true" });
    var on = s.connected && !s.held;
    var label = s.held ? gettext("away: the computer is holding the seat") : s.connected ? gettext("connected") : gettext("away");
    return el("span", { class: "conn" + (on ? " on" : ""), role: "img", "aria-label": label, title: label });
  }

  /* A closed room: the reason, large, and nothing left to press but the way out. */
  function renderClosed() {
    KG.clear(root);
    root.appendChild(header(gettext("Room closed")));
    var reason = reasonText(S.snap.room.closed_reason);
    root.appendChild(el("section", { class: "card closed-card", "data-testid": "closed-reason", role: "alert" },
      el("h2", {}, gettext("The room was closed")),
      el("p", { class: "closed-reason" }, reason ? fmt(gettext("Reason: %(reason)s"), { reason: reason }) : gettext("This room is no longer available."))));
    var game = S.snap.game, row = el("p", { class: "actions" });
    if (game && game.page_url) row.appendChild(el("a", { class: "button", href: game.page_url }, gettext("See the game and its replay")));
    row.appendChild(el("a", { class: "button button-primary", href: root.dataset.homeUrl }, gettext("Back to the start")));
    root.appendChild(row);
  }

  // ---- table ----------------------------------------------------------------------

  var parts = {};
  function buildTableShell() {
    var room = S.snap.room;
    parts.head = header(GAME_TITLES[room.game] ? GAME_TITLES[room.game]() : room.game);
    parts.turn = el("div", { class: "turn-bar" });
    parts.seats = el("ul", { class: "table-seats", "aria-label": gettext("Players") });
    parts.held = el("div", { class: "held-banner", hidden: true });
    parts.removed = el("p", { class: "message message-error removed-banner", "data-testid": "removed-banner", hidden: true },
      el("strong", {}, gettext("A moderator removed you from this seat")), el("br"),
      gettext("A computer plays it now; you can watch the rest of the game."));
    parts.results = el("section", { class: "card results", hidden: true, "aria-labelledby": "results-title" });
    parts.board = el("div", { class: "board-col" });
    parts.controls = el("div", { class: "controls-col" });
    parts.side = el("div", { class: "side-col" }, parts.controls);
    parts.reactions = el("div", {});
    parts.fair = el("div", {});
    parts.log = el("details", { class: "panel" }, el("summary", {}, gettext("What happened")), el("ol", { id: "event-log", class: "log" }));
    root.appendChild(parts.head);
    root.appendChild(parts.results);
    root.appendChild(parts.turn);
    root.appendChild(parts.seats);
    root.appendChild(parts.held);
    root.appendChild(parts.removed);
    root.appendChild(el("div", { class: "table-layout" }, parts.board, el("div", {}, parts.side, parts.reactions, parts.log, parts.fair)));
    parts.module = null;
  }

  function renderTable(events) {
    var snap = S.snap, room = snap.room, game = snap.game;
    var mod = KG.games[room.game];
    var c = ctx();
    // Seats strip.
    KG.clear(parts.seats);
    (room.seats || []).forEach(function (s) {
      var turnSeat = game && game.turn ? game.turn.seat : null;
      var placed = game && game.placings ? game.placings.indexOf(s.seat) : -1;
      var colour = mod && mod.colourOf ? mod.colourOf(s.seat, c) : s.seat;
      var li = el("li", {
        class: "table-seat" + (s.seat === turnSeat ? " is-turn" : "") + (mod && mod.isOut && mod.isOut(s.seat, c) ? " is-out" : ""),
        "data-seat": s.seat, "aria-current": s.seat === turnSeat ? "true" : null,
      }, KG.seatBadge(colour),
        el("span", { class: "seat-name" }, nameOf(s.seat) + (s.seat === c.you ? " (" + gettext("you") + ")" : "")),
        el("span", { class: "seat-extra" }, connDot(s),
          mod && mod.seatExtra ? mod.seatExtra(s.seat, c) : "",
          placed >= 0 && game.status !== "in_progress" ? el("span", { class: "tag" }, ordinal(placed + 1)) : null));
      parts.seats.appendChild(li);
    });

    renderTurn(game);
    renderHeld();
    parts.removed.hidden = !S.removed || youSeat() !== null;
    renderResults();
    if (mod) {
      mod.render(parts.board, parts.controls, c, events);
    }
    KG.clear(parts.reactions).appendChild(reactionBar());
    KG.clear(parts.fair).appendChild(fairnessPanel(game));
  }

  function ordinal(n) {
    return [null, gettext("1st"), gettext("2nd"), gettext("3rd"), gettext("4th"), gettext("5th"), gettext("6th")][n] || digits(n);
  }
  KG.ordinal = ordinal;

  // The countdown ring: drawn from turn.deadline, corrected by the server clock offset.
  var ticker = null;
  function renderTurn(game) {
    KG.clear(parts.turn);
    clearInterval(ticker);
    if (!game || game.status !== "in_progress" || !game.turn) {
      parts.turn.appendChild(el("p", { class: "turn-text" }, game && game.status !== "in_progress" ? gettext("The game is over") : gettext("Waiting…")));
      return;
    }
    var turn = game.turn, mine = turn.seat === youSeat();
    var text;
    if (turn.seat === null || turn.seat === undefined) text = gettext("The dice are rolling…");
    else if (mine) text = gettext("Your turn");
    else if (turn.by === "bot") text = fmt(gettext("%(name)s is thinking…"), { name: nameOf(turn.seat) });
    else text = fmt(gettext("%(name)s's turn"), { name: nameOf(turn.seat) });
    var R = 18, C = 2 * Math.PI * R;
    var fg = KG.svg("circle", { class: "ring-fg", cx: 22, cy: 22, r: R, fill: "none", "stroke-width": 5, "stroke-dasharray": C.toFixed(2), transform: "rotate(-90 22 22)" });
    var label = KG.svg("text", { x: 22, y: 27, "text-anchor": "middle" });
    var ring = KG.svg("svg", { class: "timer-ring", viewBox: "0 0 44 44", role: "timer", "aria-label": gettext("Time left") },
      KG.svg("circle", { class: "ring-bg", cx: 22, cy: 22, r: R, fill: "none", "stroke-width": 5 }), fg, label);
    parts.turn.appendChild(ring);
    parts.turn.appendChild(el("p", { class: "turn-text", "data-testid": "turn-text" }, text));
    // The full length of a turn is the room's (15 s, or 30 s at a party table); what
    // is left is the deadline against the server's clock (S.offset, from server_time).
    var total = S.snap.room.turn_seconds || 15;
    function tick() {
      if (!turn.deadline) { ring.style.visibility = "hidden"; return; }
      var left = Math.min(total, Math.max(0, turn.deadline - (Date.now() / 1000 + S.offset)));
      ring.dataset.left = left.toFixed(1);
      fg.setAttribute("stroke-dashoffset", (C * (1 - Math.min(1, left / total))).toFixed(2));
      label.textContent = digits(Math.ceil(left));
      ring.classList.toggle("low", left <= 5);
    }
    tick();
    ticker = setInterval(tick, 250);
  }

  function renderHeld() {
    var mine = youSeat();
    var seat = mine !== null ? seatOf(mine) : null;
    KG.clear(parts.held);
    if (!seat || !seat.held || S.snap.room.status !== "playing") { parts.held.hidden = true; return; }
    parts.held.hidden = false;
    parts.held.appendChild(el("p", {}, gettext("The computer is holding your seat while you were away.")));
    parts.held.appendChild(el("button", {
      type: "button", class: "button-primary", "data-key": "reclaim", "data-testid": "reclaim",
      disabled: !S.connected, onclick: function () { send({ type: "reclaim" }); },
    }, gettext("Take it back")));
  }

  function renderResults() {
    var game = S.snap.game, you = S.snap.you || {};
    var box = parts.results;
    KG.clear(box);
    if (!game || game.status === "in_progress" || S.snap.room.status === "playing") { box.hidden = true; return; }
    box.hidden = false;
    box.appendChild(el("h2", { id: "results-title" }, gettext("Results")));
    var list = el("ol", { class: "placings", "data-testid": "placings" });
    (game.placings || []).forEach(function (seat, i) {
      list.appendChild(el("li", {}, el("span", { class: "place" }, digits(i + 1)), KG.seatBadge(seat), el("span", {}, nameOf(seat) + (seat === youSeat() ? " (" + gettext("you") + ")" : "")),
        i === 0 ? el("span", { "aria-hidden": "true" }, " 🏆") : null));
    });
    box.appendChild(list);
    var row = el("p", { class: "actions" });
    if (you.is_host) {
      row.appendChild(el("button", { type: "button", class: "button-primary", "data-key": "rematch", "data-testid": "rematch", disabled: !S.connected, onclick: function () { send({ type: "rematch" }); } }, gettext("Rematch")));
    } else {
      row.appendChild(el("span", { class: "hint" }, gettext("The host can start a rematch.")));
    }
    row.appendChild(el("a", { class: "button", href: root.dataset.homeUrl }, gettext("Back to the start")));
    box.appendChild(row);
    box.appendChild(luckSection(game));
  }

  // ---- the luck report ----------------------------------------------------------

  /* Each player's dice against fair dice (/games/<id>/luck.json), fetched once per
     game: a bar per face with the fair count dashed, the sixes in the accent colour,
     and (for rolled dice) the average on a 1-6 scale against 3.5. The numbers are
     also written out, for everyone and for screen readers. */
  function luckSection(game) {
    var wrap = el("section", { class: "luck", "aria-labelledby": "luck-title", "data-testid": "luck" },
      el("h3", { id: "luck-title" }, gettext("Luck report")));
    if (!game.id) return wrap;
    var report = S.luck[game.id];
    if (!report) {
      S.luck[game.id] = "loading";
      fetch("/games/" + game.id + "/luck.json", { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (r) { if (!r.ok) throw new Error(String(r.status)); return r.json(); })
        .then(function (data) { S.luck[game.id] = data; render(); })
        .catch(function () { S.luck[game.id] = "failed"; render(); });
      report = "loading";
    }
    if (report === "loading") { wrap.appendChild(el("p", { class: "hint" }, gettext("Counting the dice…"))); return wrap; }
    if (report === "failed") { wrap.appendChild(el("p", { class: "hint" }, gettext("The luck report could not be loaded."))); return wrap; }
    wrap.dataset.kind = report.kind;
    wrap.appendChild(el("p", { class: "hint" }, report.kind === "held"
      ? gettext("The dice each player held over all rounds, against what fair dice give on average.")
      : gettext("The dice each player rolled, against what fair dice give on average.")));
    var grid = el("div", { class: "luck-grid" });
    report.seats.forEach(function (s) { grid.appendChild(luckSeat(s, report.kind)); });
    wrap.appendChild(grid);
    wrap.appendChild(el("p", { class: "hint" }, gettext("The dashed line is what fair dice give on average. Over a short game, big differences are normal.")));
    return wrap;
  }

  function one(x) { return digits((+x).toFixed(1)); }

  function luckSeat(s, kind) {
    var name = s.name || nameOf(s.seat);
    var lines = [
      KG.nfmt(kind === "held" ? ngettext("%(n)s die held", "%(n)s dice held", s.dice) : ngettext("%(n)s roll", "%(n)s rolls", s.dice), s.dice),
      fmt(gettext("sixes: %(n)s (fair dice: %(expected)s)"), { n: s.sixes, expected: one(s.expected_sixes) }),
    ];
    if (kind === "held") lines.push(fmt(gettext("ones (wild): %(n)s"), { n: s.ones }));
    else if (s.average !== null && s.average !== undefined) {
      lines.push(fmt(gettext("average: %(avg)s (fair dice: %(expected)s)"), { avg: digits((+s.average).toFixed(2)), expected: digits("3.5") }));
    }
    var faces = fmt(gettext("Faces one to six: %(list)s"), { list: s.faces.map(digits).join(", ") });
    var fig = el("figure", { class: "luck-seat", "data-seat": s.seat, "data-dice": s.dice, "data-sixes": s.sixes },
      el("figcaption", {}, KG.seatBadge(s.seat), el("strong", {}, name)),
      facesChart(s),
      kind === "held" || s.average === null || s.average === undefined ? null : averageChart(s.average),
      el("p", { class: "luck-text" }, lines.join(" · "), el("span", { class: "visually-hidden" }, ". " + faces)));
    return fig;
  }

  var BAR = 22, GAP = 8, H = 56, TOP = 14;
  function facesChart(s) {
    var top = Math.max.apply(null, s.faces.concat([s.dice / 6, 1]));
    var width = 6 * (BAR + GAP);
    var svg = KG.svg("svg", { class: "luck-chart", viewBox: "0 0 " + width + " " + (TOP + H + 24), "aria-hidden": "true" });
    s.faces.forEach(function (count, i) {
      var h = (H * count) / top, x = i * (BAR + GAP) + GAP / 2;
      svg.appendChild(KG.svg("rect", { x: x, y: (TOP + H - h).toFixed(1), width: BAR, height: Math.max(h, 0.5).toFixed(1), class: i === 5 ? "bar six" : "bar" }));
      svg.appendChild(KG.svg("text", { x: x + BAR / 2, y: (TOP + H - h - 3).toFixed(1), "text-anchor": "middle", class: "count", text: digits(count) }));
      // The face under its bar, drawn by KG.die at 18 units square.
      var die = KG.die(i + 1, {}), face = KG.svg("g", { class: "die-face", transform: "translate(" + (x + 2) + "," + (TOP + H + 4) + ") scale(0.45)" });
      while (die.firstChild) face.appendChild(die.firstChild);
      svg.appendChild(face);
    });
    var fair = (TOP + H - (H * s.dice) / 6 / top).toFixed(1);
    svg.appendChild(KG.svg("line", { x1: 0, x2: width, y1: fair, y2: fair, class: "fair" }));
    return svg;
  }

  /* The average on a 1-6 scale, with fair dice's 3.5 marked. */
  function averageChart(avg) {
    var W = 168, x = function (v) { return 8 + ((v - 1) / 5) * (W - 16); };
    var svg = KG.svg("svg", { class: "luck-avg", viewBox: "0 0 " + W + " 30", "aria-hidden": "true" },
      KG.svg("line", { x1: x(1), x2: x(6), y1: 12, y2: 12, class: "scale" }),
      KG.svg("line", { x1: x(3.5), x2: x(3.5), y1: 3, y2: 21, class: "fair" }),
      KG.svg("circle", { cx: x(avg).toFixed(1), cy: 12, r: 6, class: "avg" }));
    [1, 3.5, 6].forEach(function (v) {
      svg.appendChild(KG.svg("text", { x: x(v), y: 29, "text-anchor": "middle", class: "count", text: digits(v) }));
    });
    return svg;
  }

  function fairnessPanel(game) {
    var f = (game && game.fairness) || {};
    var dl = el("dl", {},
      el("dt", {}, gettext("Scheme")), el("dd", {}, f.scheme || "—"),
      el("dt", {}, gettext("Server seed hash")), el("dd", { "data-testid": "server-seed-hash" }, f.server_seed_hash || "—"),
      el("dt", {}, gettext("Client seed")), el("dd", {}, f.client_seed || "—"),
      el("dt", {}, gettext("Server seed")), el("dd", { "data-testid": "server-seed" }, f.server_seed || gettext("revealed when the game is over")));
    var details = el("details", { class: "panel fairness" }, el("summary", {}, gettext("Fair dice")), dl);
    // Once the game is over its own page shows the fairness check and the replay;
    // /verify/ checks any record pasted into it.
    if (game && game.page_url) {
      details.appendChild(el("a", { href: game.page_url, "data-testid": "verify-link" }, gettext("Verify the dice")));
      details.appendChild(document.createTextNode(" "));
    }
    if (f.server_seed) {
      details.appendChild(el("a", { href: root.dataset.verifyUrl, "data-testid": "verify-any-link" }, gettext("Check any record")));
      details.appendChild(document.createTextNode(" "));
    }
    if (game && game.record_url) {
      details.appendChild(el("a", { href: game.record_url, download: "", "data-testid": "record-link" }, gettext("Download the game record")));
    }
    if (game && game.status !== "in_progress") details.open = true;
    return details;
  }

  // ---- reporting a player ---------------------------------------------------------

  /* The report form comes from the server (templates/rooms/_report.html, so it works
     without JavaScript too); here it moves into the room's header, lists the players
     at the table now, and posts with fetch so the answer shows on this page. */
  var report = null;
  function setupReport() {
    var box = document.querySelector(".report-box");
    if (!box) return;
    var form = box.querySelector("form"), summary = box.querySelector("summary");
    var status = el("p", { id: "report-status", class: "message report-status", role: "status", "data-testid": "report-status", hidden: true });
    var wrap = el("div", { class: "report-wrap" }, box, status);
    var slot = document.getElementById("report-slot");
    if (slot) slot.remove();
    summary.dataset.key = "report-open";
    summary.dataset.testid = "report-button";
    form.querySelectorAll("input, select, textarea, button").forEach(function (c) {
      c.dataset.key = "report-" + (c.name || "send") + (c.type === "radio" ? "-" + c.value : "");
    });
    var seatRow = form.querySelector("#report-seat");
    report = { box: box, form: form, wrap: wrap, status: status, seat: seatRow, seatsKey: null };
    box.addEventListener("toggle", function () {
      if (box.open) {
        status.hidden = true;
        var first = form.querySelector("input[name=reason]:checked") || form.querySelector("input[name=reason]");
        if (first) first.focus();
      }
    });
    box.addEventListener("keydown", function (ev) {
      if (ev.key === "Escape" && box.open) { box.open = false; summary.focus(); }
    });
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var send = form.querySelector("button[type=submit]");
      send.disabled = true;
      fetch(form.action, {
        method: "POST", body: new FormData(form), credentials: "same-origin",
        headers: { Accept: "application/json", "X-Requested-With": "XMLHttpRequest" },
      }).then(function (r) { return r.json(); })
        .catch(function () { return { type: "error", message: gettext("Something went wrong") }; })
        .then(function (answer) {
          send.disabled = false;
          var ok = answer.type === "ok";
          status.textContent = answer.message || (ok ? "" : gettext("Something went wrong"));
          status.classList.toggle("message-error", !ok);
          status.hidden = false;
          KG.announce(status.textContent);
          if (ok) {
            form.reset();
            box.open = false;
            summary.focus();
          }
        });
    });
  }

  function placeReport() {
    if (!report) return;
    var head = root.querySelector(".room-head");
    if (head && report.wrap.parentNode !== head) head.appendChild(report.wrap);
    if (!report.seat) return;
    // The players to choose from: the people at the table now, not yourself.
    var seats = ((S.snap.room && S.snap.room.seats) || []).filter(function (x) {
      return x.kind === "human" && x.seat !== youSeat();
    });
    var key = JSON.stringify(seats.map(function (x) { return [x.seat, x.name]; }));
    if (key === report.seatsKey) return;
    report.seatsKey = key;
    var chosen = report.seat.value;
    KG.clear(report.seat).appendChild(el("option", { value: "" }, gettext("No one in particular")));
    seats.forEach(function (x) {
      report.seat.appendChild(el("option", { value: x.seat, selected: String(x.seat) === chosen }, nameOf(x.seat)));
    });
  }

  // ---- reactions ------------------------------------------------------------------

  function reactionBar() {
    if (youSeat() === null) return el("span");
    var bar = el("div", { class: "reaction-bar", role: "group", "aria-label": gettext("Quick reactions") });
    KG.REACTIONS.forEach(function (r) {
      bar.appendChild(el("button", {
        type: "button", "data-key": "react-" + r[0], title: t(r[2]), "aria-label": t(r[2]),
        disabled: !S.connected, onclick: function () { send({ type: "react", reaction: r[0] }); },
      }, r[1]));
    });
    return bar;
  }

  function showReaction(seat, id) {
    var r = KG.REACTIONS.filter(function (x) { return x[0] === id; })[0];
    if (!r) return;
    KG.announce(fmt(gettext("%(name)s: %(reaction)s"), { name: nameOf(seat), reaction: t(r[2]) }));
    var target = root.querySelector('[data-seat="' + seat + '"]');
    if (!target) return;
    target.style.position = "relative";
    var bubble = el("span", { class: "reaction-float", "aria-hidden": "true" }, r[1] + " " + t(r[2]));
    target.appendChild(bubble);
    setTimeout(function () { bubble.remove(); }, 2700);
  }

  // ---- start ------------------------------------------------------------------------

  setNet("connecting");
  setupReport();
  render();
  connect();
})();
