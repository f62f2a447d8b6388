"""The engine's arena room: accounts, lobbies, the matches it hosts, the matchmakers of the
arenas whose lease it holds, and the leaderboards, on two threads of their own.

The arena thread watches the arena matches this engine hosts and stores their results, and
does two steps, each on a poll of its own (spec.polls) and at once when woken (Wake):
adopt the arena matches placed here (ADOPT), end replaced lobbies and deliver seats
(LOBBIES; DELIVER alone delivers). The matchmaking thread keeps the leases (every
LEASE_CHECK_S: take an arena whose lease no live engine holds, drop one another engine
took) and runs a cycle of each matchmaker it holds (COUNT), on its poll and when woken.
They are two because each waits on the store most of its time: on one thread, under load,
a bot freed by a result waited for the lobbies' and the hosted matches' round trips before
the matchmaker counted it, and a match's end waited for the matchmaker's before its
result was written (docs/arena.md, "End to end"). What they share is locked: the hosted
matches (host.py); the matchmaking thread leaves the delivery of the seats it makes to
the arena thread (a DELIVER wake-up). What wakes a step: this engine's own doing (a result
stored here, a lobby connected here), and on PostgreSQL another engine's write, told by
the database itself (storage/arena_sql.py PG_WAKES, heard by storage/listener.py): a
result stored there or a lobby connected there wakes the matchmaker, a match made
elsewhere wakes the engine it is placed on and those holding its bots' lobbies. A
wake-up is a hint: the polls find the same work, so a lost one delays it by a poll and
loses nothing. A step that fails is logged and tried again at the next round: neither
thread dies silently, and one arena's failure stops nothing else.

Leaderboards are recomputed on every engine from the counted results, incrementally: each
engine folds the results it has not read yet (those with a higher sequence number) into
its board when asked. The matchmaker is the only writer of sequence numbers and commits
them in order, so a reader never misses one; no engine needs another's ratings, and after
any restart the board is again the fold of the stored results. A GetLeaderboard is
answered from a cached answer per view (board_cache.py), with the skill figures of a
sample of analysed matches (skill.py).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import OrderedDict

from ladders.leaderboard import PROVISIONAL_BELOW, Board
from ladders.matchmaking import Candidate

from ...rules.errors import shown
from ..errors import EngineError, Reason
from ..security.keys import Principal, new_secret
from ..storage.arena_sql import COUNTED, VOIDED, WAKE_CHANNEL, ArenaStore
from ..storage.rows import Fenced, store_away
from . import spec as arena_spec
from .accounts import RESIDENT_PREFIX, Accounts, BotInfo
from .board_cache import Leaderboards
from .host import Host
from .lobbies import Lobbies, LobbyStream
from .matchmaker import Matchmaker
from .residents import Residents
from .skill import NO_FIGURES, ArenaSkill
from .spec import ADOPT, COUNT, DELIVER, LOBBIES, RESIDENT_OWNER, RESIDENT_VERSION
from .standbys import Standbys, StandbyStream

log = logging.getLogger(__name__)

LEASE_S = 2.0           # the cluster's lease (cluster/membership.py LEASE_S): the same rule
LEASE_CHECK_S = 0.5     # how often the leases are kept (the cluster's heartbeat)
PUBLIC_SETS_KEPT = 4096  # duplicate sets known public, kept so that a view reads no store
HEARD = {COUNT, ADOPT, DELIVER}   # the steps another engine's write may wake (PG_WAKES)


def until_due(due: dict[str, float], steps, now: float) -> float:
    """Seconds from `now` until the next poll of these steps is due, at most LEASE_CHECK_S
    (a round also retries the results the store refused, and plays the no-shows). A step
    never polled yet is not due: ADOPT is polled only in a cluster, and counting it due
    made a lone engine's arena thread run its rounds without a pause."""
    return max(0.0, min([now + LEASE_CHECK_S, *(due[s] for s in steps if s in due)]) - now)


