// Bot ladders, watched: #/ladders (every ladder of the engine) and #/ladder/ID (the standings
// table, a rating-over-time chart drawn as inline SVG, the ladder's matches). Both poll the
// API while something runs; nothing is fetched from elsewhere.

import { el } from "./board.js";
import { axes, svgNode } from "./chart.js";

const POLL_MS = 2000;
const SEATS = { hhl: 4, domeng: 5 };
const COLOURS = ["#0b5fa5", "#a5190b", "#1f6b46", "#b07d00", "#6b3fa0", "#0f7c8c", "#8c4a0f", "#444444"];
const DASHES = ["", "7 4", "2 3", "9 3 2 3"];

function variantName(id) {
  return id === "domeng" ? "Domeng" : "Homo Homini Lupus";
}

function target(l) {
  return l.until_separated ? `until separated (at most ${l.max_matches})` : `of ${l.target_matches}`;
}

function progress(l) {
  const leader = l.leader ? ` · leader ${l.leader}` : "";
  return `${l.status} · ${l.matches_counted} ${target(l)} matches counted · ${l.matches_playing} playing · ` +
    `${l.matches_voided} voided${leader}`;
}

// Poll `step` every POLL_MS while `root` is on the page and `step` answers true (more to come).
function poller(root, step) {
  let timer = null;
  let stopped = false;
  const again = async () => {
    timer = null;
    if (stopped || !root.isConnected) return;
    let more = true;
    try { more = await step(); } catch { more = true; }   // the engine may be back soon
    if (more && !stopped && root.isConnected) timer = setTimeout(again, POLL_MS);
  };
  timer = setTimeout(again, POLL_MS);
  return () => { stopped = true; if (timer) clearTimeout(timer); };
}

// ----- #/ladders -----------------------------------------------------------------------------
export async function ladderListPage({ main, api, template }) {
  main.append(template("t-ladders"));
  document.title = "Dominoes — bot ladders";
  const list = document.getElementById("lad-list");
  const fill = async () => {
    const { ladders } = await api("/ladders?limit=100");
    if (!list.isConnected) return false;
    list.replaceChildren(...ladders.map((l) => el("li", {},
      el("a", { class: "m-title", href: `#/ladder/${l.ladder_id}`, "data-ladder": l.ladder_id,
                text: `${variantName(l.variant)} · ${l.format} · ${l.entrants.join(", ")}` }),
      el("span", { class: "m-meta", text: ` — ${l.ladder_id}: ${progress(l)}` }))));
    if (!ladders.length) {
      list.append(el("li", { class: "empty", text: "No ladder yet: create one with POST /api/v1/ladders or `domino ladder run --engine HOST:PORT`." }));
    }
    return true;
  };
  await fill();
  return poller(list, fill);
}

