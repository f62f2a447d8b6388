// Events in words, for the event log and the replay viewer (mirrors engine_service/narrate.py,
// with the Domeng terms: PASSEBUNGE, CEKI, POLLO, MANGUNO, MATTIKKENG, CUCUQ, CAMAT).

export function seatName(names, s) {
  if (s === null || s === undefined) return "nobody";
  const n = names && names[s];
  return n ? n : `Seat ${s}`;
}

function source(names, src) {
  return src === "table" ? "the table" : seatName(names, src);
}

function stones(names, list) {
  if (!list || !list.length) return "nothing paid";
  return list.map((x) => `${x.count} from ${source(names, x.from)}`).join(", ");
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export function describeResult(r, names) {
  if (!r) return "";
  if (r.points) { // HHL hand
    const how = r.end === "domino" ? "domino!" : "blocked";
    const winners = r.winners.map((s) => seatName(names, s)).join(" and ");
    const points = r.points.map((p, s) => `${seatName(names, s)} ${p > 0 ? "+" : ""}${p}`).join(", ");
    return `Hand over (${how}). Won by ${winners}. Points: ${points}.`;
  }
  let head;
  if (r.end === "cappu") {
    const kind = { plain: "FIRST CAPPU", ceki: "CEKI", pollo: "POLLO" }[r.kind] || "FIRST CAPPU";
    head = `${kind} by ${seatName(names, r.winner)}; CUCUQ is ${seatName(names, r.cucuq)}`;
  } else {
    const matt = r.mattikkeng && r.mattikkeng.length
      ? `, MATTIKKENG ${r.mattikkeng.map((s) => seatName(names, s)).join(", ")}`
      : ", no MATTIKKENG";
    head = `Blocked: MANGUNO ${seatName(names, r.manguno)}${matt}; won by ${seatName(names, r.winner)}`;
  }
  const moved = (r.transfers || []).map((t) =>
    `${plural(t.count, "stone")} to ${seatName(names, t.to)} from ${source(names, t.from)}`).join("; ");
  const camat = r.camat !== null && r.camat !== undefined ? ` ${seatName(names, r.camat)} is CAMAT!` : "";
  return `Round over. ${head}. ${moved || "No stones move"}. Table ${r.table}.${camat}`;
}

export function describeMatch(r, names) {
  if (!r) return "";
  const places = (r.ranking || []).map((group, i) =>
    `${i + 1}. ${group.map((s) => seatName(names, s)).join(" and ")}`).join("; ");
  if (r.totals) return `Match over. Totals ${r.totals.join(", ")}. Ranking: ${places}.`;
  const titles = r.camat_titles ? ` CAMAT titles ${r.camat_titles.join(", ")}; stones ${r.stones.join(", ")}.` : "";
  return `Match over. Ranking: ${places}.${titles}`;
}

// "You play" but "Seat 2 plays".
function verb(who, third, base) {
  return who === "You" ? `${who} ${base}` : `${who} ${third}`;
}

export function describe(e, names, variant) {
  const who = seatName(names, e.seat);
  switch (e.kind) {
    case "deal_start": {
      const unit = variant === "domeng" || "cycle" in e ? "Round" : "Hand";
      const camat = e.camat !== null && e.camat !== undefined ? `; CAMAT ${seatName(names, e.camat)} leads` : "";
      const mine = e.tiles ? `; your tiles ${e.tiles.join(" ")}` : "";
      return `${unit} ${e.deal + 1} dealt; ${seatName(names, e.leader)} leads${camat}${mine}.`;
    }
    case "play": {
      const where = e.at ? ` on the ${e.at}` : " to open";
      const mode = e.mode === "barricade" ? " as a barricade (face down: that arm is closed)" : "";
      const kul = e.mappakuling ? " — MAPPAKULING" : "";
      return `${verb(who, "plays", "play")} ${e.play}${where}${mode}${kul}.`;
    }
    case "draw":
      return `${verb(who, "draws", "draw")} ${plural(e.count, "tile")}${e.tiles ? ": " + e.tiles.join(" ") : ""}.`;
    case "pass":
      if (!("stones" in e)) return `${verb(who, "passes", "pass")} (the stock is empty).`;
      if (e.cost === 0) return `${who} cannot play either: the round is blocked and ${verb(who, "is", "are")} the MANGUNO.`;
      return `${who} ${e.passebunge ? "PASSEBUNGE" : "PASS"}: owes ${plural(e.cost, "stone")}, ${stones(names, e.stones)}.`;
    case "deal_over":
      return describeResult(e.result, names);
    case "cycle_over": {
      const r = e.result;
      const camat = r.camat !== null && r.camat !== undefined ? `CAMAT ${seatName(names, r.camat)}` : "no CAMAT (round cap)";
      return `Cycle ${r.cycle + 1} over after ${plural(r.rounds, "round")}: ${camat}; stones held ${r.held.join(", ")}.`;
    }
    case "match_over":
      return describeMatch(e.result, names);
    case "timeout":
      return `${verb(who, "ran", "ran")} out of time; the clock played ${e.move}.`;
    case "absent":
      return `${who} missed three turns and ${who === "You" ? "are" : "is"} now played automatically.`;
    case "returned":
      return `${verb(who, "is", "are")} back.`;
    case "time_up":
      return "Time is up: the hand in progress is the last.";
    default:
      return JSON.stringify(e);
  }
}
