// A domino bot in C++ that needs nothing from this project but its .proto files: it talks
// to the engine's Play service with grpc++ (plaintext) and plays greedy in both games (HHL,
// Domeng): the legal move with the most pips, never a barricade unless nothing else is
// legal, ties to the first listed. The conversation: docs/bots.md ("Protocol, message by
// message"). It parses no JSON: everything it reads is typed (game.proto). `make cpp-bot`
// builds it: protoc with grpc_cpp_plugin on proto/domino/v1/*.proto into build/cpp-bot/gen,
// then g++ on this file and the generated .cc files, flags from pkg-config grpc++ protobuf.
// Arena mode (docs/arena.md, "A bot in the arena"): a registered bot's lobby stream
// (Hello.arena) stays open; each ArenaSeat is played on a seat stream of its own
// (Hello.arena_seat, on the seat's owner engine) by the same code that plays a seat by token.
// Prints one JSON line when done: {"match_id", "seat", "result"} for a seat, {"pool",
// "name", "results", "matches"} for a pool, or {"arena", "version", "bot", "results",
// "matches"} in arena mode, each result in the shape of the match record
// (docs/records.md). Exit status 0; 1 when the engine refused the bot (bad token, unknown
// match) or stayed unreachable for --give-up seconds; 2 for a wrong command line.
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "domino/v1/play.grpc.pb.h"

namespace v1 = domino::v1;
using google::protobuf::RepeatedPtrField;

static const char* USAGE =
    "usage: domino-bot --engine HOST:PORT (--match ID [--seat N] [--seat-token T] | --pool NAME\n"
    "         [--name NAME] [--pool-secret S] [--capacity K] [--matches N] | --arena ARENA\n"
    "         --version V [--matches N]) [--give-up S] [-v]\n"
    "  --seat-token defaults to $DOMINO_SEAT_TOKEN, --pool-secret to $DOMINO_POOL_SECRET (both\n"
    "  keep the secret out of ps); --arena plays as the registered bot whose key is in\n"
    "  $DOMINO_BOT_KEY (never a flag); --matches 0 plays pool or arena matches until\n"
    "  interrupted.\n";
static const char* CLIENT = "domino example bot (c++, greedy)";

struct Args {
  std::string engine = "127.0.0.1:50051", match, token, pool, name = "cpp-greedy", secret;
  std::string arena, version, key;  // arena mode; key: the bot key, from the environment only
  int seat = -1, capacity = 1, matches = 1;
  double give_up = 120;
  bool verbose = false;
};

static Args parse_args(int argc, char** argv) {
  Args a;
  if (const char* t = std::getenv("DOMINO_SEAT_TOKEN")) a.token = t;
  if (const char* s = std::getenv("DOMINO_POOL_SECRET")) a.secret = s;
  if (const char* k = std::getenv("DOMINO_BOT_KEY")) a.key = k;
  std::map<std::string, std::string*> text = {
      {"--engine", &a.engine}, {"--match", &a.match}, {"--seat-token", &a.token},
      {"--pool", &a.pool},     {"--name", &a.name},   {"--pool-secret", &a.secret},
      {"--arena", &a.arena},   {"--version", &a.version}};
  std::map<std::string, int*> ints = {
      {"--seat", &a.seat}, {"--capacity", &a.capacity}, {"--matches", &a.matches}};
  try {
    for (int i = 1; i < argc; i++) {
      std::string f = argv[i];
      if (f == "-h" || f == "--help") std::cout << USAGE, std::exit(0);
      if (f == "-v" || f == "--verbose") { a.verbose = true; continue; }
      std::string v = i + 1 < argc ? argv[++i] : throw std::invalid_argument(f);
      if (text.count(f)) *text[f] = v;
      else if (ints.count(f)) *ints[f] = std::stoi(v);
      else if (f == "--give-up") a.give_up = std::stod(v);
      else throw std::invalid_argument(f);
    }
  } catch (const std::exception&) { std::cerr << USAGE, std::exit(2); }
  if (!a.arena.empty() && (a.version.empty() || a.key.empty()))
    std::cerr << "--arena needs --version and the bot key in DOMINO_BOT_KEY\n" << USAGE,
        std::exit(2);
  if (a.arena.empty() && a.pool.empty() && (a.match.empty() || a.token.empty()))
    std::cerr << "give --match and a seat token (--seat-token or DOMINO_SEAT_TOKEN), --pool,"
                 " or --arena\n" << USAGE, std::exit(2);
  return a;
}

