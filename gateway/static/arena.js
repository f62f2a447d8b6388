// The arenas, watched: #/arena/ID (an arena's live leaderboard) and #/bot/NAME (a registered
// bot: its rating over time as an inline SVG chart, its versions, faults, the match it plays
// now and its recent matches). The leaderboard is live by polling with its ETag: a board that
// has not changed answers 304 and nothing is redrawn (docs/gateway.md, Arenas).

import { el } from "./board.js";
import { axes, svgNode } from "./chart.js";

const API = "/api/v1";
const POLL_MS = 2000;
const FAULTS = [["timeouts", "timeout", "timeouts"], ["illegal", "illegal move", "illegal moves"],
                ["disconnects", "disconnect", "disconnects"], ["crashes", "crash or no-show", "crashes or no-shows"],
                ["spam", "spam", "spam"]];

class ArenaApiError extends Error {
  constructor(body) { super(`${body.reason}: ${body.message}`); this.body = body; }
}

// GET `path`; with `etag`, If-None-Match: answers {status: 304} while unchanged. The browser's
// own cache is bypassed so that the 304 reaches this code (and nothing is drawn again).
async function get(path, etag) {
  const headers = etag ? { "If-None-Match": etag } : {};
  const r = await fetch(API + path, { headers, cache: "no-store" });
  if (r.status === 304) return { status: 304, etag };
  const data = await r.json().catch(() => ({ reason: "BAD_ANSWER", message: `HTTP ${r.status}` }));
  if (!r.ok) throw new ArenaApiError(data);
  return { status: r.status, etag: r.headers.get("ETag"), data };
}

function variantName(id) {
  return id === "domeng" ? "Domeng" : "Homo Homini Lupus";
}

function num(x, digits = 2) {
  return x === null || x === undefined || !Number.isFinite(x) ? "—" : x.toFixed(digits);
}

function faultText(f) {
  const parts = FAULTS.filter(([k]) => f[k]).map(([k, one, many]) => `${f[k]} ${f[k] === 1 ? one : many}`);
  return parts.length ? parts.join(", ") : "none";
}

function when(unixS) {
  if (!unixS) return "never";
  const d = new Date(unixS * 1000);
  return d.toLocaleString();
}

// Run `step` every POLL_MS while `root` is on the page; a failed step is tried again (the
// engine may be back soon). Returns the page's cleanup.
function poller(root, step) {
  let timer = null, stopped = false;
  const again = async () => {
    timer = null;
    if (stopped || !root.isConnected) return;
    try { await step(); } catch { /* shown by the step; try again */ }
    if (!stopped && root.isConnected) timer = setTimeout(again, POLL_MS);
  };
  timer = setTimeout(again, POLL_MS);
  return () => { stopped = true; if (timer) clearTimeout(timer); };
}

// The skill figures rest on the analyses of a sample of the row's matches (its first 5
// counted ones): the loss is shown with how many, and "—" before any.
function lossText(r) {
  return r.analysed_matches && r.mean_loss !== null ? `${num(r.mean_loss, 1)} (${r.analysed_matches})` : "—";
}

function analysedText(r) {
  return r.analysed_matches ? `mean seat-honest loss per decision over ${r.analysed_matches} analysed ${r.analysed_matches === 1 ? "match" : "matches"}` : "no match of it analysed yet";
}

function botLink(name) {
  return el("a", { href: `#/bot/${encodeURIComponent(name)}`, "data-bot": name, text: name });
}

