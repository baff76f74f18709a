/* Khelaghor's shared helpers: translation, Bengali digits, SVG building, dice,
   seat colours and shapes, and the live region. Plain script (no build step);
   everything hangs off window.KG so the game files can share it. */
(function () {
  "use strict";
  var KG = (window.KG = window.KG || {});
  var lang = document.documentElement.lang || "bn";
  KG.lang = lang;
  KG.games = KG.games || {};

  // The JavaScriptCatalog (/jsi18n/) defines gettext & co; if it failed to load,
  // fall back to the English msgids rather than breaking the page. Call sites use
  // gettext()/ngettext() by name so `makemessages -d djangojs` finds the strings.
  if (!window.gettext) window.gettext = function (s) { return s; };
  if (!window.ngettext) window.ngettext = function (s, p, n) { return n === 1 ? s : p; };
  if (!window.interpolate) window.interpolate = function (f, o) {
    return f.replace(/%\((\w+)\)s/g, function (_, k) { return o[k]; });
  };
  KG.t = window.gettext;

  var BN = "০১২৩৪৫৬৭৮৯";
  /* Numbers as people read them: Bengali digits on the Bengali page. */
  KG.digits = function (n) {
    var s = String(n);
    if (lang !== "bn") return s;
    return s.replace(/[0-9]/g, function (d) { return BN[+d]; });
  };

  /* Named interpolation into an already translated string; numbers go through digits(). */
  KG.fmt = function (translated, params) {
    var values = KG.localise(params || {});
    if (lang === "bn") translated = inflectNames(translated, values);
    return window.interpolate(translated, values, true);
  };

  /* Bengali case endings on a name. The catalogue writes a name's possessive as
     "%(name)s-এর" and its object form as "%(name)s-কে", the way one writes them
     after a Latin name or a number ("Alex-এর", "৩-এর"). A name in Bengali script
     takes the ending joined, as a reader expects: after a vowel "রুমির", after a
     consonant "রহিমের"; "কে" joins either ("রুমিকে"). */
  var BENGALI_VOWEL_END = /[\u0985-\u0994\u09BE-\u09CC\u09D7]$/;  // a vowel or vowel sign
  var BENGALI_CONSONANT_END = /[\u0995-\u09B9\u09DC-\u09DF]\u09BC?$/;  // a consonant (with its nukta)
  KG.possessive = function (name) {
    if (BENGALI_VOWEL_END.test(name)) return name + "র";
    if (BENGALI_CONSONANT_END.test(name)) return name + "ের";
    return name + "-এর";
  };
  KG.objectForm = function (name) {
    if (BENGALI_VOWEL_END.test(name) || BENGALI_CONSONANT_END.test(name)) return name + "কে";
    return name + "-কে";
  };
  function inflectNames(translated, values) {
    return translated.replace(/%\((\w+)\)s-(এর|কে)/g, function (whole, key, ending) {
      var value = values[key];
      if (typeof value !== "string") return whole;
      // The inflected name goes in through a placeholder of its own, named
      // in ASCII: interpolate's pattern reads only \w names.
      var inflected = key + (ending === "এর" ? "__possessive" : "__object");
      values[inflected] = ending === "এর" ? KG.possessive(value) : KG.objectForm(value);
      return "%(" + inflected + ")s";
    });
  }
  KG.nfmt = function (translated, n, params) {
    return KG.fmt(translated, Object.assign({ n: n }, params || {}));
  };
  KG.localise = function (params) {
    var out = {};
    Object.keys(params).forEach(function (k) {
      var v = params[k];
      out[k] = typeof v === "number" ? KG.digits(v) : v;
    });
    return out;
  };

  /* Element builders: el("div", {class: "x"}, child...) and svg(...). */
  function build(ns, tag, attrs, children) {
    var node = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        var v = attrs[k];
        if (v === null || v === undefined || v === false) return;
        if (k === "text") node.textContent = v;
        else if (k.slice(0, 2) === "on" && typeof v === "function") node.addEventListener(k.slice(2), v);
        else if (k === "style" && typeof v === "object") Object.assign(node.style, v);
        else node.setAttribute(k, v === true ? "" : v);
      });
    }
    (children || []).forEach(function (c) {
      if (c === null || c === undefined || c === false) return;
      node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    });
    return node;
  }
  var SVGNS = "http://www.w3.org/2000/svg";
  KG.el = function (tag, attrs) { return build(null, tag, attrs, [].slice.call(arguments, 2)); };
  KG.svg = function (tag, attrs) { return build(SVGNS, tag, attrs, [].slice.call(arguments, 2)); };
  KG.clear = function (node) { while (node.firstChild) node.removeChild(node.firstChild); return node; };

  KG.reducedMotion = function () {
    return !!(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
  };
  /* The motion setting, on <html data-motion="reduce|full"> for CSS and tests, and
     a count of the moves drawn as animations (KG.animated), which stays 0 when reduced. */
  KG.animated = 0;
  function markMotion() { document.documentElement.dataset.motion = KG.reducedMotion() ? "reduce" : "full"; }
  markMotion();
  if (window.matchMedia) {
    var mq = window.matchMedia("(prefers-reduced-motion: reduce)");
    if (mq.addEventListener) mq.addEventListener("change", markMotion);
  }

  /* Seat colours with a shape and a letter each, so colour is never the only cue. */
  KG.COLOURS = ["#c0392b", "#1e7b3a", "#e0a800", "#1f5fa8", "#7b3fa0", "#e06a00"];
  KG.TEXT_ON = ["#fff", "#fff", "#1d1b16", "#fff", "#fff", "#1d1b16"];
  KG.colourName = function (i) {
    return [gettext("red"), gettext("green"), gettext("yellow"), gettext("blue"), gettext("purple"), gettext("orange")][i % 6];
  };
  /* A token's letter: its colour's initial in the page's language (R, G,
     Y… in English; ল, স, হ… in Bengali, where "R" meant nothing). */
  KG.letter = function (i) { return KG.colourName(i).charAt(0).toUpperCase(); };
  /* A shape of radius r centred on 0,0: circle, square, triangle, diamond, hexagon, star. */
  KG.shape = function (i, r, attrs) {
    var k = i % 6;
    if (k === 0) return KG.svg("circle", Object.assign({ r: r }, attrs));
    if (k === 1) return KG.svg("rect", Object.assign({ x: -r * 0.88, y: -r * 0.88, width: r * 1.76, height: r * 1.76, rx: r * 0.2 }, attrs));
    var pts;
    if (k === 2) pts = poly(3, r * 1.15, -90);
    else if (k === 3) pts = poly(4, r * 1.1, -90);
    else if (k === 4) pts = poly(6, r * 1.02, 0);
    else pts = star(r * 1.15, r * 0.6);
    return KG.svg("polygon", Object.assign({ points: pts }, attrs));
  };
  function poly(n, r, rot) {
    var out = [];
    for (var i = 0; i < n; i++) {
      var a = ((rot + (360 / n) * i) * Math.PI) / 180;
      out.push((r * Math.cos(a)).toFixed(3) + "," + (r * Math.sin(a)).toFixed(3));
    }
    return out.join(" ");
  }
  function star(ro, ri) {
    var out = [];
    for (var i = 0; i < 10; i++) {
      var r = i % 2 ? ri : ro, a = ((-90 + 36 * i) * Math.PI) / 180;
      out.push((r * Math.cos(a)).toFixed(3) + "," + (r * Math.sin(a)).toFixed(3));
    }
    return out.join(" ");
  }
  KG.starPoints = star;

  /* A small badge: the seat's shape in its colour. */
  KG.seatBadge = function (colour) {
    return KG.svg("svg", { class: "seat-badge", viewBox: "-12 -12 24 24", "aria-hidden": "true" },
      KG.shape(colour, 9, { fill: KG.COLOURS[colour % 6], stroke: "#1d1b16", "stroke-width": 1.2 }));
  };

  /* True the first time a given events array is drawn, false on every redraw
     of the same update (a pending tap, an error, a reconnect): moves walk and
     dice roll once per update, never again on a redraw. */
  var drawnEvents = typeof WeakSet === "function" ? new WeakSet() : null;
  KG.firstSight = function (events) {
    if (!events || !drawnEvents) return false;
    if (drawnEvents.has(events)) return false;
    drawnEvents.add(events);
    return true;
  };

  /* A die face as SVG. opts: {cls, label, hidden, roll}. With roll (and motion
     allowed) the die tumbles for ROLL_MS, flashing two other faces, and lands on
     its face; the final face is in the DOM (and its label said) from the start,
     so nothing waits for the animation. KG.rolled counts the dice drawn rolling. */
  var PIPS = {
    1: [[20, 20]], 2: [[11, 11], [29, 29]], 3: [[11, 11], [20, 20], [29, 29]],
    4: [[11, 11], [29, 11], [11, 29], [29, 29]], 5: [[11, 11], [29, 11], [20, 20], [11, 29], [29, 29]],
    6: [[11, 10], [29, 10], [11, 20], [29, 20], [11, 30], [29, 30]],
  };
  KG.die = function (face, opts) {
    opts = opts || {};
    var node = KG.svg("svg", {
      class: "die " + (opts.cls || ""), viewBox: "0 0 40 40",
      role: opts.label ? "img" : null, "aria-label": opts.label || null, "aria-hidden": opts.label ? null : "true",
    }, KG.svg("rect", { x: 2, y: 2, width: 36, height: 36, rx: 7 }));
    if (opts.hidden || !face) {
      node.appendChild(KG.svg("text", { x: 20, y: 28, "text-anchor": "middle", text: "?" }));
      node.classList.add("hidden");
    } else if (opts.roll && !KG.reducedMotion()) {
      // Two passing faces, then the real one (feel.css times them).
      var other = [(face % 6) + 1, ((face + 2) % 6) + 1];
      other.forEach(function (f, i) { node.appendChild(pips(f, "pips-tumble pips-tumble-" + (i + 1))); });
      node.appendChild(pips(face, "pips-final"));
      node.classList.add("die-rolling");
      KG.rolled += 1;
      var done = function () {
        if (!node.classList.contains("die-rolling")) return;
        node.classList.remove("die-rolling");
        node.querySelectorAll(".pips-tumble").forEach(function (g) { g.remove(); });
      };
      node.addEventListener("animationend", function (ev) { if (ev.target === node) done(); });
      // A tab in the background may run no animations (and send no animationend).
      var later = function () {
        var running = node.getAnimations && !document.hidden &&
          node.getAnimations({ subtree: true }).some(function (a) { return a.playState === "running"; });
        if (running) setTimeout(later, 120); else done();
      };
      setTimeout(later, KG.ROLL_MS + 150);
    } else {
      PIPS[face].forEach(function (p) {
        node.appendChild(KG.svg("circle", { cx: p[0], cy: p[1], r: face === 1 ? 6 : 4 }));
      });
    }
    return node;
  };
  KG.ROLL_MS = 360;

  // A computer seat is named once, in English ("Mitu (AI)", rooms/bot_names.py),
  // and every page shows that name in its own language.
  var BOT_NAMES = [gettext_noop("Robi"), gettext_noop("Mitu"), gettext_noop("Tuni"),
                   gettext_noop("Bablu"), gettext_noop("Shapla"), gettext_noop("Dolon")];
  KG.seatName = function (name, kind) {
    var m = kind === "bot" && /^(.*) \(AI\)$/.exec(name || "");
    if (!m || BOT_NAMES.indexOf(m[1]) < 0) return name;
    return KG.fmt(gettext("%(name)s (AI)"), { name: gettext(m[1]) });
  };
  KG.rolled = 0;
  function pips(face, cls) {
    var g = KG.svg("g", { class: cls });
    PIPS[face].forEach(function (p) {
      g.appendChild(KG.svg("circle", { cx: p[0], cy: p[1], r: face === 1 ? 6 : 4 }));
    });
    return g;
  }

  /* A moment over a board (a capture, a token home, a ladder, a win): a short
     word that pops up and fades, drawn over `host` (position: relative) and
     removed after MOMENT_MS. Decoration only: the words are also said in the
     live region, and with reduced motion there is no moment at all. */
  KG.MOMENT_MS = 1100;
  KG.moment = function (host, text, kind) {
    if (!host || KG.reducedMotion()) return null;
    var box = KG.el("div", { class: "kg-moment kg-moment-" + (kind || "plain"), "aria-hidden": "true", "data-moment": kind || "plain" }, text);
    host.appendChild(box);
    setTimeout(function () { box.remove(); }, KG.MOMENT_MS);
    return box;
  };

  /* The ARIA live region: every event is also said in words. */
  var queue = [], flushing = false;
  function sentence(text) {
    return /[.!?।…:]$/.test(text) ? text : text + (document.documentElement.lang === "bn" ? "।" : ".");
  }

  KG.announce = function (text) {
    if (!text) return;
    queue.push(text);
    var log = document.getElementById("event-log");
    if (log) {
      log.appendChild(KG.el("li", { text: text }));
      while (log.children.length > 30) log.removeChild(log.firstChild);
    }
    if (!flushing) {
      flushing = true;
      // Batch what arrives together so screen readers hear one sentence group,
      // and scroll the log once for the batch: reading scrollHeight lays the
      // page out, which a cheap phone felt once per line of a busy update.
      setTimeout(function () {
        var shown = document.getElementById("event-log");
        if (shown) shown.scrollTop = shown.scrollHeight;
        var live = document.getElementById("live");
        // Each a sentence, so the reader pauses between them ("Time up for
        // Rumi. Rumi rolled 1."); and the same words twice in a row (a second
        // 6) changed nothing, so they went unsaid: they differ by a space.
        var said = queue.map(sentence).join(" ");
        if (live) live.textContent = live.textContent === said ? said + "\u00a0" : said;
        queue = [];
        flushing = false;
      }, 60);
    }
  };

  // Marked for extraction here, translated where shown.
  function gettext_noop(s) { return s; }
  KG.REACTIONS = [
    ["thumbs_up", "👍", gettext_noop("Nice!")], ["laugh", "😂", gettext_noop("Ha ha!")],
    ["wow", "😮", gettext_noop("Wow!")], ["clap", "👏", gettext_noop("Bravo!")],
    ["well_played", "🤝", gettext_noop("Well played")], ["hurry_up", "⏳", gettext_noop("Hurry up!")],
    ["good_luck", "🍀", gettext_noop("Good luck!")], ["oops", "🙈", gettext_noop("Oops!")],
  ];

  /* A fresh contribution to the dice: 16 random bytes, drawn anew for every
     game, after the server has shown its commitment for that game. A stored
     one would be known to the server before it chose the next seed. */
  KG.clientSeed = function () {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  };

  /* The browser's own "Please fill out this field" is in the phone's
     language, not the page's: a Bengali page on an English phone said it in
     English. A field the page checks says it in the page's words instead. */
  document.addEventListener("invalid", function (ev) {
    var field = ev.target, v = field.validity;
    if (!v || !field.setCustomValidity) return;
    var say = v.valueMissing ? (field.type === "radio" ? gettext("Choose one of these.") : gettext("Write something here."))
      : v.tooShort ? KG.fmt(ngettext("At least %(n)s letter.", "At least %(n)s letters.", field.minLength), { n: field.minLength })
      : "";
    if (say) field.setCustomValidity(say);
  }, true);
  function clearSaid(ev) {
    var field = ev.target;
    if (!field.setCustomValidity) return;
    field.setCustomValidity("");
    if (field.type === "radio" && field.form) {  // the group was one question
      Array.prototype.forEach.call(field.form.querySelectorAll("input[type=radio]"), function (r) {
        if (r.name === field.name) r.setCustomValidity("");
      });
    }
  }
  document.addEventListener("input", clearSaid, true);
  document.addEventListener("change", clearSaid, true);
})();
