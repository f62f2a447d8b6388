#!/usr/bin/env node
// A domino bot in Node.js that needs nothing from this project but its .proto files.
//
// It loads proto/domino/v1/play.proto at run time (no generated code), connects to the
// engine's Play service, and plays greedy in both games (HHL and Domeng): the legal move
// with the most pips, never a barricade unless nothing else is legal, ties to the first
// listed. The conversation is described in docs/bots.md ("Protocol, message by message").
//
//   node bots/js/bot.js --engine 127.0.0.1:50051 --match ID --seat N --seat-token T
//   node bots/js/bot.js --engine A:50051,B:50051 --match ID ...   (engines of a cluster)
//   DOMINO_SEAT_TOKEN=T node bots/js/bot.js --engine 127.0.0.1:50051 --match ID
//   DOMINO_POOL_SECRET=S node bots/js/bot.js --engine 127.0.0.1:50051 --pool NAME --name js-greedy
//   DOMINO_ENGINE=H:P DOMINO_MATCH=ID DOMINO_SEAT=N DOMINO_SEAT_TOKEN=T node bots/js/bot.js
//   DOMINO_BOT_KEY=dbk_... node bots/js/bot.js --engine 127.0.0.1:50051 --arena hhl --version v1 --matches 5
//
// Arena mode (docs/arena.md, "A bot in the arena"): a registered bot's lobby stream
// (Hello.arena = ArenaEnlist) stays open; for each ArenaSeat it opens a seat stream of its
// own (Hello.arena_seat = ArenaSeatAuth, on the seat's owner engine) and plays it as any
// seat. --matches N (default 1; 0: no limit) is sent as max_matches: the engine seats the
// lobby N times and then ends it. ArenaPaused: it connects the lobby again after 30 s.
//
// Everything it reads is typed (game.proto): the legal moves' tiles and modes, the result;
// it parses no JSON. Prints one JSON line when done: {"match_id", "seat", "result"} for a
// seat, {"pool", "name", "results", "matches"} for a pool, or {"arena", "version", "bot",
// "results", "matches"} in arena mode, each result in the shape of
// the match record (docs/records.md). Exit status 0, or 1 when the engine
// refused the bot (bad token, unknown match) or stayed unreachable for --give-up seconds.
//
// In a cluster (docs/cluster.md) an engine that does not own the match refuses the stream
// with UNAVAILABLE and a Refusal NOT_OWNER naming the owner (HOST:PORT) in the standard
// rich status (trailer grpc-status-details-bin): the bot connects there at once. An
// empty owner means a failover is under way: it tries again shortly. An engine that does
// not answer at all is skipped for the next address of --engine A,B,C.
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

const USAGE = `usage: node bot.js --engine HOST:PORT[,HOST:PORT...] (--match ID [--seat N] [--seat-token T] | --pool NAME
                  [--name NAME] [--pool-secret S] [--capacity K] [--matches N] | --arena ARENA --version V
                  [--matches N]) [--proto DIR] [--give-up S] [--verbose]
  --arena plays as a registered bot, its key from the environment variable DOMINO_BOT_KEY
  (--arena and --version default to DOMINO_ARENA and DOMINO_BOT_VERSION);
  --engine defaults to the environment variable DOMINO_ENGINE (else 127.0.0.1:50051);
  --seat-token defaults to the environment variable DOMINO_SEAT_TOKEN, --pool-secret to
  DOMINO_POOL_SECRET (both keep the secret out of ps); --engine, --match, --seat, --pool,
  --name, --capacity and --matches to DOMINO_ENGINE, DOMINO_MATCH, DOMINO_SEAT, DOMINO_POOL,
  DOMINO_POOL_NAME, DOMINO_POOL_CAPACITY and DOMINO_POOL_MATCHES;
  --proto is the folder holding domino/v1/*.proto (default: the repository's proto/);
  --matches 0 plays pool matches until interrupted.`;

// Codes worth a reconnect: the engine is away, restarting, or the stream broke.
const RETRYABLE = new Set([
  grpc.status.UNAVAILABLE, grpc.status.CANCELLED, grpc.status.UNKNOWN, grpc.status.INTERNAL,
  grpc.status.DEADLINE_EXCEEDED, grpc.status.RESOURCE_EXHAUSTED, grpc.status.ABORTED,
]);

