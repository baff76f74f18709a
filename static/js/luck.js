/* The luck report, drawn in one place: each player's dice against fair dice.

   The server counts (rooms/history.luck_report, /games/<id>/luck.json); this
   file draws, on the room's results and on a finished game's page: a bar per
   face with the fair count dashed, the sixes in the accent colour, and (for
   rolled dice) the average on a 1-6 scale against 3.5. The numbers are also
   written out, for everyone and for screen readers. */
(function () {
  "use strict";
  var KG = window.KG, el = KG.el, fmt = KG.fmt, digits = KG.digits;

  function one(x) { return digits((+x).toFixed(1)); }

  /* The report's body: the explanation, one figure per seat, the note.
     opts.nameOf(seat) names a seat the record left unnamed. */
  function draw(report, opts) {
    opts = opts || {};
    var frag = document.createDocumentFragment();
    frag.appendChild(el("p", { class: "hint" }, report.kind === "held"
      ? gettext("The dice each player held over all rounds, against what fair dice give on average.")
      : gettext("The dice each player rolled, against what fair dice give on average.")));
    var grid = el("div", { class: "luck-grid" });
    report.seats.forEach(function (s) { grid.appendChild(seat(s, report.kind, opts)); });
    frag.appendChild(grid);
    frag.appendChild(el("p", { class: "hint" }, gettext("The dashed line is what fair dice give on average. Over a short game, big differences are normal.")));
    return frag;
  }

  function seat(s, kind, opts) {
    var name = KG.seatName(s.name, s.kind) || (opts.nameOf ? opts.nameOf(s.seat) : fmt(gettext("Seat %(n)s"), { n: s.seat + 1 }));
    var lines = [
      KG.nfmt(kind === "held" ? ngettext("%(n)s die held", "%(n)s dice held", s.dice) : ngettext("%(n)s roll", "%(n)s rolls", s.dice), s.dice),
      fmt(gettext("sixes: %(n)s (fair dice: %(expected)s)"), { n: s.sixes, expected: one(s.expected_sixes) }),
    ];
    if (kind === "held") lines.push(fmt(gettext("ones (wild): %(n)s"), { n: s.ones }));
    else if (s.average !== null && s.average !== undefined) {
      lines.push(fmt(gettext("average: %(avg)s (fair dice: %(expected)s)"), { avg: digits((+s.average).toFixed(2)), expected: digits("3.5") }));
    }
    var faces = fmt(gettext("Faces one to six: %(list)s"), { list: s.faces.map(digits).join(", ") });
    return el("figure", { class: "luck-seat", "data-seat": s.seat, "data-dice": s.dice, "data-sixes": s.sixes },
      el("figcaption", {}, KG.seatBadge(s.seat), el("strong", {}, name)),
      facesChart(s),
      kind === "held" || s.average === null || s.average === undefined ? null : averageChart(s.average),
      el("p", { class: "luck-text" }, lines.join(" · "), el("span", { class: "visually-hidden" }, ". " + faces)));
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

  KG.luck = { draw: draw };

  // A finished game's page carries its report as JSON (templates/rooms/game.html).
  var data = document.getElementById("luck-report"), box = document.querySelector("[data-luck]");
  if (data && box) {
    try {
      var report = JSON.parse(data.textContent);
      box.dataset.kind = report.kind;
      KG.clear(box).appendChild(draw(report));
    } catch (e) { /* the numbers stay in the page's text */ }
  }
})();
