/* Liar's Dice around a table.

   board:    the players seated around the cup (each with their dice count and last
             bid, whose turn lit), the bid to beat on the cup, your own dice big at
             the bottom; after a challenge the cups lift on the table itself, the
             dice that counted glow and the loser's die drops (static when motion is
             reduced). Bids of the round and the last challenge sit behind a tap.
   controls: the bid picker for the thumb zone: a quantity stepper, six faces and
             Bid / Challenge. It is made from the snapshot's `legal` list, never
             from our own idea of the rules, so it can only build legal raises.

   Every number (counts, quantities, faces in words) goes through KG.digits, so a
   Bengali page shows Bengali digits; die faces are drawn as pips by KG.die.
   The replay page (replay.js) calls render() too, with c.replay set and no seat. */
(function () {
  "use strict";
  var KG = window.KG, el = KG.el, fmt = KG.fmt, digits = KG.digits;
  var FACE_ORDER = [2, 3, 4, 5, 6, 1];  // low to high, docs/rules.md §1.2
  // Where the seats sit, counted clockwise from the bottom (you): bottom, left,
  // top, right, as seen from above the table (seats are numbered clockwise).
  var SPOTS = {
    1: ["b"],
    2: ["b", "t"],
    3: ["b", "l", "r"],
    4: ["b", "l", "t", "r"],
    5: ["b", "l", "tl", "tr", "r"],
    6: ["b", "l", "tl", "t", "tr", "r"],
  };
  // A reveal stays on the table at least this long after the challenge, even if
  // the next round's first bid comes quickly (a computer opens after ~1 s).
  var HOLD_MS = 3500;

  // The picker's choice survives redraws within one decision.
  var pick = { key: null, quantity: null, face: null };
  // The reveal being shown as a moment: {key, until}.
  var moment = { key: null, until: 0, timer: null };
  var moreOpen = false;

  function face(f) { return digits(f); }

  function bidWords(quantity, fc) {
    return KG.nfmt(ngettext("%(n)s die showing %(face)s", "%(n)s dice showing %(face)s", quantity), quantity, { face: face(fc) });
  }

  function describe(ev, c) {
    var who = c.nameOf(ev.seat);
    if (ev.type === "round") {
      var mine = c.view.my_dice;
      var text = fmt(gettext("Round %(round)s: everyone rolled. %(name)s opens."), { round: ev.round, name: c.nameOf(ev.starter) });
      // Never on a phone several players share: the log and the cover's last
      // lines outlive the view, and "your dice" would be shown to the next
      // player (a family drill saw them on the cover).
      var shared = KG.room && KG.room.device && KG.room.device();
      if (mine && mine.length && !(shared && shared.secret)) {
        text += " " + fmt(gettext("Your dice: %(dice)s"), { dice: mine.map(digits).join(", ") });
      }
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

  function diceCount(n) {
    return KG.nfmt(ngettext("%(n)s die", "%(n)s dice", n), n);
  }

  function seatExtra(seat, c) {
    var counts = c.view.dice_counts || [];
    var n = counts[seat];
    if (n === undefined) return "";
    return n ? diceCount(n) : gettext("out");
  }
  function isOut(seat, c) {
    var counts = c.view.dice_counts || [];
    return counts[seat] === 0;
  }

  /* Say a short sentence in the page's live region (the picker's choices), without
     adding it to the event log. */
  function say(text) {
    var live = document.getElementById("live");
    if (live) live.textContent = text;
  }

  // The challenge whose opener's new dice the board was scrolled to.
  var shownFor = null;
  function revealKey(r) { return r ? [r.round, r.bid.seat, r.bid.quantity, r.bid.face, r.loser].join(":") : null; }

  function render(board, controls, c, events) {
    var v = c.view, legal = c.legal || [];
    var r = v.last_reveal;
    var fresh = !!(events || []).filter(function (e) { return e.type === "challenge"; }).length;
    if (fresh && r && !c.replay) {
      // Hold the moment on the table for a while, then draw the new round.
      clearTimeout(moment.timer);
      moment.key = revealKey(r);
      moment.until = Date.now() + HOLD_MS;
      moment.timer = setTimeout(function () { if (KG.render) KG.render(); }, HOLD_MS + 50);
    }
    // ... unless it is your move on a bid made meanwhile: then you need the table as it is.
    var yourMoveOnABid = legal.length && v.bids && v.bids.length;
    var held = r && !yourMoveOnABid && moment.key === revealKey(r) && Date.now() < moment.until;
    var showReveal = !!r && (!(v.bids && v.bids.length) || held);
    var animate = fresh && showReveal && !KG.reducedMotion();
    if (animate) KG.animated += 1;

    KG.clear(board);
    KG.clear(controls);
    board.appendChild(table(v, c, showReveal ? r : null, animate));

    // Behind a tap: the bids of this round and (once the table moved on) the last challenge.
    var more = el("details", { class: "ld-more", "data-testid": "bid-more", open: moreOpen,
      ontoggle: function () { moreOpen = more.open; } });
    var bids = v.bids || [];
    more.appendChild(el("summary", { "data-key": "bid-more" }, gettext("Bids this round"), " (" + digits(bids.length) + ")"));
    var list = el("ol", { class: "bid-history", "data-testid": "bid-history" });
    bids.forEach(function (b) {
      list.appendChild(el("li", {}, KG.seatBadge(b.seat), el("span", {}, c.nameOf(b.seat) + ": " + digits(b.quantity) + " ×"),
        KG.die(b.face, { cls: "small", label: face(b.face) })));
    });
    if (!bids.length) list.appendChild(el("li", { class: "hint" }, gettext("None yet")));
    more.appendChild(list);
    if (r && !showReveal) more.appendChild(lastReveal(r, c));
    board.appendChild(more);

    var bidActions = legal.filter(function (a) { return a.type === "bid"; });
    var canChallenge = legal.some(function (a) { return a.type === "challenge"; });
    if (bidActions.length || canChallenge) controls.appendChild(picker(bidActions, canChallenge, c));
    // The new round's dice of the player who opens it sit under the open
    // cups; at five or six players the table is then taller than a phone's
    // board space, and the picker hid them (a phone drill): the board
    // scrolls to them, since that is what the player bids on. Once a
    // challenge: after that the player may scroll up to read the cups.
    var mineRow = showReveal && bidActions.length && !c.replay && shownFor !== revealKey(r)
      ? board.querySelector("[data-testid=my-dice]") : null;
    if (mineRow) {
      shownFor = revealKey(r);
      requestAnimationFrame(function () { if (mineRow.isConnected) mineRow.scrollIntoView({ block: "nearest" }); });
    }
  }

  // ---- the table ------------------------------------------------------------------

  function lastBidOf(seat, v) {
    var bids = v.bids || [];
    for (var i = bids.length - 1; i >= 0; i--) if (bids[i].seat === seat) return bids[i];
    return null;
  }

  function table(v, c, r, animate) {
    var n = v.num_players || (v.dice_counts || []).length;
    var spots = SPOTS[n] || SPOTS[6];
    var bottom = c.you === null || c.you === undefined ? 0 : c.you;
    var wrap = el("section", {
      class: "ld-table ld-n" + n + (r ? " is-reveal" : "") + (animate ? " is-moment" : ""),
      "data-testid": "liars-table", "aria-label": gettext("The table"), "data-players": n,
    });
    for (var k = 0; k < n; k++) {
      var seat = (bottom + k) % n;
      wrap.appendChild(seatCard(seat, spots[k] || "t", v, c, r, animate, k === 0));
    }
    wrap.appendChild(cup(v, c, r));
    return wrap;
  }

  function seatCard(seat, spot, v, c, r, animate, isBottom) {
    var counts = v.dice_counts || [];
    var left = counts[seat];
    var out = left === 0 && !(r && r.loser === seat);
    var turn = v.to_move === seat && !v.over;
    var mine = seat === c.you;
    var card = el("div", {
      class: "ld-seat ld-at-" + spot + (turn ? " is-turn" : "") + (out ? " is-out" : "") + (mine ? " is-you" : ""),
      "data-seat": seat, "data-testid": "ld-seat-" + seat, "aria-current": turn ? "true" : null,
    });
    var head = el("div", { class: "ld-seat-head" }, KG.seatBadge(seat),
      el("span", { class: "ld-name" }, c.nameOf(seat) + (mine ? " (" + gettext("you") + ")" : "")));
    card.appendChild(head);
    var info = el("div", { class: "ld-seat-info" });
    if (left === undefined) {
      // nothing known
    } else if (left === 0 && !(r && r.loser === seat)) {
      info.appendChild(el("span", { class: "ld-count", "data-count": 0 }, gettext("out")));
    } else {
      info.appendChild(el("span", { class: "ld-count", "data-count": left },
        el("span", { class: "ld-cup-icon", "aria-hidden": "true" }), el("span", { "aria-hidden": "true" }, "×" + digits(left)),
        el("span", { class: "visually-hidden" }, diceCount(left))));
    }
    if (r) {
      info.appendChild(revealedHand(seat, r, animate));
    } else {
      var b = lastBidOf(seat, v);
      if (b) {
        info.appendChild(el("span", { class: "ld-last", "data-testid": "last-bid-" + seat, "data-quantity": b.quantity, "data-face": b.face },
          el("span", { class: "visually-hidden" }, gettext("last bid") + ": "),
          el("span", {}, digits(b.quantity) + " ×"), KG.die(b.face, { cls: "tiny", label: face(b.face) })));
      }
    }
    card.appendChild(info);
    if (isBottom && mine) card.appendChild(myDice(v, c));
    return card;
  }

  function myDice(v, c) {
    var row = el("div", { class: "ld-mine", "data-testid": "my-dice", role: "group", "aria-label": gettext("Your dice") });
    if (v.my_dice && v.my_dice.length) {
      v.my_dice.forEach(function (d) {
        row.appendChild(KG.die(d, { cls: "mine" + (d === 1 && v.ones_wild ? " wild" : ""), label: fmt(gettext("a %(face)s"), { face: face(d) }) }));
      });
    } else if (v.rolling) {
      row.appendChild(el("span", { class: "ld-note" }, gettext("The dice are rolling…")));
    } else if ((v.dice_counts || [])[c.you] === 0 && !v.over) {  // once it is over, nothing is left to watch
      row.appendChild(el("span", { class: "ld-note" }, gettext("You are out of dice. Watch the rest of the game.")));
    }
    return row;
  }

  /* A seat's hand from the last challenge: the dice that counted glow, a wild 1
     that counted is marked wild; the loser's lost die drops off. */
  function revealedHand(seat, r, animate) {
    var hand = r.hands[seat] || [];
    var counted = (r.counted && r.counted[seat]) || [];
    var box = el("span", { class: "ld-hand", "data-testid": "hand-" + seat, "data-counted": counted.length });
    if (animate && hand.length) box.appendChild(el("span", { class: "ld-lid", "aria-hidden": "true" }));
    hand.forEach(function (d, i) {
      var isCounted = counted.indexOf(i) >= 0;
      var wild = isCounted && d === 1 && r.bid.face !== 1 && r.ones_wild;
      box.appendChild(KG.die(d, {
        cls: "tiny" + (wild ? " wild counted" : isCounted ? " counted" : ""),
        label: face(d) + (wild ? " (" + gettext("wild") + ")" : isCounted ? " (" + gettext("counted") + ")" : ""),
      }));
    });
    if (seat === r.loser) {
      box.appendChild(el("span", { class: "ld-loss", "data-testid": "loser" },
        el("span", { class: "ld-drop" + (animate ? " is-dropping" : ""), "aria-hidden": "true" }, KG.die(null, { hidden: true, cls: "tiny" })),
        el("span", { class: "ld-minus" }, "−" + digits(1)),
        el("span", { class: "visually-hidden" }, gettext("loses a die"))));
    }
    return box;
  }

  /* The cup in the middle: the bid to beat, or the verdict of the challenge. */
  function cup(v, c, r) {
    var box = el("div", { class: "cup ld-at-c" });
    if (r) {
      box.appendChild(el("div", { class: "ld-verdict", "data-testid": "reveal", "data-count": r.count, "data-stands": r.bid_stands ? "yes" : "no", role: "group",
        "aria-label": fmt(gettext("Cups opened: %(name)s's bid of %(bid)s"), { name: c.nameOf(r.bid.seat), bid: bidWords(r.bid.quantity, r.bid.face) }) },
        // The group's name already says the bid in words: its picture is not read again.
        el("span", { class: "ld-small", "aria-hidden": "true" }, gettext("Cups opened")),
        el("span", { class: "ld-bid-big", "aria-hidden": "true" }, el("span", {}, digits(r.bid.quantity) + " ×"), KG.die(r.bid.face, { cls: "mid", label: face(r.bid.face) })),
        el("span", { class: "ld-small ld-count-line" }, KG.nfmt(ngettext("There was %(n)s.", "There were %(n)s.", r.count), r.count), " ",
          el("strong", {}, r.bid_stands ? gettext("The bid stands.") : gettext("The bid fails.")))));
      // Under the verdict, the new round: who opens, or the bid made meanwhile.
      box.appendChild(v.bid
        ? el("p", { class: "ld-small ld-next", "data-testid": "current-bid", "data-quantity": v.bid.quantity, "data-face": v.bid.face },
          fmt(gettext("%(name)s bid %(bid)s"), { name: c.nameOf(v.bid.seat), bid: bidWords(v.bid.quantity, v.bid.face) }))
        : el("p", { class: "ld-small ld-next", "data-testid": "current-bid" },
          v.to_move !== null && v.to_move !== undefined ? fmt(gettext("No bid yet. %(name)s opens."), { name: c.nameOf(v.to_move) }) : ""));
    } else if (v.bid) {
      box.appendChild(el("div", { class: "ld-bid", "data-testid": "current-bid", "data-quantity": v.bid.quantity, "data-face": v.bid.face },
        el("span", { class: "ld-small ld-who" }, c.nameOf(v.bid.seat)),
        // "3 ×" and a die are for the eye; a screen reader reads the words once.
        el("span", { class: "ld-bid-big", "aria-hidden": "true" }, el("span", {}, digits(v.bid.quantity) + " ×"),
          KG.die(v.bid.face, { cls: "mid", label: face(v.bid.face) })),
        el("span", { class: "visually-hidden" }, bidWords(v.bid.quantity, v.bid.face))));
    } else {
      box.appendChild(el("p", { class: "ld-bid ld-small", "data-testid": "current-bid" },
        v.to_move !== null && v.to_move !== undefined ? fmt(gettext("No bid yet. %(name)s opens."), { name: c.nameOf(v.to_move) }) : gettext("No bid yet.")));
    }
    box.appendChild(el("p", { class: "ld-legend" },
      el("span", { "data-testid": "total-dice" }, KG.nfmt(ngettext("%(n)s die on the table", "%(n)s dice on the table", v.total_dice || 0), v.total_dice || 0)),
      " · ", el("span", {}, v.ones_wild ? gettext("1s are wild (jokers)") : gettext("1s are not wild this round"))));
    return box;
  }

  // ---- the picker -------------------------------------------------------------------

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

    var box = el("section", { class: "ld-picker bid-picker", "aria-labelledby": "pick-title", "data-testid": "bid-picker", "data-total": v.total_dice },
      el("h2", { id: "pick-title", class: "visually-hidden" }, gettext("Your move")));
    // A tap on the picker changes only the picker: it is drawn again in its
    // place, not the whole page (the cup, six seats and their dice), which
    // took a cheap phone most of a frame per tap. The focus stays on the key
    // it was on.
    var redraw = function () {
      var focusKey = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
      var fresh = picker(bids, canChallenge, c);
      box.replaceWith(fresh);
      var again = focusKey && fresh.querySelector('[data-key="' + focusKey + '"]');
      if (again && !again.disabled) again.focus({ preventScroll: true });
    };
    if (quantities.length) {
      var qi = quantities.indexOf(pick.quantity);
      var step = function (d) {
        pick.quantity = quantities[qi + d];
        var ok = byQty[pick.quantity] || {};
        if (!ok[pick.face]) pick.face = FACE_ORDER.filter(function (f) { return ok[f]; })[0];
        redraw();
        // At either end of the range the pressed button is disabled: keep the
        // keyboard in the stepper, on the button that still goes somewhere.
        var here = document.querySelector('[data-key="qty-' + (d > 0 ? "up" : "down") + '"]');
        var other = document.querySelector('[data-key="qty-' + (d > 0 ? "down" : "up") + '"]');
        if (here && here.disabled && other && !other.disabled && document.activeElement === document.body) other.focus();
        say(bidWords(pick.quantity, pick.face));
      };
      box.appendChild(el("div", { class: "stepper ld-stepper", role: "group", "aria-labelledby": "qty-label" },
        el("span", { id: "qty-label", class: "ld-label" }, gettext("How many dice")),
        el("span", { class: "ld-step" },
          el("button", { type: "button", "data-key": "qty-down", "data-testid": "qty-down", "aria-label": gettext("Fewer dice"), disabled: qi <= 0 || !c.canAct,
            onclick: function () { step(-1); } }, "−"),
          el("output", { "data-testid": "bid-quantity", "data-value": pick.quantity }, digits(pick.quantity)),
          el("button", { type: "button", "data-key": "qty-up", "data-testid": "qty-up", "aria-label": gettext("More dice"), disabled: qi >= quantities.length - 1 || !c.canAct,
            onclick: function () { step(1); } }, "+"))));
      var faceRow = el("div", { class: "face-buttons", role: "group", "aria-label": gettext("Which face") });
      FACE_ORDER.forEach(function (f) {
        var ok = !!faces[f];
        faceRow.appendChild(el("button", {
          type: "button", "data-key": "face-" + f, "data-face": f, "aria-pressed": String(pick.face === f),
          "aria-label": fmt(gettext("face %(face)s"), { face: face(f) }), disabled: !ok || !c.canAct,
          onclick: function () { pick.face = f; redraw(); say(bidWords(pick.quantity, pick.face)); },
        }, KG.die(f, {})));
      });
      box.appendChild(faceRow);
    }
    var go = el("div", { class: "ld-go" });
    if (quantities.length) {
      go.appendChild(el("button", {
        type: "button", class: "button-primary ld-bid-button", "data-key": "bid", "data-testid": "bid-button",
        disabled: !c.canAct || !pick.face,
        "aria-label": pick.face ? fmt(gettext("Bid %(bid)s"), { bid: bidWords(pick.quantity, pick.face) }) : null,
        onclick: function () { c.act({ type: "bid", quantity: pick.quantity, face: pick.face }); },
      }, gettext("Bid"), " ", el("span", { class: "ld-bid-short", "aria-hidden": "true" }, digits(pick.quantity) + " ×"),
        pick.face ? KG.die(pick.face, { cls: "tiny" }) : null));
    }
    if (canChallenge) {
      go.appendChild(el("button", {
        type: "button", class: "ld-challenge-button", "data-key": "challenge", "data-testid": "challenge-button", disabled: !c.canAct,
        "aria-label": v.bid ? fmt(gettext("Challenge %(name)s"), { name: c.nameOf(v.bid.seat) }) : null,
        onclick: function () { c.act({ type: "challenge" }); },
      }, gettext("Challenge")));
    }
    box.appendChild(go);
    return box;
  }

  // ---- the last challenge, behind a tap ----------------------------------------------

  function lastReveal(r, c) {
    var wrap = el("section", { class: "ld-last-reveal", "data-testid": "last-reveal" });
    wrap.appendChild(el("h3", {}, fmt(gettext("Cups opened: %(name)s's bid of %(bid)s"), { name: c.nameOf(r.bid.seat), bid: bidWords(r.bid.quantity, r.bid.face) })));
    r.hands.forEach(function (hand, seat) {
      if (!hand || !hand.length) return;
      wrap.appendChild(el("div", { class: "reveal-hand" }, el("span", { class: "who" }, c.nameOf(seat)), revealedHand(seat, r, false)));
    });
    wrap.appendChild(el("p", { class: "reveal-verdict" },
      KG.nfmt(ngettext("There was %(n)s.", "There were %(n)s.", r.count), r.count), " ",
      r.bid_stands ? gettext("The bid stands.") : gettext("The bid fails."), " ",
      fmt(gettext("%(name)s loses a die."), { name: c.nameOf(r.loser) })));
    return wrap;
  }

  // seatsOnBoard: the board already shows every seat (name, dice, turn), so a room
  // layout short of height may leave out its own strip of seat cards for this game.
  // momentUntil: when the challenge's moment on the table ends (a time in ms; in
  // the past when none is on). A phone passed between players (table.js) waits
  // for it before covering the table, so everyone sees how the challenge went.
  function momentUntil() { return moment.until; }

  KG.games.liars_dice = { render: render, describe: describe, seatExtra: seatExtra, isOut: isOut, seatsOnBoard: true,
    momentUntil: momentUntil };
})();
