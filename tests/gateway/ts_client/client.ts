// A small client written from the gateway's OpenAPI document alone: the types come from
// `openapi-typescript openapi.json -o api.d.ts` (made by tests/gateway/test_typescript_client.py,
// never committed). It creates a match, plays it over REST to its end, reads the event
// stream and the record; `tsc --noEmit` checks it. Every union is switched on
// exhaustively, so a kind the document does not type, or a type that is any, fails to
// compile (any is not assignable to never), and LOOSE below finds any and unknown inside
// the event, stream, view and record types.
import type { components, paths } from "./api";

type Schemas = components["schemas"];
type Event = Schemas["MoveResult"]["events"][number];
type StreamMessage = Schemas["StreamMessage"];
type Record = Schemas["Record"];
type View = Schemas["SeatState"]["view"];

// ----- no any, no unknown inside these types -------------------------------------------------
type IsAny<T> = 0 extends 1 & T ? true : false;
type Loose<T> = IsAny<T> extends true ? true
  : unknown extends T ? true
  : T extends readonly (infer U)[] ? Loose<U>
  : T extends object ? { [K in keyof T]-?: Loose<T[K]> }[keyof T]
  : false;
type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const LOOSE: [Exactly<Loose<Event>, false>, Exactly<Loose<StreamMessage>, false>,
  Exactly<Loose<Record>, false>, Exactly<Loose<View>, false>,
  Exactly<Loose<Schemas["Match"]>, false>] = [true, true, true, true, true];

function never(x: never): never {
  throw new Error(`not typed: ${JSON.stringify(x)}`);
}

// ----- REST ------------------------------------------------------------------------------
type Created = paths["/api/v1/matches"]["post"]["responses"][201]["content"]["application/json"];
type MoveRefusal = paths["/api/v1/matches/{match_id}/moves"]["post"]["responses"][409]["content"]["application/json"];

async function call<T>(base: string, path: string, init: RequestInit = {}, token?: string): Promise<T> {
  const headers: { [h: string]: string } = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  const r = await fetch(base + path, { ...init, headers });
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  return (await r.json()) as T;
}

export function describe(e: Event): string {
  switch (e.kind) {
    case "deal_start": return `deal ${e.deal + 1}, ${e.leader} leads${e.tiles ? `, holding ${e.tiles.join(" ")}` : ""}`;
    case "play": return `${e.seat} plays ${e.play}${e.at ? ` on ${e.at}` : ""}${e.mode === "barricade" ? " face down" : ""}`;
    case "draw": return `${e.seat} draws ${e.count}${e.tiles ? `: ${e.tiles.join(" ")}` : ""}`;
    case "pass": return `${e.seat} passes${e.cost !== undefined ? `, ${e.cost} stones` : ""}`;
    case "deal_over": return "points" in e.result ? `points ${e.result.points.join(" ")}` : `won by ${e.result.winner}`;
    case "cycle_over": return `cycle ${e.result.cycle + 1}: CAMAT ${e.result.camat ?? "none"}`;
    case "match_over": return "totals" in e.result ? `totals ${e.result.totals.join(" ")}` : `titles ${e.result.camat_titles.join(" ")}`;
    case "timeout": return `${e.seat}'s clock played ${e.move} (${e.timeouts_in_a_row} in a row)`;
    case "absent": return `${e.seat} is absent`;
    case "returned": return `${e.seat} is back`;
    case "time_up": return "time is up: this hand is the last";
    default: return never(e);
  }
}

function layout(view: View): string {
  switch (view.variant) {
    case "hhl": return `spinner ${view.spinner ?? "-"}, stock ${view.stock}, left ends ${view.arms.left.end}`;
    case "domeng": return `line of ${view.line.length}, ${view.table} stones on the table`;
    default: return never(view);
  }
}

export async function playOverRest(base: string): Promise<string[]> {
  const body: Schemas["CreateMatch"] = { variant: "hhl", options: { hands: 1 }, seed: "5893219166477011277" };
  const match: Created = await call(base, "/api/v1/matches", { method: "POST", body: JSON.stringify(body) });
  const tokens: string[] = [];
  for (let s = 0; s < match.num_seats; s++) {
    const claim: Schemas["Claim"] = await call(base, `/api/v1/matches/${match.match_id}/seats/${s}/claim`, { method: "POST" });
    tokens.push(claim.seat_token);
  }
  const said: string[] = [];
  const stream = readStream(base, match.match_id, said);
  for (;;) {
    const now: Schemas["Match"] = await call(base, `/api/v1/matches/${match.match_id}`);
    if (now.status === "over" || now.to_move === null) break;
    const state: Schemas["SeatState"] = await call(base, `/api/v1/matches/${match.match_id}/view`, {}, tokens[now.to_move]);
    said.push(layout(state.view));
    const legal: Schemas["LegalMove"] = state.legal_moves[0];
    const move: Schemas["MoveRequest"] = { version: state.version, move_id: legal.id };
    try {
      const done: Schemas["MoveResult"] = await call(base, `/api/v1/matches/${match.match_id}/moves`,
        { method: "POST", body: JSON.stringify(move) }, tokens[now.to_move]);
      said.push(...done.events.map(describe));
    } catch (err) {
      const refusal = JSON.parse(String(err).split(" ").slice(2).join(" ")) as MoveRefusal;
      if (refusal.reason !== "STALE_VERSION") throw err;
    }
  }
  await stream;
  const record: Record = await call(base, `/api/v1/matches/${match.match_id}/record`);
  said.push(`seed ${BigInt(record.seed)}`);
  switch (record.variant) {
    case "hhl":
      for (const deal of record.deals) said.push(`stock ${deal.stock.join(" ")}; ${deal.moves.length} turns; ${deal.result?.end ?? "live"}`);
      break;
    case "domeng":
      for (const deal of record.deals) said.push(`sleeping ${deal.sleeping.join(" ")}; ${deal.result?.kind ?? "blocked"}`);
      break;
    default: never(record);
  }
  return said;
}

// ----- the event stream: SSE text, each message parsed as a StreamMessage ------------------------
async function readStream(base: string, matchId: string, said: string[]): Promise<void> {
  const r = await fetch(`${base}/api/v1/matches/${matchId}/events`);
  if (!r.body) throw new Error("no stream");
  const reader = r.body.getReader();
  const text = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += text.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields: { [k: string]: string } = {};
      for (const line of block.split("\n")) {
        const at = line.indexOf(": ");
        if (at > 0) fields[line.slice(0, at)] = line.slice(at + 2);
      }
      if (!fields.event) continue;   // the stream's retry line
      const m = { event: fields.event, id: fields.id, data: JSON.parse(fields.data) } as StreamMessage;
      if (onMessage(m, said)) return;
    }
  }
}

function onMessage(m: StreamMessage, said: string[]): boolean {
  switch (m.event) {
    case "snapshot": said.push(...m.data.state.view.history.map(describe)); return false;
    case "events": said.push(...m.data.events.map(describe)); return false;
    case "keepalive": return false;
    case "match_over": said.push(`over at version ${m.data.version}`); return true;
    case "error": said.push(`stream: ${m.data.reason}`); return true;
    default: return never(m);
  }
}

void LOOSE;
