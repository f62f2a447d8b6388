// Drawing the table: tiles, the HHL cross (spinner, four arms, barricades face down) and
// the Domeng line; and the replay model that rebuilds a layout from a record's moves.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

export function halves(text) {
  const [a, b] = text.split("-").map(Number);
  return [a, b];
}

// A tile showing `first` then `second` (in reading order); vertical for doubles across a line.
export function tileNode(first, second, opts = {}) {
  const cls = ["tile"];
  if (opts.vertical) cls.push("vertical");
  if (opts.facedown) cls.push("facedown");
  if (opts.spinner) cls.push("spinner");
  const label = opts.facedown ? `${opts.label || "tile"} face down (barricade)` : `${first}-${second}`;
  return el("span", { class: cls.join(" "), role: "img", "aria-label": opts.aria || label,
                      title: label },
    el("span", { class: "half", text: opts.facedown ? "" : String(first) }),
    el("span", { class: "half", text: opts.facedown ? "" : String(second) }));
}

// ----- HHL: the cross ---------------------------------------------------------------------
// The spinner in the middle; `up` above it and `down` below it grow vertically; `left` and
// `right` grow sideways and, when the box is too narrow, turn back and forth below themselves
// like a line of dominoes at the table's edge (rows of a snake), so that every tile stays in
// the box and the first tile of every arm touches the spinner.

// One side arm (`left` or `right`) cut into rows: row 0 goes out from the spinner, row 1 back
// towards it, row 2 out again..., each row starting under the end of the one before. `room`
// is how far from the spinner a tile may reach, `clear` how near to it a row below row 0 may
// come (the up/down arms' crosswise doubles stick out that far). Each row: {tiles, out,
// from}, `from` being where it starts, in px from the spinner.
function snakeRows(widths, room, clear) {
  const rows = [];
  let pos = 0;
  let out = true;
  let i = 0;
  while (i < widths.length) {
    const row = { tiles: [], out, from: pos };
    for (; i < widths.length; i++) {
      const fits = out ? pos + widths[i] <= room : pos - widths[i] >= clear;
      // A full row ends; an outgoing row takes one tile whatever the room, so the loop ends.
      if (!fits && (row.tiles.length || !out)) break;
      row.tiles.push(i);
      pos += out ? widths[i] : -widths[i];
    }
    if (row.tiles.length) rows.push(row);
    else pos = clear;   // too near the spinner to come back: the next row starts out anew
    out = row.tiles.length ? !out : true;
  }
  return rows;
}

function armTiles(name, a, vertical) {
  return a.tiles.map((t) => {
    const [hi, lo] = halves(t.tile);
    const dbl = hi === lo;
    const facedown = t.mode === "barricade";
    return { t, dbl, facedown, upright: vertical ? !dbl : dbl };
  });
}

function armTile(x, first, second) {
  const { t, facedown, upright } = x;
  return el("span", { role: "listitem", class: "arm-tile" },
    tileNode(first, second, { vertical: upright, facedown,
                              aria: facedown ? `${t.tile} face down: barricade` : `${t.tile}` }));
}

function armLabel(name, a) {
  return `${name} arm, ${a.closed ? "closed by a barricade" : "open end " + a.end}`;
}

// `up` and `down`: one column, each tile's inner half towards the spinner.
function verticalArm(name, a) {
  const box = el("div", { class: `arm arm-${name}`, role: "list", "aria-label": armLabel(name, a),
                          "data-arm": name });
  for (const x of armTiles(name, a, true)) {
    const towards = name === "up" ? [x.t.outer, x.t.inner] : [x.t.inner, x.t.outer];
    box.append(armTile(x, towards[0], towards[1]));
  }
  return box;
}

// `left` and `right`: rows of a snake when `fit` gives the room, else one row.
function sideArm(name, a, fit, room) {
  const xs = armTiles(name, a, false);
  const box = el("div", { class: `arm arm-${name}`, role: "list", "aria-label": armLabel(name, a),
                          "data-arm": name });
  const widths = xs.map((x) => (fit ? (x.upright ? fit.narrow : fit.wide) : 0));
  const rows = fit ? snakeRows(widths, room, fit.clear) : [{ tiles: xs.map((_, i) => i), out: true, from: 0 }];
  const reach = (r) => (r.out ? r.from + r.tiles.reduce((n, i) => n + widths[i], 0) : r.from);
  const extent = fit ? Math.max(0, ...rows.map(reach)) : 0;   // the farthest any row gets
  if (fit) box.style.width = `${extent}px`;
  for (const r of rows) {
    // A row going left reads outer-inner, going right inner-outer.
    const leftwards = (name === "left") === r.out;
    const row = el("div", { class: `arm-row ${leftwards ? "to-left" : "to-right"}` });
    // offset of the row's first tile from the spinner's side of the box
    if (fit) row.style[name === "left" ? "paddingRight" : "paddingLeft"] = `${r.out ? r.from : 0}px`;
    if (fit && !r.out) row.style[name === "left" ? "paddingLeft" : "paddingRight"] = `${extent - r.from}px`;
    for (const i of r.tiles) {
      const x = xs[i];
      row.append(armTile(x, ...(leftwards ? [x.t.outer, x.t.inner] : [x.t.inner, x.t.outer])));
    }
    box.append(row);
  }
  return box;
}