// ----- the strategy: greedy -------------------------------------------------------------
// Each legal move carries its move as fields: {tile: {high, low}, place, mode}. The index of
// the legal move to play: most pips, never a barricade (unless nothing else), ties to the first.
static int pips(const v1::LegalMove& m) { return m.move().tile().high() + m.move().tile().low(); }
static int choose_greedy(const RepeatedPtrField<v1::LegalMove>& moves) {
  int best = -1;
  for (int i = 0; i < moves.size(); i++) {
    if (moves[i].move().mode() == v1::MODE_BARRICADE) continue;
    if (best < 0 || pips(moves[i]) > pips(moves[best])) best = i;
  }
  return best < 0 ? 0 : best;
}

// ----- the result, as the match record writes it (JSON written by hand) -------------------
static std::string quote(const std::string& s) {  // ids and names hold printable characters
  std::string out = "\"";
  for (char c : s) out += (c == '"' || c == '\\' ? "\\" : "") + std::string(1, c);
  return out + '"';
}

// "[f(x0), f(x1), ...]" for any list (a repeated field, a vector); f gives JSON text.
template <typename List, typename F>
static std::string join(const List& xs, F f) {
  std::string out;
  for (const auto& x : xs) out += (out.empty() ? "" : ", ") + f(x);
  return "[" + out + "]";
}
static std::string object(std::initializer_list<std::pair<const char*, std::string>> fields) {
  std::string out;
  for (const auto& [k, v] : fields) out += (out.empty() ? "" : ", ") + quote(k) + ": " + v;
  return "{" + out + "}";
}
static std::string num(int64_t x) { return std::to_string(x); }
template <typename List>
static std::string list(const List& xs) { return join(xs, num); }
static std::string groups(const RepeatedPtrField<v1::SeatGroup>& ranking) {
  return join(ranking, [](const v1::SeatGroup& g) { return list(g.seats()); });
}

static std::string record_result(const v1::MatchResult& r) {
  if (r.has_hhl())
    return object({{"totals", list(r.hhl().totals())}, {"ranking", groups(r.hhl().ranking())}});
  const v1::DomengMatchResult& d = r.domeng();
  return object({{"camat_titles", list(d.camat_titles())}, {"stones", list(d.stones())},
                 {"ranking", groups(d.ranking())},
                 {"cycles", join(d.cycles(), [](const v1::CycleResult& c) {
                    return object({{"cycle", num(c.cycle())},  // camat -1 (the round cap): null
                                   {"camat", c.camat() < 0 ? "null" : num(c.camat())},
                                   {"held", list(c.held())}, {"rounds", num(c.rounds())},
                                   {"ranking", groups(c.ranking())}});
                  })}});
}

// ----- the connection -------------------------------------------------------------------
static std::string code_name(grpc::StatusCode code) {
  const char* names[] = {"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
      "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
      "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL",
      "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"};
  return code >= 0 && code <= 16 ? names[code] : "status " + num(code);
}

// Codes worth a reconnect: the engine is away, restarting, or the stream broke.
static bool retryable(grpc::StatusCode code) {
  return code == grpc::UNAVAILABLE || code == grpc::CANCELLED || code == grpc::UNKNOWN ||
         code == grpc::INTERNAL || code == grpc::DEADLINE_EXCEEDED ||
         code == grpc::RESOURCE_EXHAUSTED || code == grpc::ABORTED;
}