function parseArgs(argv) {
  // Every flag but --proto, --give-up and --verbose has a default in the environment, the
  // variables `domino conformance` sets (docs/bots.md, "The environment"); flags go over them.
  const env = process.env;
  const number = (v, otherwise) => (v === undefined || v === '' ? otherwise : Number(v));
  const args = {
    engine: env.DOMINO_ENGINE || '127.0.0.1:50051', match: env.DOMINO_MATCH || '',
    seat: number(env.DOMINO_SEAT, -1), token: env.DOMINO_SEAT_TOKEN || '',
    pool: env.DOMINO_POOL || '', name: env.DOMINO_POOL_NAME || 'js-greedy',
    secret: env.DOMINO_POOL_SECRET || '', capacity: number(env.DOMINO_POOL_CAPACITY, 1),
    matches: number(env.DOMINO_POOL_MATCHES, 1),
    proto: path.join(__dirname, '..', '..', 'proto'), giveUp: 120, verbose: false,
    arena: env.DOMINO_ARENA || '', version: env.DOMINO_BOT_VERSION || '',
    botKey: env.DOMINO_BOT_KEY || '',
  };
  const flags = {
    '--engine': (v) => { args.engine = v; }, '--match': (v) => { args.match = v; },
    '--seat': (v) => { args.seat = Number(v); }, '--seat-token': (v) => { args.token = v; },
    '--pool': (v) => { args.pool = v; }, '--name': (v) => { args.name = v; },
    '--pool-secret': (v) => { args.secret = v; },
    '--capacity': (v) => { args.capacity = Number(v); },
    '--matches': (v) => { args.matches = Number(v); },
    '--proto': (v) => { args.proto = v; }, '--give-up': (v) => { args.giveUp = Number(v); },
    '--arena': (v) => { args.arena = v; }, '--version': (v) => { args.version = v; },
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h' || a === '--help') { console.log(USAGE); process.exit(0); }
    if (a === '-v' || a === '--verbose') { args.verbose = true; continue; }
    if (!(a in flags) || i + 1 >= argv.length) { console.error(USAGE); process.exit(2); }
    flags[a](argv[++i]);
  }
  // "A,B,C": the engines of a cluster, each once, in order.
  args.engines = [...new Set(args.engine.split(',').map((a) => a.trim()).filter(Boolean))];
  if (!args.engines.length) { console.error(USAGE); process.exit(2); }
  if (args.arena && !(args.version && args.botKey)) {
    console.error('--arena needs --version and the bot key in DOMINO_BOT_KEY');
    console.error(USAGE);
    process.exit(2);
  }
  if (!args.arena && !args.pool && !(args.match && args.token)) {
    console.error('give --match and a seat token (--seat-token or DOMINO_SEAT_TOKEN), --pool, or --arena');
    console.error(USAGE);
    process.exit(2);
  }
  return args;
}

// ----- the strategy: greedy -------------------------------------------------------------
// Each legal move carries its move as fields: {tile: {high, low}, place, mode}.
function pips(legalMove) {
  const t = legalMove.move.tile;
  return t.high + t.low;
}

function isBarricade(legalMove) {
  return legalMove.move.mode === 'MODE_BARRICADE';
}

/** The index of the legal move to play: most pips, never a barricade, ties to the first. */
function chooseGreedy(legalMoves) {
  let best = -1;
  legalMoves.forEach((m, i) => {
    if (isBarricade(m)) return;
    if (best < 0 || pips(m) > pips(legalMoves[best])) best = i;
  });
  return best < 0 ? 0 : best;
}

// ----- the result, as the match record writes it -----------------------------------------
const seatOrNull = (s) => (s < 0 ? null : s);
const groups = (ranking) => ranking.map((g) => g.seats);

function recordResult(result) {
  if (result.variant === 'hhl') {
    return { totals: result.hhl.totals, ranking: groups(result.hhl.ranking) };
  }
  const r = result.domeng;
  return {
    camat_titles: r.camat_titles, stones: r.stones, ranking: groups(r.ranking),
    cycles: r.cycles.map((c) => ({ cycle: c.cycle, camat: seatOrNull(c.camat), held: c.held,
                                   rounds: c.rounds, ranking: groups(c.ranking) })),
  };
}

// ----- the connection -------------------------------------------------------------------
function loadPlayService(protoDir) {
  const definition = protoLoader.loadSync('domino/v1/play.proto', {
    includeDirs: [protoDir],
    keepCase: true,     // field names as in the .proto files: match_id, seat_token, ...
    longs: Number,      // int64 versions and unix milliseconds fit a double
    enums: String,      // "VARIANT_HHL"
    defaults: true,     // absent fields read as their zero value, as in proto3
    oneofs: true,       // message.body names the oneof field that is set
  });
  return grpc.loadPackageDefinition(definition).domino.v1.Play;
}

