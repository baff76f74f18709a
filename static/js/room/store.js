/* The room page, part 1 of 11: the store.

   The room page is split into plain scripts, loaded with `defer` in this order
   (templates/rooms/room.html): store, games, socket, narrate, ../luck, results,
   table, lobby, report, reactions, page. No build step. Each file adds functions
   to KG.room; this file holds the page's ONLY mutable state, KG.state (`S`
   below): the last snapshot and version, the connection, the timers and the UI
   flags. The other files keep no state of their own.

   Event for other scripts (the game-feel helpers, sounds, the title cue):
   after every snapshot or update has been applied and drawn, the page dispatches

     document.dispatchEvent(new CustomEvent("kg:update", {detail: {
       events: [...],   // the server's events of that update; [] for a snapshot
       snap: {...},     // the merged snapshot: {version, you, room, game, device}
       you: 2,          // this page's seat index, or null for a spectator
       fresh: true,     // true for a live update, false for the first snapshot
     }}))               //   (from the page or the socket) and for every resync

   Listeners must not change `snap`; it is the store's own object. */
(function () {
  "use strict";
  var KG = window.KG;
  // The catalogue (/jsi18n/) defines pgettext; without it, the English msgid.
  if (!window.pgettext) window.pgettext = function (context, s) { return s; };
  var S = {
    snap: null,            // the last snapshot/update merged: {version, you, room, game}
    prevGame: null,        // the game before the last update (for "the game is over")
    version: null,
    saidUpTo: null,        // the newest update whose events were said (socket.js)
    lastEvents: [],
    // the connection (socket.js)
    ws: null,
    connected: false,
    net: "connecting",     // connecting | online | retrying | offline | gone
    attempt: 0,
    retryAt: 0,
    offset: 0,             // server clock minus ours, in seconds (from server_time)
    lag: 0,                // the link's round trip, in seconds (socket.js times pings)
    pingSent: null,        // the timed ping on its way: {id, at, hidden}
    pending: false,        // an action is on its way; avoid double taps
    seedFor: null,         // the server-seed commitment this page has contributed to
    // what the page shows
    removed: false,        // a moderator took this page's player out of their seat
    luck: {},              // game id -> the luck report, "loading" or "failed"
    ratings: {},           // game id -> how its rated seats' ratings moved: [{seat, before, after}]
    ratingsSaid: null,     // the game id whose rating changes were last said (results.js)
    botLevel: null,        // the host's choice of computer level in the lobby
    deviceName: "",        // the name typed for a player on this phone (lobby)
    joinName: null,        // the nickname being typed to take a seat (lobby); null: none typed
    wantSeat: null,        // the seat tapped before a nickname was given (lobby)
    error: null,           // the refusal shown in the room's head, until it expires
    coverFor: null,        // the turn the pass-the-phone cover was last shown for
    coverArmedAt: 0,       // when the cover's button starts taking taps (table.js)
    promptedFor: null,     // the decision "Your turn" was last said for (narrate.js)
    warnedFor: null,       // the decision whose last seconds were last said (table.js)
    moveOut: false,        // a move was sent and no event of this seat has come since
    lateMove: false,       // ...and the first such event was this seat's timeout
    resultsSeen: null,     // the game id whose results were last brought into view
    resultsClosed: null,   // the game id whose results sheet the player closed
    parts: {},             // the table's containers (table.js)
    report: null,          // the report form's nodes (report.js)
    timers: {},            // every interval/timeout of the page, by name
  };
  KG.state = S;

  var R = (KG.room = KG.room || {});
  R.root = document.getElementById("room");
  if (R.root) {
    R.CODE = R.root.dataset.code;
    R.SHARE_URL = R.root.dataset.shareUrl || location.href;
  }

  /* Timers live here too, by name: starting one stops the previous of that name. */
  R.every = function (name, fn, ms) { R.stop(name); S.timers[name] = setInterval(fn, ms); };
  R.after = function (name, fn, ms) { R.stop(name); S.timers[name] = setTimeout(fn, ms); };
  R.stop = function (name) {
    if (S.timers[name] !== undefined) { clearInterval(S.timers[name]); clearTimeout(S.timers[name]); delete S.timers[name]; }
  };

  /* Merge a snapshot or an update into the store. */
  R.adopt = function (msg, events) {
    var prev = S.snap;
    // The countdowns run on the server's clock: deadline - server_time is what
    // is left, however far off this device's clock is.
    if (typeof msg.server_time === "number") S.offset = msg.server_time - Date.now() / 1000;
    S.prevGame = prev && prev.game;
    S.snap = {
      version: msg.version,
      you: msg.you || (prev && prev.you) || { seat: null, is_host: false },
      room: msg.room || (prev && prev.room),
      game: msg.game !== undefined ? msg.game : prev && prev.game,
      // Pass and play: {seats, own, secret} when this phone plays several
      // seats (docs/protocol.md); `you` is then the seat it shows now.
      device: msg.device || null,
    };
    S.version = msg.version;
    S.lastEvents = events;
    // A finished game's ratings, once the server has updated them, in every
    // snapshot and update after that (docs/protocol.md).
    if (msg.game && msg.game.ratings) R.adoptRatings(msg.game.id, msg.game.ratings);
  };

  /* Keep a game's rating changes (from its snapshot, or the socket's "ratings"
     message); false, keeping nothing, for anything that is not a list of them. */
  R.adoptRatings = function (gameId, changes) {
    if (typeof gameId !== "number" || !Array.isArray(changes)) return false;
    var valid = changes.filter(function (c) {
      return c && typeof c.seat === "number" && typeof c.before === "number" && typeof c.after === "number";
    });
    if (!valid.length) return false;
    S.ratings[gameId] = valid;
    return true;
  };
  /* How the seat's rating moved in the game, or null (not rated, or not yet). */
  R.ratingChangeOf = function (gameId, seat) {
    var changes = S.ratings[gameId] || [];
    for (var i = 0; i < changes.length; i++) if (changes[i].seat === seat) return changes[i];
    return null;
  };

  /* Tell the other scripts (see the top of this file). */
  R.announceUpdate = function (events, fresh) {
    if (!S.snap) return;
    document.dispatchEvent(new CustomEvent("kg:update", {
      detail: { events: events || [], snap: S.snap, you: R.youSeat(), fresh: !!fresh },
    }));
  };

  /* Seconds left until a Unix time of the server's clock, for a move made
     now: server_time was already old when it arrived, and a tap takes as long
     again to reach the table, so the countdowns end a round trip early (on a
     slow link, a tap in the ring's last moment arrived too late). */
  R.secondsUntil = function (unix) { return unix - (Date.now() / 1000 + S.offset) - S.lag; };

  // ---- reads ------------------------------------------------------------------

  R.youSeat = function () {
    var you = S.snap && S.snap.you;
    return you && typeof you.seat === "number" ? you.seat : null;
  };
  R.seatOf = function (i) {
    var seats = (S.snap && S.snap.room && S.snap.room.seats) || [];
    return seats[i] || { seat: i, kind: "open" };
  };
  R.nameOf = function (i) {
    if (i === null || i === undefined) return "";
    var s = R.seatOf(i);
    if (s.name) return KG.seatName(s.name, s.kind);
    if (s.kind === "bot") return KG.fmt(gettext("Computer %(n)s"), { n: i + 1 });
    return KG.fmt(gettext("Seat %(n)s"), { n: i + 1 });
  };
  KG.nameOf = R.nameOf;
  /* Pass and play: the seats this phone plays, or null when it plays one. */
  R.device = function () { return (S.snap && S.snap.device) || null; };
  /* The seat whose turn the phone should be handed to, covered until its
     player taps (secret hands only): null when nothing is covered. */
  R.coveredSeat = function () {
    var device = R.device(), game = S.snap && S.snap.game;
    if (!device || !device.secret || !game || game.status !== "in_progress" || !game.turn) return null;
    var turn = game.turn.seat;
    if (turn === null || turn === undefined || device.seats.indexOf(turn) < 0) return null;
    return turn === R.youSeat() ? null : turn;
  };
  R.ordinal = function (n) {
    return [null, gettext("1st"), gettext("2nd"), gettext("3rd"), gettext("4th"), gettext("5th"), gettext("6th")][n] || KG.digits(n);
  };
  KG.ordinal = R.ordinal;
})();
