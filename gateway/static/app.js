// The web client: a thin client of /api/v1. Routes: #/ (lobby), #/finished (every finished
// match), #/match/ID (play or watch), #/replay/ID (step through a finished match), #/ladders
// and #/ladder/ID (ladders.js), #/arena/ID and #/bot/NAME (arena.js). Seat tokens stay in
// this browser's storage.

import { analyse } from "./analysis.js";
import { drawBoard, el, replaySteps, tileNode, halves } from "./board.js";
import { describe, describeMatch, describeResult, plural } from "./narrate.js";
import { ladderListPage, ladderPage } from "./ladders.js";
import { advance, DEFAULT_PACE, PACES } from "./pace.js";
import { arenaPage, botPage } from "./arena.js";
import { glossary, termId, termText } from "./terms.js";

const API = "/api/v1";
const main = document.getElementById("main");
let cleanup = () => {};
let meta = { variants: [], strategies: [] };

// ----- API --------------------------------------------------------------------------------
class ApiError extends Error {
  constructor(body) { super(body.message); this.body = body; }
}

async function api(path, { method = "GET", body, token } = {}) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const r = await fetch(API + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await r.json().catch(() => ({ reason: "BAD_ANSWER", message: `HTTP ${r.status}` }));
  if (!r.ok) throw new ApiError(data);
  return data;
}

function errorText(e) {
  if (e instanceof ApiError) return `${e.body.reason}: ${e.body.message}`;
  return String(e.message || e);
}

const seats = {
  get(matchId) { try { return JSON.parse(localStorage.getItem("seat:" + matchId)); } catch { return null; } },
  set(matchId, seat, token) { localStorage.setItem("seat:" + matchId, JSON.stringify({ seat, token })); },
};

function names(match, mySeat) {
  return match.seats.map((s) => {
    if (s.seat === mySeat) return "You";
    const who = s.strategy ? `${s.strategy} bot` : (s.name || (s.kind === "person" ? "player" : "bot"));
    return `Seat ${s.seat} (${who})`;
  });
}

function variantName(id) {
  return id === "domeng" ? "Domeng" : "Homo Homini Lupus";
}

// Where the rules of a game are: GET /variants says (an anchor of /rules).
function rulesLink(id) {
  const v = meta.variants.find((x) => x.id === id);
  return (v && v.rules) || "/rules";
}

// The Domeng glossary under a log: filled once, shown for Domeng only.
function glossaryPanel(details, dl, variant) {
  details.hidden = variant !== "domeng";
  if (!details.hidden && !dl.children.length) glossary(dl);
}

// A click (or tap: a touch screen shows no title tooltip) on a Domeng word of the page opens
// the glossary at that word.
main.addEventListener("click", (ev) => {
  const word = ev.target instanceof Element && ev.target.closest("abbr.term");
  const details = word && main.querySelector("details.glossary:not([hidden])");
  if (!details) return;
  details.open = true;
  for (const x of details.querySelectorAll(".hl")) x.classList.remove("hl");
  const dt = document.getElementById(termId(word.textContent));
  if (dt) { dt.classList.add("hl"); dt.scrollIntoView({ block: "nearest" }); }
});

// One line of a match list: the game, who sits where, how far it got.
function matchItem(m, action) {
  // A seat by its name when it has one ("ana"), else by what sits there.
  const who = m.seats.map((s) => s.strategy ? `${s.strategy} bot`
    : (s.open ? "open seat" : (s.name || (s.kind === "person" ? "player" : s.kind)))).join(", ");
  return el("li", {}, el("span", { class: "m-title", text: `${variantName(m.variant)} · ${m.match_id}` }),
    el("span", { class: "m-meta", text: ` — ${who}; ${plural(m.version, "move")}` }), " ", action);
}

// ----- router -------------------------------------------------------------------------------
function template(id) {
  return document.getElementById(id).content.cloneNode(true);
}