// ----- following the match to its owner engine ----------------------------------------
// A refusal travels as google.rpc.Status (code, message, details: Any[]) in the trailer
// grpc-status-details-bin; the Refusal is one of its details. Only these two small
// messages are needed, so they are defined here (same wire format as google/rpc/status.proto
// and google/protobuf/any.proto); the Refusal comes from our own common.proto.
const RICH_STATUS = `syntax = "proto3"; package google.rpc;
  message Any { string type_url = 1; bytes value = 2; }
  message Status { int32 code = 1; string message = 2; repeated Any details = 3; }`;

function loadRefusalReader(protoDir) {
  const root = new protobuf.Root();
  // Imports are named from the proto folder ("domino/v1/game.proto"), as protoc does.
  root.resolvePath = (origin, target) => path.resolve(protoDir, target);
  root.loadSync('domino/v1/common.proto', { keepCase: true });
  protobuf.parse(RICH_STATUS, root, { keepCase: true });
  const Status = root.lookupType('google.rpc.Status');
  const Refusal = root.lookupType('domino.v1.Refusal');
  /** The owner a NOT_OWNER refusal names ('' during a failover), or null for any other error. */
  return function ownerOf(err) {
    const bins = (err && err.metadata) ? err.metadata.get('grpc-status-details-bin') : [];
    if (!bins.length) return null;
    for (const any of Status.decode(bins[0]).details) {
      if (!any.type_url.endsWith('/domino.v1.Refusal')) continue;
      const refusal = Refusal.decode(any.value);
      if (refusal.reason === 'NOT_OWNER') return refusal.owner;
    }
    return null;
  };
}

class Bot {
  constructor(args) {
    this.args = args;
    this.Play = loadPlayService(args.proto);
    this.ownerOf = loadRefusalReader(args.proto);
    this.address = args.engines[0];   // the engine this bot talks to now
    this.results = [];
    this.finished = [];
    this.seats = new Map();   // match id -> seat number (a pool stream plays several)
    this.tries = 0;
    this.downSince = null;
  }

  log(...parts) {
    if (this.args.verbose) console.error('[js-bot]', ...parts);
  }

  hello() {
    const client = 'domino example bot (node.js, greedy)';
    // skip_events: greedy needs only its turns (the TurnRequest's view is complete), so
    // the engine sends no EventBatch.
    if (this.args.arenaSeat) {   // a registered bot's seat: the bot key stands for a token
      return { arena_seat: { match_id: this.args.match, bot_key: this.args.botKey }, client,
               skip_events: true };
    }
    if (this.args.pool) {
      return { pool: { pool: this.args.pool, name: this.args.name, capacity: this.args.capacity,
                       secret: this.args.secret },
               client, skip_events: true };
    }
    return { seat: { match_id: this.args.match, seat_token: this.args.token }, client,
             skip_events: true };
  }

  done() {
    const wanted = this.args.pool ? this.args.matches : 1;
    return wanted > 0 && this.results.length >= wanted;
  }

