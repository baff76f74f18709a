/* Ludo table: the square board (4 arms) or the hexagon (6 arms), drawn from the
   engine's geometry (view.geometry: arms, loop, starts, stars, safe squares).

   Layout: every arm is a strip three squares wide pointing out from the centre,
   one strip per arm, clockwise. Along the loop each strip gives 13 squares: six
   going out (left lane), the tip, six coming back in (right lane); the middle
   lane is the arm's home column. Arm k's start square is loop square 13k, its
   star 13k+8, so positions follow from the numbers alone, for both boards.
   Tokens carry the seat's colour, shape and the token number (colour-blind safe). */
(function () {
  "use strict";
  var KG = window.KG, t = KG.t, el = KG.el, fmt = KG.fmt, digits = KG.digits, S = KG.svg;

  var built = null;   // {key, svg, tokens: {}, layout}

  function layoutFor(geo) {
    var arms = geo.arms, A = geo.arm_length || 13, loop = geo.loop, hc = geo.home_column || 5;
    var square = arms === 4;
    var r0 = square ? 2 : 3;      // distance of a strip's first square from the centre
    var extent = square ? 7.5 : 9.2;
    // The hexagon's drawing is 17 squares wide and 16 tall: a viewBox that hugs it
    // (room for a token on a tip) lets it fill a phone's width, not a square's.
    var bounds = square ? { x: extent, y: extent } : { x: 8.72, y: 8.3 };
    // Tokens in squares: on the hexagon a square is ~20 px across on a 360 px phone,
    // so its tokens are drawn wider than the square (24 px and more, digits to read).
    var tokenSize = square ? { r: 0.4, hit: 0.5, font: 0.48, slot: 0.42 } : { r: 0.64, hit: 0.7, font: 0.72, slot: 0.6 };
    function axis(j) {
      var a = ((180 + (360 / arms) * j) * Math.PI) / 180;
      return [Math.cos(a), Math.sin(a)];
    }
    function cell(j, lane, i) {   // lane +1 inward (right), 0 middle, -1 outward (left)
      var u = axis(j), w = [-u[1], u[0]], d = r0 + i;
      return { x: u[0] * d + w[0] * lane, y: u[1] * d + w[1] * lane, rot: (180 + (360 / arms) * j) };
    }
    var loopCells = new Array(loop);
    for (var j = 0; j < arms; j++) {
      for (var i = 0; i < 6; i++) {
        loopCells[mod(A * j - 8 + i, loop)] = cell(j, -1, i);             // going out
        loopCells[mod(A * j - 1 + (5 - i), loop)] = cell(j, 1, i);        // coming in
      }
      loopCells[mod(A * j - 2, loop)] = cell(j, 0, 5);                    // the tip
    }
    function homeColumn(arm, k) { return cell(arm, 0, 5 - k); }          // k = 1..5
    function baseCentre(arm) {
      var a = ((180 + (360 / arms) * (arm + 0.5)) * Math.PI) / 180, d = square ? 4.5 * Math.SQRT2 : 6.3;
      return { x: Math.cos(a) * d, y: Math.sin(a) * d };
    }
    function homeSpot(arm) {
      var u = axis(arm), d = square ? 0.85 : 1.3;
      return { x: u[0] * d, y: u[1] * d };
    }
    return { arms: arms, loop: loop, square: square, extent: extent, bounds: bounds, tokenSize: tokenSize, loopCells: loopCells, homeColumn: homeColumn,
      baseCentre: baseCentre, homeSpot: homeSpot, hc: hc, last: geo.last_loop_progress, home: geo.home, A: A };
  }
  function mod(a, n) { return ((a % n) + n) % n; }

  /* Where a token with progress p of an arm sits (x, y). */
  function spot(L, arm, p, token) {
    if (p < 0) {
      var b = L.baseCentre(arm), off = L.square ? 1.25 : 0.75;
      return { x: b.x + (token % 2 ? off : -off), y: b.y + (token < 2 ? -off : off), where: "base" };
    }
    if (p <= L.last) {
      var c = L.loopCells[mod(L.A * arm + p, L.loop)];
      return { x: c.x, y: c.y, where: "loop", square: mod(L.A * arm + p, L.loop) };
    }
    if (p < L.home) {
      var h = L.homeColumn(arm, p - L.last);
      return { x: h.x, y: h.y, where: "column" };
    }
    var s = L.homeSpot(arm);
    return { x: s.x, y: s.y, where: "home" };
  }

  function buildBoard(geo, view) {
    var L = layoutFor(geo), bx = L.bounds.x, by = L.bounds.y;
    var svg = S("svg", { viewBox: [-bx, -by, 2 * bx, 2 * by].join(" "), role: "img", "aria-label": L.square ? gettext("Square Ludo board") : gettext("Six-armed Ludo board"), "data-testid": "ludo-board" });
    var g = S("g", { class: "cells" });
    svg.appendChild(S("rect", { x: -bx, y: -by, width: 2 * bx, height: 2 * by, rx: 0.4, fill: "#f3ead7" }));
    var safe = {};
    (geo.safe || []).forEach(function (s) { safe[s] = true; });
    var starts = {};
    (geo.starts || []).forEach(function (s, arm) { starts[s] = arm; });
    // Bases.
    for (var arm = 0; arm < L.arms; arm++) {
      var b = L.baseCentre(arm), col = KG.COLOURS[arm % 6];
      if (L.square) g.appendChild(S("rect", { x: b.x - 2.9, y: b.y - 2.9, width: 5.8, height: 5.8, rx: 0.5, fill: col, opacity: 0.9 }));
      else g.appendChild(S("circle", { cx: b.x, cy: b.y, r: 1.75, fill: col, opacity: 0.9 }));
      var inner = L.square ? 2.1 : 1.4;
      g.appendChild(L.square ? S("rect", { x: b.x - inner, y: b.y - inner, width: 2 * inner, height: 2 * inner, rx: 0.4, fill: "#fffaf0" })
        : S("circle", { cx: b.x, cy: b.y, r: inner, fill: "#fffaf0" }));
      for (var tk = 0; tk < 4; tk++) {
        var sp = spot(L, arm, -1, tk);
        g.appendChild(S("circle", { cx: sp.x, cy: sp.y, r: L.tokenSize.slot, fill: "none", stroke: col, "stroke-width": 0.08 }));
      }
      // Home column.
      for (var k = 1; k <= L.hc; k++) {
        var h = L.homeColumn(arm, k);
        g.appendChild(cellRect(h, col, "#1d1b16"));
      }
    }
    // Loop squares.
    L.loopCells.forEach(function (c, sq) {
      var fill = "#fff";
      if (starts[sq] !== undefined) fill = KG.COLOURS[starts[sq] % 6];
      g.appendChild(cellRect(c, fill, "#8f8672"));
      if (safe[sq]) {
        var isStart = starts[sq] !== undefined;
        g.appendChild(S("polygon", { points: KG.starPoints(0.36, 0.16), transform: "translate(" + c.x.toFixed(3) + " " + c.y.toFixed(3) + ")",
          fill: isStart ? "#fff" : "#b8860b", stroke: isStart ? "#1d1b16" : "none", "stroke-width": 0.04, "aria-hidden": "true" }));
      }
    });
    // The centre.
    var centre = [];
    for (var a = 0; a < L.arms; a++) {
      var ang = ((180 + (360 / L.arms) * a) * Math.PI) / 180;
      var rr = L.square ? 1.5 * Math.SQRT2 : 2.3;
      var ang2 = ang + Math.PI / L.arms, ang1 = ang - Math.PI / L.arms;
      g.appendChild(S("polygon", { points: [0, 0, Math.cos(ang1) * rr, Math.sin(ang1) * rr, Math.cos(ang2) * rr, Math.sin(ang2) * rr].map(function (n) { return n.toFixed(3); }).join(","), fill: KG.COLOURS[a % 6], stroke: "#1d1b16", "stroke-width": 0.04 }));
      centre.push(a);
    }
    svg.appendChild(g);
    var fx = S("g", { class: "fx" });
    var tokens = S("g", { class: "tokens" });
    svg.appendChild(tokens);
    svg.appendChild(fx);
    return { svg: svg, L: L, tokensLayer: tokens, fx: fx, tokens: {} };
  }

  function cellRect(c, fill, stroke) {
    return S("rect", { x: -0.47, y: -0.47, width: 0.94, height: 0.94, rx: 0.1, fill: fill, stroke: stroke, "stroke-width": 0.04,
      transform: "translate(" + c.x.toFixed(3) + " " + c.y.toFixed(3) + ") rotate(" + c.rot + ")" });
  }

  function tokenNode(colour, token, size) {
    var g = S("g", { class: "token", "data-colour": colour, "data-token": token });
    var inner = S("g", { class: "token-body" });
    // The ring is the hit target too (transparent, not "none", so it takes the tap).
    inner.appendChild(S("circle", { class: "token-ring", r: size.hit, fill: "transparent", stroke: "none" }));
    // A square's side is narrower than the other shapes' width: on the hexagon,
    // where every pixel counts, it gets a tenth more so no token is under 24 px.
    var r = size.r * (colour % 6 === 1 && size.r > 0.5 ? 1.1 : 1);
    inner.appendChild(KG.shape(colour, r, { class: "token-shape", fill: KG.COLOURS[colour % 6], stroke: "#1d1b16", "stroke-width": 0.06 }));
    inner.appendChild(S("text", { y: size.font / 3, "text-anchor": "middle", "font-size": size.font, fill: KG.TEXT_ON[colour % 6], text: digits(token + 1) }));
    g.appendChild(inner);
    return g;
  }

  function place(node, x, y, scale) {
    node.style.transform = "translate(" + x.toFixed(3) + "px," + y.toFixed(3) + "px) scale(" + scale + ")";
    node._at = { x: x, y: y, s: scale };
  }

  /* Tokens sharing a square sit side by side, smaller, so each stays readable. */
  var OFFSETS = [[-0.22, -0.22], [0.22, -0.22], [-0.22, 0.22], [0.22, 0.22]];

  function describeProgress(L, p) {
    if (p < 0) return gettext("in base");
    if (p >= L.home) return gettext("home");
    if (p > L.last) return fmt(gettext("home column, %(n)s to go"), { n: L.home - p });
    return fmt(gettext("%(n)s squares from the start"), { n: p });
  }

  function render(board, controls, c, events) {
    var v = c.view;
    var geo = v.geometry;
    if (!geo) return;
    var key = geo.board + ":" + geo.arms;
    if (!built || built.key !== key || !board.contains(built.svg)) {
      built = buildBoard(geo, v);
      built.key = key;
      KG.clear(board);
      board.appendChild(el("div", { class: "board-wrap" }, built.svg));
    }
    var L = built.L;
    var mine = c.you;
    var movable = {};
    c.legal.forEach(function (a) { if (a.type === "move") movable[a.token] = true; });

    // Group tokens by where they stand.
    var groups = {};
    (v.seats || []).forEach(function (s) {
      s.tokens.forEach(function (p, tk) {
        var sp = spot(L, s.arm, p, tk);
        var gkey = sp.where === "base" ? "b" + s.seat + "-" + tk : sp.where === "home" ? "h" + s.seat : sp.x.toFixed(2) + "," + sp.y.toFixed(2);
        (groups[gkey] = groups[gkey] || []).push({ seat: s.seat, colour: s.colour, token: tk, p: p, sp: sp });
      });
    });
    var seen = {};
    Object.keys(groups).forEach(function (gk) {
      var list = groups[gk];
      list.forEach(function (item, i) {
        var id = item.seat + "-" + item.token;
        seen[id] = true;
        var node = built.tokens[id];
        if (!node) {
          node = built.tokens[id] = tokenNode(item.colour, item.token, L.tokenSize);
          node.setAttribute("data-seat", item.seat);
          built.tokensLayer.appendChild(node);
        }
        var x = item.sp.x, y = item.sp.y, scale = 1;
        if (list.length > 1) {
          // The hexagon's bigger tokens spread wider and shrink less.
          var o = OFFSETS[i % 4], spread = L.square ? 1 : 1.35;
          x += o[0] * spread; y += o[1] * spread; scale = L.square ? 0.62 : 0.7;
        }
        if (item.sp.where === "home") {
          var o2 = OFFSETS[item.token];
          x = item.sp.x + o2[0] * 1.1; y = item.sp.y + o2[1] * 1.1; scale = 0.55;
        }
        node._target = { x: x, y: y, s: scale };
        var can = item.seat === mine && movable[item.token] && c.canAct;
        node.classList.toggle("movable", !!can);
        var label = fmt(gettext("%(name)s, token %(n)s: %(where)s"), { name: c.nameOf(item.seat), n: item.token + 1, where: describeProgress(L, item.p) });
        node.setAttribute("aria-label", label);
        // A token on the board is a picture that answers a tap; the keyboard and
        // a screen reader choose with the bar's token buttons, one stop per
        // token (as buttons here too, every movable token was two Tab stops).
        node.setAttribute("role", "img");
        if (can) {
          node.removeAttribute("aria-disabled");
          node.onclick = function () { c.act({ type: "move", token: item.token }); };
        } else {
          if (item.seat === mine) node.setAttribute("aria-disabled", "true");
          node.onclick = null;
        }
      });
    });
    Object.keys(built.tokens).forEach(function (id) {
      if (!seen[id]) { built.tokens[id].remove(); delete built.tokens[id]; }
    });
    // Movable tokens on top so a stack never hides the one you can tap.
    built.tokensLayer.querySelectorAll(".token.movable").forEach(function (n) { built.tokensLayer.appendChild(n); });

    // Moves walk (and dice roll) only the first time an update is drawn.
    var fresh = KG.firstSight(c.events) && !KG.reducedMotion();
    animate(v, c, L, fresh);
    renderControls(controls, c, L, movable, fresh);
  }

  /* Move tokens to their places; the token that just moved walks its path,
     square by square (STEP_MS each, the whole walk under WALK_MAX_MS), then a
     capture or a home run has its moment. The final place is set first. */
  var STEP_MS = 55, WALK_MAX_MS = 600;
  function animate(v, c, L, fresh) {
    var moved = fresh ? c.events.filter(function (e) { return e.type === "move"; }) : [];
    var reduced = !fresh;
    Object.keys(built.tokens).forEach(function (id) {
      var node = built.tokens[id], to = node._target, from = node._at;
      if (node._anim) { node._anim.cancel(); node._anim = null; }
      var walk = null;
      moved.forEach(function (m) {
        if (id === m.seat + "-" + m.token && from && !reduced) walk = m;
      });
      if (walk && L) {
        var arm = (v.seats[walk.seat] || {}).arm;
        var frames = [{ transform: "translate(" + from.x + "px," + from.y + "px) scale(" + from.s + ")" }];
        var start = walk.from < 0 ? 0 : walk.from + 1;
        for (var p = start; p <= walk.to && frames.length < 14; p++) {
          var sp = spot(L, arm, p, walk.token);
          frames.push({ transform: "translate(" + sp.x + "px," + sp.y + "px) scale(1)" });
        }
        frames.push({ transform: "translate(" + to.x + "px," + to.y + "px) scale(" + to.s + ")" });
        place(node, to.x, to.y, to.s);
        node.style.transition = "none";
        var ms = Math.min(WALK_MAX_MS, STEP_MS * frames.length);
        node._anim = node.animate(frames, { duration: ms, easing: "linear" });
        KG.animated += 1;
        node._anim.onfinish = function () { node.style.transition = ""; node._anim = null; };
        var host = built.svg.parentNode;
        if (walk.to >= L.home) {
          burst(to.x, to.y, "#e0a800", ms);
          var who = c.nameOf(walk.seat);
          setTimeout(function () { KG.moment(host, "🏠 " + fmt(gettext("%(name)s: home!"), { name: who }), "home"); }, ms);
        }
        (walk.captured || []).forEach(function (cap) {
          // The captured token is already back in base: the burst marks where it was hit.
          burst(to.x, to.y, "#c0392b", ms);
          var hit = c.nameOf(cap.seat);
          setTimeout(function () { KG.moment(host, "💥 " + fmt(gettext("Captured %(name)s!"), { name: hit }), "capture"); }, ms);
        });
      } else if (!from || from.x !== to.x || from.y !== to.y || from.s !== to.s) {
        place(node, to.x, to.y, to.s);
      }
    });
  }

  function burst(x, y, colour, delay) {
    if (KG.reducedMotion()) return;
    var fx = built.fx;
    setTimeout(function () {
      var ring = S("circle", { class: "fx-burst", cx: x, cy: y, r: 0.6, fill: "none", stroke: colour, "stroke-width": 0.12 });
      fx.appendChild(ring);
      setTimeout(function () { ring.remove(); }, 800);
    }, delay || 0);
  }

  function renderControls(controls, c, L, movable, fresh) {
    var v = c.view;
    KG.clear(controls);
    var panel = el("section", { class: "panel" + (L.square ? " ludo-bar" : ""), "aria-labelledby": "ludo-move-title" }, el("h2", { id: "ludo-move-title" }, gettext("Rolls")));
    // The roll sequence, e.g. 6, 6, 4 (the one to move with now is marked).
    var seq = el("div", { class: "roll-seq", "data-testid": "roll-seq", "aria-label": gettext("Roll sequence") });
    // The die rolled in this update tumbles in (the newest of the sequence).
    var rolled = fresh && c.events.some(function (e) { return e.type === "roll"; });
    (v.rolls || []).forEach(function (r, i) {
      var cls = "";
      if (v.current !== null && v.current !== undefined) cls = i < v.current ? "used" : i === v.current ? "current" : "";
      seq.appendChild(KG.die(r, { cls: cls, label: digits(r), roll: rolled && i === v.rolls.length - 1 }));
    });
    // On the square board the sentence goes on a line of its own, the width
    // of the bar, under the dice and Roll: squeezed beside them it wrapped to
    // three lines, the bar grew, and the board took what height was left (a
    // drill saw it swing from 344 to 291 px between turns); the bar keeps one
    // height (CSS). The hexagon needs every pixel for 24 px tokens: there the
    // sentence stays beside the dice and the bar takes what it holds.
    var ended = endedSequence(v, c), note = null;
    if ((!v.rolls || !v.rolls.length) && ended && v.sequence <= 1) {
      // The sequence this update ended (a roll no token could use, or the one
      // move it allowed, made at once): without it the player who tapped Roll
      // saw "no rolls yet" for the next player and never their own number.
      ended.rolls.forEach(function (r, i) {
        seq.appendChild(KG.die(r, { cls: "used", label: digits(r), roll: rolled && i === ended.rolls.length - 1 }));
      });
      note = el("p", { class: "hint roll-note", "data-testid": "ended-sequence" }, endedText(ended, c));
    } else if (!v.rolls || !v.rolls.length) {
      note = el("p", { class: "hint roll-note" }, v.sequence > 1 ? gettext("Bonus roll!") : gettext("No rolls yet this turn"));
    }
    panel.appendChild(seq);

    var canRoll = c.legal.some(function (a) { return a.type === "roll"; });
    if (canRoll) {
      panel.appendChild(el("button", { type: "button", class: "button-primary big-button", "data-key": "roll", "data-testid": "roll-button", disabled: !c.canAct,
        onclick: function () { c.act({ type: "roll" }); } }, gettext("Roll")));
    }
    // The token buttons only while there is a token to choose: in the place of
    // Roll, under the thumb, and the board keeps the height they would take.
    var anyMove = Object.keys(movable).length > 0;
    if (c.you !== null && v.seats && v.seats[c.you] && anyMove) {
      var me = v.seats[c.you];
      // No Roll in this state: the words fit beside the dice.
      seq.appendChild(el("span", { class: "hint" }, fmt(gettext("Choose a token to move %(n)s."), { n: v.rolls[v.current] })));
      var row = el("div", { class: "token-buttons", role: "group", "aria-label": gettext("Your tokens") });
      me.tokens.forEach(function (p, tk) {
        var ok = !!movable[tk] && c.canAct;
        row.appendChild(el("button", {
          type: "button", "data-key": "tokbtn-" + tk, "data-testid": "token-" + tk, "data-movable": movable[tk] ? "yes" : "no", disabled: !ok,
          "data-where": p < 0 ? "base" : p >= L.home ? "home" : p > L.last ? "column" : "loop",
          class: movable[tk] ? "button-primary" : "",
          "aria-label": fmt(gettext("Token %(n)s: %(where)s"), { n: tk + 1, where: describeProgress(L, p) }),
          onclick: function () { c.act({ type: "move", token: tk }); },
        }, fmt(gettext("Token %(n)s"), { n: tk + 1 })));
      });
      panel.appendChild(row);
    }
    if (note) (L.square ? panel : seq).appendChild(note);
    controls.appendChild(panel);
    controls.appendChild(el("p", { class: "legend-row" },
      el("span", {}, "★ " + gettext("safe square")),
      el("span", {}, v.home_bonus_roll ? gettext("House rule: home earns a bonus roll") : gettext("House rule: no bonus for home"))));
  }

  /* The roll sequence that ended in the last update with rolls in it, kept
     until the next roll: {seat, rolls, moved}. Its first rolls may
     have come in earlier updates (a 6, then the roll after it): those are
     the rolls the view showed for that seat just before. */
  var lastSequence = null, shownRolls = { seat: null, rolls: [] }, readEvents = null;
  function endedSequence(v, c) {
    var events = c.events || [];
    if (events === readEvents) return lastSequence;  // drawn again: nothing new
    readEvents = events;
    var rolls = events.filter(function (e) { return e.type === "roll"; });
    if (rolls.length && !(v.rolls && v.rolls.length && v.to_move === rolls[rolls.length - 1].seat)) {
      var seat = rolls[rolls.length - 1].seat, lastAt = events.lastIndexOf(rolls[rolls.length - 1]);
      var earlier = shownRolls.seat === seat ? shownRolls.rolls : [];
      lastSequence = {
        seat: seat,
        rolls: earlier.concat(rolls.filter(function (e) { return e.seat === seat; }).map(function (e) { return e.value; })).slice(-3),
        moved: events.some(function (e, i) { return i > lastAt && e.type === "move" && e.seat === seat; }),
      };
    } else if (rolls.length) {
      lastSequence = null;  // a new sequence is on the board
    }
    shownRolls = { seat: v.to_move, rolls: (v.rolls || []).slice() };
    return lastSequence;
  }
  function endedText(ended, c) {
    var n = ended.rolls.map(function (r) { return digits(r); }).join(", ");
    var mine = ended.seat === c.you;
    if (ended.rolls.length === 3 && ended.rolls.every(function (r) { return r === 6; })) {
      return mine ? gettext("You rolled three 6s: the turn is void")
        : fmt(gettext("%(name)s rolled three 6s: the turn is void"), { name: c.nameOf(ended.seat) });
    }
    if (!ended.moved) {
      return mine ? fmt(gettext("You rolled %(n)s: no token could move"), { n: n })
        : fmt(gettext("%(name)s rolled %(n)s: no token could move"), { name: c.nameOf(ended.seat), n: n });
    }
    return mine ? fmt(gettext("You rolled %(n)s"), { n: n })
      : fmt(gettext("%(name)s rolled %(n)s"), { name: c.nameOf(ended.seat), n: n });
  }

  function describe(ev, c) {
    var who = c.nameOf(ev.seat);
    if (ev.type === "roll") return fmt(gettext("%(name)s rolled %(n)s"), { name: who, n: ev.value });
    if (ev.type === "move") {
      var L = built && built.L, text;
      if (ev.from < 0) text = fmt(gettext("%(name)s brought token %(n)s out"), { name: who, n: ev.token + 1 });
      else if (L && ev.to >= L.home) text = fmt(gettext("%(name)s brought token %(n)s home"), { name: who, n: ev.token + 1 });
      // Where it stands now: a listener follows the race by it, as on the board.
      else if (L) text = fmt(gettext("%(name)s moved token %(n)s: %(where)s"), { name: who, n: ev.token + 1, where: describeProgress(L, ev.to) });
      else text = fmt(gettext("%(name)s moved token %(n)s"), { name: who, n: ev.token + 1 });
      (ev.captured || []).forEach(function (cap) {
        text += " " + fmt(gettext("%(name)s's token %(n)s was captured"), { name: c.nameOf(cap.seat), n: cap.token + 1 });
      });
      return text;
    }
    return null;
  }

  /* What to say when the turn comes to this page and a token is to be
     chosen (the hint beside the rolls, which a screen reader did not hear). */
  function promptText(c) {
    var v = c.view;
    var choosing = c.legal.some(function (a) { return a.type === "move"; });
    if (!choosing || !v.rolls || v.current === null || v.current === undefined) return null;
    return fmt(gettext("Choose a token to move %(n)s."), { n: v.rolls[v.current] });
  }

  function seatExtra(seat, c) {
    var s = (c.view.seats || [])[seat];
    var geo = c.view.geometry;
    if (!s || !geo) return "";
    var home = s.tokens.filter(function (p) { return p >= geo.home; }).length;
    // A chip is a sixth of a phone: the house sign and the count; the words for screen readers.
    return el("span", {}, el("span", { "aria-hidden": "true" }, "🏠 " + digits(home) + "/" + digits(4)),
      el("span", { class: "visually-hidden" }, fmt(gettext("home %(n)s/%(total)s"), { n: home, total: 4 })));
  }
  function colourOf(seat, c) {
    var s = (c.view.seats || [])[seat];
    return s ? s.colour : seat;
  }

  KG.games.ludo = { render: render, describe: describe, promptText: promptText, seatExtra: seatExtra, colourOf: colourOf, layoutFor: layoutFor };
})();
