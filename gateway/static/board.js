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
export function hhlBoard(view) {
  const box = el("div", { class: "cross", role: "group", "aria-label": "The spinner and its four arms" });
  if (!view.spinner) {
    box.append(el("p", { class: "empty", text: "No tile yet: the lowest double opens." }));
    return box;
  }
  const [s] = halves(view.spinner);
  const arm = (name) => {
    const a = view.arms[name];
    const vertical = name === "up" || name === "down";
    const line = el("div", { class: `arm arm-${name}`, role: "list",
                             "aria-label": `${name} arm, ${a.closed ? "closed by a barricade" : "open end " + a.end}` });
    for (const t of a.tiles) {
      const [hi, lo] = halves(t.tile);
      const dbl = hi === lo;
      const facedown = t.mode === "barricade";
      // inner half next to the spinner: reading order depends on the arm's direction
      const towards = name === "left" || name === "up" ? [t.outer, t.inner] : [t.inner, t.outer];
      line.append(el("span", { role: "listitem" },
        tileNode(towards[0], towards[1], { vertical: vertical ? !dbl : dbl, facedown,
                                            aria: facedown ? `${t.tile} face down: barricade` : `${t.tile}` })));
    }
    const end = a.closed ? "closed" : `end ${a.end}`;
    const tag = el("span", { class: "arm-end" + (a.closed ? " closed" : ""), text: `${name}: ${end}` });
    return el("div", { class: `arm-box arm-box-${name}` }, line, tag);
  };
  box.append(arm("up"), arm("left"),
    el("div", { class: "spinner-box" }, tileNode(s, s, { vertical: true, spinner: true, aria: `spinner ${view.spinner}` })),
    arm("right"), arm("down"));
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

export function board(view) {
  return view.variant === "domeng" ? domengBoard(view) : hhlBoard(view);
}

// ----- replay: a record's layout at every step ------------------------------------------
function remove(list, tile) {
  const i = list.indexOf(tile);
  if (i >= 0) list.splice(i, 1);
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
        const [a, b] = halves(m.play);
        if (record.variant === "hhl") {
          if (!m.at) {
            spinner = m.play;
            for (const name of Object.keys(arms)) arms[name].end = a;
          } else {
            const arm = arms[m.at];
            const inner = arm.end;
            const outer = inner === a ? b : a;
            const t = { tile: m.play, inner, outer };
            if (m.mode) t.mode = m.mode;
            arm.tiles.push(t);
            if (m.mode === "barricade") { arm.closed = true; arm.end = null; } else arm.end = outer;
          }
        } else if (!m.at) {
          line = [{ tile: m.play, left: a, right: b }];
          ends = { left: a, right: b };
        } else if (m.at === "left") {
          const out = ends.left === a ? b : a;
          line.unshift({ tile: m.play, left: out, right: ends.left });
          ends.left = out;
        } else {
          const out = ends.right === a ? b : a;
          line.push({ tile: m.play, left: ends.right, right: out });
          ends.right = out;
        }
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