// `fit`: sizes measured in the box ({width, wide, narrow, tall, clear}), or null (one row each).
export function hhlBoard(view, fit = null) {
  const box = el("div", { class: "cross-box" });
  if (!view.spinner) {
    box.append(el("p", { class: "empty", text: "No tile yet: the lowest double opens." }));
    return box;
  }
  const [s] = halves(view.spinner);
  const names = ["left", "right", "up", "down"];
  const ends = names.map((n) => `${n} ${view.arms[n].closed ? "closed" : view.arms[n].end}`).join(" · ");
  box.append(el("p", { class: "ends", text: `Open ends: ${ends}` }));
  let rooms = [Infinity, Infinity];
  if (fit) {
    // Each side takes what it needs; a side that needs more than its half takes what the
    // other leaves.
    const need = ["left", "right"].map((n) => armTiles(n, view.arms[n], false)
      .reduce((w, x) => w + (x.upright ? fit.narrow : fit.wide), 0));
    const room = Math.max(fit.wide, fit.width - fit.narrow);
    const half = room / 2;
    if (need[0] + need[1] <= room) rooms = need;
    else if (need[0] <= half) rooms = [need[0], room - need[0]];
    else if (need[1] <= half) rooms = [room - need[1], need[1]];
    else rooms = [half, half];
  }
  const cross = el("div", { class: "cross", role: "group", "aria-label": "The spinner and its four arms" });
  if (fit) cross.style.setProperty("--row-h", `${fit.tall}px`);
  if (fit) cross.style.setProperty("--spin-w", `${fit.narrow}px`);
  cross.append(verticalArm("up", view.arms.up),
    sideArm("left", view.arms.left, fit, rooms[0]),
    el("div", { class: "cross-middle" },
      el("span", { class: "spinner-box" }, tileNode(s, s, { vertical: true, spinner: true, aria: `spinner ${view.spinner}` })),
      verticalArm("down", view.arms.down)),
    sideArm("right", view.arms.right, fit, rooms[1]));
  box.append(cross);
  return box;
}

// ----- Domeng: the line -------------------------------------------------------------------
export function domengBoard(view) {
  const box = el("div", { class: "line-box" });
  if (!view.line || !view.line.length) {
    box.append(el("p", { class: "empty", text: "No tile yet: the lead opens the line." }));
    return box;
  }
  const line = el("div", { class: "line", role: "list", "aria-label": `The line, left end ${view.ends.left}, right end ${view.ends.right}` });
  for (const t of view.line) {
    const dbl = t.left === t.right;
    line.append(el("span", { role: "listitem" }, tileNode(t.left, t.right, { vertical: dbl, aria: t.tile })));
  }
  box.append(el("p", { class: "ends", text: `left end ${view.ends.left} · right end ${view.ends.right}` }), line);
  return box;
}

export function board(view, fit = null) {
  return view.variant === "domeng" ? domengBoard(view) : hhlBoard(view, fit);
}

// ----- fitting the board to its box ------------------------------------------------------
// The tiles' sizes as the page's CSS draws them in `box` (outer sizes, margins included).
function measure(box) {
  const probe = el("div", { class: "measure", "aria-hidden": "true" },
    tileNode(6, 5), tileNode(6, 6, { vertical: true }));
  box.append(probe);
  const outer = (node) => {
    const r = node.getBoundingClientRect();
    const cs = getComputedStyle(node);
    return [r.width + parseFloat(cs.marginLeft) + parseFloat(cs.marginRight),
            r.height + parseFloat(cs.marginTop) + parseFloat(cs.marginBottom)];
  };
  const [[wide], [narrow, tall]] = [...probe.children].map(outer);
  probe.remove();
  // A crosswise double of the up/down arms sticks out of the spinner's column by this much;
  // a row that turns back stops half a tile short of it, so that it never seems to be part
  // of the up or down arm (2 px looked attached on a phone).
  return { wide, narrow, tall, clear: (wide - narrow) / 2 + narrow / 2 };
}

