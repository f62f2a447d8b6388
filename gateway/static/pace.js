// A spectator's own pace (docs/gateway.md, "The web page"): bots can play a whole match in
// half a second, faster than anyone can watch. The table page keeps the stream's events in
// a queue as fast as they come and shows them one at a time, at the pace the spectator
// chose, on a copy of the view that `advance` moves on event by event; once the queue is
// empty the page shows the engine's own view again, so a copy that went astray is put right.

import { layTile } from "./board.js";

// [ms between two events shown, its name]; 0 shows every event as it comes.
export const PACES = [[0, "live"], [300, "fast"], [1000, "normal"], [2500, "slow"]];
export const DEFAULT_PACE = 1000;

// Tiles dealt to each seat (HHL-1, DOM-1): the counts, and the HHL stock, after a deal_start.
const HAND = { hhl: 6, domeng: 5 };
const TILES = 28;
const STONES = 25;   // on the table when a Domeng cycle starts (DOM-9)

function emptyArms() {
  return Object.fromEntries(["left", "right", "up", "down"].map((a) => [a, { tiles: [], end: null, closed: false }]));
}

// `view` (a spectator's view of a `variant` match, changed in place) after event `e`.
export function advance(view, e, variant) {
  switch (e.kind) {
    case "deal_start": {
      const n = view.counts.length;
      view.deal_number = e.deal;
      view.counts = new Array(n).fill(HAND[variant]);
      if (variant === "hhl") {
        view.spinner = null;
        view.arms = emptyArms();
        view.stock = TILES - n * HAND.hhl;
      } else {
        if (e.cycle !== undefined && e.cycle !== view.cycle) {
          view.table = STONES;
          view.held = new Array(n).fill(0);
        }
        view.cycle = e.cycle;
        view.camat = e.camat;
        view.line = [];
        view.ends = null;
        view.last_mappano = null;
      }
      break;
    }
    case "play":
      view.counts[e.seat] -= 1;
      layTile(variant, view, e);
      if (variant === "domeng") view.last_mappano = e.seat;
      break;
    case "draw":
      view.counts[e.seat] += e.count;
      if (typeof view.stock === "number") view.stock -= e.count;
      break;
    case "pass":
      for (const x of e.stones || []) {
        if (x.from === "table") view.table -= x.count; else view.held[x.from] -= x.count;
        view.held[e.seat] += x.count;
      }
      break;
    case "deal_over": {
      const r = e.result;
      if (r.points) view.totals = view.totals.map((t, s) => t + r.points[s]);
      if (r.held) { view.held = [...r.held]; view.table = r.table; }
      if (r.camat !== undefined && r.camat !== null) view.camat = r.camat;
      break;
    }
    default:
      break;   // the clock's and the engine's events change nothing on the table
  }
}
