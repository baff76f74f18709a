/* Game feel that is not drawing: sounds, a buzz on your turn, a "your turn"
   cue in the tab's title, and the one button that turns sound on.

   Built on the table's `kg:update` event (dispatched on document after every
   snapshot or update: detail {events, snap, you, fresh}); `fresh` is false for
   a first snapshot or a resync, which never makes a sound.

   - Sounds are synthesised with Web Audio (no files to download): roll, move,
     climb, slide, capture, home, win, your turn, and five seconds left. They are OFF on a first visit;
     one tap on the button turns them on, remembered in localStorage
     ("kg-sound" = "on" | "off").
   - Vibration (navigator.vibrate, where the phone has it) on your turn goes with
     the same setting: a phone that buzzes by itself on a first visit surprises
     more than it helps, and one switch is one thing to find.
   - When the tab is hidden and it becomes your turn, the title reads
     "● <Your turn> — <Khelaghor>" until the tab is visible again (or the turn
     passes). That cue needs no setting: it makes no noise.

   KG.feel exposes the state for tests: on(), played (the sounds asked for, the
   last 50), buzzed (vibrations asked for). */
(function () {
  "use strict";
  var KG = (window.KG = window.KG || {});
  var KEY = "kg-sound";
  var feel = (KG.feel = { played: [], buzzed: 0 });

  function stored() {
    try { return window.localStorage.getItem(KEY) === "on"; } catch (e) { return false; }
  }
  function store(on) {
    try { window.localStorage.setItem(KEY, on ? "on" : "off"); } catch (e) { /* private mode */ }
  }
  var soundOn = stored();
  feel.on = function () { return soundOn; };

  // ---- the button ------------------------------------------------------------------

  var box = null, button = null;
  function buildButton() {
    button = KG.el("button", {
      type: "button", class: "feel-toggle", "data-testid": "sound-toggle", "data-key": "sound-toggle",
      "aria-pressed": soundOn ? "true" : "false", title: gettext("Sound and vibration on your turn"),
      onclick: function () { setSound(!soundOn); },
    }, KG.el("span", { class: "feel-icon", "aria-hidden": "true" }), KG.el("span", { class: "feel-label" }, gettext("Sound")));
    box = KG.el("div", { class: "feel-box", "data-testid": "feel-box" }, button);
    paintButton();
  }
  function paintButton() {
    if (!button) return;
    button.setAttribute("aria-pressed", soundOn ? "true" : "false");
    button.querySelector(".feel-icon").textContent = soundOn ? "🔊" : "🔇";
  }
  /* In the table's header slot when the page has one (#feel-slot); else in the
     room's header (.room-head), before the Report button; else just above the
     room. The room redraws its header (every lobby redraw, every change of view),
     so a watch on #room's children puts the button back at once. */
  function placeButton() {
    var room = document.getElementById("room");
    if (!room) return;
    if (!box) buildButton();
    // A closed room has nothing left to press, this switch included.
    if (room.dataset.view === "closed") { box.remove(); return; }
    var slot = document.getElementById("feel-slot");
    var head = room.querySelector(".room-head");
    if (slot) {
      if (box.parentNode !== slot) slot.appendChild(box);
    } else if (head) {
      var report = head.querySelector(".report-wrap");
      if (box.parentNode !== head || (report && box.nextSibling !== report)) head.insertBefore(box, report);
    } else if (box.parentNode !== room.parentNode) {
      room.parentNode.insertBefore(box, room);
    }
  }
  function watchRoom() {
    var room = document.getElementById("room");
    if (!room || !window.MutationObserver) return;
    new MutationObserver(placeButton).observe(room, { childList: true });
    placeButton();
  }
  function setSound(on) {
    soundOn = on;
    store(on);
    paintButton();
    if (on) {
      unlock();
      play("turn");  // the sound you will hear: the tap says what it turned on
    }
  }

  // ---- Web Audio -------------------------------------------------------------------

  var ctx = null;
  /* An AudioContext may only start after a tap; make or wake it then. */
  function unlock() {
    var AC = window.AudioContext || window.webkitAudioContext;
    if (!AC) return null;
    if (!ctx) {
      try { ctx = new AC(); } catch (e) { ctx = null; return null; }
    }
    if (ctx.state === "suspended" && ctx.resume) ctx.resume().catch(function () { /* no gesture yet */ });
    return ctx;
  }
  ["pointerdown", "keydown"].forEach(function (type) {
    document.addEventListener(type, function () { if (soundOn) unlock(); }, { capture: true, passive: true });
  });

  /* One tone: frequency f (Hz) gliding to f2, starting `at` s from now, for `dur` s. */
  function tone(ac, at, f, f2, dur, type, gain) {
    var t0 = ac.currentTime + at;
    var osc = ac.createOscillator(), g = ac.createGain();
    osc.type = type || "sine";
    osc.frequency.setValueAtTime(f, t0);
    if (f2 && f2 !== f) osc.frequency.exponentialRampToValueAtTime(f2, t0 + dur);
    g.gain.setValueAtTime(0.0001, t0);
    g.gain.exponentialRampToValueAtTime(gain || 0.18, t0 + 0.012);
    g.gain.exponentialRampToValueAtTime(0.0001, t0 + dur);
    osc.connect(g).connect(ac.destination);
    osc.start(t0);
    osc.stop(t0 + dur + 0.02);
  }
  /* A click of noise, for dice on a board. */
  function rattle(ac, at, dur) {
    var n = Math.floor(ac.sampleRate * dur), buf = ac.createBuffer(1, n, ac.sampleRate), d = buf.getChannelData(0);
    for (var i = 0; i < n; i++) d[i] = (Math.random() * 2 - 1) * Math.pow(1 - i / n, 3);
    var src = ac.createBufferSource(), filter = ac.createBiquadFilter(), g = ac.createGain();
    src.buffer = buf;
    filter.type = "bandpass";
    filter.frequency.value = 2400 + Math.random() * 1200;
    g.gain.value = 0.5;
    src.connect(filter).connect(g).connect(ac.destination);
    src.start(ac.currentTime + at);
  }
  var SOUNDS = {
    roll: function (ac) { [0, 0.07, 0.15, 0.26].forEach(function (t) { rattle(ac, t, 0.05); }); },
    move: function (ac) { tone(ac, 0, 620, 620, 0.06, "triangle", 0.12); tone(ac, 0.08, 740, 740, 0.06, "triangle", 0.12); },
    climb: function (ac) { tone(ac, 0, 392, 1046, 0.32, "triangle", 0.14); },
    slide: function (ac) { tone(ac, 0, 880, 196, 0.42, "sawtooth", 0.06); },
    capture: function (ac) { tone(ac, 0, 440, 110, 0.22, "square", 0.08); rattle(ac, 0, 0.06); },
    home: function (ac) { [523, 659, 784].forEach(function (f, i) { tone(ac, i * 0.08, f, f, 0.12, "triangle", 0.14); }); },
    win: function (ac) {
      [523, 659, 784, 1046].forEach(function (f, i) { tone(ac, i * 0.11, f, f, 0.16, "triangle", 0.16); });
      tone(ac, 0.46, 1046, 1046, 0.5, "sine", 0.12);
    },
    turn: function (ac) { tone(ac, 0, 880, 880, 0.11, "sine", 0.16); tone(ac, 0.13, 1320, 1320, 0.16, "sine", 0.14); },
    hurry: function (ac) { [0, 0.16, 0.32].forEach(function (t) { tone(ac, t, 660, 660, 0.07, "square", 0.07); }); },
  };
  function play(name) {
    if (!soundOn || !SOUNDS[name]) return;
    feel.played.push(name);
    if (feel.played.length > 50) feel.played.shift();
    var ac = unlock();
    if (!ac || ac.state !== "running") return;
    try { SOUNDS[name](ac); } catch (e) { /* a browser without some node: stay quiet */ }
  }
  feel.play = play;

  /* Five seconds left on your turn (table.js, once a decision): three quick
     ticks and a buzz, for a player who looked away; with the same switch. */
  feel.hurry = function () {
    play("hurry");
    buzz();
  };

  // ---- what an update sounds like -------------------------------------------------

  /* The sounds of one update's events, most telling first, each once: a
     computer's whole run of rolls in one update is one rattle, not fifty. */
  var RANK = ["win", "capture", "home", "slide", "climb", "move", "roll"];
  function soundsOf(events, snap, you) {
    var want = {};
    var game = snap && snap.game, view = (game && game.view) || {}, kind = snap && snap.room && snap.room.game;
    var home = view.geometry && view.geometry.home;
    events.forEach(function (e) {
      if (e.type === "roll" || e.type === "round") want.roll = true;
      else if (e.type === "move") {
        if (e.captured && e.captured.length) want.capture = true;
        else if (kind === "ludo" && home && e.to >= home) want.home = true;
        else if (kind === "snakes" && e.to === 100) want.home = true;
        else if (kind === "snakes" && e.from > 0 && e.to < e.from) want.slide = true;
        else if (kind === "snakes" && view.board && jumped(view.board, e)) want.climb = true;
        else want.move = true;
      } else if (e.type === "challenge") want.capture = true;
      else if (e.type === "finished" && e.placings && e.placings.length) {
        if (e.placings[0] === you) want.win = true; else want.home = true;
      }
    });
    return RANK.filter(function (k) { return want[k]; }).slice(0, 2);
  }
  function jumped(board, e) {
    var foot = null;
    Object.keys(board.ladders || {}).forEach(function (f) { if (board.ladders[f] === e.to && +f > e.from) foot = f; });
    return foot !== null;
  }

  // ---- your turn: sound, buzz, title ----------------------------------------------

  var BASE_TITLE = document.title;
  var cueing = false, wasMine = false;
  function cueTitle() {
    return "● " + gettext("Your turn") + " — " + gettext("Khelaghor");
  }
  function setCue(on) {
    if (on && !cueing) {
      BASE_TITLE = document.title;
      document.title = cueTitle();
    } else if (!on && cueing) {
      document.title = BASE_TITLE;
    }
    cueing = on;
    document.documentElement.dataset.turnCue = on ? "on" : "off";
  }
  feel.cueing = function () { return cueing; };

  function myTurn(snap, you) {
    var game = snap && snap.game;
    return you !== null && you !== undefined && !!game && game.status === "in_progress" &&
      !!game.turn && game.turn.seat === you && !!(game.legal && game.legal.length);
  }

  function buzz() {
    if (!soundOn || !navigator.vibrate) return;
    try { if (navigator.vibrate([70, 50, 70])) feel.buzzed += 1; } catch (e) { /* not allowed yet */ }
  }

  document.addEventListener("kg:update", function (ev) {
    var d = ev.detail || {};
    placeButton();
    var mine = myTurn(d.snap, d.you);
    var turnStarts = mine && !wasMine;
    wasMine = mine;
    if (d.fresh) {
      var sounds = soundsOf(d.events || [], d.snap, d.you);
      sounds.forEach(function (name, i) { setTimeout(function () { play(name); }, i * 180); });
      if (turnStarts) {
        setTimeout(function () { play("turn"); }, sounds.length * 180);
        buzz();
      }
    }
    if (mine && document.hidden) setCue(true);
    else if (!mine) setCue(false);
  });
  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) setCue(false);
  });

  document.addEventListener("DOMContentLoaded", watchRoom);
})();
