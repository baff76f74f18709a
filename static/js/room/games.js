/* The room page, part 2: what the page knows about each game, in one place.

   Titles, the easier computer kind and the house-rule switches the lobby shows.
   When the page carries the game registry (<script type="application/json"
   id="kg-games">, per game: title, easy_bot, options), it is read from there;
   until then the fallbacks below are used. Nothing else in the room page names
   a game. */
(function () {
  "use strict";
  var KG = window.KG, R = KG.room;

  var FALLBACK = {
    liars_dice: { title: function () { return gettext("Liar's Dice"); }, easy_bot: "easy", options: [] },
    ludo: {
      title: function () { return gettext("Ludo"); }, easy_bot: "smart",
      options: [{ key: "home_bonus_roll", id: "home-bonus", default: true, label: function () { return gettext("Bringing a token home earns another roll"); } }],
    },
    snakes: { title: function () { return gettext("Snakes & Ladders"); }, easy_bot: null, options: [] },
  };

  var registry = null;
  var node = document.getElementById("kg-games");
  if (node) {
    try { registry = JSON.parse(node.textContent); } catch (e) { registry = null; }
  }

  function entry(game) {
    if (registry && registry[game]) return registry[game];
    return FALLBACK[game] || null;
  }
  function text(v) { return typeof v === "function" ? v() : v; }

  R.gameTitle = function (game) {
    var e = entry(game);
    return e && e.title ? text(e.title) : game;
  };
  /* The easier computer kind of a game, or null when it has only the standard one. */
  R.easyBot = function (game) {
    var e = entry(game);
    return (e && e.easy_bot) || null;
  };
  /* House-rule switches: [{key, default, label}] (booleans, at private tables). */
  R.houseRules = function (game) {
    var e = entry(game);
    return ((e && e.options) || []).filter(function (o) { return o.default === true || o.default === false; })
      .map(function (o) { return { key: o.key, id: o.id, default: o.default, label: text(o.label) }; });
  };
})();