  run() {
    return new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      this.connect();
    });
  }

  connect() {
    const client = new this.Play(this.address, grpc.credentials.createInsecure(), {
      'grpc.keepalive_time_ms': 5000,
      'grpc.keepalive_timeout_ms': 3000,
      'grpc.keepalive_permit_without_calls': 1,
    });
    const call = client.Connect();
    let welcomed = false;
    let closed = false;
    const finish = (err) => {
      if (closed) return;
      closed = true;
      call.removeAllListeners('data');
      client.close();
      if (this.done()) { this.resolve(); return; }
      const owner = err ? this.ownerOf(err) : null;
      if (owner) {
        // Another engine owns the match: go there at once (no backoff; a redirect costs
        // one round trip). --give-up still bounds a ping-pong between engines.
        this.log(`match owned by ${owner}, not ${this.address}: connecting there`);
        this.address = owner;
        this.downSince = this.downSince || Date.now();
        if (this.args.giveUp > 0 && Date.now() - this.downSince > this.args.giveUp * 1000) {
          this.reject(new Error(`no engine took the match within ${this.args.giveUp} s`));
          return;
        }
        setImmediate(() => this.connect());
        return;
      }
      if (err && !RETRYABLE.has(err.code)) {
        this.reject(new Error(`the engine refused: ${grpc.status[err.code]}: ${err.details}`));
        return;
      }
      if (welcomed) { this.tries = 0; this.downSince = null; }
      if (owner === '' || (err && err.code === grpc.status.UNAVAILABLE)) {
        // A failover under way, or this engine did not answer: any other engine will do
        // (it sends the bot on to the owner), so try the next address of --engine.
        const i = this.args.engines.indexOf(this.address);
        this.address = this.args.engines[(i + 1) % this.args.engines.length];
      }
      this.downSince = this.downSince || Date.now();
      if (this.args.giveUp > 0 && Date.now() - this.downSince > this.args.giveUp * 1000) {
        this.reject(new Error(`engine ${this.args.engines.join(',')} unreachable for ${this.args.giveUp} s`));
        return;
      }
      // Capped exponential backoff with jitter: a wait in [d/2, d], d = 0.2 s * 2^tries <= 5 s.
      const d = Math.min(5000, 200 * 2 ** this.tries++);
      const wait = d / 2 + Math.random() * d / 2;
      this.log(`connection lost (${err ? grpc.status[err.code] : 'stream ended'}), ` +
               `reconnecting to ${this.address} in ${Math.round(wait)} ms`);
      setTimeout(() => this.connect(), wait);
    };

    call.on('data', (message) => {
      switch (message.body) {
        case 'welcome': {
          const w = message.welcome;
          welcomed = true;
          this.seats.set(w.match_id, w.seat);
          this.log(`playing match ${w.match_id} (${w.variant}) as seat ${w.seat}`);
          break;
        }
        case 'turn': {
          const state = message.turn.state;
          if (!state.legal_moves.length) break;
          const i = chooseGreedy(state.legal_moves);
          // Answer with the move's id at the version the TurnRequest was for.
          call.write({ move: { match_id: state.match_id, version: state.version,
                               move_id: state.legal_moves[i].id } });
          break;
        }
        case 'answer':
          if (!message.answer.accepted) {
            const r = message.answer.refusal;
            console.error(`[js-bot] move at version ${message.answer.submitted_version} ` +
                          `refused: ${r.reason}: ${r.message}`);
          }
          break;
        case 'match_over': {
          const over = message.match_over;
          if (!this.finished.includes(over.match_id)) {
            this.finished.push(over.match_id);
            this.results.push(recordResult(over.result));
          }
          this.log(`match ${over.match_id} over at version ${over.version}`);
          if (this.done()) {
            call.end();
            call.cancel();
            finish(null);
          }
          break;
        }
        default:   // snapshot, keepalive (no events: skip_events)
          break;
      }
    });
    call.on('error', (err) => finish(err));       // a status other than OK
    call.on('status', (status) => {
      if (status.code === grpc.status.OK) finish(null);
    });
    call.write({ hello: this.hello() });
  }
}

// ----- arena mode: the lobby, and a seat stream per ArenaSeat ------------------------------
class ArenaLobby {
  constructor(args) {
    this.args = args;
    this.Play = loadPlayService(args.proto);
    this.address = args.engines[0];
    this.seated = 0;          // ArenaSeat messages received (the engine stops at --matches)
    this.playing = new Map(); // match id -> the promise of its seat's Bot
    this.results = [];
    this.matches = [];
    this.bot = null;          // the ArenaWelcome
    this.tries = 0;
    this.downSince = null;
  }

  log(...parts) {
    if (this.args.verbose) console.error('[js-bot arena]', ...parts);
  }