// ----- #/arena/ID -----------------------------------------------------------------------------
export async function arenaPage({ main, template, id }) {
  main.append(template("t-arena"));
  const $ = (x) => document.getElementById(x);
  const st = { arena: id || "hhl", versions: "latest", etag: null, arenas: [] };
  const root = $("ar-rows");

  const renderTabs = () => {
    $("ar-tabs").replaceChildren(...st.arenas.map((a) => el("a", {
      href: `#/arena/${a.arena_id}`, class: a.arena_id === st.arena ? "tab current" : "tab",
      "aria-current": a.arena_id === st.arena ? "page" : null, text: a.arena_id })));
    const a = st.arenas.find((x) => x.arena_id === st.arena);
    if (!a) return;
    const options = Object.entries(a.options).filter(([, v]) => v !== null).map(([k, v]) => `${k} ${v}`).join(", ");
    $("ar-title").textContent = `Arena ${a.arena_id} · ${variantName(a.variant)}${a.duplicate ? " · duplicate" : ""}`;
    $("ar-summary").textContent = `${options} · ${a.bots_online} ${a.bots_online === 1 ? "bot" : "bots"} online · ` +
      `${a.matches_playing} playing · ${a.matches_counted} counted · ${a.matches_voided} voided`;
    $("ar-join").textContent = `domino arena register NAME            # prints the bot key, once\n` +
      `DOMINO_BOT_KEY=dbk_... domino bot --engine HOST:PORT --arena ${a.arena_id} --version v1 --strategy greedy`;
  };

  const renderBoard = (b) => {
    const unit = b.variant === "domeng" ? "−stones/round" : "points/hand";
    $("ar-unit").textContent = unit;
    $("ar-count").textContent = `${b.matches} counted matches · ${b.rows.length} ${b.rows.length === 1 ? "row" : "rows"}`;
    $("ar-rows").replaceChildren(...b.rows.map((r) => el("tr", { "data-bot": r.name, "data-version": r.version },
      el("td", { class: "num", text: String(r.place) }),
      el("th", { scope: "row" },
        el("span", { class: r.online ? "dot on" : "dot", title: r.online ? "online now" : "offline", "aria-label": r.online ? "online" : "offline" }),
        botLink(r.name),
        r.resident ? el("small", { class: "mark", title: "a resident: a house strategy the engine plays itself", text: " house" }) : null,
        r.retired ? el("small", { class: "mark", title: "retired", text: " retired" }) : null,
        r.provisional ? el("small", { class: "mark", title: "provisional: fewer than 10 counted matches", text: " ?" }) : null),
      el("td", { text: r.version }),
      el("td", { class: "num", title: `mu ${num(r.mu)}, sigma ${num(r.sigma)}`, text: num(r.score) }),
      el("td", { class: "num", text: num(r.mu) }),
      el("td", { class: "num", text: num(r.sigma) }),
      el("td", { class: "num", text: String(r.matches) }),
      el("td", { class: "num", text: `${num(r.mean)} ± ${num(r.ci95)}` }),
      el("td", { class: "num", "data-col": "loss", title: analysedText(r), text: lossText(r) }),
      el("td", { class: "num", "data-col": "luck", text: r.analysed_matches && r.luck_share !== null ? `${Math.round(100 * r.luck_share)}%` : "—" }),
      el("td", { class: faultText(r.faults) === "none" ? "faults" : "faults bad", text: faultText(r.faults) }),
      el("td", { text: r.online ? "now" : when(r.last_seen_unix_s) }))));
    if (!b.rows.length) $("ar-rows").append(el("tr", {}, el("td", { colspan: "12", class: "empty", text: "No bot yet." })));
  };

  const refresh = async () => {
    try {
      const [arenas, board] = await Promise.all([
        get("/arenas"), get(`/arenas/${encodeURIComponent(st.arena)}/leaderboard?versions=${st.versions}`, st.etag)]);
      if (!root.isConnected) return;
      st.arenas = arenas.data.arenas;
      renderTabs();
      $("ar-notice").textContent = "";
      if (board.status === 304) return;       // the same board: nothing to draw
      st.etag = board.etag;
      renderBoard(board.data);
      $("ar-rows").dataset.sequence = board.data.last_sequence;
    } catch (e) {
      if (root.isConnected) $("ar-notice").textContent = String(e.message || e);
      throw e;
    }
  };
  document.title = `Dominoes — arena ${st.arena}`;
  $("ar-versions").value = st.versions;
  $("ar-versions").addEventListener("change", () => {
    st.versions = $("ar-versions").value;
    st.etag = null;
    refresh().catch(() => {});
  });
  await refresh();
  return poller(root, refresh);
}