// Capped exponential backoff with jitter: a wait in [d/2, d], d = 0.2 s * 2^tries <= 5 s.
// thread_local: an arena bot's lobby and seat back off on threads of their own.
static double backoff_s(int tries) {
  thread_local std::mt19937 rng(std::random_device{}());
  double d = std::min(5.0, 0.2 * (1 << std::min(tries, 5)));
  return std::uniform_real_distribution<double>(d / 2, d)(rng);
}

static std::unique_ptr<v1::Play::Stub> play_stub(const std::string& address) {
  grpc::ChannelArguments ch;  // pings every 5 s; a fresh connection for every attempt
  ch.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 5000), ch.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 3000);
  ch.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  ch.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return v1::Play::NewStub(
      grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), ch));
}

struct Bot {
  Args args;
  std::vector<std::string> results, finished;  // results as JSON, in the order matches ended
  std::map<std::string, int> seats;            // match id -> seat (a pool stream plays several)

  void log(const std::string& s) const { if (args.verbose) std::cerr << "[cpp-bot] " << s << '\n'; }
  bool done() const {
    int wanted = args.pool.empty() ? 1 : args.matches;
    return wanted > 0 && static_cast<int>(results.size()) >= wanted;
  }

  v1::BotMessage hello() const {
    v1::BotMessage m;
    v1::Hello* h = m.mutable_hello();
    h->set_client(CLIENT);
    h->set_skip_events(true);  // greedy needs only its turns: the TurnRequest's view is complete
    if (!args.arena.empty()) {  // an arena seat: the bot key stands for the seat token
      h->mutable_arena_seat()->set_match_id(args.match);
      h->mutable_arena_seat()->set_bot_key(args.key);
    } else if (args.pool.empty()) {
      h->mutable_seat()->set_match_id(args.match);
      h->mutable_seat()->set_seat_token(args.token);
    } else {
      v1::PoolEnlist* p = h->mutable_pool();
      p->set_pool(args.pool), p->set_name(args.name), p->set_capacity(args.capacity);
      p->set_secret(args.secret);
    }
    return m;
  }

  // One stream, from the Hello to its end; *welcomed tells whether the engine took us.
  grpc::Status stream(bool* welcomed) {
    auto stub = play_stub(args.engine);
    grpc::ClientContext ctx;
    auto call = stub->Connect(&ctx);
    call->Write(hello());
    v1::EngineMessage msg;
    while (call->Read(&msg)) {
      if (msg.has_welcome()) {
        const v1::Welcome& w = msg.welcome();
        *welcomed = true;
        seats[w.match_id()] = w.seat();
        log("playing match " + w.match_id() + " (" + v1::Variant_Name(w.variant()) +
            ") as seat " + num(w.seat()));
      } else if (msg.has_turn() && msg.turn().state().legal_moves_size() > 0) {
        const v1::SeatState& s = msg.turn().state();
        v1::BotMessage out;  // the move's id, at the version the TurnRequest was for
        out.mutable_move()->set_match_id(s.match_id());
        out.mutable_move()->set_version(s.version());
        out.mutable_move()->set_move_id(s.legal_moves(choose_greedy(s.legal_moves())).id());
        call->Write(out);
      } else if (msg.has_answer() && !msg.answer().accepted()) {
        const v1::MoveAnswer& a = msg.answer();   // a TurnRequest follows if still our turn
        std::cerr << "[cpp-bot] move at version " << a.submitted_version() << " refused: "
                  << a.refusal().reason() << ": " << a.refusal().message() << std::endl;
      } else if (msg.has_match_over()) {
        const v1::MatchOver& over = msg.match_over();
        if (std::find(finished.begin(), finished.end(), over.match_id()) == finished.end()) {
          finished.push_back(over.match_id());
          results.push_back(record_result(over.result()));
        }
        log("match " + over.match_id() + " over at version " + num(over.version()));
        if (done()) { call->WritesDone(); ctx.TryCancel(); break; }
      }  // snapshot, keepalive: nothing to do (and no events: skip_events)
    }
    return call->Finish();
  }