// ----- #/ladder/ID ---------------------------------------------------------------------------
export async function ladderPage({ main, api, template, id }) {
  main.append(template("t-ladder"));
  const $ = (x) => document.getElementById(x);
  const root = $("ld-entries");
  const st = { highlight: null, standings: null, ladder: null };

  const FAULTS = [["timeouts", "timeout", "timeouts"], ["illegal", "illegal move", "illegal moves"],
                  ["disconnects", "disconnect", "disconnects"], ["crashes", "crash", "crashes"]];
  const faultText = (f) => {
    const parts = FAULTS.filter(([k]) => f[k]).map(([k, one, many]) => `${f[k]} ${f[k] === 1 ? one : many}`);
    return parts.length ? parts.join(", ") : "none";
  };

  const renderTable = (ladder, s) => {
    const unit = s.variant === "domeng" ? "minus stones per round" : "points per hand";
    $("ld-summary").textContent = `${s.matches} counted matches · ${s.voided} voided · mean in ${unit}`;
    $("ld-entries").replaceChildren(...s.entries.map((r) => {
      const sep = r.separated_from_next === null ? "—" : r.separated_from_next ? "yes" : "no";
      const ci = r.ci95 === null ? "± —" : `± ${r.ci95.toFixed(2)}`;
      const colour = COLOURS[ladder.entrants.indexOf(r.entrant) % COLOURS.length];
      return el("tr", { class: r.entrant === st.highlight ? "hl" : null, "data-entrant": r.entrant },
        el("td", { text: String(r.place) }),
        el("th", { scope: "row" }, el("span", { class: "swatch", style: `background:${colour}`, "aria-hidden": "true" }), r.entrant,
          r.yardstick ? el("small", { class: "yardstick", title: "a yardstick: played by the engine in process", text: " (yardstick)" }) : null),
        el("td", { class: "num", title: `mu ${r.mu.toFixed(2)}, sigma ${r.sigma.toFixed(2)}`, text: r.score.toFixed(2) }),
        el("td", { class: "num", text: String(r.matches) }),
        el("td", { class: "num", text: `${r.mean.toFixed(2)} ${ci}` + (r.gap_closed === null || r.gap_closed === undefined ? ""
          : ` · gap closed ${r.gap_closed.toFixed(2)}`)
          + (r.analysed_matches && r.mean_loss !== null && r.mean_loss !== undefined
            ? ` · loss ${r.mean_loss.toFixed(1)} a decision, luck ${Math.round(100 * (r.luck_share || 0))}% (${r.analysed_matches} analysed)` : ""),
          title: "gap closed: from the greedy entrant (0) to the oracle (1); loss: mean seat-honest loss per decision, luck: the share of the results' swings luck explains, over the analysed sample of matches (docs/analysis.md)" }),
        el("td", { class: faultText(r.faults) === "none" ? "faults" : "faults bad", text: faultText(r.faults) }),
        el("td", { class: `sep sep-${sep}`, text: sep }),
      );
    }));
    const pairs = s.entries.slice(0, -1).filter((r) => !r.separated_from_next)
      .map((r) => `${r.entrant} – ${s.entries[r.place] ? s.entries[r.place].entrant : "?"}`);
    $("ld-verdict").textContent = s.matches === 0 ? "No counted match yet."
      : s.separated ? "Every pair of neighbours is separated at 95% confidence."
      : `Not separated at 95% confidence yet: ${pairs.join("; ")}.`;
  };

  const renderChart = (ladder, s) => {
    const box = $("ld-chart");
    const entrants = ladder.entrants;
    // [counted matches so far, point]; a long history is thinned (the last point stays)
    const k = Math.max(1, Math.ceil(s.history.length / 600));
    const points = s.history.map((p, i) => [i + 1, p]).filter(([i]) => i % k === 0 || i === s.history.length);
    // drawn at the size it is shown, so its text stays readable on a phone
    const W = Math.max(300, Math.min(760, box.clientWidth || 640));
    const H = W < 500 ? 240 : 300, L = 46, R = W < 500 ? 64 : 90, T = 14, B = 36;
    const node = svgNode;
    const svg = node("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-labelledby": "ld-svg-title ld-svg-desc", class: "rating-chart" });
    svg.append(node("title", { id: "ld-svg-title" }, "Rating (mu − 3 sigma) of each entrant after each counted match"));
    const last = s.entries.map((r) => `${r.entrant} ${r.score.toFixed(2)}`).join(", ");
    svg.append(node("desc", { id: "ld-svg-desc" }, s.history.length
      ? `${s.history.length} counted matches; now ${last}.` : "No counted match yet."));
    // every entrant starts at the model's initial rating, mu 25, sigma 25/3: a score of 0
    const n = s.history.length;
    const values = [0, ...points.flatMap(([, p]) => entrants.map((e) => p.scores[e] ?? 0))];
    let lo = Math.min(...values), hi = Math.max(...values);
    if (hi - lo < 1) { hi += 0.5; lo -= 0.5; }
    const pad = (hi - lo) * 0.06;
    lo -= pad; hi += pad;
    const x = (i) => L + (n ? (i / n) : 0) * (W - L - R);
    const y = (v) => T + (1 - (v - lo) / (hi - lo)) * (H - T - B);
    svg.append(axes({ W, H, L, R, T, B }, lo, hi, y, [[L, "0"], [W - R, String(n)]], "counted matches"));
    const lines = node("g", { class: "lines" });
    entrants.forEach((e, k) => {
      const xy = [[0, 0], ...points.map(([i, p]) => [i, p.scores[e] ?? 0])];
      const colour = COLOURS[k % COLOURS.length];
      const cls = `line${st.highlight === null ? "" : st.highlight === e ? " hl" : " dim"}`;
      const g = node("g", { class: cls, "data-entrant": e });
      g.append(node("polyline", { points: xy.map(([i, v]) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "),
                                  stroke: colour, "stroke-dasharray": DASHES[k % DASHES.length], fill: "none" }));
      const [li, lv] = xy[xy.length - 1];
      g.append(node("circle", { cx: x(li), cy: y(lv), r: 3.5, fill: colour }),
               node("text", { x: x(li) + 6, y: y(lv) + 4, style: `fill:${colour}`, class: "end-label" }, e));
      lines.append(g);
    });
    svg.append(lines);
    box.replaceChildren(svg);
    // the legend: a button per entrant highlights its line (and its row)
    $("ld-legend").replaceChildren(...entrants.map((e, k) => el("button", {
      class: "legend-btn", type: "button", "aria-pressed": st.highlight === e ? "true" : "false", "data-entrant": e,
      onclick: () => { st.highlight = st.highlight === e ? null : e; render(); $("ld-legend").querySelector(`[data-entrant="${CSS.escape(e)}"]`)?.focus(); },
    }, el("span", { class: "swatch", style: `background:${COLOURS[k % COLOURS.length]}`, "aria-hidden": "true" }), e)));
  };

  const renderEnlist = (ladder) => {
    const panel = $("ld-enlist-panel");
    panel.hidden = ladder.status !== "running" && ladder.status !== "paused";   // a bot enlisting resumes a paused one
    const streams = Math.ceil(SEATS[ladder.variant] / ladder.entrants.length);
    $("ld-enlist").textContent = ladder.pools.map((p) =>
      `domino bot --engine HOST:PORT --strategy ${p.entrant} --pool ${p.pool} --bots ${streams} --matches 0`).join("\n");
  };

  const renderMatches = (ladder, matches) => {
    const items = matches.slice(-30).reverse().map((m) => {
      const set = ladder.format === "duplicate" ? ` (set ${m.set})` : "";
      let action = null, what = m.status;
      // A duplicate set plays one deal in several matches: each is hidden (409
      // DEAL_IN_PLAY) until every match of the set is over, which a counted result
      // shows by its seed.
      const duplicate = ladder.format === "duplicate";
      if (m.status === "playing") action = duplicate ? el("span", { class: "m-meta", text: "hidden until its set is over" })
        : el("a", { href: `#/match/${m.match_id}`, text: "Watch" });
      if (m.status === "counted") {
        action = m.result && m.result.seed === null ? el("span", { class: "m-meta", text: "replay once its set is over" })
          : el("a", { href: `#/replay/${m.match_id}`, text: "Replay" });
        if (m.result && m.result.scores) {
          const unit = ladder.variant === "domeng" ? "stones" : "points";
          what = `counted: ${m.lineup.map((e, s) => `${e} ${m.result.scores[s]}`).join(", ")} ${unit}`;
        }
      }
      if (m.status === "voided") what = "voided (broken by the engine; played again)";
      return el("li", {}, el("span", { class: "m-title", text: `Match ${m.index}${set}` }),
        el("span", { class: "m-meta", text: ` — ${m.lineup.join(", ")} · ${what}` }), " ", action);
    });
    if (!items.length) items.push(el("li", { class: "empty", text: "none yet" }));
    $("ld-matches").replaceChildren(...items);
  };

  const render = () => {
    const { ladder, standings, matches } = st;
    if (!$("ld-title") || !ladder) return;
    document.title = `Ladder ${ladder.ladder_id} — ${ladder.status}`;
    $("ld-title").textContent = `Ladder · ${variantName(ladder.variant)} · ${ladder.format} · ${ladder.entrants.join(", ")}`;
    $("ld-status").textContent = `${progress(ladder)} · seed ${ladder.seed}`;
    $("ld-status").dataset.status = ladder.status;
    renderTable(ladder, standings);
    renderChart(ladder, standings);
    renderEnlist(ladder);
    renderMatches(ladder, matches);
  };

  const refresh = async () => {
    const [ladder, standings, { matches }] = await Promise.all([
      api(`/ladders/${id}`), api(`/ladders/${id}/standings`), api(`/ladders/${id}/matches`)]);
    Object.assign(st, { ladder, standings, matches });
    render();
    return ladder.status === "running";   // a done ladder never changes again
  };
  const more = await refresh();
  return more ? poller(root, refresh) : () => {};
}
