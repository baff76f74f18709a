/* The room page, part 6: the results, as a sheet over the table.

   When a game ends the sheet rises from the bottom of the screen, where the
   player is looking whatever they had scrolled to, and takes the focus once:
   the winner in big, the places (with how each rated player's rating moved,
   once the server has updated it), Rematch (the host), Share, the fair-dice
   links and the luck report. "See the board" lowers it; "Results" brings it
   back. */
(function () {
  "use strict";
  var KG = window.KG, R = KG.room, S = KG.state, el = KG.el, fmt = KG.fmt, digits = KG.digits;

  function over(game) {
    return game && game.status !== "in_progress" && S.snap.room.status !== "playing";
  }
  R.resultsOver = over;

  /* A seated player at a private table whose host (seat 0) is away: the
     server lets them take the host's place (take_host) between games. */
  function hostAway() {
    var room = S.snap.room;
    return room.visibility === "private" && room.status === "finished" && R.youSeat() !== null
      && !R.device() && R.hostAway(room.seats || []);
  }

  R.renderResults = function () {
    var game = S.snap.game, you = S.snap.you || {}, box = S.parts.results;
    var showing = over(game) && S.resultsClosed !== game.id;
    if (!showing) {
      // Hidden during play: read nothing from it (reading scrollTop on every
      // update forced a layout mid-draw, the top cost on a cheap phone).
      if (!box.hidden) { KG.clear(box); box.hidden = true; }
      return;
    }
    var scrolled = box.hidden ? 0 : box.scrollTop;  // a redraw (the luck report arriving) keeps the place
    KG.clear(box);
    box.hidden = false;
    // On a phone several players share, "you" is whoever holds it now: name them all.
    var placings = game.placings || [], mine = R.device() ? null : R.youSeat();
    var title = el("h2", { id: "results-title", tabindex: "-1", "data-key": "results-title" }, gettext("Results"));
    box.appendChild(el("div", { class: "sheet-head" }, title,
      el("button", { type: "button", class: "button-small", "data-key": "results-close", "data-testid": "results-close",
        onclick: function () { S.resultsClosed = game.id; R.render(); } }, gettext("See the board"))));
    if (placings.length) {
      var first = placings[0];
      box.appendChild(el("p", { class: "winner", "data-testid": "winner" }, el("span", { "aria-hidden": "true" }, "🏆 "),
        KG.seatBadge(first),
        first === mine ? gettext("You win!") : fmt(gettext("%(name)s wins!"), { name: R.nameOf(first) })));
    }
    var list = el("ol", { class: "placings", "data-testid": "placings" });
    placings.forEach(function (seat, i) {
      var moved = R.ratingChangeOf(game.id, seat);
      list.appendChild(el("li", { class: i === 0 ? "first" : null }, el("span", { class: "place" }, digits(i + 1)), KG.seatBadge(seat),
        el("span", {}, R.nameOf(seat) + (seat === mine ? " (" + gettext("you") + ")" : "")),
        moved ? ratingLine(moved, seat === mine) : null));
    });
    box.appendChild(list);
    var held = heldAtTheEnd();
    if (held) box.appendChild(el("p", { class: "hint", "data-testid": "finished-for-you" }, held));
    var row = el("div", { class: "results-actions" });
    if (you.is_host) {
      row.appendChild(el("button", { type: "button", class: "button-primary big-button", "data-key": "rematch", "data-testid": "rematch",
        disabled: !S.connected, onclick: function () { R.send({ type: "rematch" }); } }, gettext("Rematch")));
    } else if (hostAway()) {
      // A host who left mid-game ("Leave the game") or closed the page left
      // the others unable to play again: one of them takes the host's place.
      row.appendChild(el("p", { class: "hint", "data-testid": "host-away" }, gettext("The host has gone away. One of you can take their place.")));
      row.appendChild(el("button", { type: "button", class: "button-primary big-button", "data-key": "take-host", "data-refocus": "take-host",
        "data-testid": "take-host", disabled: !S.connected, onclick: function () { R.send({ type: "take_host" }); } }, gettext("Become the host")));
    } else {
      row.appendChild(el("p", { class: "hint" }, gettext("The host can start a rematch.")));
    }
    row.appendChild(el("button", { type: "button", "data-key": "share-result", "data-testid": "share-result",
      onclick: function () { share(game, placings); } }, gettext("Share")));
    row.appendChild(el("a", { class: "button", href: R.root.dataset.homeUrl }, gettext("Back to the start")));
    box.appendChild(row);
    box.appendChild(el("p", { id: "share-status", class: "hint", role: "status", "data-testid": "share-status" }));
    box.appendChild(R.fairnessPanel(game));
    box.appendChild(luckSection(game));
    box.scrollTop = scrolled;
    if (S.resultsSeen !== game.id) {
      // Once per game: the focus (and a screen reader) goes to the results.
      S.resultsSeen = game.id;
      setTimeout(function () { if (title.isConnected) title.focus({ preventScroll: true }); }, 0);
    }
  };

  /* The game ended while the computer held this page's player's seat (they
     left, or were away): the sheet says so, and how many turns it played,
     to a player who comes back to a game that went on without them. The
     banner that offers the seat back is gone once the game is over, and the
     "while you were away" sentence waits for a reclaim that cannot come now.
     The seat stays held, with its count, until the next game starts. */
  function heldAtTheEnd() {
    var hold = R.ownHold();  // null on a shared phone, as ``mine`` is
    if (!hold) return null;
    var played = hold.moves;
    return played > 0
      ? KG.nfmt(ngettext("While you were away the computer played %(n)s turn for you and finished the game.",
        "While you were away the computer played %(n)s turns for you and finished the game.", played), played)
      : gettext("The game ended while the computer was holding your seat.");
  }

  /* A rating as it is shown everywhere: one decimal, in the page's digits. */
  function rating(mu) { return digits(mu.toFixed(1)); }

  /* "Rating 25.0 → 26.4 (+1.4)" on screen; in words for a screen reader,
     which may read the arrow as "right arrow" or not at all. */
  function ratingLine(change, mine) {
    var tenths = Math.round((change.after - change.before) * 10);
    var sign = tenths > 0 ? "+" : tenths < 0 ? "\u2212" : "\u00b1";
    var values = { before: rating(change.before), after: rating(change.after), change: sign + rating(Math.abs(tenths) / 10) };
    var shown = mine ? gettext("Your rating %(before)s → %(after)s (%(change)s)") : gettext("Rating %(before)s → %(after)s (%(change)s)");
    return el("p", { class: "rating-change", "data-testid": "rating-change", "data-seat": String(change.seat) },
      el("span", { "aria-hidden": "true", "data-testid": "rating-shown" }, fmt(shown, values)),
      el("span", { class: "visually-hidden" }, ratingSaid(change, mine)));
  }
  function ratingSaid(change, mine) {
    var values = { before: rating(change.before), after: rating(change.after), name: R.nameOf(change.seat) };
    return mine ? fmt(gettext("Your rating went from %(before)s to %(after)s"), values)
      : fmt(gettext("%(name)s's rating went from %(before)s to %(after)s"), values);
  }

  /* The ratings came from the socket (they are updated after the game's end,
     so they may come after its results were drawn): drawn in if the results
     show that game, and then said once. Otherwise the panel shows them when
     it opens, as text in its list. */
  R.ratingsArrived = function (gameId) {
    var game = S.snap && S.snap.game, box = S.parts.results;
    if (!game || game.id !== gameId || !box || !over(game)) return;
    var shown = !box.hidden;
    R.render();
    if (!shown || S.ratingsSaid === gameId) return;
    S.ratingsSaid = gameId;
    var mine = R.device() ? null : R.youSeat();
    (S.ratings[gameId] || []).forEach(function (change) { KG.announce(ratingSaid(change, change.seat === mine)); });
  };

  /* The result and a link to the finished game's page (its replay and fair-dice
     check): the phone's share sheet where there is one, else the link copied. */
  function share(game, placings) {
    var url = game.page_url ? new URL(game.page_url, location.href).href : R.SHARE_URL;
    var text = placings.length
      ? fmt(gettext("%(name)s won %(game)s on Khelaghor"), { name: R.nameOf(placings[0]), game: R.gameTitle(S.snap.room.game) })
      : R.gameTitle(S.snap.room.game);
    var status = document.getElementById("share-status");
    function say(msg) { if (status) status.textContent = msg; }
    function copy() {
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text + " " + url).then(function () { say(gettext("Link copied")); }, function () { say(url); });
      } else say(url);
    }
    if (navigator.share) {
      navigator.share({ title: gettext("Khelaghor"), text: text, url: url }).catch(function (e) {
        if (!e || e.name !== "AbortError") copy();  // no sheet after all; closing it is not an error
      });
    } else copy();
  }

  /* The luck report (/games/<id>/luck.json, drawn by luck.js), fetched once per game. */
  function luckSection(game) {
    var wrap = el("section", { class: "luck", "aria-labelledby": "luck-title", "data-testid": "luck" },
      el("h3", { id: "luck-title" }, gettext("Luck report")));
    if (!game.id) return wrap;
    var report = S.luck[game.id];
    if (!report) {
      S.luck[game.id] = "loading";
      fetch("/games/" + game.id + "/luck.json", { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (r) { if (!r.ok) throw new Error(String(r.status)); return r.json(); })
        .then(function (data) { S.luck[game.id] = data; R.render(); })
        .catch(function () { S.luck[game.id] = "failed"; R.render(); });
      report = "loading";
    }
    if (report === "loading") { wrap.appendChild(el("p", { class: "hint" }, gettext("Counting the dice…"))); return wrap; }
    if (report === "failed") { wrap.appendChild(el("p", { class: "hint" }, gettext("The luck report could not be loaded."))); return wrap; }
    wrap.dataset.kind = report.kind;
    wrap.appendChild(KG.luck.draw(report, { nameOf: R.nameOf }));
    return wrap;
  }
})();