  run() {
    return new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      this.connect();
    });
  }

  // Play one seat on its own stream, at the match's owner (the lobby's engine when empty).
  play(seat) {
    if (this.playing.has(seat.match_id)) return;   // delivered again after a reconnect
    const engines = seat.owner ? [seat.owner, ...this.args.engines] : [this.address, ...this.args.engines];
    const bot = new Bot({ ...this.args, arenaSeat: true, match: seat.match_id, pool: '',
                          engines: [...new Set(engines)] });
    this.log(`seated in match ${seat.match_id} as seat ${seat.seat}`);
    this.playing.set(seat.match_id, bot.run().then(() => {
      this.matches.push(seat.match_id);
      this.results.push(...bot.results);
    }, (err) => {
      console.error(`[js-bot arena] match ${seat.match_id}: ${err.message}`);
    }));
  }

  // The lobby ended: wait for the seats in play, then either stop or connect again.
  async ended(err, delayMs) {
    const wanted = this.args.matches;
    if (!err && wanted > 0 && this.seated >= wanted) {
      await Promise.all(this.playing.values());
      this.resolve();
      return;
    }
    // ABORTED: a newer lobby of this bot took over (LOBBY_REPLACED); coming back would
    // only take it back. Any other code but the retryable ones is a refusal.
    if (err && (!RETRYABLE.has(err.code) || err.code === grpc.status.ABORTED)) {
      this.reject(new Error(`the engine refused the lobby: ${grpc.status[err.code]}: ${err.details}`));
      return;
    }
    this.downSince = this.downSince || Date.now();
    if (this.args.giveUp > 0 && Date.now() - this.downSince > this.args.giveUp * 1000 + delayMs) {
      this.reject(new Error(`engine ${this.args.engines.join(',')} unreachable for ${this.args.giveUp} s`));
      return;
    }
    if (err && err.code === grpc.status.UNAVAILABLE) {
      const i = this.args.engines.indexOf(this.address);
      this.address = this.args.engines[(i + 1) % this.args.engines.length];
    }
    const d = Math.min(5000, 200 * 2 ** this.tries++);
    const wait = delayMs || d / 2 + Math.random() * d / 2;
    this.log(`lobby ended (${err ? grpc.status[err.code] : 'by the engine'}), again in ${Math.round(wait)} ms`);
    setTimeout(() => this.connect(), wait);
  }

  connect() {
    const client = new this.Play(this.address, grpc.credentials.createInsecure(), {
      'grpc.keepalive_time_ms': 5000, 'grpc.keepalive_timeout_ms': 3000,
      'grpc.keepalive_permit_without_calls': 1,
    });
    const call = client.Connect();
    let closed = false, pausedMs = 0;
    const finish = (err) => {
      if (closed) return;
      closed = true;
      call.removeAllListeners('data');
      client.close();
      this.ended(err, pausedMs);
    };
    call.on('data', (message) => {
      switch (message.body) {
        case 'arena_welcome':
          this.bot = message.arena_welcome;
          this.tries = 0;
          this.downSince = null;
          this.log(`lobby open: ${this.bot.name} ${this.bot.version} in ${this.bot.arena}, ` +
                   `mu ${this.bot.mu.toFixed(2)} after ${this.bot.matches} matches`);
          break;
        case 'arena_seat':
          this.seated++;
          this.play(message.arena_seat);
          break;
        case 'arena_paused':
          // Not seated until a new lobby Hello clears it: leave, and come back in 30 s.
          console.error(`[js-bot arena] paused: ${message.arena_paused.message}`);
          pausedMs = 30000;
          call.cancel();
          finish({ code: grpc.status.CANCELLED, details: 'paused' });
          break;
        default:   // keepalive
          break;
      }
    });
    call.on('error', (err) => finish(err));
    call.on('status', (status) => { if (status.code === grpc.status.OK) finish(null); });
    // The lobby stays open from this side (a half-close would end it): no call.end().
    const left = this.args.matches > 0 ? Math.max(1, this.args.matches - this.seated) : 0;
    call.write({ hello: { arena: { bot_key: this.args.botKey, version: this.args.version,
                                   arena: this.args.arena, max_matches: left },
                          client: 'domino example bot (node.js, greedy)' } });
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.arena) {
    const lobby = new ArenaLobby(args);
    try {
      await lobby.run();
    } catch (err) {
      console.error(`[js-bot] ${err.message}`);
      process.exitCode = 1;
      return;
    }
    console.log(JSON.stringify({ arena: args.arena, version: args.version,
                                 bot: lobby.bot ? lobby.bot.name : null,
                                 results: lobby.results, matches: lobby.matches }));
    return;
  }
  const bot = new Bot(args);
  try {
    await bot.run();
  } catch (err) {
    console.error(`[js-bot] ${err.message}`);
    process.exitCode = 1;
    return;
  }
  if (args.pool) {
    console.log(JSON.stringify({ pool: args.pool, name: args.name, results: bot.results,
                                 matches: bot.finished }));
  } else {
    console.log(JSON.stringify({ match_id: args.match, seat: bot.seats.get(args.match) ?? args.seat,
                                 result: bot.results[0] }));
  }
}

if (require.main === module) main();

module.exports = { chooseGreedy, pips, isBarricade, loadPlayService, loadRefusalReader,
                   recordResult, ArenaLobby };