const shown = new WeakMap();   // box -> the view it shows, for redrawing on a resize
const watched = new WeakSet();

function fitInto(box) {
  const view = shown.get(box);
  const width = box.clientWidth;
  const fit = width > 0 ? { width, ...measure(box) } : null;
  box.replaceChildren(board(view, fit));
}

// Draw `view` into `box`, sized to the box's width, and again whenever that width changes
// (a phone turned on its side, a window resized).
export function drawBoard(box, view) {
  shown.set(box, view);
  fitInto(box);
  if (watched.has(box) || !window.ResizeObserver) return;
  watched.add(box);
  let width = box.clientWidth;
  new ResizeObserver(() => {
    if (!box.isConnected || box.clientWidth === width) return;
    width = box.clientWidth;
    fitInto(box);
  }).observe(box);
}

// ----- replay: a record's layout at every step ------------------------------------------
function remove(list, tile) {
  const i = list.indexOf(tile);
  if (i >= 0) list.splice(i, 1);
}

// Lay a play ({play, at, mode}) on a board: HHL {spinner, arms}, Domeng {line, ends}; the
// fields are replaced or changed in place. The replay and the paced spectator share it.
export function layTile(variant, b, m) {
  const [a, c] = halves(m.play);
  if (variant === "hhl") {
    if (!m.at) {
      b.spinner = m.play;
      for (const name of Object.keys(b.arms)) b.arms[name].end = a;
      return;
    }
    const arm = b.arms[m.at];
    const inner = arm.end;
    const t = { tile: m.play, inner, outer: inner === a ? c : a };
    if (m.mode) t.mode = m.mode;
    arm.tiles.push(t);
    if (m.mode === "barricade") { arm.closed = true; arm.end = null; } else arm.end = t.outer;
  } else if (!m.at) {
    b.line = [{ tile: m.play, left: a, right: c }];
    b.ends = { left: a, right: c };
  } else if (m.at === "left") {
    const out = b.ends.left === a ? c : a;
    b.line.unshift({ tile: m.play, left: out, right: b.ends.left });
    b.ends.left = out;
  } else {
    const out = b.ends.right === a ? c : a;
    b.line.push({ tile: m.play, left: b.ends.right, right: out });
    b.ends.right = out;
  }
}

// Steps of a domino-record/1 document: each is a {view, text, deal, move} snapshot with the
// same shape as the engine's views (all hands shown: the match is over).
export function replaySteps(record, describeMove) {
  const steps = [];
  const n = record.deals.length ? record.deals[0].hands.length : 0;
  let totals = new Array(n).fill(0);
  let table = 25;
  let held = new Array(n).fill(0);
  record.deals.forEach((deal, d) => {
    const hands = deal.hands.map((h) => [...h]);
    const stock = [...(deal.stock || [])];
    let spinner = null;
    const arms = {};
    for (const name of ["left", "right", "up", "down"]) arms[name] = { tiles: [], end: null, closed: false };
    let line = [];
    let ends = null;
    const snap = (text, move, result) => {
      const view = record.variant === "hhl"
        ? { variant: "hhl", spinner, arms: structuredClone(arms), stock: stock.length, totals: [...totals] }
        : { variant: "domeng", line: structuredClone(line), ends: ends && { ...ends }, table, held: [...held] };
      view.hands = hands.map((h) => [...h]);
      view.counts = hands.map((h) => h.length);
      view.deal_number = d;
      steps.push({ view, text, deal: d, move, result });
    };
    snap(null, null, null);
    for (const m of deal.moves) {
      if (m.draw) {
        for (const t of m.draw) { hands[m.seat].push(t); remove(stock, t); }
      } else if (m.pass) {
        if (m.stones) {
          for (const x of m.stones) {
            if (x.from === "table") table -= x.count; else held[x.from] -= x.count;
            held[m.seat] += x.count;
          }
        }
      } else if (m.play) {
        remove(hands[m.seat], m.play);
        const laid = { spinner, arms, line, ends };
        layTile(record.variant, laid, m);
        ({ spinner, line, ends } = laid);
      }
      snap(describeMove(m), m, null);
    }
    if (deal.result) {
      const r = deal.result;
      if (r.points) totals = totals.map((t, s) => t + r.points[s]);
      if (r.held) { table = r.table; held = [...r.held]; }
      snap(null, null, r);
      if (r.camat !== null && r.camat !== undefined) { table = 25; held = new Array(n).fill(0); }
    }
  });
  return steps;
}
