/* The room page, part 10: quick reactions, sent from the "More" sheet and
   shown floating over the sender's seat (and said in words). */
(function () {
  "use strict";
  var KG = window.KG, R = KG.room, S = KG.state, el = KG.el, t = KG.t;

  R.reactionBar = function () {
    if (R.youSeat() === null) return el("span");
    var bar = el("div", { class: "reaction-bar", role: "group", "aria-label": gettext("Quick reactions") });
    KG.REACTIONS.forEach(function (r) {
      bar.appendChild(el("button", {
        type: "button", "data-key": "react-" + r[0], title: t(r[2]), "aria-label": t(r[2]),
        disabled: !S.connected, onclick: function () { R.send({ type: "react", reaction: r[0] }); },
      }, r[1]));
    });
    return bar;
  };

  R.showReaction = function (seat, id) {
    var r = KG.REACTIONS.filter(function (x) { return x[0] === id; })[0];
    if (!r) return;
    KG.announce(KG.fmt(gettext("%(name)s: %(reaction)s"), { name: R.nameOf(seat), reaction: t(r[2]) }));
    // Over the seat the player sees: the strip's, or the board's own (Liar's Dice).
    var target = [].filter.call(R.root.querySelectorAll('[data-seat="' + seat + '"]'), function (n) {
      return n.getClientRects().length > 0;
    })[0];
    if (!target) return;
    target.style.position = "relative";
    var bubble = el("span", { class: "reaction-float", "aria-hidden": "true" }, r[1] + " " + t(r[2]));
    target.appendChild(bubble);
    setTimeout(function () { bubble.remove(); }, 2700);
  };
})();