class Wake(frozenset):
    """The steps the next round does now, whatever their polls say (in the inbox)."""


POKE = Wake((COUNT, ADOPT, LOBBIES))      # every step


class Arenas:
    def __init__(self, engine, specs=(), residents: dict | None = None):
        """`specs`: the arenas this engine runs a matchmaker for (spec.parse); `residents`:
        strategy name -> a function making that strategy (from the composition root)."""
        self.engine = engine
        self.store = ArenaStore(engine.store)
        self.store.ensure()
        self.specs = {s["id"]: arena_spec.check(s) for s in specs}
        self.residents = Residents(residents or {})
        self.accounts = Accounts(self.store)
        self.inbox: queue.SimpleQueue = queue.SimpleQueue()
        self.host = Host(self)
        self.lobbies = Lobbies(self)
        self.standbys = Standbys(self)
        self.matchmakers: dict[str, Matchmaker] = {}
        self.lease_s = LEASE_S
        self.cycle_s, self.delivery_s = arena_spec.polls()
        self._due: dict[str, float] = {}         # step -> when its poll is due next
        self._listener = None                     # the store's wake-ups (PostgreSQL)
        self._known: dict[str, dict] = {}        # arena id -> spec, from the store
        self._resident_bots: dict[str, BotInfo] = {}
        self._boards: dict[str, Board] = {}
        self._public_sets: OrderedDict = OrderedDict()   # (arena, set) known to be public
        # Folding reads the store under _fold_lock, one folder at a time; the boards
        # themselves change and are read under _board_lock, never held over a store read,
        # so that a cached leaderboard's rows are made again without waiting on the store.
        self._fold_lock = threading.Lock()
        self._board_lock = threading.Lock()
        self.skill = ArenaSkill(engine)
        self.leaderboards = Leaderboards(self)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._matchmaking = threading.Event()    # the matchmaking thread's wake-up (COUNT)
        self._last_lease = 0.0

    # ----- lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        """Define this engine's arenas (an existing row wins), make the residents' bots,
        and start the arena thread. Only a cluster member runs it without arenas of its
        own (it may host arena matches and lobbies of arenas other engines run)."""
        for arena_id, s in self.specs.items():
            self.store.add_arena(arena_id, s, new_secret())
        self._resident_bots = self.accounts.residents(self.residents.names)
        self._load_known()
        if not self.specs and self.engine.cluster is None:
            return
        self._listener = self.engine.store.listen(WAKE_CHANNEL, self._heard)
        self._threads = [threading.Thread(target=self._run, name="arena", daemon=True)]
        if self.specs:
            self._threads.append(threading.Thread(target=self._run_matchmaking,
                                                  name="arena-matchmaking", daemon=True))
        for thread in self._threads:
            thread.start()

    def _load_known(self) -> None:
        for arena_id in self.store.arena_ids():
            if arena_id not in self._known:
                found = self.store.arena(arena_id)
                if found is not None:
                    self._known[arena_id] = found[0]

    def poke(self) -> None:
        self.wake(*POKE)

    def wake(self, *steps: str) -> None:
        if COUNT in steps:
            self._matchmaking.set()
        rest = Wake(steps) - {COUNT}
        if rest:
            self.inbox.put(Wake(rest))

    def _heard(self, payload: str | None) -> None:
        """A wake-up from the store (listener.py's thread): "ENGINE STEP", for this engine
        or another; None when the listener (re)starts, and anything may have been missed.
        Anyone who can write to the database can send one: it only ever wakes a step."""
        if payload is None:
            self.poke()
            return
        engine_id, _, step = payload.partition(" ")
        if step in HEARD and engine_id and engine_id == self.store.engine_id:
            self.wake(step)

    def _stop_matchmaker(self, arena_id: str) -> bool:
        """Stop the arena's matchmaker here; False when another thread already did. Two
        threads may: a drain lets go from the main thread while the arena thread lets go on
        seeing the drain, or finds the lease taken (a KeyError here once failed a SIGTERM)."""
        mm = self.matchmakers.pop(arena_id, None)
        if mm is None:
            return False
        mm.stop()
        return True

    def let_go(self, why: str) -> None:
        """Stop every matchmaker here and release its lease (draining, or taken for dead)."""
        for arena_id in list(self.matchmakers):
            if not self._stop_matchmaker(arena_id):
                continue
            try:
                self.store.release_lease(arena_id)
            except Exception:   # noqa: BLE001 - it then runs out like a dead engine's
                log.warning("arena %s: could not release its lease (%s)", arena_id, why)

    def close(self) -> None:
        self._stop.set()
        if self._listener is not None:
            self._listener.close()
        self.poke()
        for thread in self._threads:
            thread.join(5)
        self.lobbies.close()
        self.standbys.close()
        self.host.close()
        self.residents.close()
        self.leaderboards.close()

    # ----- the arena thread ----------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            woken: set[str] = set()
            try:
                item = self.inbox.get(timeout=until_due(self._due, (ADOPT, LOBBIES),
                                                         time.time()))
                while True:
                    if isinstance(item, Wake):
                        woken |= item
                    else:
                        self._guard("a match update", self.host.handle, item)
                    item = self.inbox.get_nowait()
            except queue.Empty:
                pass
            if self._stop.is_set():
                return
            try:
                self._round(woken)
            except Exception:   # a bug: said, and the next round goes on
                log.exception("arena: a round failed; going on")

    def _polled(self, step: str, woken: set[str], now: float, every: float) -> bool:
        """Whether `step` runs this round (woken, or its poll due), and its next poll."""
        if step not in woken and now < self._due.get(step, 0.0):
            return False
        self._due[step] = now + every
        return True

    def _guard(self, what: str, step, *args) -> None:
        try:
            step(*args)
        except Fenced:
            raise
        except Exception as e:   # never silent; the next round tries again
            if store_away(e):
                log.warning("arena: %s failed, the store is away (%s); trying again", what, e)
            else:
                log.exception("arena: %s failed; trying again", what)

    def _round(self, woken: set[str]) -> None:
        now = time.time()
        if self.engine.cluster is not None and self._polled(ADOPT, woken, now,
                                                            self.delivery_s):
            self._guard("adopting placed matches", self.host.adopt_placed)
        self._guard("tracking arena matches", self.host.scan)
        self._guard("no-shows", self.host.no_shows, now)
        self._guard("storing results", self.host.write_results)
        if self._polled(LOBBIES, woken, now, self.delivery_s):
            self._guard("the lobbies", self.lobbies.tick)
            self._guard("the standby streams' keys", self.standbys.tick, now)
        elif DELIVER in woken:
            self._guard("delivering seats", self.lobbies.deliver)

    # ----- the matchmaking thread ------------------------------------------------------------
    def _run_matchmaking(self) -> None:
        while not self._stop.is_set():
            now = time.time()
            woken = self._matchmaking.wait(min(until_due(self._due, (COUNT,), now),
                                               max(0.0, self._last_lease + LEASE_CHECK_S - now)))
            self._matchmaking.clear()
            if self._stop.is_set():
                return
            try:
                self._matchmaking_round({COUNT} if woken else set())
            except Exception:   # a bug: said, and the next round goes on
                log.exception("arena: a matchmaking round failed; going on")

    def _matchmaking_round(self, woken: set[str]) -> None:
        now = time.time()
        if now - self._last_lease >= LEASE_CHECK_S:
            self._last_lease = now
            self._guard("keeping the leases", self._keep_leases)
        if self._polled(COUNT, woken, now, self.cycle_s):
            for arena_id, mm in list(self.matchmakers.items()):
                try:
                    self._guard(f"arena {arena_id}'s matchmaker", mm.cycle, now)
                except Fenced:
                    log.warning("arena %s: another engine runs its matchmaker now", arena_id)
                    self.matchmakers.pop(arena_id, None)
                    self.store.epochs.pop(arena_id, None)
                    continue
                if mm.held_until is not None:   # the next cycle no later than it is let go
                    self._due[COUNT] = min(self._due[COUNT], mm.held_until)

    def _keep_leases(self) -> None:
        if self.engine.cluster is not None and self.engine.cluster.draining:
            self.let_go("draining")
            return
        leases = self.store.leases(self.specs, self.lease_s)    # every arena's, in one read
        for arena_id in list(self.matchmakers):
            if not self.store.holds_lease(arena_id, leases.get(arena_id)):
                log.warning("arena %s: its lease was taken by another engine", arena_id)
                self._stop_matchmaker(arena_id)
        for arena_id in self.specs:
            if arena_id in self.matchmakers or arena_id not in leases:
                continue
            if self.store.take_lease(arena_id, self.lease_s, leases[arena_id]) is None:
                continue
            found = self.store.arena(arena_id)
            if found is None:
                continue
            s, secret = found
            self._known[arena_id] = s
            mm = Matchmaker(self, s, secret)
            mm.start()
            self.matchmakers[arena_id] = mm
            self.wake(COUNT)     # its first cycle now, not at its poll

    # ----- what the other parts ask ---------------------------------------------------------
    def spec_of(self, arena_id: str) -> dict:
        arena_spec.arena_id(arena_id, "arena_id")
        if arena_id not in self._known:
            self._load_known()
        s = self._known.get(arena_id)
        if s is None:
            raise EngineError(Reason.UNKNOWN_ARENA, f"no arena {shown(arena_id)}; the "
                              f"arenas are {', '.join(sorted(self._known)) or 'none'}")
        return s

    def deal_hidden(self, settings: dict) -> str | None:
        """Why what shows the tiles of the match with these settings (its record, its
        spectator view) is not public yet; None once it is. Only a duplicate arena's matches
        are ever hidden: the rotations of a set play one deal, one after another, so a
        finished one's record would show the next one's hands. A set is public once no
        rotation of it is in play or will be made (ArenaStore.close_set)."""
        meta = settings.get("arena")
        if not meta or not self.spec_of(meta["arena"])["duplicate"]:
            return None
        key = (meta["arena"], meta["set"])
        if key in self._public_sets:
            return None
        if self.store.set_open(*key):
            return (f"it plays the deal of a set of duplicate arena {meta['arena']}, whose "
                    "rotations play one deal: its record and views are public once no "
                    "rotation of the set is in play or to come")
        with self._board_lock:
            self._public_sets[key] = None
            while len(self._public_sets) > PUBLIC_SETS_KEPT:
                self._public_sets.popitem(last=False)
        return None

    def variant_of(self, arena_id: str) -> str:
        return self.spec_of(arena_id)["variant"]

    def seat_wait(self, arena_id: str) -> float:
        return self.spec_of(arena_id)["seat_wait_s"]

    def is_resident(self, bot_id: str) -> bool:
        return bot_id.startswith(RESIDENT_PREFIX)

    def bot_name(self, bot_id: str) -> str:
        info = self.accounts.infos([bot_id]).get(bot_id)
        return info.name if info else bot_id

    def resident_candidates(self, arena_id: str, board: Board) -> list[Candidate]:
        out = []
        for info in self._resident_bots.values():
            key = (info.bot_id, RESIDENT_VERSION)
            entry = board.entries.get(key)
            out.append(Candidate(key, RESIDENT_OWNER, entry.mu if entry else 25.0, 0.0, True))
        return out

    def board(self, arena_id: str) -> Board:
        """The arena's leaderboard, with every result counted so far folded in."""
        variant = self.spec_of(arena_id)["variant"]
        with self._fold_lock:
            board = self._boards.get(arena_id)
            if board is None:
                with self._board_lock:
                    board = self._boards[arena_id] = Board(variant)
            while True:
                found = self.store.counted_after(arena_id, board.last_sequence)
                with self._board_lock:
                    for r in found:
                        if board.add(r):
                            self.skill.note(arena_id, r, board)
                if len(found) < 5000:
                    return board

    def fold(self, arena_id: str, counted: list[dict]) -> Board:
        """The arena's board with `counted` folded in: results the matchmaker here has just
        numbered (each with its "sequence"), in order. Folded from memory when they follow
        the board's last (a reader's fold may have taken some of them already): the
        matchmaker is the only writer of the numbers, so the store has nothing else to
        give, and reading it back cost the matchmaking thread a round trip a cycle. Else
        the board reads what it has not folded (board())."""
        board = self._boards.get(arena_id)
        if board is not None:
            with self._board_lock:
                rest = [r for r in counted if r["sequence"] > board.last_sequence]
                follows = [r["sequence"] for r in rest] == list(
                    range(board.last_sequence + 1, board.last_sequence + 1 + len(rest)))
                if follows:
                    for r in rest:
                        if board.add(r):
                            self.skill.note(arena_id, r, board)
                    return board
        return self.board(arena_id)

    def folded(self, arena_id: str) -> int:
        """The last sequence number folded into this engine's board (-1: none yet)."""
        board = self._boards.get(arena_id)
        return board.last_sequence if board is not None else -1

    # ----- the Play stream: lobbies and seats ------------------------------------------------
    def enlist(self, bot_key: str, version: str, arena_id: str, stream: LobbyStream,
               max_matches: int = 0):
        """A lobby (Hello.arena): (the lobby, its bot's rating (mu, sigma, matches))."""
        from ..security import limits
        arena_spec.version(version, "hello.arena.version")
        arena_spec.arena_id(arena_id, "hello.arena.arena")
        limits.integer(max_matches, "hello.arena.max_matches", 1, limits.LOBBY_MATCHES_MAX,
                       zero_ok=True)
        bot = self.accounts.authenticate(bot_key, "hello.arena.bot_key")
        self.spec_of(arena_id)
        lobby = self.lobbies.enlist(bot, bot_key, version, arena_id, stream, max_matches)
        entry = self.board(arena_id).entries.get((bot.bot_id, version))
        rating = (entry.mu, entry.sigma, entry.matches) if entry else (25.0, 25.0 / 3, 0)
        return lobby, rating

    def seat_stream(self, match_id: str, bot_key: str):
        """A registered bot's seat stream (Hello.arena_seat): (referee, seat)."""
        from ..security import limits
        limits.match_id(match_id, "hello.arena_seat.match_id")
        with self.host.arriving(match_id):   # come in time, whatever the check takes
            bot = self.accounts.authenticate(bot_key, "hello.arena_seat.bot_key")
            return self.host.seat_stream(match_id, bot)

    def standby(self, bot_key: str, arena_id: str, stream: StandbyStream) -> str:
        """A registered bot's standby stream (Hello.arena_standby): its pool's name."""
        arena_spec.arena_id(arena_id, "hello.arena_standby.arena")
        bot = self.accounts.authenticate(bot_key, "hello.arena_standby.bot_key")
        self.spec_of(arena_id)
        return self.standbys.enlist(bot, bot_key, arena_id, stream)

    # ----- accounts -----------------------------------------------------------------------
    def register(self, principal: Principal, name: str, description: str):
        return self.accounts.register(principal, name, description)

    def rotate(self, principal: Principal, name: str):
        out = self.accounts.rotate(principal, name)
        self.poke()
        return out

    def retire(self, principal: Principal, name: str):
        out = self.accounts.retire(principal, name)
        self.leaderboards.changed()     # its rows say retired from the next GET on
        self.poke()
        return out

    # ----- reading ------------------------------------------------------------------------
    def list_arenas(self) -> list[dict]:
        self._load_known()
        out = []
        for arena_id in sorted(self._known):
            s = self._known[arena_id]
            counts = self.store.count_matches(arena_id)
            present = self.store.present(arena_id, self.lease_s)
            holder = self.store.lease_holder(arena_id, self.lease_s)
            out.append({**s, "bots_online": len(present),
                        "matches_playing": counts.get("placing", 0) + counts.get("playing", 0),
                        "matches_counted": counts.get(COUNTED, 0),
                        "matches_voided": counts.get(VOIDED, 0),
                        "matchmaker": self.store.address_of(holder) if holder else "",
                        "residents": [b.name for b in self._resident_bots.values()],
                        "provisional_below": PROVISIONAL_BELOW})
        return out

    def leaderboard(self, arena_id: str, all_versions: bool = False, limit: int = 0,
                    asked: tuple[int, int] | None = None) -> dict:
        """The cached answer (board_cache.py): no store read while it is fresh. `asked`:
        `leaderboard_asked` when the call came, if it waited its turn since."""
        self.spec_of(arena_id)
        b = self.leaderboards.get(arena_id, all_versions, asked)
        return {**b, "rows": b["rows"][:limit]} if limit else b

    def leaderboard_ready(self, arena_id: str, all_versions: bool = False) -> dict | None:
        """The cached answer when it needs no work at all (no store read, no rows to make),
        else None: what may be answered on the server's event loop."""
        arena_spec.arena_id(arena_id, "arena_id")
        if arena_id not in self._known:
            return None
        return self.leaderboards.ready(arena_id, all_versions)

    def leaderboard_asked(self, arena_id: str) -> tuple[int, int]:
        """What an answer of the arena's leaderboard must hold to be as new as this moment
        (board_cache.Leaderboards.now)."""
        return self.leaderboards.now(arena_id)

    def online(self, arena_id: str) -> dict:
        """(bot, version) -> connected since, of the lobbies on live engines."""
        return {(b, v): c for b, v, _, _, c, _ in self.store.present(arena_id, self.lease_s)}

    def compose(self, arena_id: str, all_versions: bool, online: dict,
                read: bool = True) -> dict:
        """A leaderboard from the board as folded here and the presence `online`: nothing
        is read from the store but the facts of bots not seen before, and with `read`
        false not even those (their rows wait for the next refresh)."""
        board = self._boards.get(arena_id) or self.board(arena_id)
        with self._board_lock:
            keys = self._shown(board, all_versions, online)
        infos = self.accounts.infos({k[0] for k in keys}, read=read)
        skill = self.skill.figures(arena_id)
        with self._board_lock:
            rows = self._rows(board, keys, online, infos, skill)
            return {"arena_id": arena_id, "variant": board.variant,
                    "all_versions": all_versions, "matches": board.matches,
                    "last_sequence": board.last_sequence, "rows": rows}

    def _shown(self, board: Board, all_versions: bool, online: dict) -> set:
        """The (bot, version)s a view lists: each bot's latest version, or every one."""
        keys = set(board.entries) | set(online)
        keys |= {(b.bot_id, RESIDENT_VERSION) for b in self._resident_bots.values()}
        if all_versions:
            return keys
        latest = board.latest_versions()
        for (bot, version) in online:
            latest.setdefault(bot, version)
        return {k for k in keys if latest.get(k[0], k[1]) == k[1]}

    def _rows(self, board: Board, keys, online: dict, infos: dict, skill: dict) -> list[dict]:
        now = time.time()
        rows = []
        for key, e in board.ordered(keys):
            info = infos.get(key[0])
            if info is None:
                continue
            mean, ci95 = e.mean_ci()
            resident = bool(info.resident)
            here = key in online or resident
            figures = skill.get(key, NO_FIGURES)
            rows.append({"place": len(rows) + 1, "bot_id": info.bot_id, "name": info.name,
                         "version": key[1], "owner": info.owner, "mu": e.mu,
                         "sigma": e.sigma, "score": e.score,
                         "provisional": e.matches < PROVISIONAL_BELOW, "matches": e.matches,
                         "mean": mean, "ci95": ci95, "faults": dict(e.faults),
                         "online": here, "last_seen": now if here else e.last_played,
                         "resident": resident, "retired": bool(info.retired),
                         "analysed": figures["analysed"], "mean_loss": figures["mean_loss"],
                         "luck_share": figures["luck_share"]})
        return rows

    def profile(self, name: str) -> dict:
        bot = self.accounts.by_name(name)
        presence = {(a, v): (c, f, p) for a, v, c, f, p in
                    self.store.presence_of(bot.bot_id, self.lease_s)}
        live = [m for m in self.store.bot_matches(bot.bot_id, 0, 20) if m[3] in
                ("placing", "playing")]
        busy = {m[1] for m in live}
        versions = []
        self._load_known()
        for arena_id in sorted(self._known):
            board = self.board(arena_id)
            keys = {k for k in board.entries if k[0] == bot.bot_id}
            keys |= {(bot.bot_id, v) for a, v in presence if a == arena_id}
            if not keys:
                continue
            online = {k: presence[(arena_id, k[1])][0] for k in keys
                      if (arena_id, k[1]) in presence}
            shown = board.entries.keys() | keys
            infos = self.accounts.infos({k[0] for k in shown})
            with self._board_lock:
                every = self._rows(board, shown, online, infos, self.skill.figures(arena_id))
            rows = {(r["bot_id"], r["version"]): r for r in every}
            latest = board.latest_versions().get(bot.bot_id)
            for key in sorted(keys, key=lambda k: (k[1] != latest, k[1])):
                here = presence.get((arena_id, key[1]))
                paused = here[2] if here else ""
                versions.append({"arena_id": arena_id, "version": key[1], "row": rows[key],
                                 "online": here is not None,
                                 "free": here is not None and not paused and arena_id not in busy,
                                 "paused": paused, "connected": here[0] if here else 0.0})
        return {"bot": bot, "versions": versions, "live": [self._match(m, {}) for m in live]}

    def bot_matches(self, name: str, limit: int, before: float) -> tuple[list[dict], bool]:
        bot = self.accounts.by_name(name)
        found = self.store.bot_matches(bot.bot_id, before, limit + 1)
        results = self.store.results_of([m[0] for m in found[:limit] if m[3] == COUNTED])
        return [self._match(m, results) for m in found[:limit]], len(found) > limit

    def _match(self, m: tuple, results: dict[str, dict]) -> dict:
        """A match of a bot's list; `results`: the results of those counted."""
        match_id, arena_id, lineup, status, created, set_no, rotation = m
        infos = self.accounts.infos(k[0] for k in lineup)
        result = results.get(match_id) if status == COUNTED else None
        return {"match_id": match_id, "arena_id": arena_id,
                "status": "playing" if status == "placing" else status,
                "lineup": [self._seat_entry(k, infos) for k in lineup], "created": created,
                "result": result, "set": set_no, "rotation": rotation}

    def _seat_entry(self, key, infos) -> dict:
        info = infos.get(key[0])
        return {"bot_id": key[0], "name": info.name if info else key[0], "version": key[1],
                "resident": bool(info and info.resident)}

    def history(self, arena_id: str, name: str, version: str, limit: int) -> dict:
        bot = self.accounts.by_name(name)
        board = self.board(arena_id)
        if version:
            arena_spec.version(version)
        else:
            version = board.latest_versions().get(bot.bot_id, "")
        return {"arena_id": arena_id, "bot_id": bot.bot_id, "name": bot.name,
                "version": version, "points": board.history((bot.bot_id, version), limit)}
