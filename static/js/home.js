/* Home page: the 4-box room code and the "create a room" form's seat limits. */
(function () {
  "use strict";
  var KG = window.KG, t = KG.t;

  /* Replace the single code field with four boxes (one letter each). Paste, lower
     case and backspace all work; the original field stays as the hidden value. */
  function codeBoxes(single) {
    var form = single.form, boxes = [];
    var wrap = KG.el("div", { class: "code-boxes", role: "group", "aria-label": gettext("Room code") });
    for (var i = 0; i < 4; i++) {
      var box = KG.el("input", {
        class: "code-box", inputmode: "text", maxlength: "4", autocomplete: "off",
        autocapitalize: "characters", spellcheck: "false", "data-index": i,
        "aria-label": KG.fmt(gettext("Letter %(n)s of %(total)s"), { n: i + 1, total: 4 }),
      });
      boxes.push(box);
      wrap.appendChild(box);
    }
    single.type = "hidden";
    single.removeAttribute("pattern");
    single.id = "";
    boxes[0].id = "code-input";
    single.parentNode.insertBefore(wrap, single);

    function clean(s) { return (s || "").toUpperCase().replace(/[^A-Z0-9]/g, ""); }
    function sync() {
      single.value = boxes.map(function (b) { return b.value; }).join("");
    }
    function fill(from, text) {
      var letters = clean(text).split("");
      var i = from;
      while (letters.length && i < 4) boxes[i++].value = letters.shift();
      sync();
      (boxes[Math.min(i, 3)]).focus();
      if (single.value.length === 4) boxes[3].focus();
    }
    boxes.forEach(function (box, i) {
      box.addEventListener("input", function () {
        var v = clean(box.value);
        box.value = "";
        if (v) fill(i, v); else sync();
      });
      box.addEventListener("keydown", function (ev) {
        if (ev.key === "Backspace" && !box.value && i > 0) {
          boxes[i - 1].value = "";
          boxes[i - 1].focus();
          sync();
          ev.preventDefault();
        } else if (ev.key === "ArrowLeft" && i > 0) boxes[i - 1].focus();
        else if (ev.key === "ArrowRight" && i < 3) boxes[i + 1].focus();
      });
      box.addEventListener("paste", function (ev) {
        var text = (ev.clipboardData || window.clipboardData).getData("text");
        ev.preventDefault();
        fill(i, text);
      });
      box.addEventListener("focus", function () { box.select(); });
    });
    form.addEventListener("submit", function (ev) {
      sync();
      if (single.value.length !== 4) {
        ev.preventDefault();
        boxes[Math.min(single.value.length, 3)].focus();
      }
    });
  }

  /* Seats offered follow the chosen game; each game's house rules and its seats
     hint (data-hint-from: from that many players) only for that game. */
  function createForm(form) {
    var seats = form.querySelector("select[name=seats]");
    var options = form.querySelectorAll("fieldset.game-options");
    var hints = form.querySelectorAll(".seats-hint");
    function update() {
      var game = form.querySelector("input[name=game]:checked");
      if (!game) return;
      var min = +game.dataset.min, max = +game.dataset.max, value = +seats.value;
      Array.prototype.forEach.call(seats.options, function (o) {
        var n = +o.value;
        o.disabled = n < min || n > max;
        o.hidden = o.disabled;
      });
      // Out of the new game's range: the nearest count it allows (Ludo's 5
      // became Snakes' default 2, not its most, 4: a phone drill).
      if (value < min || value > max) seats.value = String(value > max ? max : min);
      Array.prototype.forEach.call(options, function (set) {
        var mine = set.dataset.game === game.value;
        set.hidden = !mine;
        set.disabled = !mine;
      });
      Array.prototype.forEach.call(hints, function (hint) {
        hint.hidden = !(hint.dataset.game === game.value && game.dataset.hintFrom && +seats.value >= +game.dataset.hintFrom);
      });
    }
    form.addEventListener("change", update);
    update();
  }

  /* Quick play's pace: one box for the three games' forms, remembered on
     this phone (a new player who chose the slower tables wants them again). */
  var pace = document.getElementById("quick-pace");
  if (pace) {
    var setPace = function () {
      document.querySelectorAll(".pace-field").forEach(function (f) { f.value = pace.checked ? "party" : "normal"; });
    };
    // Remembered: ticks the box, never unticks one ticked before this ran.
    try { if (localStorage.getItem("kg-quick-pace") === "party") pace.checked = true; } catch (e) { /* private mode */ }
    pace.addEventListener("change", function () {
      setPace();
      try { localStorage.setItem("kg-quick-pace", pace.checked ? "party" : "normal"); } catch (e) { /* private mode */ }
    });
    // And read again as a tile is sent, whatever happened before.
    document.querySelectorAll(".game-tile").forEach(function (form) { form.addEventListener("submit", setPace); });
    setPace();
  }

  var single = document.querySelector(".code-single");
  if (single) codeBoxes(single);
  var create = document.getElementById("create-form");
  if (create) createForm(create);

  /* A first visit: "Play now", "Create a room" and "Join with a code" all go to
     the nickname first; the one tapped is where the page goes after it (the
     form's next, "/#play"), not the top of the page, where the player had to
     find and tap it again. A next the page came with (a room's link) wins. */
  var next = document.querySelector("#nickname input[name=next]");
  // The page's own address is kept with it (a rules page's "?game=ludo").
  var own = next && (next.value === "/" || next.value.indexOf("/#") === 0);
  if (own && /^#(play|create|join)$/.test(location.hash)) next.value = "/" + location.search + location.hash;
  /* The cursor goes to the nickname when the player is sent there (a tap on
     a way in, or a page that needs the nickname first), not on arrival: an
     autofocus opened the first visit scrolled past the site's name, and on a
     phone it can raise the keyboard over the page. */
  var nicknameInput = document.getElementById("nickname-input");
  function toNickname() {
    if (nicknameInput && location.hash === "#nickname") nicknameInput.focus();
  }
  toNickname();
  window.addEventListener("hashchange", toNickname);  // after the link's own focus move
  document.querySelectorAll("a[data-then]").forEach(function (link) {
    link.addEventListener("click", function () {
      if (own) next.value = "/" + location.search + link.dataset.then;
    });
  });
})();