  // Stream after stream until done; returns the exit status.
  int run() {
    auto down_since = std::chrono::steady_clock::now();
    for (int tries = 0;;) {
      bool welcomed = false;
      grpc::Status st = stream(&welcomed);
      if (done()) return 0;
      if (!st.ok() && !retryable(st.error_code())) {
        std::cerr << "[cpp-bot] the engine refused: " << code_name(st.error_code()) << ": "
                  << st.error_message() << std::endl;
        return 1;
      }
      auto now = std::chrono::steady_clock::now();
      if (welcomed) tries = 0, down_since = now;
      if (args.give_up > 0 && now - down_since > std::chrono::duration<double>(args.give_up)) {
        std::cerr << "[cpp-bot] engine " << args.engine << " unreachable for " << args.give_up
                  << " s" << std::endl;
        return 1;
      }
      double wait = backoff_s(tries++);
      log("connection lost (" + (st.ok() ? "stream ended" : code_name(st.error_code())) +
          "), reconnecting in " + num(static_cast<int64_t>(wait * 1000)) + " ms");
      std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    }
  }
};

// ----- arena mode: the lobby on this thread, each seat on a thread of its own ------------
// The lobby stream has to be read for as long as it is open (keepalives, the next ArenaSeat)
// while a seat is played, so the seat gets a thread. One at a time is enough: the engine
// seats a bot in at most one match of an arena at a time (docs/arena.md).
struct ArenaLobby {
  Args args;
  std::string bot;                            // the bot's name, from the ArenaWelcome
  std::vector<std::string> results, matches;  // of the seats played to their end
  std::vector<std::string> seated;            // every ArenaSeat's match id, once each
  Bot seat;                                   // the seat in play, or the last one
  int seat_status = 0;                        // its Bot::run()
  std::thread playing;                        // plays `seat`

  void log(const std::string& s) const {
    if (args.verbose) std::cerr << "[cpp-bot arena] " << s << '\n';
  }

  // Wait for the seat in play to end, and keep its result. The seat thread writes only to
  // `seat` and `seat_status`, read here after the join: no lock needed.
  void finish_seat() {
    if (!playing.joinable()) return;
    playing.join();
    if (seat_status != 0) return;  // refused or unreachable: it said why on stderr
    matches.push_back(seat.args.match);
    results.insert(results.end(), seat.results.begin(), seat.results.end());
  }

  void play(const v1::ArenaSeat& s) {
    if (std::count(seated.begin(), seated.end(), s.match_id())) return;  // again after a reconnect
    seated.push_back(s.match_id());
    finish_seat();  // brief: the engine seats the bot again only once its last match is over
    log("seated in match " + s.match_id() + " as seat " + num(s.seat()));
    seat = Bot();  // the seat player of --match, with the bot key for a token
    seat.args = args;
    seat.args.match = s.match_id(), seat.args.pool.clear();
    if (!s.owner().empty()) seat.args.engine = s.owner();  // empty: this lobby's engine
    playing = std::thread([this] { seat_status = seat.run(); });
  }