// ----- #/bot/NAME -----------------------------------------------------------------------------
// The chart: mu after each counted match, against the match's sequence number in the arena,
// with the band mu ± 3 sigma shaded and its lower edge (mu − 3 sigma, the leaderboard's score)
// drawn as a line of its own.
export function ratingChart(box, history) {
  const pts = history.points.map((p) => ({ seq: Number(p.sequence), mu: p.mu, lo: p.mu - 3 * p.sigma, hi: p.mu + 3 * p.sigma }));
  const W = Math.max(280, Math.min(760, box.clientWidth || 640));
  const H = W < 500 ? 220 : 280, L = 44, R = 14, T = 12, B = 36;
  const node = svgNode;
  const svg = node("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-labelledby": "bt-svg-title bt-svg-desc", class: "rating-chart arena-chart" });
  svg.append(node("title", { id: "bt-svg-title" }, `Rating of ${history.name} ${history.version || ""} in ${history.arena_id}: mu and mu − 3 sigma after each counted match`));
  const lastPt = pts[pts.length - 1];
  svg.append(node("desc", { id: "bt-svg-desc" }, pts.length
    ? `${pts.length} counted matches; now mu ${num(lastPt.mu)}, mu − 3 sigma ${num(lastPt.lo)}.` : "No counted match yet."));
  if (!pts.length) {
    svg.append(node("text", { x: W / 2, y: H / 2, "text-anchor": "middle" }, "no counted match yet"));
    box.replaceChildren(svg);
    return svg;
  }
  let lo = Math.min(...pts.map((p) => p.lo)), hi = Math.max(...pts.map((p) => p.hi));
  if (hi - lo < 1) { hi += 0.5; lo -= 0.5; }
  // a little room at both ends, so that the first and last points (a lone one too) show
  const pad = Math.max(1, (pts[pts.length - 1].seq - pts[0].seq) * 0.03);
  const s0 = pts[0].seq - pad, s1 = pts[pts.length - 1].seq + pad;
  const x = (s) => L + ((s - s0) / (s1 - s0)) * (W - L - R);
  const y = (v) => T + (1 - (v - lo) / (hi - lo)) * (H - T - B);
  const last = pts[pts.length - 1].seq;
  svg.append(axes({ W, H, L, R, T, B }, lo, hi, y,
                  [[x(pts[0].seq), String(pts[0].seq)], ...(pts.length > 1 ? [[x(last), String(last)]] : [])],
                  "match sequence in the arena"));
  const path = (key) => pts.map((p) => `${x(p.seq).toFixed(1)},${y(p[key]).toFixed(1)}`).join(" ");
  const band = pts.length === 1
    ? node("line", { x1: x(pts[0].seq), x2: x(pts[0].seq), y1: y(pts[0].hi), y2: y(pts[0].lo), class: "band-one" })
    : node("polygon", { class: "band", points: `${path("hi")} ${[...pts].reverse().map((p) => `${x(p.seq).toFixed(1)},${y(p.lo).toFixed(1)}`).join(" ")}` });
  svg.append(band,
    node("polyline", { class: "score", points: path("lo"), fill: "none" }),
    node("polyline", { class: "mu", points: path("mu"), fill: "none" }));
  const dots = node("g", { class: "points" });
  for (const p of pts) {
    const c = node("circle", { cx: x(p.seq).toFixed(1), cy: y(p.mu).toFixed(1), r: 3, "data-seq": p.seq });
    c.append(node("title", {}, `match ${p.seq}: mu ${num(p.mu)}, mu − 3 sigma ${num(p.lo)}`));
    dots.append(c);
  }
  svg.append(dots);
  box.replaceChildren(svg);
  return svg;
}

