/* The room page, part 9: reporting a player.

   The form comes from the server (templates/rooms/_report.html, so it works
   without JavaScript too); here it moves into the room's header in the lobby and
   into the "More" sheet at the table, lists the players at the table now, and
   posts with fetch so the answer shows on this page. */
(function () {
  "use strict";
  var KG = window.KG, R = KG.room, S = KG.state, el = KG.el;

  R.setupReport = function () {
    var box = document.querySelector(".report-box");
    if (!box) return;
    var form = box.querySelector("form"), summary = box.querySelector("summary");
    var status = el("p", { id: "report-status", class: "message report-status", role: "status", "data-testid": "report-status", hidden: true });
    var wrap = el("div", { class: "report-wrap" }, box, status);
    var slot = document.getElementById("report-slot");
    if (slot) slot.remove();
    summary.dataset.key = "report-open";
    summary.dataset.testid = "report-button";
    form.querySelectorAll("input, select, textarea, button").forEach(function (c) {
      c.dataset.key = "report-" + (c.name || "send") + (c.type === "radio" ? "-" + c.value : "");
    });
    S.report = { box: box, form: form, wrap: wrap, status: status, seat: form.querySelector("#report-seat"), seatsKey: null };
    box.addEventListener("toggle", function () {
      if (box.open) {
        status.hidden = true;
        var first = form.querySelector("input[name=reason]:checked") || form.querySelector("input[name=reason]");
        if (first) first.focus();
      }
    });
    box.addEventListener("keydown", function (ev) {
      if (ev.key === "Escape" && box.open) { ev.stopPropagation(); box.open = false; summary.focus(); }
    });
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var button = form.querySelector("button[type=submit]");
      button.disabled = true;
      fetch(form.action, {
        method: "POST", body: new FormData(form), credentials: "same-origin",
        headers: { Accept: "application/json", "X-Requested-With": "XMLHttpRequest" },
      }).then(function (r) { return r.json(); })
        .catch(function () { return { type: "error", message: gettext("Something went wrong") }; })
        .then(function (answer) {
          button.disabled = false;
          var ok = answer.type === "ok";
          status.textContent = answer.message || (ok ? "" : gettext("Something went wrong"));
          status.classList.toggle("message-error", !ok);
          status.hidden = false;
          KG.announce(status.textContent);
          if (ok) {
            form.reset();
            box.open = false;
            summary.focus();
          }
        });
    });
  };

  R.placeReport = function () {
    var report = S.report;
    if (!report) return;
    var home = R.root.querySelector(".report-slot") || R.root.querySelector(".room-head");
    if (home && report.wrap.parentNode !== home) home.appendChild(report.wrap);
    if (!report.seat) return;
    // The players to choose from: the people at the table now, not yourself.
    var seats = ((S.snap.room && S.snap.room.seats) || []).filter(function (x) {
      return x.kind === "human" && x.seat !== R.youSeat();
    });
    var key = JSON.stringify(seats.map(function (x) { return [x.seat, x.name]; }));
    if (key === report.seatsKey) return;
    report.seatsKey = key;
    var chosen = report.seat.value;
    KG.clear(report.seat).appendChild(el("option", { value: "" }, gettext("No one in particular")));
    seats.forEach(function (x) {
      report.seat.appendChild(el("option", { value: x.seat, selected: String(x.seat) === chosen }, R.nameOf(x.seat)));
    });
  };
})();
