/* Snakes & Ladders table: a 10×10 board numbered in the usual zig-zag (1 at the
   bottom left), the snakes and ladders drawn from view.board, one token per seat
   that walks square by square and then climbs or slides. */
(function () {
  "use strict";
  var KG = window.KG, t = KG.t, el = KG.el, fmt = KG.fmt, digits = KG.digits, S = KG.svg;
  var built = null;
  var CELL = 10;

  /* Centre of square n (1..100); 0 is the tray under the board. */
  function centre(n, seat) {
    if (n <= 0) return { x: 8 + 12 * (seat || 0), y: 106 };
    var row = Math.floor((n - 1) / 10), col = (n - 1) % 10;
    if (row % 2 === 1) col = 9 - col;
    return { x: col * CELL + CELL / 2, y: (9 - row) * CELL + CELL / 2 };
  }

  function buildBoard(board) {
    var svg = S("svg", { viewBox: "0 0 100 112", role: "img", "aria-label": gettext("Snakes and Ladders board"), "data-testid": "snakes-board" });
    var cells = S("g", { class: "cells" });
    var numbers = S("g", { class: "square-numbers", "aria-hidden": "true" });
    for (var n = 1; n <= 100; n++) {
      var c = centre(n);
      var row = Math.floor((n - 1) / 10);
      cells.appendChild(S("rect", { x: c.x - 5, y: c.y - 5, width: 10, height: 10, fill: (row + Math.floor(c.x / CELL)) % 2 ? "#fbf1dc" : "#f0dfbd" }));
      numbers.appendChild(S("text", { x: c.x - 4.4, y: c.y - 1.3, text: digits(n) }));
    }
    svg.appendChild(cells);
    var jumps = S("g", { class: "jumps" });
    Object.keys(board.ladders || {}).forEach(function (foot) { jumps.appendChild(ladder(+foot, board.ladders[foot])); });
    Object.keys(board.snakes || {}).forEach(function (head) { jumps.appendChild(snake(+head, board.snakes[head])); });
    svg.appendChild(jumps);
    // The square numbers over the snakes and ladders, each with a light halo
    // (feel.css: paint-order stroke), so a number under a snake stays readable.
    svg.appendChild(numbers);
    svg.appendChild(S("rect", { x: 0, y: 101, width: 100, height: 11, rx: 2, fill: "#e9e1d0" }));
    svg.appendChild(S("text", { x: 99, y: 108, "text-anchor": "end", "font-size": 3, fill: "#5a5447", text: gettext("waiting for a 6") }));
    var tokens = S("g", { class: "tokens" });
    svg.appendChild(tokens);
    return { svg: svg, tokensLayer: tokens, tokens: {}, board: board };
  }

  function ladder(foot, top) {
    var a = centre(foot), b = centre(top);
    var dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy), nx = -dy / len * 1.7, ny = dx / len * 1.7;
    var g = S("g", { class: "ladder", "aria-hidden": "true" });
    g.appendChild(S("line", { x1: a.x + nx, y1: a.y + ny, x2: b.x + nx, y2: b.y + ny, stroke: "#8a5a1f", "stroke-width": 0.9, "stroke-linecap": "round" }));
    g.appendChild(S("line", { x1: a.x - nx, y1: a.y - ny, x2: b.x - nx, y2: b.y - ny, stroke: "#8a5a1f", "stroke-width": 0.9, "stroke-linecap": "round" }));
    var rungs = Math.max(2, Math.floor(len / 4));
    for (var i = 1; i < rungs; i++) {
      var f = i / rungs, x = a.x + dx * f, y = a.y + dy * f;
      g.appendChild(S("line", { x1: x + nx, y1: y + ny, x2: x - nx, y2: y - ny, stroke: "#8a5a1f", "stroke-width": 0.6 }));
    }
    return g;
  }

  function snakePath(head, tail) {
    var a = centre(head), b = centre(tail);
    var dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy), nx = -dy / len, ny = dx / len, w = Math.min(6, len / 4);
    return "M" + a.x + " " + a.y + " C" + (a.x + dx / 3 + nx * w).toFixed(2) + " " + (a.y + dy / 3 + ny * w).toFixed(2) + " " +
      (a.x + 2 * dx / 3 - nx * w).toFixed(2) + " " + (a.y + 2 * dy / 3 - ny * w).toFixed(2) + " " + b.x + " " + b.y;
  }
  function snake(head, tail) {
    var d = snakePath(head, tail), a = centre(head);
    var g = S("g", { class: "snake", "aria-hidden": "true" });
    g.appendChild(S("path", { d: d, fill: "none", stroke: "#0f4a22", "stroke-width": 2.6, "stroke-linecap": "round", opacity: 0.9 }));
    g.appendChild(S("path", { d: d, fill: "none", stroke: "#3fa05b", "stroke-width": 1.6, "stroke-linecap": "round", "stroke-dasharray": "1.5 1" }));
    g.appendChild(S("circle", { cx: a.x, cy: a.y, r: 2.1, fill: "#0f4a22" }));
    g.appendChild(S("circle", { cx: a.x - 0.7, cy: a.y - 0.6, r: 0.45, fill: "#fff" }));
    g.appendChild(S("circle", { cx: a.x + 0.7, cy: a.y - 0.6, r: 0.45, fill: "#fff" }));
    return g;
  }

  var OFFSETS = [[-2.2, -1.8], [2.2, -1.8], [-2.2, 2.2], [2.2, 2.2]];

  function tokenNode(seat) {
    var g = S("g", { class: "token", "data-seat": seat });
    g.appendChild(KG.shape(seat, 2.5, { fill: KG.COLOURS[seat % 6], stroke: "#1d1b16", "stroke-width": 0.5 }));
    g.appendChild(S("text", { y: 1.1, "text-anchor": "middle", "font-size": 3, fill: KG.TEXT_ON[seat % 6], text: KG.letter(seat) }));
    return g;
  }
  function tf(p) { return "translate(" + p.x.toFixed(2) + "px," + p.y.toFixed(2) + "px)"; }

  function render(board, controls, c, events) {
    var v = c.view;
    if (!v.board) return;
    var key = JSON.stringify(v.board);
    if (!built || built.key !== key || !board.contains(built.svg)) {
      built = buildBoard(v.board);
      built.key = key;
      KG.clear(board);
      board.appendChild(el("div", { class: "board-wrap" }, built.svg));
    }
    var squares = v.squares || [];
    var bySquare = {};
    squares.forEach(function (sq, seat) { (bySquare[sq] = bySquare[sq] || []).push(seat); });
    // Moves walk (and dice roll) only the first time an update is drawn.
    var fresh = KG.firstSight(c.events) && !KG.reducedMotion();
    var moves = {};
    if (fresh) c.events.forEach(function (e) { if (e.type === "move") moves[e.seat] = e; });
    var rolls = {};
    c.events.forEach(function (e) { if (e.type === "roll") rolls[e.seat] = e.value; });
    squares.forEach(function (sq, seat) {
      var node = built.tokens[seat];
      if (!node) {
        node = built.tokens[seat] = tokenNode(seat);
        built.tokensLayer.appendChild(node);
      }
      var p = centre(sq, seat);
      var group = bySquare[sq];
      if (sq > 0 && group.length > 1) {
        var o = OFFSETS[group.indexOf(seat) % 4];
        p = { x: p.x + o[0], y: p.y + o[1] };
      }
      node.setAttribute("aria-label", fmt(gettext("%(name)s: %(where)s"), { name: c.nameOf(seat), where: sq ? fmt(gettext("square %(n)s"), { n: sq }) : gettext("not on the board yet") }));
      node.setAttribute("role", "img");
      var m = moves[seat];
      if (node._anim) { node._anim.cancel(); node._anim = null; }
      // The final place first: the walk below is decoration over it.
      node.style.transform = tf(p);
      var from = node._at;
      node._at = p;
      if (m && from) walk(node, from, p, m, rolls[seat] || v.last_roll || 0, v.board, c);
      node.classList.toggle("is-turn", v.to_move === seat);
    });
    // The player to move is drawn on top.
    if (built.tokens[v.to_move]) built.tokensLayer.appendChild(built.tokens[v.to_move]);
    renderControls(controls, c, fresh);
  }

  /* Square by square to where the die says (STEP_MS a square), then up the
     ladder or down the snake's own curve (JUMP_MS): under ~700 ms in all. */
  var STEP_MS = 70, JUMP_MS = 260;
  function walk(node, from, to, m, roll, board, c) {
    var landing = m.from === 0 ? ENTRY : Math.min(100, m.from + roll);
    var frames = [{ transform: tf(from), offset: 0 }], path = [], step;
    if (m.from === 0) path.push(centre(ENTRY));
    else for (step = m.from + 1; step <= landing; step++) path.push(centre(step));
    var jump = landing !== m.to ? jumpPoints(landing, m.to, board) : [];
    var walkMs = STEP_MS * path.length, total = walkMs + (jump.length ? JUMP_MS : 0);
    path.forEach(function (pt, i) { frames.push({ transform: tf(pt), offset: (STEP_MS * (i + 1)) / total }); });
    jump.forEach(function (pt, i) { frames.push({ transform: tf(pt), offset: (walkMs + (JUMP_MS * (i + 1)) / jump.length) / total }); });
    frames[frames.length - 1] = { transform: tf(to), offset: 1 };
    if (frames.length < 2) return;
    node._anim = node.animate(frames, { duration: total, easing: "linear" });
    node._anim.onfinish = function () { node._anim = null; };
    KG.animated += 1;
    var host = node.ownerSVGElement && node.ownerSVGElement.parentNode;
    if (m.to === 100) {
      // The winner's moment (or a later place) as the token lands on 100.
      // Its place: from the results once the game is over, else the seats already on 100.
      var placings = (c.game && c.game.placings) || [], place = placings.indexOf(m.seat);
      if (place < 0) place = ((c.prevView && c.prevView.squares) || []).filter(function (sq, s) { return sq === 100 && s !== m.seat; }).length;
      setTimeout(function () {
        KG.moment(host, place === 0 ? "🏆 " + fmt(gettext("%(name)s wins!"), { name: c.nameOf(m.seat) })
          : fmt(gettext("%(name)s: %(place)s"), { name: c.nameOf(m.seat), place: KG.ordinal ? KG.ordinal(place + 1) : digits(place + 1) }),
          place === 0 ? "win" : "home");
      }, total);
    } else if (jump.length) {
      var up = m.to > landing;
      setTimeout(function () { KG.moment(host, up ? "🪜 " + gettext("Ladder!") : "🐍 " + gettext("Snake!"), up ? "ladder" : "snake"); }, walkMs);
    }
  }
  var ENTRY = 6;

  /* Points along a ladder (straight) or a snake (its drawn curve, head to tail). */
  function jumpPoints(start, end, board) {
    var a = centre(start), b = centre(end), pts = [], i, t;
    var isSnake = board && board.snakes && +board.snakes[start] === end;
    if (!isSnake) return [b];
    var dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy), nx = -dy / len, ny = dx / len, w = Math.min(6, len / 4);
    var p1 = { x: a.x + dx / 3 + nx * w, y: a.y + dy / 3 + ny * w }, p2 = { x: a.x + 2 * dx / 3 - nx * w, y: a.y + 2 * dy / 3 - ny * w };
    for (i = 1; i <= 8; i++) {
      t = i / 8;
      var u = 1 - t;
      pts.push({ x: u * u * u * a.x + 3 * u * u * t * p1.x + 3 * u * t * t * p2.x + t * t * t * b.x,
        y: u * u * u * a.y + 3 * u * u * t * p1.y + 3 * u * t * t * p2.y + t * t * t * b.y });
    }
    return pts;
  }

  function renderControls(controls, c, fresh) {
    var v = c.view;
    KG.clear(controls);
    var panel = el("section", { class: "panel", "aria-labelledby": "snk-title" }, el("h2", { id: "snk-title" }, gettext("Dice")));
    var row = el("div", { class: "roll-seq", "data-testid": "last-roll" });
    var rolled = fresh && c.events.some(function (e) { return e.type === "roll"; });
    if (v.last_roll) row.appendChild(KG.die(v.last_roll, { label: fmt(gettext("last roll %(n)s"), { n: v.last_roll }), roll: rolled }));
    else row.appendChild(el("span", { class: "hint" }, gettext("No rolls yet")));
    panel.appendChild(row);
    if (c.legal.some(function (a) { return a.type === "roll"; })) {
      panel.appendChild(el("button", { type: "button", class: "button-primary big-button", "data-key": "roll", "data-testid": "roll-button", disabled: !c.canAct,
        onclick: function () { c.act({ type: "roll" }); } }, gettext("Roll")));
    }
    if (c.you !== null && (v.squares || [])[c.you] === 0) panel.appendChild(el("p", { class: "hint" }, gettext("You need a 6 to start.")));
    controls.appendChild(panel);
  }

  /* One update that plays out the computers' places (docs/rules.md §3.4) holds
     every roll; the live region says who reached 100, and the results, not
     each of a hundred rolls. */
  var MANY = 12;
  function describe(ev, c) {
    if (c.events && c.events.length > MANY && !(ev.type === "move" && ev.to === 100)) return null;
    var who = c.nameOf(ev.seat);
    if (ev.type === "roll") {
      var rolled = fmt(gettext("%(name)s rolled %(n)s"), { name: who, n: ev.value });
      // A roll that moved nobody: the player still waits for a 6 (said, as
      // the hint under the button says it; a screen reader heard only the roll).
      var moved = (c.events || []).some(function (e) { return e.type === "move" && e.seat === ev.seat; });
      if (!moved && ev.value !== 6 && ((c.view && c.view.squares) || [])[ev.seat] === 0) {
        rolled += ": " + gettext("a 6 is needed to start");
      }
      return rolled;
    }
    if (ev.type === "move") {
      var b = (c.view && c.view.board) || {};
      var landing = null;
      Object.keys(b.ladders || {}).forEach(function (f) { if (b.ladders[f] === ev.to && ev.from < +f) landing = "ladder"; });
      Object.keys(b.snakes || {}).forEach(function (h) { if (b.snakes[h] === ev.to && ev.from < +h) landing = "snake"; });
      if (landing === "ladder") return fmt(gettext("%(name)s climbed a ladder to %(n)s"), { name: who, n: ev.to });
      if (landing === "snake") return fmt(gettext("%(name)s was bitten by a snake and slid to %(n)s"), { name: who, n: ev.to });
      return fmt(gettext("%(name)s moved to %(n)s"), { name: who, n: ev.to });
    }
    return null;
  }

  function seatExtra(seat, c) {
    var sq = (c.view.squares || [])[seat];
    if (sq === undefined) return "";
    if (sq) return "▦ " + digits(sq);
    // Not yet on the board: a dash in the chip, the words for screen readers.
    return el("span", {}, el("span", { "aria-hidden": "true" }, "▦ –"), el("span", { class: "visually-hidden" }, gettext("off board")));
  }

  KG.games.snakes = { render: render, describe: describe, seatExtra: seatExtra, centre: centre };
})();