async function route() {
  cleanup();
  cleanup = () => {};
  main.replaceChildren();
  const [, page, id] = (location.hash || "#/").split("/");
  try {
    if (page === "match" && id) await tablePage(id);
    else if (page === "finished") await finishedPage();
    else if (page === "replay" && id) await replayPage(id);
    else if (page === "ladders") cleanup = await ladderListPage({ main, api, template });
    else if (page === "ladder" && id) cleanup = await ladderPage({ main, api, template, id });
    else if (page === "arena") cleanup = await arenaPage({ main, template, id });
    else if (page === "bot" && id) cleanup = await botPage({ main, template, id });
    else await lobbyPage();
  } catch (e) {
    main.append(el("p", { class: "notice", role: "alert", text: errorText(e) }),
                el("p", {}, el("a", { href: "#/", text: "Back to the lobby" })));
  }
}

// ----- lobby --------------------------------------------------------------------------------
async function lobbyPage() {
  main.append(template("t-lobby"));
  document.title = "Dominoes — lobby";
  const variant = document.getElementById("new-variant");
  const seatBox = document.getElementById("new-seats");
  const optName = document.getElementById("opt-name");
  const limit = document.getElementById("new-limit");

  const drawSeats = () => {
    const n = variant.value === "domeng" ? 5 : 4;
    optName.textContent = variant.value === "domeng" ? "Cycles" : "Hands";
    limit.value = variant.value === "domeng" ? 1 : 2;
    seatBox.replaceChildren();
    for (let s = 0; s < n; s++) {
      const select = el("select", { id: `new-seat-${s}`, "aria-label": `Seat ${s}` });
      if (s === 0) select.append(el("option", { value: "you", text: "you" }));
      for (const st of meta.strategies) select.append(el("option", { value: st, text: `${st} bot` }));
      select.append(el("option", { value: "", text: "open seat (another person)" }));
      seatBox.append(el("label", { class: "seat-choice" }, `Seat ${s} `, select));
    }
  };
  variant.addEventListener("change", drawSeats);
  drawSeats();

  document.getElementById("new-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const notice = document.getElementById("new-notice");
    notice.textContent = "";
    const n = variant.value === "domeng" ? 5 : 4;
    const seatSpecs = [];
    for (let s = 0; s < n; s++) {
      const st = document.getElementById(`new-seat-${s}`).value;
      // "open seat": anyone may join it from the lobby; "you": claimed below with its claim secret.
      seatSpecs.push(st === "you" ? { kind: "person" } : st ? { kind: "bot", strategy: st } : { kind: "person", open: true });
    }
    const sitting = document.getElementById("new-seat-0").value === "you";
    const body = { variant: variant.value, seats: seatSpecs,
                   options: variant.value === "domeng" ? { cycles: Number(limit.value) } : { hands: Number(limit.value) } };
    const seed = document.getElementById("new-seed").value;
    // As typed, a decimal string: a JavaScript number would round a seed past 2^53.
    if (seed !== "") body.seed = seed.trim();
    try {
      const match = await api("/matches", { method: "POST", body });
      if (sitting) {
        const claimed = await api(`/matches/${match.match_id}/seats/0/claim`,
                                  { method: "POST", body: { claim_secret: match.claim_secrets[0] } });
        seats.set(match.match_id, 0, claimed.seat_token);
      }
      location.hash = `#/match/${match.match_id}`;
    } catch (e) {
      notice.textContent = errorText(e);
    }
  });

  const fill = async () => {
    // Only the latest few finished matches: the rest are one link away (#/finished).
    const [waiting, live, over] = await Promise.all(
      [["waiting", 20], ["live", 20], ["over", FINISHED_IN_LOBBY]].map(([s, n]) => api(`/matches?status=${s}&limit=${n}`)));
    const openList = document.getElementById("list-open");
    if (!openList) return;
    openList.replaceChildren(...waiting.matches.filter((m) => m.seats.some((s) => s.open)).map((m) => {
      const buttons = m.seats.filter((s) => s.open).map((s) =>
        el("button", { class: "join", "data-match": m.match_id, "data-seat": s.seat, onclick: () => join(m.match_id, s.seat),
                       text: `Join seat ${s.seat}` }));
      return matchItem(m, el("span", {}, ...buttons, " ", el("a", { href: `#/match/${m.match_id}`, text: "Watch" })));
    }));
    document.getElementById("list-live").replaceChildren(...[...live.matches, ...waiting.matches.filter((m) => !m.seats.some((s) => s.open))]
      .map((m) => matchItem(m, el("a", { href: `#/match/${m.match_id}`, "data-match": m.match_id, text: seats.get(m.match_id) ? "Play" : "Watch" }))));
    document.getElementById("list-over").replaceChildren(...over.matches.map((m) =>
      matchItem(m, el("a", { href: `#/replay/${m.match_id}`, text: "Replay" }))));
    for (const id of ["list-open", "list-live", "list-over"]) {
      const list = document.getElementById(id);
      if (!list.children.length) list.append(el("li", { class: "empty", text: "none" }));
    }
  };
  const join = async (matchId, seat) => {
    try {
      const claimed = await api(`/matches/${matchId}/seats/${seat}/claim`, { method: "POST" });
      seats.set(matchId, seat, claimed.seat_token);
      location.hash = `#/match/${matchId}`;
    } catch (e) {
      document.getElementById("new-notice").textContent = errorText(e);
    }
  };
  await fill();
  const timer = setInterval(() => fill().catch(() => {}), 4000);
  cleanup = () => clearInterval(timer);
}

