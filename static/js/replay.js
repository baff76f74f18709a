/* The replay of a finished game, drawn by the live table's own renderers
   (KG.games[game].render from liars_dice.js, ludo.js, snakes.js) from the
   spectator views the server computed after each event (/games/<id>/replay.json,
   each frame holding only the keys that changed). Step, scrub or play it back.
   A game whose dice are hidden in cups (Liar's Dice: its declared dice are by
   seat, games/base.py DiceField) hides every cup from a spectator, so the
   replay adds a row with all the cups of the round: the record reveals them
   once the game is over. The pace and the dice come from #kg-games. */
(function () {
  "use strict";
  var KG = window.KG, el = KG.el, digits = KG.digits;

  function strings() {
    var node = document.getElementById("replay-strings");
    return node ? JSON.parse(node.textContent) : {};
  }
  function fill(template, values) {
    return String(template).replace(/%\((\w+)\)s/g, function (_, k) {
      return typeof values[k] === "number" ? digits(values[k]) : String(values[k]);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var root = document.getElementById("replay");
    if (!root) return;
    var S = strings();
    var parts = {
      board: root.querySelector("[data-replay-board]"),
      cups: root.querySelector("[data-replay-cups]"),
      scratch: el("div", { hidden: true }),
      slider: root.querySelector("[data-replay-slider]"),
      step: root.querySelector("[data-replay-step]"),
      log: root.querySelector("[data-replay-log]"),
      play: root.querySelector("[data-replay-play]"),
    };
    var data = null, views = [], at = 0, timer = null, rounds = [], facts = {}, cups = null;

    fetch(root.dataset.url, { headers: { Accept: "application/json" } })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(start)
      .catch(function () { parts.step.textContent = S.failed || "—"; });

    function start(d) {
      data = d;
      var node = document.getElementById("kg-games");
      facts = (node ? JSON.parse(node.textContent) : {})[d.game] || {};
      cups = (facts.dice || []).filter(function (f) { return f.by_seat; })[0] || null;
      var full = {};
      d.frames.forEach(function (f, i) {
        full = Object.assign({}, full, f.view);
        views.push(full);
        var round = i > 0 ? rounds[i - 1] : null;
        (f.events || []).forEach(function (e) { if (cups && e.type === cups.event) round = e; });
        rounds.push(round);
      });
      parts.slider.max = String(d.frames.length - 1);
      parts.slider.disabled = false;
      root.querySelectorAll("button[data-go]").forEach(function (b) {
        b.disabled = false;
        b.addEventListener("click", function () {
          if (b.getAttribute("aria-disabled") === "true") return;
          stop();
          var go = b.dataset.go;
          show(go === "first" ? 0 : go === "last" ? views.length - 1 : at + (go === "next" ? 1 : -1));
        });
      });
      parts.play.disabled = false;
      parts.play.addEventListener("click", function () { if (timer) stop(); else play(); });
      parts.slider.addEventListener("input", function () { stop(); show(Number(parts.slider.value)); });
      root.dataset.frames = String(views.length);
      show(0);
    }

    function nameOf(seat) {
      var s = data.seats[seat];
      return s ? KG.seatName(s.name, s.kind) : "?";
    }
    function ctx(i) {
      var seats = data.seats.map(function (s) { return { seat: s.seat, name: KG.seatName(s.name, s.kind), kind: s.kind, bot: s.bot || null, connected: true }; });
      return {
        view: views[i], prevView: i ? views[i - 1] : null, events: data.frames[i].events || [],
        legal: [], you: null, replay: true, canAct: false, act: function () {}, nameOf: nameOf,
        seat: function (k) { return seats[k]; }, room: { game: data.game, seats: seats, status: "finished" },
        game: { status: "finished", view: views[i], legal: [] }, snap: null,
      };
    }

    function show(i) {
      at = Math.max(0, Math.min(views.length - 1, i));
      var mod = KG.games[data.game], c = ctx(at), frame = data.frames[at];
      if (mod && mod.render) {
        try { mod.render(parts.board, parts.scratch, c, frame.events || []); }
        catch (e) { parts.board.textContent = JSON.stringify(views[at]); }
      }
      parts.slider.value = String(at);
      root.dataset.at = String(at);
      // At an end its two buttons are marked unavailable, not disabled: a
      // disabled button drops the keyboard's focus to the page's top.
      root.querySelectorAll("button[data-go]").forEach(function (b) {
        var back = b.dataset.go === "first" || b.dataset.go === "prev";
        b.setAttribute("aria-disabled", String(back ? at === 0 : at === views.length - 1));
      });
      parts.step.textContent = fill(S.step || "%(n)s / %(total)s", { n: at, total: views.length - 1 });
      KG.clear(parts.log);
      var lines = (frame.events || []).map(function (e) {
        var text = mod && mod.describe ? mod.describe(e, c) : null;
        return text || fill(S.event || "%(type)s", { type: e.type, seat: e.seat === undefined ? "" : nameOf(e.seat) });
      });
      if (!lines.length) lines = [S.start || ""];
      lines.forEach(function (line) { parts.log.appendChild(el("li", null, line)); });
      drawCups(at);
    }

    function drawCups(i) {
      if (!parts.cups) return;
      KG.clear(parts.cups);
      var round = rounds[i];
      if (!cups || !round || !round[cups.field]) { parts.cups.hidden = true; return; }
      parts.cups.hidden = false;
      parts.cups.appendChild(el("h3", null, fill(S.cups || "%(round)s", { round: round.round })));
      var dice = round[cups.field];
      Object.keys(dice).sort(function (a, b) { return a - b; }).forEach(function (seat) {
        var row = el("div", { class: "dice-row", "data-seat": seat }, el("span", { class: "seat-name" }, nameOf(Number(seat))));
        dice[seat].forEach(function (d) { row.appendChild(KG.die(d, { label: String(d) })); });
        parts.cups.appendChild(row);
      });
    }

    function play() {
      if (at >= views.length - 1) show(0);
      parts.play.textContent = S.pause || "⏸";
      parts.play.setAttribute("aria-pressed", "true");
      var pace = facts.replay_pace_ms || 800;
      timer = setInterval(function () {
        if (at >= views.length - 1) { stop(); return; }
        show(at + 1);
      }, pace);
    }
    function stop() {
      if (timer) clearInterval(timer);
      timer = null;
      parts.play.textContent = S.play || "▶";
      parts.play.setAttribute("aria-pressed", "false");
    }
  });
})();
