// The replay viewer's analysis panel: follows GET /matches/ID/analysis/events (or, when
// that stream fails, polls GET /matches/ID/analysis until done), then draws each seat's
// value over the match (seat-honest, solid; perfect information, dashed) as SVG with the
// mistakes and blunders marked, lists those marks ("best was 5-3 left (+175)"), and shows
// each hand's split of the result into skill and luck as bars.
// The document's fields: docs/analysis.md.

import { el } from "./board.js";
import { svgNode } from "./chart.js";

const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"];

const svg = svgNode;

const signed = (x) => `${x >= 0 ? "+" : ""}${Math.round(x * 10) / 10}`;

// One point per seat moment: each hand's deal (v0) and each decision (the value of its
// position, V_k), in the order of the match.
export function seatSeries(seat) {
  const points = [];
  for (const h of seat.hands) {
    points.push({ deal: h.deal, honest: h.v0, pi: h.pi_v0, decision: null });
    for (const d of h.decisions) points.push({ deal: h.deal, honest: d.value, pi: d.pi_value, decision: d });
  }
  return points;
}

export function markText(seatName, unitWord, hand, d) {
  return `${seatName}, ${unitWord} ${hand + 1}, play ${d.ply + 1}: ${d.played} is a ${d.mark}: ` +
    `best was ${d.best} (+${Math.round(d.loss)})`;
}

function chart(doc, seatNames) {
  const width = 640, height = 220, pad = 30;
  const series = doc.seats.map(seatSeries);
  const n = Math.max(2, ...series.map((s) => s.length));
  const values = series.flat().flatMap((p) => [p.honest, p.pi]);
  const lo = Math.min(0, ...values), hi = Math.max(0, ...values);
  const x = (i) => pad + (i * (width - 2 * pad)) / (n - 1);
  const y = (v) => height - pad - ((v - lo) * (height - 2 * pad)) / ((hi - lo) || 1);
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "an-chart", role: "img",
    "aria-label": `Each seat's expected result over the match, in ${doc.unit}` });
  root.append(svg("line", { x1: pad, x2: width - pad, y1: y(0), y2: y(0), stroke: "#999", "stroke-width": 0.5 }));
  series.forEach((points, k) => {
    const colour = COLOURS[doc.seats[k].seat % COLOURS.length];
    const path = (key) => points.map((p, i) => `${x(i)},${y(p[key])}`).join(" ");
    root.append(svg("polyline", { points: path("honest"), fill: "none", stroke: colour, "stroke-width": 1.5,
      class: "an-honest", "data-seat": doc.seats[k].seat }));
    root.append(svg("polyline", { points: path("pi"), fill: "none", stroke: colour, "stroke-width": 1,
      "stroke-dasharray": "4 3", class: "an-pi", "data-seat": doc.seats[k].seat }));
    points.forEach((p, i) => {
      if (!p.decision || !p.decision.mark) return;
      const dot = svg("circle", { cx: x(i), cy: y(p.honest), r: p.decision.mark === "blunder" ? 5 : 3.5,
        fill: p.decision.mark === "blunder" ? "#000" : colour, class: `an-mark an-${p.decision.mark}` });
      dot.append(svg("title", {}, `${seatNames[doc.seats[k].seat]}: ${p.decision.played} is a ` +
        `${p.decision.mark}: best was ${p.decision.best} (+${Math.round(p.decision.loss)})`));
      root.append(dot);
    });
  });
  return root;
}

function bars(doc, seatNames, unitWord) {
  const rows = [];
  const scale = Math.max(1, ...doc.seats.flatMap((s) => s.hands.flatMap((h) => [Math.abs(h.skill), Math.abs(h.luck)])));
  for (const s of doc.seats) {
    for (const h of s.hands) {
      const bar = (v, cls) => el("span", { class: `an-bar ${cls}${v < 0 ? " neg" : ""}`,
        style: `width:${Math.round((60 * Math.abs(v)) / scale)}px`, title: `${cls} ${signed(v)}` });
      rows.push(el("li", { class: "an-split", "data-seat": String(s.seat), "data-deal": String(h.deal) },
        el("span", { text: `${seatNames[s.seat]}, ${unitWord} ${h.deal + 1}: result ${signed(h.result)} = expected ${signed(h.v0)} + skill ${signed(h.skill)} + luck ${signed(h.luck)} ` }),
        bar(h.skill, "skill"), bar(h.luck, "luck")));
    }
  }
  return el("ol", { class: "an-splits" }, ...rows);
}

