/* The room page, part 4: every event said in words (the live region and the
   "What happened" log, through KG.announce). */
(function () {
  "use strict";
  var KG = window.KG, R = KG.room, S = KG.state, fmt = KG.fmt, t = KG.t;

  // Reasons the server itself gives for closing a room, translated where shown.
  function gettext_noop(x) { return x; }
  gettext_noop("Closed after sitting idle");
  gettext_noop("This room has been closed");
  R.reasonText = function (reason) { return reason ? t(reason) : ""; };

  /* The turns the computer has played for a held seat (its seat JSON's
     held_moves); 0 for anything else, a count missing or not a number. */
  R.heldMoves = function (seat) {
    var n = seat && seat.held ? seat.held_moves : 0;
    return typeof n === "number" && isFinite(n) && n > 0 ? Math.floor(n) : 0;
  };

  /* This page's player's own seat while the computer holds it: the game, the
     seat and the turns played so far, as the page last saw them; else null.
     A phone that several players share has no "you" to tell (its cover
     names each player). */
  R.ownHold = function () {
    var you = R.youSeat(), game = S.snap && S.snap.game;
    if (you === null || R.device() || !game) return null;
    var seat = R.seatOf(you);
    if (seat.kind !== "human" || !seat.held) return null;
    return { game: game.id, seat: you, moves: R.heldMoves(seat), said: false };
  };

  /* The seat held before this update or snapshot (``hold``, R.ownHold) is the
     player's again: say, once, how many turns the computer played for them.
     It is said on the update that takes it back (the reclaim) or on the
     snapshot of a page that missed that update (its socket dropped as its
     tap went out). The count is the last the page saw while the seat was
     held: the server shows it only on a held seat. Nothing for a seat that
     left the page (a moderator gave it to a computer), nor across games: a
     new game takes every seat back, and the count was the last game's. */
  R.sayWhileAway = function (hold) {
    if (!hold || hold.said || R.ownHold()) return;
    var game = S.snap.game, seat = R.seatOf(hold.seat);
    if (!game || game.id !== hold.game || R.youSeat() !== hold.seat || seat.kind !== "human") return;
    hold.said = true;
    if (hold.moves > 0) {
      KG.announce(KG.nfmt(ngettext("While you were away the computer played %(n)s turn for you.",
        "While you were away the computer played %(n)s turns for you.", hold.moves), hold.moves));
    }
  };

  R.describeEvents = function (events, seatBefore, hold) {
    var mod = KG.games[S.snap.room.game], finished = false, nameOf = R.nameOf;
    var you = R.youSeat(), device = R.device();
    events.forEach(function (ev) {
      var who = nameOf(ev.seat), text = null;
      // This page's own player is "you", not their name in the third person
      // (a shared phone plays several seats: their names, as before).
      var yours = !device && ev.seat !== undefined && (ev.seat === you || ev.seat === seatBefore);
      switch (ev.type) {
        case "joined": text = fmt(gettext("%(name)s sat down"), { name: who }); break;
        case "left": text = fmt(gettext("%(name)s left the seat"), { name: who }); break;
        case "started": text = gettext("The game has started"); S.removed = false; break;
        case "host":
          text = ev.seat === you ? gettext("You are the host now") : fmt(gettext("%(name)s is the host now"), { name: who });
          break;
        case "timeout":
          text = yours ? gettext("Your time is up") : fmt(gettext("Time up for %(name)s"), { name: who });
          // Shown in the turn bar too, until the player moves again (renderTurn).
          if (yours && S.snap.game) S.timeUp = S.snap.game.id;  // this game's only
          break;
        case "takeover": text = yours ? gettext("The computer is holding your seat") : fmt(gettext("The computer is holding %(name)s's seat"), { name: who }); break;
        case "reclaim": text = yours ? gettext("You are back in your seat") : fmt(gettext("%(name)s is back"), { name: who }); break;
        case "removed":
          if (ev.seat === seatBefore) {
            S.removed = true;
            text = gettext("A moderator removed you from this seat");
          } else {
            text = S.snap.room.status === "playing"
              ? fmt(gettext("A moderator removed the player in seat %(n)s; a computer plays it now"), { n: ev.seat + 1 })
              : fmt(gettext("A moderator removed the player in seat %(n)s"), { n: ev.seat + 1 });
          }
          break;
        case "renamed":
          text = ev.seat === R.youSeat()
            ? fmt(gettext("A moderator changed your name to %(name)s"), { name: who })
            : fmt(gettext("A moderator changed the name in seat %(n)s to %(name)s"), { n: ev.seat + 1, name: who });
          break;
        case "closed":
          text = ev.reason ? fmt(gettext("The room was closed: %(reason)s"), { reason: R.reasonText(ev.reason) }) : gettext("The room was closed");
          break;
        case "finished":
          finished = true;
          text = R.finishedText(ev.placings || []);
          break;
        default: if (mod && mod.describe) text = mod.describe(ev, R.ctx());
      }
      if (text) KG.announce(text);
      // Right after "You are back in your seat", not after the move that came with it.
      if (ev.type === "reclaim" && hold && ev.seat === hold.seat) R.sayWhileAway(hold);
    });
    var g = S.snap.game;
    if (!finished && g && g.status !== "in_progress" && S.prevGame && S.prevGame.status === "in_progress" &&
        S.snap.room.status !== "closed") {
      KG.announce(gettext("The game is over"));
    }
  };

  /* When the turn comes to this page, say so (the turn bar is not a live
     region: it changes with every move), in the game's words for the step
     when it has them (Ludo: which roll a token is to be chosen for). If the
     focus was dropped (the control it was on went away with the last move),
     it goes to the move to make, so a keyboard or screen-reader player is
     there with the clock running. Once per decision: a new deadline. */
  R.promptTurn = function () {
    var g = S.snap && S.snap.game, you = R.youSeat();
    if (!g || g.status !== "in_progress" || !g.turn || you === null || g.turn.seat !== you) return;
    if (R.device() || !g.legal || !g.legal.length) return;  // a shared phone has its cover
    var seat = R.seatOf(you);
    if (seat && seat.held) return;
    var mod = KG.games[S.snap.room.game];
    var text = (mod && mod.promptText && mod.promptText(R.ctx())) || gettext("Your turn");
    var key = g.id + ":" + g.turn.deadline + ":" + text;
    if (S.promptedFor === key) return;
    S.promptedFor = key;
    KG.announce(text);
    var active = document.activeElement, controls = S.parts && S.parts.controls;
    if ((!active || active === document.body) && controls) {
      var move = controls.querySelector(".button-primary:not([disabled])") || controls.querySelector("button:not([disabled])");
      if (move) move.focus({ preventScroll: true });
    }
    // With large text the table is a page that scrolls, and the move could
    // wait below the fold while the clock ran (a phone drill, Liar's Dice at
    // 200%): once a turn, a main action wholly out of sight is brought up.
    var main = controls && controls.querySelector(".button-primary:not([disabled])");
    if (main) {
      var box = main.getBoundingClientRect();
      if (box.top >= window.innerHeight || box.bottom <= 0) main.scrollIntoView({ block: "nearest" });
    }
  };

  R.finishedText = function (placings) {
    if (!placings.length) return gettext("The game is over");
    var text = fmt(gettext("The game is over. %(name)s wins."), { name: R.nameOf(placings[0]) });
    if (placings.length > 1) {
      text += " " + fmt(gettext("Places: %(list)s."), {
        list: placings.map(function (seat, i) { return R.ordinal(i + 1) + " " + R.nameOf(seat); }).join(", "),
      });
    }
    return text;
  };
})();