// ----- every finished match -------------------------------------------------------------
const FINISHED_IN_LOBBY = 5;
const FINISHED_MAX = 100;   // the most GET /matches answers at once

async function finishedPage() {
  main.append(template("t-finished"));
  document.title = "Dominoes — finished matches";
  const { matches } = await api(`/matches?status=over&limit=${FINISHED_MAX}`);
  const list = document.getElementById("fin-list");
  list.replaceChildren(...matches.map((m) => matchItem(m, el("a", { href: `#/replay/${m.match_id}`, text: "Replay" }))));
  if (!matches.length) list.append(el("li", { class: "empty", text: "none yet" }));
  document.getElementById("fin-count").textContent = matches.length === FINISHED_MAX
    ? `The latest ${FINISHED_MAX} finished matches, newest first.`
    : `${plural(matches.length, "finished match", "finished matches")}, newest first.`;
}

// ----- table (play or watch) -----------------------------------------------------------
async function tablePage(matchId) {
  main.append(template("t-table"));
  const mine = seats.get(matchId);
  const token = mine && mine.token;
  const st = { match: null, state: null, selected: null, logged: 0, turnSince: Date.now(), lastTurn: null, busy: false };
  const $ = (id) => document.getElementById(id);
  if (!token) $("tb-hand-panel").hidden = true;
  // A spectator watches at a pace of its own choosing (pace.js); a seat's holder plays live.
  st.queue = [];
  st.shown = null;   // the spectator's view as of the last event shown: the stream's snapshot, moved on
  st.pace = 0;
  if (!token) {
    const stored = Number(localStorage.getItem("pace"));
    st.pace = PACES.some(([ms]) => ms === stored) && localStorage.getItem("pace") !== null ? stored : DEFAULT_PACE;
  }
  const behind = () => st.queue.length > 0;

  // Refreshes may overlap and answer out of order: only a newer answer is drawn.
  st.asked = 0;
  st.drawn = 0;
  const refresh = async () => {
    const ask = ++st.asked;
    const match = await api(`/matches/${matchId}`);
    const state = token ? await api(`/matches/${matchId}/view`, { token })
                        : { seat: null, version: match.version, to_move: match.to_move, view: match.view, legal_moves: [], deadline_unix_ms: null };
    if (ask < st.drawn || (st.state && state.version < st.state.version)) return;
    st.drawn = ask;
    st.match = match;
    st.state = state;
    render();
  };

  const write = (events) => {
    const ol = $("tb-log");
    if (!ol) return;
    const nm = names(st.match, token ? mine.seat : null);
    for (const e of events) {
      const li = el("li", { class: `ev ev-${e.kind}` }, termText(describe(e, nm, st.match.variant)));
      ol.append(li);
    }
    ol.scrollTop = ol.scrollHeight;
  };

  // The stream's events: written at once, or queued and shown one by one at the pace.
  // The view shown while behind follows the stream itself, from its snapshot on (the
  // events after a snapshot are exactly those it does not hold), never a fetched view:
  // that may be older or newer than the events.
  const show = (events) => {
    if (st.shown) for (const e of events) advance(st.shown, e, st.match.variant);
    write(events);
  };
  const log = (events) => {
    if (!st.pace || !st.shown) { show(events); return; }
    st.queue.push(...events);
    if (!st.pumping) st.pumping = setTimeout(pump, 0);
  };
  const pump = () => {
    st.pumping = null;
    if (!st.queue.length) return;
    show([st.queue.shift()]);
    render();   // once the queue is empty: the engine's own view again
    if (st.queue.length) st.pumping = setTimeout(pump, st.pace);
  };
  const jumpToLive = () => {
    clearTimeout(st.pumping);
    st.pumping = null;
    show(st.queue.splice(0));
    if (st.state) render();
  };
  if (!token) {
    $("tb-pace").hidden = false;
    const select = $("tb-pace-select");
    select.replaceChildren(...PACES.map(([ms, name]) =>
      el("option", { value: String(ms), text: ms ? `${name} (${ms / 1000} s a move)` : `${name} (as they come)` })));
    select.value = String(st.pace);
    select.addEventListener("change", () => {
      st.pace = Number(select.value);
      localStorage.setItem("pace", select.value);
      if (!st.pace) jumpToLive();
    });
    $("tb-live").addEventListener("click", jumpToLive);
  }

  const render = () => {
    const { match, state } = st;
    if (!$("tb-title")) return;
    const late = behind();
    const view = late ? st.shown : state.view;
    const toMove = late ? null : state.to_move;
    const nm = names(match, token ? mine.seat : null);
    document.title = `${variantName(match.variant)} — ${match.match_id}`;
    $("tb-title").textContent = `${variantName(match.variant)} · ${match.match_id}`;
    $("tb-rules").href = rulesLink(match.variant);
    $("tb-rules").textContent = `the rules of ${variantName(match.variant)}`;
    glossaryPanel($("tb-glossary"), $("tb-terms"), match.variant);
    const unit = match.variant === "domeng" ? "Round" : "Hand";
    const extra = match.variant === "domeng" ? `cycle ${view.cycle + 1}, ` : "";
    $("tb-status").textContent = `${match.status} · ${extra}${unit.toLowerCase()} ${view.deal_number + 1} · version ${state.version}` +
      (token ? ` · you are seat ${mine.seat}` : " · watching");
    if (!token) {
      $("tb-behind").textContent = late ? `${plural(st.queue.length, "event")} behind live` : "live";
      $("tb-live").disabled = !late;
    }
    if (st.lastTurn !== `${state.to_move}/${state.version}`) { st.lastTurn = `${state.to_move}/${state.version}`; st.turnSince = Date.now(); }
    // seats
    const scores = match.variant === "domeng" ? view.held : view.totals;
    $("tb-seats").replaceChildren(...match.seats.map((s) => {
      const turn = toMove === s.seat;
      const score = match.variant === "domeng" ? `${plural(scores[s.seat], "STONE")} held` : plural(scores[s.seat], "point");
      const camat = view.camat === s.seat ? " · CAMAT" : "";
      return el("li", { class: `seat${turn ? " to-move" : ""}${token && s.seat === mine.seat ? " me" : ""}`, "aria-current": turn ? "true" : null },
        el("strong", { text: nm[s.seat] }),
        el("span", {}, termText(` · ${plural(view.counts[s.seat], "tile")} · ${score}${camat}${s.absent ? " · absent" : ""}${turn ? " · to move" : ""}`)));
    }));
    $("tb-pool").replaceChildren(termText(match.variant === "domeng"
      ? `STONES on the table: ${view.table}${view.last_mappano !== null && view.last_mappano !== undefined ? ` · LAST MAPPANO ${nm[view.last_mappano]}` : ""}`
      : `Stock: ${plural(view.stock, "tile")}`));
    drawBoard($("tb-board"), view);
    // hand
    if (token) drawHand();
    // result
    if (match.status === "over" && match.result && !late) {
      const box = $("tb-result");
      box.hidden = false;
      box.replaceChildren(el("h2", { text: "Result" }), el("p", { class: "final" }, termText(describeMatch(match.result, nm))),
        el("p", {}, el("a", { href: `#/replay/${matchId}`, text: "Replay this match" }), " · ", el("a", { href: "#/", text: "Lobby" })));
    }
    tick();
  };

  const tick = () => {
    const { match, state } = st;
    const t = $("tb-turn");
    if (!t || !match) return;
    if (behind()) { t.textContent = `Watching at your pace: ${plural(st.queue.length, "event")} behind live`; return; }
    if (state.to_move === null || match.status === "over") { t.textContent = "The match is over."; return; }
    // Out of touch with the engine: a clock counted here would be a guess.
    if (st.reconnecting) { t.textContent = "Reconnecting…"; return; }
    const nm = names(match, token ? mine.seat : null);
    let left;
    if (state.deadline_unix_ms) left = Math.max(0, Math.round((state.deadline_unix_ms - Date.now()) / 1000));
    else if (match.status === "live") left = Math.max(0, Math.round((match.seats[state.to_move].clock_ms - (Date.now() - st.turnSince)) / 1000));
    const clock = left === undefined ? "(clock starts when every seat is taken)" : `— ${left} s left`;
    t.textContent = token && state.to_move === mine.seat ? `Your turn ${clock}` : `${nm[state.to_move]} to move ${clock}`;
  };

  const drawHand = () => {
    const { state } = st;
    const hand = state.view.hand || [];
    const legal = state.legal_moves;
    const playable = new Set(legal.map((m) => m.text.split(" ")[0]));
    if (st.selected && !playable.has(st.selected)) st.selected = null;
    // Redraw only on a change, so a refresh never swaps a button out from under a click.
    const key = JSON.stringify([hand, legal, st.selected, st.busy]);
    if (key === st.handKey) return;
    st.handKey = key;
    const panel = $("tb-hand-panel");
    const hadFocus = document.activeElement === document.body || panel.contains(document.activeElement);
    $("tb-hand").replaceChildren(...hand.map((t) => {
      const [a, b] = halves(t);
      const can = playable.has(t);
      return el("button", { class: `tile-btn${st.selected === t ? " selected" : ""}`, "data-tile": t,
                            disabled: !can || st.busy, "aria-pressed": st.selected === t ? "true" : "false",
                            "aria-label": `tile ${t}${can ? "" : " (cannot be played now)"}`,
                            onclick: () => { st.selected = t; drawHand(); focusWhere(); } },
        tileNode(a, b));
    }));
    const where = $("tb-where");
    where.replaceChildren();
    if (legal.length && !st.selected) where.append(el("p", { class: "hint", text: "Your turn: choose a tile." }));
    if (st.selected) {
      const options = legal.filter((m) => m.text.split(" ")[0] === st.selected);
      where.append(el("span", { class: "hint", text: `Play ${st.selected}: ` }));
      for (const m of options) {
        const rest = m.text.split(" ").slice(1).join(" ") || "lead";
        where.append(el("button", { class: "where-btn", "data-move": m.text, disabled: st.busy,
                                    onclick: () => play(m) , text: rest }));
      }
      where.append(el("button", { class: "cancel", onclick: () => { st.selected = null; drawHand(); }, text: "cancel" }));
      if (hadFocus) focusWhere();   // a redraw must not drop the keyboard focus
    }
  };
  const focusWhere = () => {
    const b = document.querySelector("#tb-where .where-btn");
    if (b) b.focus();
  };

  const play = async (m) => {
    if (st.busy) return;
    st.busy = true;
    drawHand();   // disabled while the move is on its way: no double submission
    $("tb-notice").textContent = "";
    try {
      const done = await api(`/matches/${matchId}/moves`, { method: "POST", token, body: { version: st.state.version, move_id: m.id } });
      st.selected = null;
      // The move is made: this state is history, whatever the next refresh says.
      st.state = { ...st.state, version: done.version, legal_moves: [] };
    } catch (e) {
      $("tb-notice").textContent = `Refused — ${errorText(e)}`;
    }
    st.busy = false;
    drawHand();
    await refresh().catch(() => {});
  };

  await refresh();
  // Live updates. The stream ends when the engine goes away (an `error` message), and a
  // reconnect that the gateway answers 503 would make EventSource give up for good: so the
  // page reconnects by itself, with a backoff, and on the way back refetches the match and
  // rebuilds the log from the new stream's snapshot, as a reload would.
  const url = `${API}/matches/${matchId}/events${token ? "?seat_token=" + encodeURIComponent(token) : ""}`;
  let source = null;
  let pending = null;
  let retry = null;
  let backoff = RECONNECT_FIRST_MS;
  let closed = false;
  const soon = () => {
    if (pending) return;
    pending = setTimeout(() => { pending = null; refresh().catch(() => {}); }, 60);
  };
  const connection = (text) => {
    st.reconnecting = !!text;
    const p = $("tb-conn");
    if (p) { p.hidden = !text; p.textContent = text || ""; }
    tick();
  };
  const reconnect = () => {
    if (source) source.close();
    source = null;
    if (closed || retry) return;
    connection("Connection to the match lost: reconnecting…");
    retry = setTimeout(async () => {
      retry = null;
      try {
        await refresh();   // the engine answers again: resynchronise, then listen
        open();
      } catch {
        reconnect();
      }
    }, backoff);
    backoff = Math.min(backoff * 2, RECONNECT_MOST_MS);
  };
  const open = () => {
    source = new EventSource(url);
    source.addEventListener("events", (ev) => {
      log(JSON.parse(ev.data).events);
      soon();
    });
    source.addEventListener("match_over", () => { closed = true; source.close(); soon(); });
    source.addEventListener("snapshot", (ev) => {
      // The log starts from the stream's own snapshot, not from the first refresh: the
      // events that follow on the stream are exactly those after it, so no move made in
      // between is left out of the log (nor told twice). After a reconnect the log is
      // drawn again from the new snapshot: moves made meanwhile came on no stream.
      const ol = $("tb-log");
      if (st.logged && ol) ol.replaceChildren();
      const snap = JSON.parse(ev.data).state;
      clearTimeout(st.pumping);
      st.pumping = null;
      st.queue = [];        // what was queued is in the snapshot's history
      st.shown = token ? null : structuredClone(snap.view);
      write(snap.view.history || []);
      st.logged = 1;
      backoff = RECONNECT_FIRST_MS;
      connection(null);
      soon();
    });
    // Both the stream's own `error` message (the engine went away) and a failed connection.
    source.addEventListener("error", reconnect);
  };
  open();
  const timer = setInterval(tick, 1000);
  cleanup = () => { closed = true; if (source) source.close(); clearTimeout(retry); clearTimeout(st.pumping); clearInterval(timer); };
}

