/* The room page, part 11: one render for the three faces (lobby, table,
   closed), the head, and the start. */
(function () {
  "use strict";
  var KG = window.KG, R = KG.room, S = KG.state, el = KG.el, fmt = KG.fmt;
  if (!R.root) return;

  /* The room's head: the game, the code and, at the table, the "More" button. */
  R.header = function (title, atTable) {
    return el("div", { class: "room-head" },
      el("h1", { class: "room-title" }, title, " ",
        el("span", { class: "room-code-small", "aria-label": fmt(gettext("room code %(code)s"), { code: R.CODE.split("").join(" ") }) }, R.CODE)),
      atTable ? el("button", {
        type: "button", class: "button-small more-button", "data-key": "more", "data-testid": "more-button",
        "aria-expanded": "false", "aria-controls": "more-panel",
        onclick: function () { R.toggleMore(R.root.dataset.more !== "open"); },
      }, pgettext("table sheet", "More")) : null,
      // The lobby draws its head again on every change, so the message lives
      // in the store (S.error) and each new head shows it until it expires.
      el("p", { id: "room-error", class: "message message-error", role: "alert", hidden: !S.error }, S.error || ""));
  };

  R.showError = function (message) {
    if (!message) return;
    S.error = message;
    paintError();
    R.after("error", function () { S.error = null; paintError(); }, 5000);
  };
  /* A refusal that the next step has answered (the player has sat down
     since): not left over what they now look at for the rest of 5 s. */
  R.clearError = function () {
    if (!S.error) return;
    S.error = null;
    R.stop("error");
    paintError();
  };
  function paintError() {
    var box = document.getElementById("room-error");
    if (!box) return;
    box.textContent = S.error || "";
    box.hidden = !S.error;
  }

  /* Rebuild the page from the store, keeping the focused control focused. */
  R.render = function (events) {
    if (!S.snap || !S.snap.room) return;
    var root = R.root;
    var active = document.activeElement, focusKey = active && active.dataset && active.dataset.key;
    // A text field drawn again keeps the caret where it was, not at its start.
    var caret = active && typeof active.selectionStart === "number" ? [active.selectionStart, active.selectionEnd] : null;
    var status = S.snap.room.status;
    var view = status === "lobby" ? "lobby" : status === "closed" ? "closed" : "table";
    if (root.dataset.view !== view) {
      KG.clear(root);
      R.stop("turn");
      R.stop("autostart");
      root.dataset.view = view;
      document.body.classList.toggle("at-table", view === "table");
      if (view === "table") R.buildTableShell();
    }
    if (view === "lobby") R.renderLobby();
    else if (view === "closed") renderClosed();
    else R.renderTable(events || []);
    R.placeReport();
    // State the page is in, for tests and for styling.
    root.dataset.status = status;
    root.dataset.connected = S.connected ? "yes" : "no";
    root.dataset.version = String(S.version);
    root.dataset.youSeat = R.youSeat() === null ? "" : String(R.youSeat());
    // The pass-the-phone cover takes the focus when it appears (table.js).
    var covered = S.parts && S.parts.cover && S.parts.cover.isConnected && !S.parts.cover.hidden;
    if (focusKey && document.activeElement !== active && !covered) {
      // Or the control that took its place (a seat's "Add computer" becomes
      // its "Remove"): it names the key it replaces in data-refocus.
      var again = root.querySelector('[data-key="' + focusKey + '"]') ||
        root.querySelector('[data-refocus~="' + focusKey + '"]');
      if (again && !again.disabled) {
        again.focus({ preventScroll: true });
        if (caret && again.setSelectionRange && typeof again.selectionStart === "number") {
          again.setSelectionRange(caret[0], caret[1]);
        }
      }
    }
  };
  KG.render = R.render;

  /* A closed room: the reason, large, and nothing left to press but the way out. */
  function renderClosed() {
    var root = R.root;
    KG.clear(root);
    root.appendChild(R.header(gettext("Room closed")));
    var reason = R.reasonText(S.snap.room.closed_reason);
    root.appendChild(el("section", { class: "card closed-card", "data-testid": "closed-reason", role: "alert" },
      el("h2", {}, gettext("The room was closed")),
      el("p", { class: "closed-reason" }, reason ? fmt(gettext("Reason: %(reason)s"), { reason: reason }) : gettext("This room is no longer available."))));
    var game = S.snap.game, row = el("p", { class: "actions" });
    if (game && game.page_url) row.appendChild(el("a", { class: "button", href: game.page_url }, gettext("See the game and its replay")));
    row.appendChild(el("a", { class: "button button-primary", href: root.dataset.homeUrl }, gettext("Back to the start")));
    root.appendChild(row);
  }

  // ---- start ------------------------------------------------------------------------

  var initial = document.getElementById("room-snapshot");
  if (initial) {
    try { R.adopt(JSON.parse(initial.textContent), []); } catch (e) { /* the socket brings one */ }
  }
  R.setNet("connecting");
  R.setupReport();
  R.render();
  R.announceUpdate([], false);
  R.connect();
})();
