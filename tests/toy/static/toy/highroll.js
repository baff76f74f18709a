/* High Roll's board (tests/toy): each seat's roll this round. */
(function () {
  "use strict";
  var KG = (window.KG = window.KG || {});
  KG.games = KG.games || {};
  KG.games.highroll = {
    render: function (board, controls, c) {
      KG.clear(board);
      (c.view.rolls || []).forEach(function (roll, seat) {
        board.appendChild(KG.el("p", { class: "highroll-roll" }, c.nameOf(seat) + ": " + (roll === null ? "…" : KG.digits(roll))));
      });
    },
  };
})();
