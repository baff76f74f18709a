/* The room page, part 7: the table's shell around the game's board.

   One screen on a phone: a slim head (game, code, "More"), whose turn with the
   timer ring, the seats in a compact strip, the board in the space that is
   left, and the game's controls in a bar at the bottom, under the thumb. What
   is not needed every turn (quick reactions, what happened, fair dice, the
   report form) is in the "More" sheet; on a wide screen it is shown beside the
   board. The game's own files draw the board and the controls:
   KG.games[name].render(board, controls, ctx, events). */
(function () {
  "use strict";
  var KG = window.KG, R = KG.room, S = KG.state, el = KG.el, fmt = KG.fmt, digits = KG.digits;

  /* What a game's renderer gets (its whole interface to the page). */
  R.ctx = function () {
    var snap = S.snap, game = snap.game || {};
    return {
      snap: snap, room: snap.room, game: snap.game, view: game.view || {},
      prevView: S.prevGame && S.prevGame.view, events: S.lastEvents || [],
      you: R.youSeat(), legal: game.legal || [], canAct: S.connected && !S.pending,
      act: R.act, nameOf: R.nameOf, seat: R.seatOf,
    };
  };

  R.connDot = function (s) {
    if (s.kind === "bot") return el("span", { class: "conn bot", title: gettext("computer"), "aria-label": gettext("computer") });
    if (s.kind !== "human") return el("span", { class: "conn", "aria-hidden": "true" });
    var on = s.connected && !s.held;
    var label = s.held ? gettext("away: the computer is holding the seat") : s.connected ? gettext("connected") : gettext("away");
    // Held looks like a computer's mark, not like any away seat's grey dot:
    // the others see at a glance that nobody is thinking there.
    return el("span", { class: "conn" + (on ? " on" : "") + (s.held ? " held" : ""), role: "img", "aria-label": label, title: label });
  };

  /* At the table the site's header shows only its name: the way home and
     the language switch (the header's own form, copied: its CSRF token and
     its way back here come with it) are at the foot of "More". */
  function moreFooter() {
    var foot = el("div", { class: "more-foot", "data-testid": "more-foot" },
      el("a", { class: "button button-small", href: R.root.dataset.homeUrl, "data-testid": "more-home" }, gettext("Back to the start")),
      S.parts.leave);
    var languages = document.querySelector(".site-header .language-switcher");
    if (languages) foot.appendChild(languages.cloneNode(true));
    return foot;
  }

  R.buildTableShell = function () {
    var room = S.snap.room, P = (S.parts = {});
    P.head = R.header(R.gameTitle(room.game), true);
    P.turn = el("div", { class: "turn-bar", "data-testid": "turn-bar" });
    P.seats = el("ul", { class: "table-seats", "aria-label": gettext("Players") });
    P.held = el("div", { class: "held-banner", hidden: true });
    // Pass and play with secret hands: covers the table between two players.
    P.cover = el("div", { class: "pass-cover", hidden: true, role: "dialog", "aria-modal": "true",
      "aria-labelledby": "cover-title", "data-testid": "pass-cover" });
    P.removed = el("p", { class: "message message-error removed-banner", "data-testid": "removed-banner", hidden: true },
      el("strong", {}, gettext("A moderator removed you from this seat")), el("br"),
      gettext("A computer plays it now; you can watch the rest of the game."));
    P.results = el("section", { class: "card results sheet", hidden: true, "aria-labelledby": "results-title", "data-testid": "results" });
    P.board = el("div", { class: "board-col", "data-testid": "board" });
    P.controls = el("div", { class: "controls-col", "data-testid": "controls" });
    P.reactions = el("div", {});
    P.fair = el("div", {});
    P.leave = el("div", { class: "leave-slot" });
    P.log = el("details", { class: "panel" }, el("summary", {}, gettext("What happened")), el("ol", { id: "event-log", class: "log" }));
    P.more = el("div", { id: "more-panel", class: "more-panel", "data-testid": "more-panel" },
      el("div", { class: "sheet-head more-head" }, el("h2", { id: "more-title", tabindex: "-1" }, pgettext("table sheet", "More")),
        el("button", { type: "button", class: "button-small", "data-key": "more-close", onclick: function () { R.toggleMore(false); } }, gettext("Close"))),
      P.reactions, P.log, P.fair, el("div", { class: "report-slot" }), moreFooter());
    P.more.setAttribute("aria-labelledby", "more-title");
    P.more.addEventListener("keydown", function (ev) {
      if (ev.key === "Escape" && R.root.dataset.more === "open") { R.toggleMore(false); }
    });
    R.root.dataset.more = "closed";
    R.root.appendChild(P.head);
    R.root.appendChild(el("div", { class: "table-top" }, P.turn, P.seats));
    R.root.appendChild(P.held);
    R.root.appendChild(P.removed);
    R.root.appendChild(el("div", { class: "table-layout" }, P.board, el("div", { class: "side-col" }, P.controls, P.more)));
    R.root.appendChild(P.results);
    R.root.appendChild(P.cover);
    P.module = null;
  };

  /* The "More" sheet on a phone: opens over the bottom of the table, Escape or
     Close puts it away and gives the focus back to the button. */
  R.toggleMore = function (open) {
    R.root.dataset.more = open ? "open" : "closed";
    var button = R.root.querySelector("[data-key=more]");
    if (button) button.setAttribute("aria-expanded", open ? "true" : "false");
    if (open) { var h = document.getElementById("more-title"); if (h) h.focus(); }
    else if (button) button.focus();
  };

  R.renderTable = function (events) {
    var snap = S.snap, room = snap.room, game = snap.game, P = S.parts;
    var mod = KG.games[room.game];
    var c = R.ctx();
    KG.clear(P.seats);
    // A board that seats its players itself (Liar's Dice around the cup) needs no strip.
    P.seats.hidden = !!(mod && mod.seatsOnBoard);
    (room.seats || []).forEach(function (s) {
      var turnSeat = game && game.turn ? game.turn.seat : null;
      var placed = game && game.placings ? game.placings.indexOf(s.seat) : -1;
      var colour = mod && mod.colourOf ? mod.colourOf(s.seat, c) : s.seat;
      P.seats.appendChild(el("li", {
        class: "table-seat" + (s.seat === turnSeat ? " is-turn" : "") + (s.seat === c.you ? " is-you" : "") + (mod && mod.isOut && mod.isOut(s.seat, c) ? " is-out" : ""),
        "data-seat": s.seat, "aria-current": s.seat === turnSeat ? "true" : null,
      }, KG.seatBadge(colour),
        // "(you)" is said, not shown: one's own name is underlined, and a chip has no room to spare.
        el("span", { class: "seat-name" }, R.nameOf(s.seat),
          s.seat === c.you ? el("span", { class: "visually-hidden" }, " (" + gettext("you") + ")") : null),
        R.connDot(s),  // in the chip's corner (CSS)
        // One line, whatever it holds, so the board under the strip never
        // moves between turns (it jumped when a line wrapped); once the game
        // is over the place takes the game's line.
        el("span", { class: "seat-extra" },
          placed >= 0 && game.status !== "in_progress" ? el("span", { class: "tag" }, R.ordinal(placed + 1))
            : mod && mod.seatExtra ? mod.seatExtra(s.seat, c) : "")));
    });

    renderTurn(game);
    renderHeld();
    P.removed.hidden = !S.removed || R.youSeat() !== null;
    R.renderResults();
    // A game that draws its board afresh (Liar's Dice) empties the column,
    // which scrolled it back to the top under a player reading the open cups
    // at six players: where they were is kept.
    var scrolled = P.board.scrollTop;
    if (mod) mod.render(P.board, P.controls, c, events);
    if (scrolled && P.board.scrollTop !== scrolled) P.board.scrollTop = scrolled;
    // Someone without a seat had no action where the controls go, and
    // nothing said why (a phone drill).
    if (R.youSeat() === null && !P.controls.querySelector("button") && game && game.status === "in_progress") {
      P.controls.appendChild(el("p", { class: "hint watching", "data-testid": "watching" },
        gettext("You are watching this game")));
    }
    renderCover(mod);  // after the board: it may hold a moment the cover waits for
    R.root.classList.toggle("has-controls", !!P.controls.querySelector("button"));
    KG.clear(P.reactions).appendChild(R.reactionBar());
    // Fair dice: here during the game, on the results sheet after it.
    KG.clear(P.fair);
    if (!R.resultsOver(game)) P.fair.appendChild(R.fairnessPanel(game));
    renderLeave(game);
  };

  /* "Leave the game": a player who has to go hands the seat to the computer
     at once (the `leave` command), instead of leaving the others to wait out
     a timeout or three. Two taps, since one stray tap should not do it;
     once the table says the computer holds the seat, the page goes to the
     start. Coming back to the room, "Take it back" returns the seat. Not on
     a phone players share: whose seat would it be? */
  function renderLeave(game) {
    var P = S.parts, mine = R.youSeat(), seat = mine !== null ? R.seatOf(mine) : null;
    var playing = S.snap.room.status === "playing" && game && game.status === "in_progress";
    if (S.leaving && seat && seat.held) {
      // Once: a second render before the page goes (another update) would
      // start the navigation again and abort the first.
      S.leaving = false;
      S.wentHome = true;
      window.location.assign(R.root.dataset.homeUrl);
      return;
    }
    if (S.wentHome) return;
    KG.clear(P.leave);
    if (!playing || !seat || seat.held || R.device()) { S.leaving = S.leaveAsked = false; return; }
    if (!S.leaveAsked) {
      P.leave.appendChild(el("button", { type: "button", class: "button-small", "data-key": "leave-game", "data-refocus": "leave-no", "data-testid": "leave-game",
        onclick: function () {
          S.leaveAsked = true;
          R.render();
          // The question and its buttons are the sheet's last lines: in sight.
          P.leave.scrollIntoView({ block: "nearest" });
        } }, gettext("Leave the game")));
      return;
    }
    P.leave.appendChild(el("p", { class: "leave-ask", id: "leave-ask" },
      gettext("The computer will play your seat until you come back to this room.")));
    P.leave.appendChild(el("button", { type: "button", class: "button-small button-danger", "data-key": "leave-yes", "data-testid": "leave-yes",
      "aria-describedby": "leave-ask", disabled: !S.connected || S.leaving,
      onclick: function () { if (R.send({ type: "leave" })) { S.leaving = true; R.render(); } } }, gettext("Leave")));
    P.leave.appendChild(el("button", { type: "button", class: "button-small", "data-key": "leave-no", "data-refocus": "leave-game", "data-testid": "leave-no",
      "aria-describedby": "leave-ask",
      onclick: function () { S.leaveAsked = false; R.render(); } }, gettext("Stay")));
  }

  // The countdown ring: drawn from turn.deadline, corrected by the server clock offset.
  function renderTurn(game) {
    var P = S.parts;
    KG.clear(P.turn);
    R.stop("turn");
    if (!game || game.status !== "in_progress" || !game.turn) {
      var over = game && game.status !== "in_progress";
      P.turn.appendChild(el("p", { class: "turn-text" }, over ? gettext("The game is over") : gettext("Waiting…")));
      if (over && S.resultsClosed === game.id) {
        P.turn.appendChild(el("button", { type: "button", class: "button-small button-primary", "data-key": "results-open", "data-testid": "results-open",
          onclick: function () { S.resultsClosed = null; S.resultsSeen = null; R.render(); } }, gettext("Results")));
      }
      return;
    }
    var turn = game.turn, mine = turn.seat === R.youSeat();
    var text, device = R.device();
    // A computer holding a person's seat plays its turn: not "Your turn" under
    // the banner that says so, nor "Bappi is thinking…" as if Bappi were here.
    var held = turn.seat !== null && turn.seat !== undefined && !!(R.seatOf(turn.seat) || {}).held;
    if (turn.seat === null || turn.seat === undefined) text = gettext("The dice are rolling…");
    else if (held && mine) text = gettext("The computer is playing your turn");
    else if (held) text = fmt(gettext("The computer is playing for %(name)s"), { name: R.nameOf(turn.seat) });
    // A phone several players share names the player, in their colour.
    else if (device && device.seats.indexOf(turn.seat) >= 0) text = fmt(gettext("%(name)s's turn"), { name: R.nameOf(turn.seat) });
    // Offline, the page's last view is not the table's: the move cannot be
    // sent, and once the clock has run out the timer has acted for the player.
    else if (mine && !S.connected) text = gettext("Your turn, once the connection is back");
    else if (mine) text = gettext("Your turn");
    else if (turn.by === "bot") text = fmt(gettext("%(name)s is thinking…"), { name: R.nameOf(turn.seat) });
    else text = fmt(gettext("%(name)s's turn"), { name: R.nameOf(turn.seat) });
    // The timer moved for this player while they looked away: the live region
    // said so, but a sighted player coming back saw only that the game had
    // gone on. Said before whose turn it is, until their turn comes again (or
    // the computer's banner, held, says more).
    if (mine || (R.seatOf(R.youSeat()) || {}).held || S.timeUp !== game.id) S.timeUp = false;
    P.turn.classList.toggle("is-mine", mine);
    var RAD = 18, C = 2 * Math.PI * RAD;
    var fg = KG.svg("circle", { class: "ring-fg", cx: 22, cy: 22, r: RAD, fill: "none", "stroke-width": 5, "stroke-dasharray": C.toFixed(2), transform: "rotate(-90 22 22)" });
    var label = KG.svg("text", { x: 22, y: 27, "text-anchor": "middle" });
    var ring = KG.svg("svg", { class: "timer-ring", viewBox: "0 0 44 44", role: "timer", "aria-label": gettext("Time left"), "data-testid": "timer" },
      KG.svg("circle", { class: "ring-bg", cx: 22, cy: 22, r: RAD, fill: "none", "stroke-width": 5 }), fg, label);
    P.turn.appendChild(ring);
    if (device && turn.seat !== null && turn.seat !== undefined) P.turn.appendChild(KG.seatBadge(R.colourOf(turn.seat)));
    var words = P.turn.appendChild(el("p", { class: "turn-text", "data-testid": "turn-text" },
      S.timeUp ? el("span", { class: "turn-note" }, gettext("Your time ran out") + " · ") : null, text));
    // The full length of a turn is the room's (15 s, or 30 s at a party table); what
    // is left is the deadline against the server's clock (S.offset, from server_time).
    var total = S.snap.room.turn_seconds || 15;
    // The ring drains by itself: one transition over the time left, set once
    // a render; the tick below writes only when the shown second changes. (A
    // tick that rewrote the ring and its label every 250 ms, with a 0.25 s
    // transition restarted each time, kept a cheap phone's main thread 77%
    // busy at a table where nothing happened: a cheap-phone drill.) With
    // reduced motion the transition is off, and the tick steps the ring.
    var stepped = KG.reducedMotion(), shown = null, low = null;
    function offset(left) { return (C * (1 - Math.min(1, left / total))).toFixed(2); }
    function leftNow() { return Math.min(total, Math.max(0, R.secondsUntil(turn.deadline))); }
    if (turn.deadline && turn.by !== "bot") {
      fg.style.transition = "none";
      fg.style.strokeDashoffset = offset(leftNow());
      if (!stepped) {
        requestAnimationFrame(function () {
          requestAnimationFrame(function () {
            if (!fg.isConnected) return;
            fg.style.transition = "stroke-dashoffset " + leftNow().toFixed(2) + "s linear";
            fg.style.strokeDashoffset = C.toFixed(2);
          });
        });
      }
    }
    // A computer answers in about a second: its ring counting "1" in red read
    // as a player about to run out of time (a phone drill). It says it is
    // thinking instead: an arc that turns, no number.
    var computer = turn.by === "bot";
    if (computer) {
      ring.classList.add("thinking");
      ring.setAttribute("aria-label", gettext("Thinking"));
      fg.style.transition = "none";
      fg.style.strokeDashoffset = (C * 0.72).toFixed(2);
      fg.removeAttribute("transform");  // turned by CSS, about its own centre
    }
    function tick() {
      if (!turn.deadline) { ring.style.visibility = "hidden"; return; }
      var left = leftNow(), secs = Math.ceil(left);
      if (computer) secs = shown;  // no number, no red: it turns
      if (secs !== shown) {
        shown = secs;
        ring.dataset.left = String(secs);
        label.textContent = digits(secs);
        if (stepped) fg.style.strokeDashoffset = offset(left);
      }
      if (!computer && (left <= 5) !== low) {
        low = left <= 5;
        ring.classList.toggle("low", low);
      }
      if (!S.connected && left <= 0 && !words.dataset.late) {
        // Offline, the last view's clock has run out: the table has moved on
        // (the timer acted), so "Bappi's turn" at 0 would be a stale guess.
        words.dataset.late = "yes";
        words.textContent = mine ? gettext("Time ran out while the connection was down; the table has moved on")
          : gettext("The table has moved on; it shows again once the connection is back");
      }
      // The ring is silent (a timer read every second is noise): once a
      // decision, five seconds before the end, a screen reader hears it, and
      // with sound on everyone hears three ticks (feel.js).
      var warnFor = turn.seat + ":" + turn.deadline;
      if (mine && !device && left > 0 && left <= 5 && S.warnedFor !== warnFor && !(R.seatOf(turn.seat) || {}).held) {
        S.warnedFor = warnFor;
        KG.announce(fmt(ngettext("%(n)s second left", "%(n)s seconds left", secs), { n: secs }));
        if (KG.feel && KG.feel.hurry) KG.feel.hurry();
      }
    }
    tick();
    R.every("turn", tick, 250);
  }

  /* A seat's colour on the board (Ludo's are its own; others by seat). */
  R.colourOf = function (seat) {
    var mod = KG.games[S.snap.room.game];
    return mod && mod.colourOf ? mod.colourOf(seat, R.ctx()) : seat;
  };

  /* Pass and play at a game with secret hands: while it is the turn of a
     player on this phone who has not tapped yet, the whole table is covered
     (the page has only a spectator's view under it anyway, docs/protocol.md).
     The tap asks for that player's view (show_seat). */
  function renderCover(mod) {
    var P = S.parts, seat = R.coveredSeat();
    var momentLeft = mod && mod.momentUntil ? mod.momentUntil() - Date.now() : 0;
    if (seat !== null && S.coverFor === null && momentLeft > 0) {
      // A challenge is being shown (every cup, nothing secret): let the
      // table see it, then cover.
      R.after("cover", function () { R.render(); }, momentLeft + 60);
      seat = null;
    }
    KG.clear(P.cover);
    document.body.classList.toggle("is-covered", seat !== null);
    // Nothing under the cover is reachable by keyboard or screen reader.
    R.root.querySelectorAll(".room-head, .table-top, .table-layout, .held-banner, .results").forEach(function (node) {
      node.inert = seat !== null;
    });
    if (seat === null) { P.cover.hidden = true; S.coverFor = null; R.stop("cover-clock"); return; }
    var name = R.nameOf(seat), held = !!R.seatOf(seat).held;
    // A computer holds the seat (its player let the clock run out): the
    // phone's holder may hand it back to them; the tap then comes as usual.
    var title = held ? fmt(gettext("The computer is holding %(name)s's seat"), { name: name })
      : fmt(gettext("Pass the phone to %(name)s"), { name: name });
    P.cover.hidden = false;
    P.cover.appendChild(el("div", { class: "cover-top" },
      KG.seatBadge(R.colourOf(seat)),
      el("h2", { id: "cover-title", "data-testid": "cover-title" }, title),
      held ? null : el("p", { class: "hint" }, gettext("Only they should look: their dice appear after the tap.")),
      recentEvents()));
    var key = seat + (held ? ":held" : ""), fresh = S.coverFor !== key;
    // A tap meant for the cover before this one (the same big button in the
    // same place: a family drill's finger opened the next player's hand) must
    // not count: a new cover's button takes taps after a moment.
    if (fresh) S.coverArmedAt = Date.now() + COVER_ARM_MS;
    var waiting = Date.now() < S.coverArmedAt;
    var button = held ? el("button", {
      type: "button", class: "button-primary big-button cover-button", "data-key": "cover-reclaim", "data-testid": "cover-reclaim",
      disabled: !S.connected || waiting, onclick: function () { R.send({ type: "reclaim", seat: seat }); },
    }, gettext("Take it back")) : el("button", {
      type: "button", class: "button-primary big-button cover-button", "data-key": "cover-ready", "data-testid": "cover-ready",
      disabled: !S.connected || waiting, onclick: function () { R.send({ type: "show_seat", seat: seat }); },
    }, fmt(gettext("%(name)s: tap when ready"), { name: name }));
    P.cover.appendChild(button);
    if (waiting) {
      R.after("cover-arm", function () {
        if (!button.isConnected) return;
        button.disabled = !S.connected;
        if (fresh) button.focus({ preventScroll: true });  // newly covered: the focus goes to the tap
      }, S.coverArmedAt - Date.now());
    }
    // The clock runs while the phone is handed over: say how long is left.
    var clock = P.cover.appendChild(el("p", { class: "hint cover-clock", "data-testid": "cover-clock", "aria-hidden": "true" }));
    var turn = S.snap.game.turn;
    var tick = function () {
      var left = turn && turn.deadline ? Math.max(0, Math.ceil(R.secondsUntil(turn.deadline))) : null;
      clock.textContent = left === null ? "" : fmt(ngettext("%(n)s second left", "%(n)s seconds left", left), { n: left });
    };
    tick();
    R.every("cover-clock", tick, 250);
    // Players whose seat the computer holds take it back here too: the cover
    // hides the table, and their own cover shows only while the computer plays.
    R.device().seats.forEach(function (other) {
      if (other === seat || !R.seatOf(other).held) return;
      P.cover.appendChild(el("button", {
        type: "button", class: "button-small cover-reclaim-other", "data-key": "cover-reclaim-" + other, "data-testid": "cover-reclaim-other",
        disabled: !S.connected, onclick: function () { R.send({ type: "reclaim", seat: other }); },
      }, fmt(gettext("Take back %(name)s's seat"), { name: R.nameOf(other) })));
    });
    if (fresh) KG.announce(title);  // newly covered: say so
    S.coverFor = key;
  }

  var COVER_ARM_MS = 700;

  /* The last lines of "What happened": the cover must not hide how the last
     bid or challenge went from the player who picks the phone up. */
  function recentEvents() {
    var log = document.getElementById("event-log"), device = R.device();
    // Not the cover's own announcements ("Pass the phone to …").
    var covers = device.seats.map(function (seat) { return fmt(gettext("Pass the phone to %(name)s"), { name: R.nameOf(seat) }); });
    var lines = log ? [].slice.call(log.children).filter(function (li) { return covers.indexOf(li.textContent) < 0; }).slice(-3) : [];
    if (!lines.length) return null;
    var list = el("ul", { class: "cover-recent", "aria-label": gettext("What happened"), "data-testid": "cover-recent" });
    lines.forEach(function (li) { list.appendChild(el("li", {}, li.textContent)); });
    return list;
  }

  function renderHeld() {
    var P = S.parts, mine = R.youSeat();
    var seat = mine !== null ? R.seatOf(mine) : null;
    KG.clear(P.held);
    if (!seat || !seat.held || S.snap.room.status !== "playing") { P.held.hidden = true; return; }
    P.held.hidden = false;
    // And how many turns it has played so far: what the player comes back
    // to, after a reconnect too (the snapshot's count, docs/protocol.md). One
    // sentence, not two: on a phone every line the banner takes is the board's.
    var played = R.heldMoves(seat);
    P.held.appendChild(el("p", { "data-testid": "held-text" }, played > 0
      ? KG.nfmt(ngettext("The computer is holding your seat and has played %(n)s turn for you.",
        "The computer is holding your seat and has played %(n)s turns for you.", played), played)
      : gettext("The computer is holding your seat while you were away.")));
    P.held.appendChild(el("button", {
      type: "button", class: "button-primary", "data-key": "reclaim", "data-testid": "reclaim",
      disabled: !S.connected, onclick: function () {
        R.send(R.device() ? { type: "reclaim", seat: mine } : { type: "reclaim" });
      },
    }, gettext("Take it back")));
  }

  R.fairnessPanel = function (game) {
    var f = (game && game.fairness) || {};
    // The scheme's name, the seeds and the hash are codes to copy, not words:
    // translate="no" (as on the server's pages), so a Bengali page keeps them as they are.
    var dl = el("dl", {},
      el("dt", {}, gettext("Scheme")), el("dd", { translate: f.scheme ? "no" : null }, f.scheme || "—"),
      el("dt", {}, gettext("Server seed hash")), el("dd", { "data-testid": "server-seed-hash", translate: f.server_seed_hash ? "no" : null }, f.server_seed_hash || "—"),
      el("dt", {}, gettext("Client seed")), el("dd", { translate: f.client_seed ? "no" : null }, f.client_seed || "—"),
      el("dt", {}, gettext("Server seed")), el("dd", { "data-testid": "server-seed", translate: f.server_seed ? "no" : null }, f.server_seed || gettext("revealed when the game is over")));
    var details = el("details", { class: "panel fairness" }, el("summary", {}, gettext("Fair dice")), dl);
    // Once the game is over its own page shows the fairness check and the replay;
    // /verify/ checks any record pasted into it.
    if (game && game.page_url) {
      details.appendChild(el("a", { href: game.page_url, "data-testid": "verify-link" }, gettext("Verify the dice")));
      details.appendChild(document.createTextNode(" "));
    }
    if (f.server_seed) {
      details.appendChild(el("a", { href: R.root.dataset.verifyUrl, "data-testid": "verify-any-link" }, gettext("Check any record")));
      details.appendChild(document.createTextNode(" "));
    }
    if (game && game.record_url) {
      details.appendChild(el("a", { href: game.record_url, download: "", "data-testid": "record-link" }, gettext("Download the game record")));
    }
    if (game && game.status !== "in_progress") details.open = true;
    return details;
  };
})();