export async function botPage({ main, template, id }) {
  main.append(template("t-bot"));
  const $ = (x) => document.getElementById(x);
  const name = decodeURIComponent(id);
  const root = $("bt-title");
  const st = { chosen: null, historyKey: null, matchesKey: null };
  document.title = `Dominoes — bot ${name}`;

  const renderProfile = (p) => {
    const b = p.bot;
    $("bt-title").textContent = `Bot ${b.name}`;
    $("bt-facts").textContent = `${b.resident ? "a resident (house strategy)" : `owned by ${b.owner}`} · registered ${when(b.created_unix_s)}` +
      (b.retired ? ` · retired ${when(b.retired_unix_s)}` : "") + (b.description ? ` · ${b.description}` : "");
    const live = $("bt-live");
    live.replaceChildren(...p.live.map((m) => el("li", {},
      el("span", { class: "m-title", text: `${m.arena_id} · ${m.match_id}` }),
      el("span", { class: "m-meta", text: ` — ${m.lineup.map((e) => e.name).join(", ")} ` }),
      el("a", { href: `#/match/${m.match_id}`, class: "watch", text: "Watch" }))));
    if (!p.live.length) live.append(el("li", { class: "empty", text: "not playing now" }));
    $("bt-versions").replaceChildren(...p.versions.map((v) => {
      const key = `${v.arena_id}/${v.version}`;
      const state = v.paused ? `paused (${v.paused === "no_show" ? "did not connect a seat in time" : "timeouts in its last matches"})`
        : v.free ? "online, waiting for a table" : v.online ? "online, playing" : "offline";
      return el("tr", { class: key === st.chosen ? "hl" : null, "data-key": key },
        el("th", { scope: "row" }, el("a", { href: `#/arena/${v.arena_id}`, text: v.arena_id })),
        el("td", {}, el("button", { type: "button", class: "link", "aria-pressed": key === st.chosen ? "true" : "false",
          onclick: () => { st.chosen = key; st.historyKey = null; refresh().catch(() => {}); }, text: v.version })),
        el("td", { class: "num", text: String(v.row.place) }),
        el("td", { class: "num", text: num(v.row.score) }),
        el("td", { class: "num", text: String(v.row.matches) }),
        el("td", { class: faultText(v.row.faults) === "none" ? "faults" : "faults bad", text: faultText(v.row.faults) }),
        el("td", { text: state }));
    }));
    if (!p.versions.length) $("bt-versions").append(el("tr", {}, el("td", { colspan: "7", class: "empty", text: "It has not played yet." })));
  };

  const renderMatches = (matches) => {
    $("bt-matches").replaceChildren(...matches.map((m) => {
      const seat = m.lineup.findIndex((e) => e.name === name);
      let what = m.status, link = null;
      if (m.status === "playing") link = el("a", { href: `#/match/${m.match_id}`, text: "Watch" });
      if (m.status === "counted") {
        link = el("a", { href: `#/replay/${m.match_id}`, class: "replay", text: "Replay" });
        const f = m.result.faults[seat];
        what = `counted #${m.result.sequence}: ${m.result.scores[seat]} at seat ${seat}` +
          (f && faultText(f) !== "none" ? ` · faults: ${faultText(f)}` : "");
      }
      if (m.status === "voided") what = "voided (broken by the engine; not counted)";
      return el("li", { "data-match": m.match_id },
        el("span", { class: "m-title", text: `${m.arena_id} · ${m.lineup.map((e) => e.name).join(", ")}` }),
        el("span", { class: "m-meta", text: ` — ${what} ` }), link);
    }));
    if (!matches.length) $("bt-matches").append(el("li", { class: "empty", text: "none yet" }));
  };

  const refresh = async () => {
    try {
      const [profile, matches] = await Promise.all([
        get(`/arena/bots/${encodeURIComponent(name)}`), get(`/arena/bots/${encodeURIComponent(name)}/matches?limit=20`)]);
      if (!root.isConnected) return;
      const p = profile.data;
      if (!st.chosen && p.versions.length) st.chosen = `${p.versions[0].arena_id}/${p.versions[0].version}`;
      renderProfile(p);
      const mkey = matches.data.matches.map((m) => m.match_id + m.status).join();
      if (mkey !== st.matchesKey) { st.matchesKey = mkey; renderMatches(matches.data.matches); }
      const chosen = p.versions.find((v) => `${v.arena_id}/${v.version}` === st.chosen);
      const hkey = chosen ? `${st.chosen}#${chosen.row.matches}` : null;
      if (chosen && hkey !== st.historyKey) {
        const h = await get(`/arena/bots/${encodeURIComponent(name)}/history?arena=${encodeURIComponent(chosen.arena_id)}` +
          `&version=${encodeURIComponent(chosen.version)}`);
        if (!root.isConnected) return;
        st.historyKey = hkey;
        $("bt-chart-h").textContent = `Rating over time · ${chosen.arena_id} · ${chosen.version}`;
        ratingChart($("bt-chart"), h.data);
      }
      $("bt-notice").textContent = "";
    } catch (e) {
      if (root.isConnected) $("bt-notice").textContent = String(e.message || e);
      throw e;
    }
  };
  await refresh();
  return poller(root, refresh);
}