// The panel, once the document is there.
export function showAnalysis(box, doc, seatNames, unitWord) {
  const marks = [];
  for (const s of doc.seats) {
    for (const h of s.hands) for (const d of h.decisions) if (d.mark) marks.push(el("li", { class: `an-${d.mark}`, text: markText(seatNames[s.seat], unitWord, h.deal, d) }));
  }
  const summary = doc.seats.map((s) => el("li", {
    text: `${seatNames[s.seat]}: mean loss ${signed(s.summary.mean_loss)} ${doc.unit} a decision ` +
      `(${s.summary.decisions} decisions), ${s.summary.mistakes} mistakes, ${s.summary.blunders} blunders, ` +
      `luck ${Math.round(100 * s.summary.luck_share)}% of the swing` }));
  box.replaceChildren(
    el("p", { class: "small", text: `Values in ${doc.unit}: each seat's expected result of the hand, every seat then playing ${doc.policy}; solid: over the worlds its view allowed; dashed: with every hand seen. ${doc.worlds} worlds a decision.` }),
    chart(doc, seatNames),
    el("ul", { class: "an-summary" }, ...summary),
    el("h3", { text: marks.length ? "Mistakes and blunders" : "No mistake beyond noise" }),
    el("ol", { class: "an-marks" }, ...marks),
    el("h3", { text: "Skill and luck per hand" }),
    bars(doc, seatNames, unitWord));
}

// Ask for the analysis and follow it to its end: on its event stream (progress as it
// comes), or, if the stream fails before its last event (an old gateway, a proxy that
// buffers streams, a refusal), by polling; `api` is the page's API helper, `base` its
// API prefix.
export async function analyse(api, base, matchId, status, box, seatNames, unitWord) {
  const ended = await follow(`${base}/matches/${matchId}/analysis/events`, status, box,
                             seatNames, unitWord);
  if (!ended) await poll(api, matchId, status, box, seatNames, unitWord);
}

function showProgress(status, job) {
  status.textContent = job.state === "queued" ? "Analysis queued…" : `Analysing: ${job.done} of ${job.total} positions…`;
}

function showDone(status, job, waited, box, seatNames, unitWord) {
  // once done, a request is answered from the store: kept, but not when we saw it run
  status.textContent = job.kept && !waited ? "Analysis (kept from an earlier request)." : "Analysis done.";
  showAnalysis(box, job.analysis, seatNames, unitWord);
}

// Resolves true once the stream's last event (done or failed) is shown, false if the
// stream fails before it: a refusal answers JSON, which EventSource cannot read, so the
// poll that follows shows it. The stream is closed either way: EventSource would
// otherwise reconnect and ask again.
function follow(url, status, box, seatNames, unitWord) {
  return new Promise((resolve) => {
    const source = new EventSource(url);
    let waited = false;
    const end = (ended) => { source.close(); resolve(ended); };
    source.addEventListener("progress", (ev) => { waited = true; showProgress(status, JSON.parse(ev.data)); });
    source.addEventListener("done", (ev) => {
      showDone(status, JSON.parse(ev.data), waited, box, seatNames, unitWord);
      end(true);
    });
    source.addEventListener("failed", (ev) => {
      status.textContent = `The analysis failed: ${JSON.parse(ev.data).error}`;
      end(true);
    });
    source.onerror = () => end(false);
  });
}

async function poll(api, matchId, status, box, seatNames, unitWord) {
  let waited = false;
  for (;;) {
    const job = await api(`/matches/${matchId}/analysis`);
    if (job.state === "done") { showDone(status, job, waited, box, seatNames, unitWord); return; }
    if (job.state === "failed") { status.textContent = `The analysis failed: ${job.error}`; return; }
    waited = true;
    showProgress(status, job);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
