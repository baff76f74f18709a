/* Liar's Dice table: your cup, the bid, a picker that can only build legal raises
   (it is made from the snapshot's `legal` list, never from our own idea of the
   rules), the bid history and the reveal after a challenge. */
(function () {
  "use strict";
  var KG = window.KG, t = KG.t, el = KG.el, fmt = KG.fmt, digits = KG.digits;
  var FACE_ORDER = [2, 3, 4, 5, 6, 1];  // low to high, docs/rules.md §1.2

  // The picker's choice survives redraws within one decision.
  var pick = { key: null, quantity: null, face: null };

  // Faces and counts both in the page's digits: "তিনটি ৪", never "৩টি 4" (issue 14).
  function face(f) { return KG.digits(f); }

  function bidWords(quantity, fc) {
    return KG.nfmt(ngettext("%(n)s die showing %(face)s", "%(n)s dice showing %(face)s", quantity), quantity, { face: face(fc) });
  }

  function describe(ev, c) {
    var who = c.nameOf(ev.seat);
    if (ev.type === "round") {
      var mine = c.view.my_dice;
      var text = fmt(gettext("Round %(round)s: everyone rolled. %(name)s opens."), { round: ev.round, name: c.nameOf(ev.starter) });
      if (mine && mine.length) text += " " + fmt(gettext("Your dice: %(dice)s"), { dice: mine.map(digits).join(", ") });
      return text;
    }
    if (ev.type === "bid") return fmt(gettext("%(name)s bid %(bid)s"), { name: who, bid: bidWords(ev.quantity, ev.face) });
    if (ev.type === "challenge") {
      var r = c.view.last_reveal;
      var s = fmt(gettext("%(name)s challenged."), { name: who });
      if (r) {
        s += " " + KG.nfmt(ngettext("There was %(n)s.", "There were %(n)s.", ev.count), ev.count);
        s += " " + (r.bid_stands ? gettext("The bid stands.") : gettext("The bid fails."));
      }
      return s + " " + fmt(gettext("%(name)s loses a die."), { name: c.nameOf(ev.loser) });
    }
    return null;
  }

  function seatExtra(seat, c) {
    var counts = c.view.dice_counts || [];
    var n = counts[seat];
    if (n === undefined) return "";
    return n ? "🎲 × " + digits(n) : gettext("out");
  }
  function isOut(seat, c) {
    var counts = c.view.dice_counts || [];
    return counts[seat] === 0;
  }

  function render(board, controls, c) {
    var v = c.view, legal = c.legal;
    KG.clear(board);
    KG.clear(controls);

    // The cup.
    // A replay is nobody's view: no "You are watching" over it.
    var cup = el("section", { class: "cup", "aria-labelledby": c.replay ? null : "cup-title" },
      c.replay ? null : el("h2", { id: "cup-title" }, c.you === null ? gettext("You are watching") : gettext("Your cup")));
    var row = el("div", { class: "dice-row", "data-testid": "my-dice" });
    if (v.my_dice && v.my_dice.length) {
      v.my_dice.forEach(function (d) {
        row.appendChild(KG.die(d, { cls: "mine" + (d === 1 && v.ones_wild ? " wild" : ""), label: fmt(gettext("a %(face)s"), { face: face(d) }) }));
      });
    } else if (v.rolling) {
      row.appendChild(el("span", {}, gettext("The dice are rolling…")));
    } else if (c.you !== null && (v.dice_counts || [])[c.you] === 0) {
      row.appendChild(el("span", {}, gettext("You are out of dice. Watch the rest of the game.")));
    }
    cup.appendChild(row);
    cup.appendChild(el("p", { class: "legend-row", style: { color: "#f3e9d8" } },
      KG.nfmt(ngettext("%(n)s die on the table", "%(n)s dice on the table", v.total_dice || 0), v.total_dice || 0),
      " · ",
      v.ones_wild ? gettext("1s are wild (jokers)") : gettext("1s are not wild this round")));
    board.appendChild(cup);

    // The bid to beat.
    var current = el("section", { class: "panel", "aria-labelledby": "bid-title" }, el("h2", { id: "bid-title" }, gettext("Current bid")));
    if (v.bid) {
      current.appendChild(el("p", { class: "bid-now", "data-testid": "current-bid", "data-quantity": v.bid.quantity, "data-face": v.bid.face },
        el("span", {}, c.nameOf(v.bid.seat) + ":"), el("span", {}, digits(v.bid.quantity) + " ×"),
        KG.die(v.bid.face, { label: fmt(gettext("%(face)s"), { face: face(v.bid.face) }) })));
    } else {
      current.appendChild(el("p", { "data-testid": "current-bid" },
        v.to_move !== null && v.to_move !== undefined ? fmt(gettext("No bid yet. %(name)s opens."), { name: c.nameOf(v.to_move) }) : gettext("No bid yet.")));
    }
    board.appendChild(current);

    // The last reveal: every hand, the dice that counted, who lost a die.
    if (v.last_reveal) board.appendChild(reveal(v.last_reveal, c, !v.bids || v.bids.length === 0));

    // The picker.
    var bids = legal.filter(function (a) { return a.type === "bid"; });
    var canChallenge = legal.some(function (a) { return a.type === "challenge"; });
    if (bids.length || canChallenge) controls.appendChild(picker(bids, canChallenge, c));

    // History.
    var hist = el("section", { class: "panel", "aria-labelledby": "hist-title" }, el("h2", { id: "hist-title" }, gettext("Bids this round")));
    var list = el("ol", { class: "bid-history", "data-testid": "bid-history" });
    (v.bids || []).forEach(function (b) {
      list.appendChild(el("li", {}, KG.seatBadge(b.seat), el("span", {}, c.nameOf(b.seat) + ": " + digits(b.quantity) + " ×"), KG.die(b.face, { cls: "small", label: face(b.face) })));
    });
    if (!v.bids || !v.bids.length) list.appendChild(el("li", { class: "hint" }, gettext("None yet")));
    hist.appendChild(list);
    controls.appendChild(hist);
  }

  function picker(bids, canChallenge, c) {
    var v = c.view;
    var byQty = {};
    bids.forEach(function (b) { (byQty[b.quantity] = byQty[b.quantity] || {})[b.face] = true; });
    var quantities = Object.keys(byQty).map(Number).sort(function (a, b) { return a - b; });
    var key = v.round + ":" + (v.bids ? v.bids.length : 0);
    if (pick.key !== key || !byQty[pick.quantity]) {
      pick.key = key;
      pick.quantity = quantities[0];
      pick.face = null;
    }
    var faces = byQty[pick.quantity] || {};
    if (!faces[pick.face]) pick.face = FACE_ORDER.filter(function (f) { return faces[f]; })[0];

    var box = el("section", { class: "panel bid-picker", "aria-labelledby": "pick-title", "data-testid": "bid-picker", "data-total": v.total_dice },
      el("h2", { id: "pick-title" }, gettext("Your move")));
    if (quantities.length) {
      var qi = quantities.indexOf(pick.quantity);
      var out = el("output", { "data-testid": "bid-quantity", "data-value": pick.quantity, "aria-live": "polite" }, digits(pick.quantity));
      box.appendChild(el("div", { class: "stepper", role: "group", "aria-label": gettext("How many dice") },
        el("span", { class: "grow" }, gettext("How many dice")),
        el("button", { type: "button", "data-key": "qty-down", "data-testid": "qty-down", "aria-label": gettext("Fewer"), disabled: qi <= 0 || !c.canAct,
          onclick: function () { pick.quantity = quantities[qi - 1]; KG.render(); } }, "−"),
        out,
        el("button", { type: "button", "data-key": "qty-up", "data-testid": "qty-up", "aria-label": gettext("More"), disabled: qi >= quantities.length - 1 || !c.canAct,
          onclick: function () { pick.quantity = quantities[qi + 1]; KG.render(); } }, "+")));
      var faceRow = el("div", { class: "face-buttons", role: "group", "aria-label": gettext("Which face") });
      FACE_ORDER.forEach(function (f) {
        var ok = !!faces[f];
        faceRow.appendChild(el("button", {
          type: "button", "data-key": "face-" + f, "data-face": f, "aria-pressed": String(pick.face === f),
          "aria-label": fmt(gettext("face %(face)s"), { face: face(f) }), disabled: !ok || !c.canAct,
          onclick: function () { pick.face = f; KG.render(); },
        }, KG.die(f, {})));
      });
      box.appendChild(faceRow);
      box.appendChild(el("button", {
        type: "button", class: "button-primary big-button", "data-key": "bid", "data-testid": "bid-button",
        disabled: !c.canAct || !pick.face,
        onclick: function () { c.act({ type: "bid", quantity: pick.quantity, face: pick.face }); },
      }, pick.face ? fmt(gettext("Bid %(bid)s"), { bid: bidWords(pick.quantity, pick.face) }) : gettext("Bid")));
    }
    if (canChallenge) {
      box.appendChild(el("button", {
        type: "button", class: "big-button", "data-key": "challenge", "data-testid": "challenge-button", disabled: !c.canAct,
        onclick: function () { c.act({ type: "challenge" }); },
      }, v.bid ? fmt(gettext("Challenge %(name)s"), { name: c.nameOf(v.bid.seat) }) : gettext("Challenge")));
    }
    return box;
  }

  function reveal(r, c, fresh) {
    var wrap = el(fresh ? "section" : "details", { class: "panel reveal", "data-testid": "reveal", open: fresh ? null : null });
    var title = fmt(gettext("Cups opened: %(name)s's bid of %(bid)s"), { name: c.nameOf(r.bid.seat), bid: bidWords(r.bid.quantity, r.bid.face) });
    wrap.appendChild(fresh ? el("h2", {}, title) : el("summary", {}, gettext("Last challenge") + ": " + title));
    r.hands.forEach(function (hand, seat) {
      if (!hand || !hand.length) return;
      var counted = (r.counted && r.counted[seat]) || [];
      var row = el("div", { class: "reveal-hand" }, el("span", { class: "who" }, c.nameOf(seat)));
      hand.forEach(function (d, i) {
        var isCounted = counted.indexOf(i) >= 0;
        var wild = isCounted && d === 1 && r.bid.face !== 1 && r.ones_wild;
        row.appendChild(KG.die(d, {
          cls: "small " + (wild ? "wild" : isCounted ? "counted" : ""),
          label: face(d) + (wild ? " (" + gettext("wild") + ")" : isCounted ? " (" + gettext("counted") + ")" : ""),
        }));
      });
      wrap.appendChild(row);
    });
    wrap.appendChild(el("p", { class: "legend-row" },
      KG.die(5, { cls: "small counted" }), gettext("counted"), KG.die(1, { cls: "small wild" }), gettext("wild 1")));
    wrap.appendChild(el("p", { class: "reveal-verdict" },
      KG.nfmt(ngettext("There was %(n)s.", "There were %(n)s.", r.count), r.count), " ",
      r.bid_stands ? gettext("The bid stands.") : gettext("The bid fails."), " ",
      fmt(gettext("%(name)s loses a die."), { name: c.nameOf(r.loser) })));
    return wrap;
  }

  KG.games.liars_dice = { render: render, describe: describe, seatExtra: seatExtra, isOut: isOut };
})();
