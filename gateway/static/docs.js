// Renders /api/v1/openapi.json as a readable page (no CDN, no build step).
import { el } from "./board.js";

function ref(spec, obj) {
  while (obj && obj.$ref) obj = obj.$ref.split("/").slice(1).reduce((o, k) => o[k], spec);
  return obj;
}

function schemaText(spec, schema, depth = 0) {
  schema = ref(spec, schema);
  if (!schema || depth > 5) return "…";
  if (schema.type === "array") return `[${schemaText(spec, schema.items, depth + 1)}]`;
  if (schema.properties) {
    const pad = "  ".repeat(depth + 1);
    const req = new Set(schema.required || []);
    const lines = Object.entries(schema.properties).map(([k, v]) => {
      const r = ref(spec, v);
      const note = r.description ? `  // ${r.description}` : "";
      return `${pad}${k}${req.has(k) ? "" : "?"}: ${schemaText(spec, v, depth + 1)}${r.nullable ? " | null" : ""}${note}`;
    });
    return `{\n${lines.join("\n")}\n${"  ".repeat(depth)}}`;
  }
  if (schema.enum) return schema.enum.map((x) => JSON.stringify(x)).join(" | ");
  return schema.type || "any";
}

const spec = await (await fetch("/api/v1/openapi.json")).json();
const root = document.getElementById("docs");
root.replaceChildren(el("h1", { text: `${spec.info.title} ${spec.info.version}` }),
  el("p", { style: "white-space: pre-line", text: spec.info.description || "" }));
for (const [path, ops] of Object.entries(spec.paths)) {
  for (const [method, op] of Object.entries(ops)) {
    if (method === "parameters") continue;
    const sec = el("section", { class: "panel op" },
      el("h2", {}, el("span", { class: "method", text: method }), el("code", { text: path })),
      el("p", { text: op.summary || "" }));
    const params = [...(ops.parameters || []), ...(op.parameters || [])];
    if (params.length) {
      const table = el("table", {}, el("tr", {}, el("th", { text: "parameter" }), el("th", { text: "in" }), el("th", { text: "about" })));
      for (const p of params) table.append(el("tr", {}, el("td", {}, el("code", { text: p.name })), el("td", { text: p.in }), el("td", { text: p.description || (p.schema && p.schema.type) || "" })));
      sec.append(table);
    }
    if (op.security) sec.append(el("p", { text: "Needs the seat token: Authorization: Bearer <token>." }));
    const body = op.requestBody && op.requestBody.content["application/json"];
    if (body) sec.append(el("h3", { text: "Request body" }), el("pre", { text: schemaText(spec, body.schema) }));
    for (const [code, resp] of Object.entries(op.responses || {})) {
      const r = ref(spec, resp);
      const content = r.content && (r.content["application/json"] || r.content["text/event-stream"]);
      sec.append(el("h3", { text: `${code} — ${r.description || ""}` }));
      if (content && code.startsWith("2")) sec.append(el("pre", { text: schemaText(spec, content.schema) }));
    }
    root.append(sec);
  }
}
root.append(el("section", { class: "panel" }, el("h2", { text: "Error body (every failure)" }),
  el("pre", { text: schemaText(spec, spec.components.schemas.Error) })));
