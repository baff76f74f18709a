/* The room page, part 8: the lobby.

   The code to pass on, the seats, and how the game starts: at a quick-play
   table a countdown to the automatic start and "Play now with computers"
   (the `start_now` message, docs/protocol.md); at a private table the host's
   controls (pace, computer level, house rules, Start). */
(function () {
  "use strict";
  var KG = window.KG, R = KG.room, S = KG.state, el = KG.el, fmt = KG.fmt;

  R.renderLobby = function () {
    var room = S.snap.room, you = S.snap.you || {}, mine = R.youSeat();
    var isHost = !!you.is_host, quick = room.visibility === "public";
    var seats = room.seats || [];
    var open = seats.filter(function (s) { return s.kind === "open"; }).length;
    // A seat tapped before the name was given waits for it while it stays open.
    if (mine !== null || !seats.some(function (s) { return s.seat === S.wantSeat && s.kind === "open"; })) {
      S.wantSeat = null;
    }
    if (mine !== null) S.joinName = null;
    var root = R.root, title = R.gameTitle(room.game);
    KG.clear(root);
    R.stop("autostart");
    root.appendChild(R.header(title));

    if (quick) root.appendChild(quickStart(room, mine, open, you));

    // The code, large, with ways to pass it on.
    root.appendChild(el("section", { class: "card lobby-code", "aria-labelledby": "code-title" },
      el("h2", { id: "code-title" }, gettext("Room code")),
      el("p", { class: "big-code", "data-testid": "room-code" }, R.CODE),
      el("p", { class: "hint" }, gettext("Friends type this code on the home page, or open the link.")),
      el("div", { class: "share-row" },
        el("button", { type: "button", "data-key": "copy", onclick: copyLink }, gettext("Copy link")),
        navigator.share ? el("button", { type: "button", "data-key": "share", onclick: shareLink }, gettext("Share")) : null,
        el("a", {
          class: "button", href: "https://wa.me/?text=" + encodeURIComponent(fmt(gettext("Play %(game)s with me on Khelaghor: %(url)s"),
            { game: title, url: R.SHARE_URL })),
          target: "_blank", rel: "noopener noreferrer",
        }, gettext("WhatsApp"))),
      el("p", { id: "copy-status", class: "hint", role: "status" })));

    // Who is here.
    var list = el("ul", { class: "seat-list", "aria-label": gettext("Seats") });
    seats.forEach(function (s) {
      var row = el("li", {
        class: "seat-row" + (s.seat === mine ? " is-you" : "") + (s.seat === S.wantSeat ? " is-wanted" : ""),
        "data-seat": s.seat,
      },
        KG.seatBadge(s.seat),
        R.connDot(s),
        el("span", { class: "seat-name" }, s.kind === "open" ? gettext("Empty seat") : R.nameOf(s.seat)),
        s.seat === 0 && s.kind === "human" ? el("span", { class: "tag" }, gettext("host")) : null,
        s.kind === "bot" ? el("span", { class: "tag" }, botTag(room, s.bot)) : null,
        // A phone, not words: at 360 px the name needs the room.
        s.on_device ? el("span", { class: "tag tag-device", "data-testid": "device-tag", role: "img",
          "aria-label": gettext("on this phone"), title: gettext("on this phone") }, "📱") : null,
        s.seat === mine ? el("span", { class: "tag" }, gettext("you")) : null);
      if (s.kind === "open" && mine === null) {
        row.appendChild(el("button", {
          type: "button", class: "button-small button-primary", "data-key": "sit-" + s.seat,
          disabled: !S.connected, onclick: function () { sitHere(s.seat, you); },
        }, gettext("Sit here")));
      }
      if (isHost && !quick && s.kind === "open") {
        row.appendChild(el("button", {
          type: "button", class: "button-small", "data-key": "bot-" + s.seat, "data-testid": "add-bot",
          "data-refocus": "rm-" + s.seat + " free-" + s.seat + " rm-device-" + s.seat,
          "aria-label": fmt(gettext("Add a computer in seat %(n)s"), { n: s.seat + 1 }),
          disabled: !S.connected, onclick: function () { R.send({ type: "add_bot", seat: s.seat, bot: botLevel(room) }); },
        }, gettext("Add computer")));
      }
      if (isHost && !quick && s.kind === "bot") {
        row.appendChild(el("button", {
          type: "button", class: "button-small", "data-key": "rm-" + s.seat, "data-refocus": "bot-" + s.seat,
          "aria-label": fmt(gettext("Remove %(name)s"), { name: R.nameOf(s.seat) }),
          disabled: !S.connected, onclick: function () { R.send({ type: "remove_bot", seat: s.seat }); },
        }, gettext("Remove")));
      }
      // A friend who sat and went away (closed the page, phone off) would hold
      // the seat until the start: the host may give it to someone else. The
      // server decides who is away (a page that went silent still shows its
      // dot for a while), and refuses a friend who is here, by name.
      if (isHost && !quick && s.kind === "human" && !s.on_device && s.seat !== mine) {
        row.appendChild(el("button", {
          type: "button", class: "button-small", "data-key": "free-" + s.seat, "data-testid": "free-seat", "data-refocus": "bot-" + s.seat,
          "aria-label": fmt(gettext("Free %(name)s's seat"), { name: R.nameOf(s.seat) }),
          disabled: !S.connected, onclick: function () { R.send({ type: "free_seat", seat: s.seat }); },
        }, gettext("Free seat")));
      }
      if (isHost && s.on_device) {
        row.appendChild(el("button", {
          type: "button", class: "button-small", "data-key": "rm-device-" + s.seat, "data-refocus": "bot-" + s.seat,
          disabled: !S.connected, onclick: function () { R.send({ type: "remove_device_player", seat: s.seat }); },
        }, gettext("Remove")));
      }
      list.appendChild(row);
    });
    var seatsCard = el("section", { class: "card", "aria-labelledby": "seats-title" },
      el("h2", { id: "seats-title" }, gettext("Players")), list);
    if (isHost && !quick && open) seatsCard.appendChild(devicePlayerForm(room));
    if (mine === null) {
      // What is typed lives in the store: the lobby is drawn again on every
      // change (a computer added, someone leaving), and the letters must stay.
      var nameInput = el("input", {
        id: "join-name", maxlength: "20", value: S.joinName !== null ? S.joinName : knownName(you),
        autocomplete: "nickname", "data-key": "join-name",
        "aria-describedby": S.wantSeat !== null ? "join-hint" : null,
        oninput: function () { S.joinName = nameInput.value; },
      });
      seatsCard.appendChild(el("form", { class: "stack", style: { marginTop: "0.75rem" }, onsubmit: function (ev) {
        ev.preventDefault();
        // No nickname yet and none typed: the server would refuse the seat in
        // a red banner over the code; ask for the name here instead.
        if (!knownName(you) && !nameInput.value.trim()) {
          var first = (room.seats || []).filter(function (s) { return s.kind === "open"; })[0];
          sitHere(S.wantSeat !== null ? S.wantSeat : first ? first.seat : null, you);
          return;
        }
        join(S.wantSeat, nameInput.value);
      } },
        el("label", { for: "join-name" }, gettext("Your nickname")), nameInput,
        S.wantSeat !== null ? el("p", { id: "join-hint", class: "hint join-hint", "data-testid": "join-hint" },
          gettext("Choose a nickname to take the seat you tapped.")) : null,
        el("button", { type: "submit", class: "button-primary", "data-key": "join", "data-testid": "join-seat", disabled: !S.connected || open === 0 },
          open ? gettext("Take a seat") : gettext("The table is full"))));
    } else if (!isHost && !quick && R.hostAway(seats)) {
      // Only the host starts: a host who left would keep everyone waiting.
      seatsCard.appendChild(el("p", { class: "controls", style: { marginTop: "0.5rem" } },
        el("span", { class: "grow hint", "data-testid": "host-away" }, gettext("The host has gone away. One of you can take their place.")),
        el("button", { type: "button", class: "button-primary", "data-key": "take-host", "data-testid": "take-host",
          disabled: !S.connected, onclick: function () { R.send({ type: "take_host" }); } }, gettext("Become the host")),
        el("button", { type: "button", "data-key": "leave", disabled: !S.connected, onclick: function () { R.send({ type: "leave" }); } }, gettext("Leave seat"))));
    } else if (!isHost && !quick) {
      seatsCard.appendChild(el("p", { class: "controls", style: { marginTop: "0.5rem" } },
        el("span", { class: "grow hint" }, gettext("Waiting for the host to start the game.")),
        el("button", { type: "button", "data-key": "leave", disabled: !S.connected, onclick: function () { R.send({ type: "leave" }); } }, gettext("Leave seat"))));
    } else if (!isHost) {
      seatsCard.appendChild(el("p", { class: "controls", style: { marginTop: "0.5rem" } },
        el("button", { type: "button", "data-key": "leave", disabled: !S.connected, onclick: function () { R.send({ type: "leave" }); } }, gettext("Leave seat"))));
    }
    root.appendChild(seatsCard);

    if (!quick) root.appendChild(isHost ? hostControls(room, open) : tableTerms(room));

    root.appendChild(el("section", { class: "card fairness" },
      el("h2", {}, gettext("Fair dice")),
      el("p", { class: "hint" }, gettext("The fingerprint of the next game's secret seed. It is revealed after the game so anyone can check the dice.")),
      el("p", { class: "seed-hash", "data-testid": "seed-hash" }, room.next_seed_hash || "")));
    root.appendChild(R.reactionBar());
    if (isHost && !quick) root.appendChild(startBar(open));
  };

  /* The host (seat 0) is a person who is not here: someone seated may take
     their place between games (take_host; the results ask it too). */
  R.hostAway = function (seats) {
    var host = seats[0];
    return !!host && host.kind === "human" && !host.connected;
  };

  /* A quick-play table starts by itself (room.autostart_at): the seconds left,
     counted on the server's clock, and a way not to wait. */
  function quickStart(room, mine, open, you) {
    var count = el("p", { class: "countdown", "data-testid": "autostart", role: "timer", "aria-live": "off" });
    var box = el("section", { class: "card quick-start", "aria-labelledby": "quick-title" },
      el("h2", { id: "quick-title" }, gettext("Quick play")), count,
      // The slower pace is asked for on the home page: the table says it got it.
      room.pace === "party" ? el("p", { class: "hint", "data-testid": "quick-pace-shown" },
        gettext("Party: 30 seconds a move, for new players")) : null);
    function tick() {
      if (!room.autostart_at) { count.textContent = gettext("Waiting for players…"); return; }
      var left = Math.ceil(R.secondsUntil(room.autostart_at));
      count.dataset.left = String(Math.max(0, left));
      count.textContent = left > 0
        ? fmt(ngettext("The game starts in %(n)s second", "The game starts in %(n)s seconds", left), { n: left })
        : gettext("The game is starting…");
    }
    tick();
    R.every("autostart", tick, 250);
    if (mine !== null) {
      box.appendChild(el("button", {
        type: "button", class: "button-primary big-button", "data-key": "start-now", "data-testid": "play-now",
        disabled: !S.connected, onclick: function () { R.send({ type: "start_now" }); },
      }, open ? gettext("Play now with computers") : gettext("Play now")));
      box.appendChild(el("p", { class: "hint" }, open
        ? fmt(ngettext("Computers take the %(n)s empty seat.", "Computers take the %(n)s empty seats.", open), { n: open })
        : gettext("Every seat is taken.")));
    } else {
      // Someone who came by the code has seconds left: the seat is here, in
      // the first screen, not under the code and the seats (a phone drill).
      var free = (room.seats || []).filter(function (s) { return s.kind === "open"; })[0];
      if (free) {
        box.appendChild(el("button", {
          type: "button", class: "button-primary big-button", "data-key": "quick-seat", "data-testid": "quick-seat",
          disabled: !S.connected, onclick: function () { sitHere(free.seat, you); },
        }, gettext("Take a seat")));
      }
      box.appendChild(el("p", { class: "hint" }, gettext("Take a seat to play; computers fill the seats nobody takes.")));
    }
    return box;
  }

  /* Pass and play: someone at the host's side plays on the host's phone,
     in the lowest empty seat. Never at a rated table: one phone, one rating. */
  function devicePlayerForm(room) {
    if (room.options && room.options.rated) {
      return el("p", { class: "hint", style: { marginTop: "0.5rem" } }, gettext("A rated table has one player per phone"));
    }
    var input = el("input", { id: "device-name", maxlength: "20", value: S.deviceName || "", autocomplete: "off",
      "data-key": "device-name", "data-testid": "device-name", oninput: function () { S.deviceName = input.value; } });
    return el("form", { class: "stack device-form", style: { marginTop: "0.75rem" }, onsubmit: function (ev) {
      ev.preventDefault();
      if (!input.value.trim()) { input.focus(); return; }
      if (R.send({ type: "add_device_player", name: input.value })) S.deviceName = "";
    } },
      el("label", { for: "device-name" }, gettext("Add a player on this phone")),
      el("p", { class: "hint" }, gettext("Their name; you pass the phone to them on their turn.")),
      el("div", { class: "controls" }, input,
        el("button", { type: "submit", class: "button-small", "data-key": "add-device", "data-testid": "add-device-player", disabled: !S.connected },
          gettext("Add"))));
  }

  /* The computer levels a host may choose for this game, easiest first: the
     standard kind always, an easier and an expert one where the game has them. */
  function botLevels(room) {
    var easy = R.easyBot(room.game), expert = R.expertBot(room.game);
    var levels = [];
    if (easy) levels.push({ kind: easy, label: gettext("Easy"), tag: gettext("computer, easy") });
    levels.push({ kind: "standard", label: gettext("Strong"), tag: gettext("computer") });
    if (expert) levels.push({ kind: expert, label: gettext("Expert: thinks longer"), tag: gettext("computer, expert") });
    return levels;
  }

  function botTag(room, kind) {
    var level = botLevels(room).filter(function (l) { return l.kind === kind; })[0];
    return level ? level.tag : gettext("computer");
  }

  function botLevel(room) {
    var known = botLevels(room).some(function (l) { return l.kind === S.botLevel; });
    return known ? S.botLevel : "standard";
  }

  function hostControls(room, open) {
    var box = el("section", { class: "card host-controls", "aria-labelledby": "host-title" },
      el("h2", { id: "host-title" }, gettext("Host")));
    // Two choices that wrap, as on the home page: a select clipped "Party: 30
    // seconds a move, for n" on a 360 px phone once chosen.
    var paces = el("div", { class: "choice-row" });
    [["normal", gettext("Normal: 15 seconds a move")],
     ["party", gettext("Party: 30 seconds a move, for new players")]].forEach(function (choice) {
      var radio = el("input", { type: "radio", name: "pace", value: choice[0], checked: room.pace === choice[0],
        "data-key": "pace-" + choice[0], "data-testid": "pace-" + choice[0], disabled: !S.connected,
        onchange: function () { if (radio.checked) R.send({ type: "set_options", options: {}, pace: choice[0] }); } });
      paces.appendChild(el("label", { class: "choice" }, radio, el("span", {}, choice[1])));
    });
    box.appendChild(el("fieldset", {}, el("legend", {}, gettext("Pace")), paces));
    var levels = botLevels(room);
    if (levels.length > 1) {
      // An easier computer for new players, the `standard` one, and where the
      // game has one an expert that searches before it moves.
      var chosen = botLevel(room);
      var level = el("select", { id: "bot-level", "data-key": "bot-level", onchange: function () { S.botLevel = level.value; } });
      levels.forEach(function (l) { level.appendChild(el("option", { value: l.kind, selected: l.kind === chosen }, l.label)); });
      box.appendChild(el("label", { for: "bot-level" }, gettext("Computer players")));
      box.appendChild(level);
    }
    R.houseRules(room.game).forEach(function (rule) {
      var on = ruleOn(room, rule);
      var id = rule.id || rule.key.replace(/_/g, "-");
      var cb = el("input", { type: "checkbox", id: id, checked: on, "data-key": id, disabled: !S.connected, onchange: function () {
        var options = {};
        options[rule.key] = cb.checked;
        R.send({ type: "set_options", options: options });
      } });
      box.appendChild(el("label", { class: "choice" }, cb, el("span", {}, rule.label)));
    });
    // Quick play is always rated; a private table only when its host says so.
    var rated = el("input", { type: "checkbox", id: "rated", checked: !!(room.options && room.options.rated), "data-key": "rated", "data-testid": "rated", disabled: !S.connected, onchange: function () {
      R.send({ type: "set_options", options: { rated: rated.checked } });
    } });
    box.appendChild(el("label", { class: "choice" }, rated, el("span", {}, gettext("Rated game: the results change the ratings of players with an account"))));
    if (open) {
      box.appendChild(el("button", { type: "button", "data-key": "fill", "data-testid": "fill-bots", disabled: !S.connected, onclick: function () {
        (room.seats || []).forEach(function (s) { if (s.kind === "open") R.send({ type: "add_bot", seat: s.seat, bot: botLevel(room) }); });
      } }, gettext("Fill empty seats with computers")));
    }
    return box;
  }

  function ruleOn(room, rule) {
    return room.options && rule.key in room.options ? room.options[rule.key] !== false : rule.default;
  }

  /* What the host chose, for everyone else at a private table: the pace and
     the house rules were seen only once the game began (a phone drill). */
  function tableTerms(room) {
    var list = el("ul", { class: "table-terms", "data-testid": "table-terms" },
      el("li", {}, room.pace === "party" ? gettext("Party: 30 seconds a move, for new players") : gettext("Normal: 15 seconds a move")));
    R.houseRules(room.game).forEach(function (rule) {
      var on = ruleOn(room, rule);
      list.appendChild(el("li", { "data-rule": rule.key, "data-on": on ? "yes" : "no" },
        (on ? "✓ " : "✗ ") + rule.label, el("span", { class: "visually-hidden" }, on ? " (" + gettext("on") + ")" : " (" + gettext("off") + ")")));
    });
    if (room.options && room.options.rated) list.appendChild(el("li", {}, gettext("Rated game: the results change the ratings of players with an account")));
    return el("section", { class: "card", "aria-labelledby": "terms-title" },
      el("h2", { id: "terms-title" }, gettext("This table")), list);
  }

  /* The host's Start, under the thumb: it stays at the bottom of the screen
     while the lobby scrolls (the code, the seats, phone players and house
     rules put it a screen and a half down on a phone). */
  function startBar(open) {
    // While a seat is open, why Start is greyed, beside it (it was only in
    // the host's card, a screen and a half up on a phone).
    var why = open > 0 ? el("p", { class: "hint", id: "start-why", "data-testid": "start-why" },
      gettext("Every seat needs a player or a computer before the start.")) : null;
    return el("div", { class: "lobby-start-bar" }, why, el("button", {
      type: "button", class: "button-primary big-button", "data-key": "start", "data-testid": "start",
      "aria-describedby": why ? "start-why" : null,
      disabled: !S.connected || open > 0, onclick: function () { R.send({ type: "start" }); },
    }, gettext("Start the game")));
  }

  /* "Sit here" is one tap for a guest with a nickname. A friend who came by the
     link has none yet: the server would refuse the seat, so the tap keeps the
     seat and takes them to the name field instead (below the seats, out of
     sight on a phone). */
  function sitHere(seat, you) {
    if (knownName(you)) { join(seat); return; }
    S.wantSeat = seat;
    R.render();
    var input = document.getElementById("join-name");
    if (!input) return;
    input.scrollIntoView({ block: "center", behavior: KG.reducedMotion() ? "auto" : "smooth" });
    input.focus({ preventScroll: true });
  }

  /* The name this visitor plays under: their seat's, or the nickname their
     session already has (the page is served with it: a snapshot names only
     seated players), or "" for a friend who came by the link and has none. */
  function knownName(you) {
    return you.name || R.root.dataset.nickname || "";
  }

  function join(seat, name) {
    var msg = { type: "join", client_seed: KG.clientSeed() };
    if (seat !== null && seat !== undefined) msg.seat = seat;
    if (name) msg.name = name;
    if (R.send(msg)) S.seedFor = S.snap.room.next_seed_hash;
  }

  function copyLink() {
    var status = document.getElementById("copy-status");
    function done(ok) { if (status) status.textContent = ok ? gettext("Link copied") : R.SHARE_URL; }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(R.SHARE_URL).then(function () { done(true); }, function () { done(false); });
    } else done(false);
  }
  function shareLink() {
    navigator.share({ title: gettext("Khelaghor"), text: fmt(gettext("Room code %(code)s"), { code: R.CODE }), url: R.SHARE_URL })
      .catch(function () { /* the person closed the sheet */ });
  }
})();