  // One lobby stream, from the Hello to its end (an ArenaPaused ends it from this side).
  grpc::Status stream(bool* welcomed, bool* paused) {
    auto stub = play_stub(args.engine);
    grpc::ClientContext ctx;
    auto call = stub->Connect(&ctx);
    v1::BotMessage hello;
    hello.mutable_hello()->set_client(CLIENT);
    v1::ArenaEnlist* e = hello.mutable_hello()->mutable_arena();
    e->set_bot_key(args.key), e->set_version(args.version), e->set_arena(args.arena);
    // The matches still wanted: the engine ends the lobby after the last one it seats, so
    // the bot is never seated once more as it leaves.
    int left = args.matches - static_cast<int>(seated.size());
    e->set_max_matches(args.matches > 0 ? std::max(1, left) : 0);
    call->Write(hello);  // and no WritesDone: a half-close would end the lobby
    v1::EngineMessage msg;
    while (call->Read(&msg)) {
      if (msg.has_arena_welcome()) {
        const v1::ArenaWelcome& w = msg.arena_welcome();
        *welcomed = true, bot = w.name();
        log("lobby open: " + w.name() + " " + w.version() + " in " + w.arena() + ", " +
            num(w.matches()) + " matches counted");
      } else if (msg.has_arena_seat()) {
        play(msg.arena_seat());
      } else if (msg.has_arena_paused()) {  // not seated again until a new lobby Hello
        std::cerr << "[cpp-bot arena] paused: " << msg.arena_paused().message() << std::endl;
        *paused = true;
        ctx.TryCancel();
        break;
      }  // keepalive: nothing to do
    }
    return call->Finish();
  }

  // Lobby after lobby until every wanted match is seated and played; returns the exit status.
  int run() {
    auto down_since = std::chrono::steady_clock::now();
    for (int tries = 0;;) {
      bool welcomed = false, paused = false;
      grpc::Status st = stream(&welcomed, &paused);
      // Every way out waits for the seat in play: its match goes on to its end.
      if (st.ok() && args.matches > 0 && static_cast<int>(seated.size()) >= args.matches) {
        finish_seat();
        return 0;
      }
      // ABORTED: a newer lobby of this bot took over (LOBBY_REPLACED); coming back would
      // only take it back.
      grpc::StatusCode code = st.error_code();
      if (!paused && !st.ok() && (!retryable(code) || code == grpc::ABORTED)) {
        std::cerr << "[cpp-bot] the engine refused the lobby: " << code_name(code)
                  << ": " << st.error_message() << std::endl;
        finish_seat();
        return 1;
      }
      auto now = std::chrono::steady_clock::now();
      if (welcomed) tries = 0, down_since = now;
      if (args.give_up > 0 && now - down_since > std::chrono::duration<double>(args.give_up)) {
        std::cerr << "[cpp-bot] engine " << args.engine << " unreachable for " << args.give_up
                  << " s" << std::endl;
        finish_seat();
        return 1;
      }
      double wait = paused ? 30 : backoff_s(tries++);  // paused: a Hello at once would be idle
      log("lobby ended (" + (st.ok() ? "by the engine" : code_name(code)) +
          "), again in " + num(static_cast<int64_t>(wait * 1000)) + " ms");
      std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    }
  }
};

static std::string verbatim(const std::string& json) { return json; }

int main(int argc, char** argv) {
  Args a = parse_args(argc, argv);
  if (!a.arena.empty()) {
    ArenaLobby lobby;
    lobby.args = a;
    if (int status = lobby.run()) return status;
    std::cout << object({{"arena", quote(a.arena)}, {"version", quote(a.version)},
                         {"bot", lobby.bot.empty() ? "null" : quote(lobby.bot)},
                         {"results", join(lobby.results, verbatim)},
                         {"matches", join(lobby.matches, quote)}}) << std::endl;
    return 0;
  }
  Bot bot;
  bot.args = a;
  if (int status = bot.run()) return status;
  auto seat = bot.seats.find(a.match);
  std::cout << (a.pool.empty()
      ? object({{"match_id", quote(a.match)},
                {"seat", num(seat != bot.seats.end() ? seat->second : a.seat)},
                {"result", bot.results[0]}})
      : object({{"pool", quote(a.pool)}, {"name", quote(a.name)},
                {"results", join(bot.results, verbatim)},
                {"matches", join(bot.finished, quote)}})) << std::endl;
  return 0;
}
