// What the pages that draw a chart (ladders, arena, analysis) share: an SVG node maker,
// and the axes of a chart of values over time.
export const SVG = "http://www.w3.org/2000/svg";

// An SVG element with its attributes; children may be nodes or strings (text).
export function svgNode(tag, attrs = {}, ...children) {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  n.append(...children);
  return n;
}

// Five grid lines over [lo, hi], each labelled at the left; the frame; the labels under
// it, given as [x, text] pairs; and the caption of the time axis. `box` holds the chart's
// size and margins (W, H, L, R, T, B), `y` maps a value to its height.
export function axes({ W, H, L, R, T, B }, lo, hi, y, xLabels, caption) {
  const g = svgNode("g", { class: "axis" });
  for (let t = 0; t <= 4; t++) {
    const v = lo + (hi - lo) * t / 4;
    g.append(svgNode("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid" }),
             svgNode("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end" }, v.toFixed(1)));
  }
  g.append(svgNode("line", { x1: L, x2: L, y1: T, y2: H - B, class: "frame" }),
           svgNode("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, class: "frame" }),
           ...xLabels.map(([x, text]) => svgNode("text", { x, y: H - B + 16, "text-anchor": "middle" }, text)),
           svgNode("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle" }, caption));
  return g;
}
