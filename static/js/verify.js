/* The fairness check in the browser, so a player need not trust the server
   (docs/record.md §3, scheme hmac-sha256-dice/1). It recomputes, with WebCrypto:
   sha256(server_seed) against the hash shown before the game, then every die:
   HMAC-SHA256(server_seed, "client_seed:nonce:counter"), the first byte < 252
   gives byte % 6 + 1. Nonces count dice from 0 in event order, in the events each
   game declares (games/base.py DiceField): one per Ludo or Snakes "roll" event;
   for a Liar's Dice "round" event one per die, seats in ascending number, each
   seat's dice in list order.
   It checks the dice only; the server's check (/verify/) also replays the rules.
   KG.verifyRecord(record) -> Promise<{ok, event_index, message, dice_checked}>. */
(function () {
  "use strict";
  var KG = (window.KG = window.KG || {});
  var enc = new TextEncoder();

  function hexToBytes(hex) {
    if (typeof hex !== "string" || hex.length % 2 || /[^0-9a-f]/i.test(hex)) return null;
    var out = new Uint8Array(hex.length / 2);
    for (var i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
    return out;
  }
  function toHex(buffer) {
    return Array.prototype.map.call(new Uint8Array(buffer), function (b) {
      return ("0" + b.toString(16)).slice(-2);
    }).join("");
  }

  /* Where each game's records hold dice, from the registry (#kg-games, rendered by
     rooms/templatetags/games.py): per event type, a field holding one die, or
     with by_seat a {seat: [dice]} object. */
  function diceFields(game) {
    var node = document.getElementById("kg-games");
    var games = node ? JSON.parse(node.textContent) : {};
    return (games[game] && games[game].dice) || [];
  }

  /* The dice of a record as [eventIndex, [values]] in nonce order. */
  function diceOf(record) {
    var out = [], fields = diceFields(record.game);
    (record.events || []).forEach(function (ev, index) {
      if (!ev || typeof ev !== "object") return;
      fields.forEach(function (f) {
        if (ev.type !== f.event || !(f.field in ev)) return;
        var value = ev[f.field];
        if (!f.by_seat) { out.push([index, [value]]); return; }
        if (!value || typeof value !== "object") return;
        var seats = Object.keys(value).sort(function (a, b) { return Number(a) - Number(b); });
        var dice = [];
        seats.forEach(function (s) { dice = dice.concat(value[s] || []); });
        out.push([index, dice]);
      });
    });
    return out;
  }

  async function die(key, clientSeed, nonce) {
    for (var counter = 0; ; counter++) {
      var mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(clientSeed + ":" + nonce + ":" + counter)));
      for (var i = 0; i < mac.length; i++) if (mac[i] < 252) return (mac[i] % 6) + 1;
    }
  }

  function fail(message, index) { return { ok: false, event_index: index === undefined ? null : index, message: message }; }

  KG.verifyRecord = async function (record) {
    if (!record || typeof record !== "object") return fail("not_object");
    if (record.format !== "khelaghor.record/1") return fail("format");
    var f = record.fairness || {};
    if (f.scheme !== "hmac-sha256-dice/1") return fail("scheme");
    if (typeof f.server_seed !== "string") return fail("no_seed");
    var seed = hexToBytes(f.server_seed);
    if (!seed) return fail("seed_not_hex");
    var digest = toHex(await crypto.subtle.digest("SHA-256", seed));
    if (digest !== String(f.server_seed_hash).toLowerCase()) return fail("hash");
    var key = await crypto.subtle.importKey("raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    var rolled = diceOf(record), nonce = 0;
    for (var r = 0; r < rolled.length; r++) {
      var index = rolled[r][0], dice = rolled[r][1];
      for (var p = 0; p < dice.length; p++) {
        var expected = await die(key, String(f.client_seed), nonce);
        if (dice[p] !== expected) {
          var result = fail("die", index);
          result.position = p + 1; result.value = dice[p]; result.expected = expected; result.nonce = nonce;
          return result;
        }
        nonce++;
      }
    }
    return { ok: true, event_index: null, message: "ok", dice_checked: nonce };
  };
  KG.diceOfRecord = diceOf;

  /* The chosen file's name, in place of the browser's own words (verify.html). */
  document.addEventListener("change", function (ev) {
    var input = ev.target;
    if (!input.matches || !input.matches("[data-verify-file]")) return;
    var shown = document.querySelector("[data-file-name]");
    if (shown) shown.textContent = input.files && input.files[0] ? input.files[0].name : shown.dataset.none;
  });

  /* Where the record comes from: an uploaded file, the pasted text, or the
     record embedded in the game page, in that order. */
  KG.verifySource = async function () {
    var file = document.querySelector("[data-verify-file]");
    if (file && file.files && file.files[0]) return JSON.parse(await file.files[0].text());
    var text = document.querySelector("[data-verify-text]");
    if (text && text.value.trim()) return JSON.parse(text.value);
    var embedded = document.getElementById("game-record");
    if (embedded) return JSON.parse(embedded.textContent);
    throw new Error("no record");
  };

  /* Wire a page: a button [data-verify-run] checks the record found by
     KG.verifySource() and writes the verdict into [data-verify-out], in the
     strings the template gave (json_script "verify-strings"). */
  function strings() {
    var node = document.getElementById("verify-strings");
    return node ? JSON.parse(node.textContent) : {};
  }
  function fill(template, values) {
    return String(template).replace(/%\((\w+)\)s/g, function (_, k) {
      var v = values[k];
      return typeof v === "number" && KG.digits ? KG.digits(v) : String(v);
    });
  }
  KG.describeVerdict = function (v) {
    var S = strings();
    if (v.ok) return fill(S.ok || "OK: %(n)s dice", { n: v.dice_checked });
    if (v.message === "die") return fill(S.die || "Event %(event)s", { event: v.event_index, position: v.position, value: v.value, expected: v.expected });
    return S[v.message] || v.message;
  };

  document.addEventListener("DOMContentLoaded", function () {
    var button = document.querySelector("[data-verify-run]");
    var out = document.querySelector("[data-verify-out]");
    if (!button || !out) return;
    button.addEventListener("click", async function () {
      var S = strings();
      out.textContent = S.checking || "…";
      out.dataset.state = "checking";
      var record, missing = false;
      try {
        record = await KG.verifySource();
      } catch (e) {
        // Nothing given, or something given that is not JSON: two answers (a
        // drill pasted a record with a quote deleted and was told to paste one).
        missing = e && e.message === "no record";
        record = undefined;
      }
      var verdict = record === undefined ? fail(missing ? "no_record" : "not_json") : await KG.verifyRecord(record);
      out.textContent = KG.describeVerdict(verdict);
      out.dataset.state = verdict.ok ? "ok" : "failed";
      out.dataset.eventIndex = verdict.event_index === null ? "" : String(verdict.event_index);
    });
  });
})();