// How long the page waits before reconnecting a lost stream: doubling from the first to the
// most (docs/gateway.md, "The web page").
const RECONNECT_FIRST_MS = 1000;
const RECONNECT_MOST_MS = 8000;

// ----- replay ----------------------------------------------------------------------------
async function replayPage(matchId) {
  main.append(template("t-replay"));
  const [match, record] = await Promise.all([api(`/matches/${matchId}`), api(`/matches/${matchId}/record`)]);
  const nm = names(match, null).map((n, s) => `Seat ${s} (${record.seats[s]})`);
  const steps = replaySteps(record, (m) => describe(m.draw ? { kind: "draw", seat: m.seat, count: m.draw.length, tiles: m.draw }
    : m.pass ? { kind: "pass", ...m } : { kind: "play", ...m }, nm, record.variant));
  const $ = (id) => document.getElementById(id);
  $("rp-title").textContent = `Replay · ${variantName(record.variant)} · ${matchId}`;
  glossaryPanel($("rp-glossary"), $("rp-terms"), record.variant);
  document.title = `Replay — ${matchId}`;
  const slider = $("rp-slider");
  slider.max = String(steps.length - 1);
  let at = 0;
  const unit = record.variant === "domeng" ? "Round" : "Hand";

  const show = (i) => {
    at = Math.max(0, Math.min(steps.length - 1, i));
    slider.value = String(at);
    const step = steps[at];
    const v = step.view;
    const what = step.result ? describeResult(step.result, nm) : step.text || `${unit} ${step.deal + 1} dealt.`;
    $("rp-where").replaceChildren(termText(`Step ${at} of ${steps.length - 1} · ${unit} ${step.deal + 1} of ${record.deals.length} · ${what}`));
    $("rp-seats").replaceChildren(...v.hands.map((h, s) => el("li", { class: `seat${step.move && step.move.seat === s ? " to-move" : ""}` },
      el("strong", { text: nm[s] }),
      el("span", {}, termText(` · ${record.variant === "domeng" ? plural(v.held[s], "STONE") : plural(v.totals[s], "point")} · `)),
      el("span", { class: "small-hand" }, ...h.map((t) => { const [a, b] = halves(t); return tileNode(a, b); })))));
    $("rp-pool").replaceChildren(termText(record.variant === "domeng" ? `STONES on the table: ${v.table}` : `Stock: ${plural(v.stock, "tile")}`));
    drawBoard($("rp-board"), v);
    const lines = steps.slice(0, at + 1).filter((s) => s.deal === step.deal && (s.text || s.result))
      .map((s) => el("li", {}, termText(s.result ? describeResult(s.result, nm) : s.text)));
    if (at === steps.length - 1 && record.result) lines.push(el("li", { class: "final" }, termText(describeMatch(record.result, nm))));
    const moves = $("rp-log");
    moves.replaceChildren(...lines);
    moves.scrollTop = moves.scrollHeight;   // the step shown is the last line: keep it in sight
    showFork();
  };
  // "Play from here": a new match forked after the plays shown so far (POST /matches with
  // fork: the engine replays the record to this position). You sit at the seat to move,
  // which is the seat of the record's next play; house bots play the others.
  const playsBefore = (i) => steps.slice(0, i + 1).filter((s) => s.move && s.move.play).length;
  const nextPlay = (i) => steps.slice(i + 1).find((s) => s.move && s.move.play);
  const forkButton = $("rp-fork");
  const showFork = () => {
    const next = nextPlay(at);
    forkButton.disabled = !next || !meta.strategies.length;
    forkButton.textContent = next ? `Play from here as seat ${next.move.seat}` : "Play from here";
  };
  forkButton.addEventListener("click", async () => {
    const next = nextPlay(at);
    if (!next) return;
    const me = next.move.seat;
    const bot = (s) => meta.strategies.includes(record.seats[s]) ? record.seats[s] : meta.strategies[0];
    const body = { fork: { record, at: playsBefore(at) },
                   seats: record.deals[0].hands.map((_, s) => s === me ? { kind: "person" } : { kind: "bot", strategy: bot(s) }) };
    const notice = $("rp-fork-notice");
    forkButton.disabled = true;
    try {
      const match = await api("/matches", { method: "POST", body });
      const claimed = await api(`/matches/${match.match_id}/seats/${me}/claim`,
                                { method: "POST", body: { claim_secret: match.claim_secrets[me] } });
      seats.set(match.match_id, me, claimed.seat_token);
      location.hash = `#/match/${match.match_id}`;
    } catch (e) {
      notice.hidden = false;
      notice.textContent = errorText(e);
      showFork();
    }
  });
  const analyseButton = $("rp-analyse");
  analyseButton.addEventListener("click", async () => {
    analyseButton.disabled = true;
    try {
      await analyse(api, API, matchId, $("rp-an-status"), $("rp-an"), nm, unit.toLowerCase());
    } catch (e) {
      $("rp-an-status").textContent = errorText(e);
      analyseButton.disabled = false;
    }
  });
  $("rp-first").addEventListener("click", () => show(0));
  $("rp-prev").addEventListener("click", () => show(at - 1));
  $("rp-next").addEventListener("click", () => show(at + 1));
  $("rp-last").addEventListener("click", () => show(steps.length - 1));
  slider.addEventListener("input", () => show(Number(slider.value)));
  const keys = (ev) => {
    if (ev.target instanceof HTMLInputElement && ev.target !== slider) return;
    if (ev.key === "ArrowRight") { show(at + 1); ev.preventDefault(); }
    else if (ev.key === "ArrowLeft") { show(at - 1); ev.preventDefault(); }
    else if (ev.key === "Home") { show(0); ev.preventDefault(); }
    else if (ev.key === "End") { show(steps.length - 1); ev.preventDefault(); }
  };
  document.addEventListener("keydown", keys);
  cleanup = () => document.removeEventListener("keydown", keys);
  show(0);
}

// ----- start ---------------------------------------------------------------------------------
window.addEventListener("hashchange", route);
api("/variants").then((v) => { meta = v; }).catch(() => {}).finally(route);
