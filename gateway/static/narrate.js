// Events in words, for the event log and the replay viewer, with the Domeng terms as the
// rules write them (PASSEBUNGE, CEKI, POLLO, MANGUNO, MATTIKKENG, CUCUQ, CAMAT, STONES:
// terms.js explains each on the page).
//
// `names[s]` is "You" for the reader's own seat: sentences then say "you lead" and "Seat 2
// leads", and a sentence starts with a capital whoever comes first.

const YOU = "You";

export function seatName(names, s) {
  if (s === null || s === undefined) return "nobody";
  const n = names && names[s];
  return n ? n : `Seat ${s}`;
}

function isYou(names, s) {
  return seatName(names, s) === YOU;
}

// A seat inside a sentence: "you", "Seat 2 (random bot)".
function who(names, s) {
  return isYou(names, s) ? "you" : seatName(names, s);
}

// A seat and its verb, agreeing: does(names, 0, "lead", "leads") -> "you lead".
function does(names, s, base, third) {
  return `${who(names, s)} ${isYou(names, s) ? base : third}`;
}

function cap(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// "1 tile", "2 tiles"; "1 STONE", "2 STONES" (a rules word keeps its capitals).
export function plural(n, word, many = word + (word === word.toUpperCase() ? "S" : "s")) {
  return `${n} ${n === 1 ? word : many}`;
}

function list(names, seats) {
  return seats.map((s) => who(names, s)).join(" and ");
}

function source(names, src) {
  return src === "table" ? "the table" : who(names, src);
}

// A PASS hands the passer STONES, from the table first, then from the LAST MAPPANO (DOM-5):
// the same words as domino_cli/narrate.py.
function passPayment(names, e) {
  const head = `${cap(who(names, e.seat))} ${e.passebunge ? "PASSEBUNGE" : "PASS"}: `;
  const paid = e.stones || [];
  if (!paid.length) {
    return head + `${isYou(names, e.seat) ? "you are" : "is"} due ${plural(e.cost, "STONE")}, but there are none left to give.`;
  }
  // "Seat 2 PASS: takes ...", but "You PASS: you take ..." (a bare "take" reads as an order)
  const take = isYou(names, e.seat) ? "you take" : "takes";
  if (paid.length === 1) return head + `${take} ${plural(paid[0].count, "STONE")} from ${source(names, paid[0].from)}.`;
  return head + `${take} ${plural(e.cost, "STONE")} — ` +
    paid.map((x) => `${x.count} from ${source(names, x.from)}`).join(" and ") + ".";
}

// A place is an arm in HHL and an end in Domeng.
function place(variant, at) {
  return `${at} ${variant === "domeng" ? "end" : "arm"}`;
}

function given(v) {
  return v !== null && v !== undefined;
}

export function describeResult(r, names) {
  if (!r) return "";
  if (r.points) { // HHL hand
    const how = r.end === "domino" ? "domino!" : "blocked";
    const points = r.points.map((p, s) => `${who(names, s)} ${p > 0 ? "+" : ""}${p}`).join(", ");
    return `Hand over (${how}). Won by ${list(names, r.winners)}. Points: ${points}.`;
  }
  let head;
  if (r.end === "cappu") {
    const kind = { plain: "FIRST CAPPU", ceki: "CEKI", pollo: "POLLO" }[r.kind] || "FIRST CAPPU";
    head = `${kind} by ${who(names, r.winner)}; ${does(names, r.cucuq, "are", "is")} the CUCUQ`;
  } else {
    const matt = r.mattikkeng && r.mattikkeng.length
      ? `MATTIKKENG ${list(names, r.mattikkeng)}` : "no MATTIKKENG";
    head = `Blocked: ${does(names, r.manguno, "are", "is")} the MANGUNO, ${matt}; won by ${who(names, r.winner)}`;
  }
  const moved = (r.transfers || []).map((t) =>
    `${plural(t.count, "STONE")} to ${who(names, t.to)} from ${source(names, t.from)}`).join("; ");
  const camat = given(r.camat) ? ` ${cap(does(names, r.camat, "are", "is"))} CAMAT!` : "";
  return `Round over. ${head}. ${moved ? cap(moved) : "No STONES move"}. ` +
    `${plural(r.table, "STONE")} on the table.${camat}`;
}

export function describeMatch(r, names) {
  if (!r) return "";
  const places = (r.ranking || []).map((group, i) => `${i + 1}. ${cap(list(names, group))}`).join("; ");
  // Each number next to its seat's name: "Totals: Seat 0 (random bot) 1125, you -2775".
  const bySeat = (values) => values.map((v, s) => `${who(names, s)} ${v}`).join(", ");
  if (r.totals) return `Match over. Totals: ${bySeat(r.totals)}. Ranking: ${places}.`;
  const titles = r.camat_titles ? ` CAMAT titles: ${bySeat(r.camat_titles)}; STONES: ${bySeat(r.stones)}.` : "";
  return `Match over. Ranking: ${places}.${titles}`;
}

export function describe(e, names, variant) {
  const s = e.seat;
  switch (e.kind) {
    case "deal_start": {
      const unit = variant === "domeng" || "cycle" in e ? "Round" : "Hand";
      let camat = "";
      if (given(e.camat)) camat = e.camat === e.leader ? " as CAMAT" : `; the CAMAT is ${who(names, e.camat)}`;
      const mine = e.tiles ? `; your tiles ${e.tiles.join(" ")}` : "";
      return `${unit} ${e.deal + 1} dealt; ${does(names, e.leader, "lead", "leads")}${camat}${mine}.`;
    }
    case "play": {
      const where = e.at ? ` on the ${place(variant, e.at)}` : " to open";
      const mode = e.mode === "barricade" ? " as a barricade (face down: that arm is closed)" : "";
      const kul = e.mappakuling ? " — MAPPAKULING" : "";
      return `${cap(does(names, s, "play", "plays"))} ${e.play}${where}${mode}${kul}.`;
    }
    case "draw":
      return `${cap(does(names, s, "draw", "draws"))} ${plural(e.count, "tile")}${e.tiles ? ": " + e.tiles.join(" ") : ""}.`;
    case "pass":
      if (!("stones" in e)) return `${cap(does(names, s, "pass", "passes"))} (the stock is empty).`;
      if (e.cost === 0) {
        return `${cap(who(names, s))} cannot play either: the round is blocked and ` +
          `${does(names, s, "are", "is")} the MANGUNO.`;
      }
      return passPayment(names, e);
    case "deal_over":
      return describeResult(e.result, names);
    case "cycle_over": {
      const r = e.result;
      const camat = given(r.camat) ? `${does(names, r.camat, "are", "is")} CAMAT` : "no CAMAT (round cap)";
      return `Cycle ${r.cycle + 1} over after ${plural(r.rounds, "round")}: ${camat}; STONES held: ${r.held.map((v, s) => `${who(names, s)} ${v}`).join(", ")}.`;
    }
    case "match_over":
      return describeMatch(e.result, names);
    case "timeout":
      return `${cap(who(names, s))} ran out of time; the clock played ${e.move}.`;
    case "absent":
      return `${cap(who(names, s))} missed three turns and ${isYou(names, s) ? "are" : "is"} now played automatically.`;
    case "returned":
      return `${cap(does(names, s, "are", "is"))} back.`;
    case "time_up":
      return "Time is up: the hand in progress is the last.";
    default:
      return JSON.stringify(e);
  }
}
