/* The room page, part 2: what the page knows about each game, in one place.

   Titles, the easier computer kind and the house-rule switches the lobby shows,
   read from the game registry the page carries (<script type="application/json"
   id="kg-games">, rooms/declared.py client_facts: per game title, easy_bot,
   expert_bot, host_options [{name, label, default}]). Nothing else in the room page names
   a game. */
(function () {
  "use strict";
  var KG = window.KG, R = KG.room;

  var registry = null;
  var node = document.getElementById("kg-games");
  if (node) {
    try { registry = JSON.parse(node.textContent); } catch (e) { registry = null; }
  }

  function entry(game) {
    return (registry && registry[game]) || null;
  }

  R.gameTitle = function (game) {
    var e = entry(game);
    return e && e.title ? e.title : game;
  };
  /* The easier computer kind of a game, or null when it has only the standard one. */
  R.easyBot = function (game) {
    var e = entry(game);
    return (e && e.easy_bot) || null;
  };
  /* The stronger kind a host may choose (it thinks longer), or null. */
  R.expertBot = function (game) {
    var e = entry(game);
    return (e && e.expert_bot) || null;
  };
  /* House-rule switches: [{key, default, label}] (booleans, at private tables). */
  R.houseRules = function (game) {
    var e = entry(game);
    return ((e && e.host_options) || []).filter(function (o) { return o.default === true || o.default === false; })
      .map(function (o) { return { key: o.name, default: o.default, label: o.label }; });
  };
})();
