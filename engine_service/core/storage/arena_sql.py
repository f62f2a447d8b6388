"""The arena's rows, the same on SQLite and PostgreSQL: registered bots, arenas (with the
matchmaker's lease), presence, arena matches and their seats, arena results.

The tables are the arena room's own: made here, on first use, by `ArenaStore.ensure`
(`CREATE TABLE IF NOT EXISTS`; on PostgreSQL under an advisory lock so that engines
started together make them once), beside the match store's own schema and versions.
Statements use the match store's `_read` and `_write` with `?` placeholders, as sql.py
does; the few that need the cluster's clock or its engines table (PostgreSQL only) are
chosen by `store.shared`.

On PostgreSQL the database also tells the engine concerned of a few of these writes at
once (PG_WAKES, below).

Who writes what: bots and presence rows are written by whichever engine a request or a
lobby reaches; an arena's matches, their seats and the sequence numbers of its results
only by the engine holding the arena's lease, each write fenced by (owner, epoch) like a
match's (sql.py); a result row by the engine that owned the match when it ended, inserted
once (keyed by the match id).
"""

from __future__ import annotations

import contextlib
import copy
import json
import time
from collections.abc import Iterator

from .rows import (
    MATCH_COLUMNS,
    AlreadyDone,
    Fenced,
    MatchRow,
    StoreUnavailable,
    expected,
    match_row,
    match_values,
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS arena_bots (
    bot_id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    owner TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    created REAL NOT NULL,
    retired REAL NOT NULL DEFAULT 0,        -- when retired, Unix seconds; 0: active
    resident TEXT NOT NULL DEFAULT ''       -- a resident's strategy; '' for a registered bot
);
CREATE INDEX IF NOT EXISTS arena_bots_by_owner ON arena_bots (owner);
CREATE TABLE IF NOT EXISTS arenas (
    id TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    secret TEXT NOT NULL,                   -- the key of its match seeds: never shown
    created REAL NOT NULL,
    owner TEXT,                             -- the engine running its matchmaker
    epoch INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS arena_presence (
    bot_id TEXT NOT NULL,
    arena TEXT NOT NULL,
    version TEXT NOT NULL,
    engine TEXT NOT NULL,                   -- the engine holding the lobby ('' alone)
    session TEXT NOT NULL,                  -- which lobby stream: a new one replaces it
    connected REAL NOT NULL,
    free_since REAL NOT NULL,               -- since when it is free; 0 while seated
    paused TEXT NOT NULL DEFAULT '',        -- why the matchmaker skips it; '' when not
    seat_limit INTEGER NOT NULL DEFAULT 0,  -- ArenaEnlist.max_matches (0: none)
    seated INTEGER NOT NULL DEFAULT 0,      -- matches this lobby was seated in
    PRIMARY KEY (bot_id, arena)
);
-- No statement looks a session up now, and none is given an index on engine: SQLite then
-- began the delivery look from the presence rows of the engine, not from the seats not
-- sent, and read every seat of their bots (0.4 ms became 550 ms over 100,000 matches).
DROP INDEX IF EXISTS arena_presence_by_session;
CREATE TABLE IF NOT EXISTS arena_matches (
    match_id TEXT PRIMARY KEY,
    arena TEXT NOT NULL,
    lineup TEXT NOT NULL,                   -- [[bot id, version] by seat]
    status TEXT NOT NULL,                   -- placing | playing | counted | voided
    created REAL NOT NULL,
    engine TEXT NOT NULL DEFAULT '',        -- the engine it was placed on
    set_no INTEGER NOT NULL DEFAULT 0,
    rotation INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS arena_matches_by_status ON arena_matches (arena, status);
CREATE TABLE IF NOT EXISTS arena_seats (
    match_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    bot_id TEXT NOT NULL,
    version TEXT NOT NULL,
    arena TEXT NOT NULL,
    delivered INTEGER NOT NULL DEFAULT 0,   -- when sent to the bot's lobby, Unix ms; 0: not
                                            -- yet (1: sent, when not kept: older engines)
    created REAL NOT NULL,
    PRIMARY KEY (match_id, seat)
);
CREATE INDEX IF NOT EXISTS arena_seats_by_bot ON arena_seats (bot_id, created);
-- The seats not yet sent: each engine looks for them every DELIVERY_S, and in a standing
-- arena the seats ever made grow without end, so the look reads only these.
CREATE INDEX IF NOT EXISTS arena_seats_undelivered ON arena_seats (match_id) WHERE delivered = 0;
CREATE TABLE IF NOT EXISTS arena_results (
    match_id TEXT PRIMARY KEY,
    arena TEXT NOT NULL,
    seq INTEGER,                            -- counting order in the arena; NULL: not yet
    ended REAL NOT NULL,
    row TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS arena_results_by_seq ON arena_results (arena, seq);
CREATE TABLE IF NOT EXISTS arena_sets_closed (   -- duplicate sets no rotation will follow
    arena TEXT NOT NULL,
    set_no INTEGER NOT NULL,
    PRIMARY KEY (arena, set_no)
);
"""
ARENA_CREATOR = "arena"       # MatchRow.created_by of every arena match
# Wake-ups (PostgreSQL only). Across engines the arena's work passes through these rows, each
# found by a poll of the engine that acts on it (room.py); the database tells that engine
# at once instead, as the write commits, on WAKE_CHANNEL, with the payload "ENGINE STEP":
# - a result inserted, or a lobby connected (a bot free): the arena's lease holder, `count`;
# - an arena match's row inserted (the last write of its making): its owner, `adopt`, and
#   each engine holding a lobby of its bots, `deliver`.
# Triggers, so that no writer, present or future, can forget to tell, and the telling costs
# no round trip. The payloads carry engine ids and step names only, nothing secret.
WAKE_CHANNEL = "domino_arena"
PG_WAKES = f"""
CREATE OR REPLACE FUNCTION domino_arena_wake_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{WAKE_CHANNEL}', a.owner || ' count') FROM arenas a
        WHERE a.id = NEW.arena AND a.owner IS NOT NULL;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION domino_arena_wake_made() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{WAKE_CHANNEL}', NEW.owner || ' adopt') WHERE NEW.owner IS NOT NULL;
    PERFORM pg_notify('{WAKE_CHANNEL}', lobby.engine || ' deliver') FROM (
        SELECT DISTINCT p.engine FROM arena_seats s JOIN arena_presence p ON
            p.bot_id = s.bot_id AND p.arena = s.arena AND p.version = s.version
        WHERE s.match_id = NEW.id) lobby;
    RETURN NULL;
END $$;
DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'domino_arena_result'
                   AND tgrelid = 'arena_results'::regclass) THEN
        CREATE TRIGGER domino_arena_result AFTER INSERT ON arena_results
            FOR EACH ROW EXECUTE FUNCTION domino_arena_wake_count();
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'domino_arena_lobby'
                   AND tgrelid = 'arena_presence'::regclass) THEN
        CREATE TRIGGER domino_arena_lobby AFTER INSERT OR UPDATE OF session ON arena_presence
            FOR EACH ROW EXECUTE FUNCTION domino_arena_wake_count();
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'domino_arena_made'
                   AND tgrelid = 'matches'::regclass) THEN
        CREATE TRIGGER domino_arena_made AFTER INSERT ON matches
            FOR EACH ROW WHEN (NEW.created_by = '{ARENA_CREATOR}')
            EXECUTE FUNCTION domino_arena_wake_made();
    END IF;
END $$;
"""
# PostgreSQL's REAL is 4 bytes and its INTEGER 4: times and counters need 8.
PG_SCHEMA = SCHEMA.replace(" REAL", " double precision").replace(" INTEGER", " bigint") \
    + PG_WAKES
SCHEMA_LOCK = 0x6172656E61   # "arena": the advisory lock engines take to make the tables

PLACING, PLAYING, COUNTED, VOIDED = "placing", "playing", "counted", "voided"
IN_PLAY = (PLACING, PLAYING)
# The parameters one statement takes, at most: under SQLite's limit before 3.32 (999), so
# that a long list (a cycle's matches, their seats, the bots they free) goes in as few
# statements as any SQLite allows.
PARAMETERS = 990


def _marks(values) -> str:
    return ", ".join("?" * len(values))


def _rows(width: int, n: int) -> str:
    """`n` rows of `width` placeholders, for a VALUES list."""
    row = "(" + ", ".join("?" * width) + ")"
    return ", ".join([row] * n)


def _parts(items: list, width: int = 1) -> list[list]:
    """`items` in parts that one statement each can name, `width` parameters an item."""
    per = max(1, (PARAMETERS - 10) // width)     # room for a few more (the fence's)
    return [items[i:i + per] for i in range(0, len(items), per)]


class ArenaStore:
    """The arena's rows in the match store `store` (a SQLStore)."""

    def __init__(self, store):
        self.store = store
        self.epochs: dict[str, int] = {}   # arena id -> epoch, of the arenas whose lease we hold
        self._add = None     # queues the writes of a transaction (together); None: each alone

    def ensure(self) -> None:
        if self.store.kind == "postgresql":
            import psycopg
            import psycopg_pool

            try:
                self.store.make_tables(PG_SCHEMA, SCHEMA_LOCK)
            except (psycopg.Error, psycopg_pool.PoolTimeout) as e:
                why = str(e).strip().splitlines()[0][:200] if str(e).strip() else type(e).__name__
                raise StoreUnavailable(f"the store {self.store.path} did not make the arena's "
                                       f"tables: {why}") from None
            return
        bare = "\n".join(line.split("--")[0] for line in SCHEMA.splitlines())
        for statement in filter(str.strip, bare.split(";")):
            self.store._write(statement)

    def _r(self, sql: str, args: tuple = ()) -> list[tuple]:
        if self._add is not None:
            raise RuntimeError("a read inside together(): its writes are made at its end")
        return self.store.read(sql, args)

    def _w(self, sql: str, args: tuple = (), expect: int | None = None,
           refused: Exception | None = None) -> int | None:
        """A write: the rows it changed (None inside together, where it is made later); one
        that changes another number than `expect` raises `refused`."""
        if self._add is not None:
            self._add(sql, args, expect, refused)
            return None
        changed = self.store.write(sql, args)
        expected(changed, expect, refused)
        return changed

    @contextlib.contextmanager
    def together(self) -> Iterator[ArenaStore]:
        """This store, its writes within made at the block's end in one transaction, in one
        or two round trips (SQLStore.batch): all of them, or none when one fails (the store
        away, a fence refused). A cycle's tables took six, one after another."""
        with self.store.batch() as add:
            inside = copy.copy(self)
            inside._add = add
            yield inside

    @property
    def engine_id(self) -> str:
        return self.store.engine_id or ""

    # ----- the cluster's view of engines ------------------------------------------------
    def _live(self, column: str, lease_s: float) -> tuple[str, tuple]:
        """SQL true when the engine named in `column` is alive ('' is the lone engine of
        a store no cluster shares: always alive)."""
        if not self.store.shared:
            return "TRUE", ()
        return (f"EXISTS (SELECT 1 FROM engines e WHERE e.id = {column} AND e.heartbeat >= "
                "now() - make_interval(secs => ?))", (lease_s,))

    def address_of(self, engine_id: str) -> str:
        if not self.store.shared or not engine_id:
            return ""
        rows = self._r("SELECT address FROM engines WHERE id = ?", (engine_id,))
        return rows[0][0] if rows else ""

    # ----- bots -------------------------------------------------------------------------
    BOT_COLUMNS = "bot_id, name, description, owner, created, retired, resident"

    def add_bot(self, bot_id: str, name: str, description: str, owner: str, key_hash: str,
                created: float, resident: str = "") -> bool:
        """False when the name (or id) is taken."""
        return self._w("INSERT INTO arena_bots (bot_id, name, description, owner, key_hash, "
                       "created, resident) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                       (bot_id, name, description, owner, key_hash, created, resident)) == 1

    def bot_by_hash(self, key_hash: str) -> tuple | None:
        rows = self._r(f"SELECT {self.BOT_COLUMNS} FROM arena_bots WHERE key_hash = ?",
                       (key_hash,))
        return rows[0] if rows else None

    def keys_in_use(self, key_hashes: list[str]) -> dict[str, float]:
        """key hash -> its bot's `retired` (0 while active), of those of `key_hashes` that
        are some bot's key now (a rotated one is no longer). One statement whatever their
        number, the list passed as one parameter (an IN list made a new statement at each
        look: ArenaStore.sessions)."""
        if not key_hashes:
            return {}
        if self.store.kind == "postgresql":
            sql = "SELECT key_hash, retired FROM arena_bots WHERE key_hash = ANY(?)"
            args = (list(key_hashes),)
        else:
            sql = ("SELECT key_hash, retired FROM arena_bots "
                   "WHERE key_hash IN (SELECT value FROM json_each(?))")
            args = (json.dumps(list(key_hashes)),)
        return {h: float(retired) for h, retired in self._r(sql, args)}

    def bot_by_name(self, name: str) -> tuple | None:
        rows = self._r(f"SELECT {self.BOT_COLUMNS} FROM arena_bots WHERE name = ?", (name,))
        return rows[0] if rows else None

    def bots(self) -> list[tuple]:
        return self._r(f"SELECT {self.BOT_COLUMNS} FROM arena_bots")

    def count_bots(self, owner: str) -> int:
        return self._r("SELECT count(*) FROM arena_bots WHERE owner = ? AND resident = ''",
                       (owner,))[0][0]

    def set_key(self, bot_id: str, key_hash: str) -> bool:
        return self._w("UPDATE arena_bots SET key_hash = ? WHERE bot_id = ? AND retired = 0",
                       (key_hash, bot_id)) == 1

    def retire(self, bot_id: str, when: float) -> bool:
        return self._w("UPDATE arena_bots SET retired = ? WHERE bot_id = ? AND retired = 0",
                       (when, bot_id)) == 1

    # ----- arenas and their lease -------------------------------------------------------
    def add_arena(self, arena_id: str, spec: dict, secret: str) -> None:
        """Define an arena once; an existing row (another engine's, an earlier run's) wins."""
        self._w("INSERT INTO arenas (id, spec, secret, created) VALUES (?, ?, ?, ?) "
                "ON CONFLICT DO NOTHING", (arena_id, json.dumps(spec), secret, time.time()))

    def arena(self, arena_id: str) -> tuple[dict, str] | None:
        """(spec, secret) of an arena."""
        rows = self._r("SELECT spec, secret FROM arenas WHERE id = ?", (arena_id,))
        return (json.loads(rows[0][0]), rows[0][1]) if rows else None

    def arena_ids(self) -> list[str]:
        return [r[0] for r in self._r("SELECT id FROM arenas ORDER BY id")]

    def lease_holder(self, arena_id: str, lease_s: float) -> str:
        """The engine id running the arena's matchmaker now ('' when none is alive)."""
        owner, _, alive = self.leases([arena_id], lease_s).get(arena_id, (None, 0, False))
        return owner if owner and alive else ""

    def leases(self, arena_ids, lease_s: float) -> dict[str, tuple[str | None, int, bool]]:
        """arena id -> (owner, epoch, whether that owner is alive) of these arenas, in one
        read: an engine keeps every arena's lease at once, every LEASE_CHECK_S, and under
        load each round trip of its arena thread delays the seats it delivers."""
        ids = list(arena_ids)
        if not ids:
            return {}
        cond, args = self._live("a.owner", lease_s)
        return {a: (owner, epoch, bool(alive)) for a, owner, epoch, alive in self._r(
            f"SELECT a.id, a.owner, a.epoch, CASE WHEN a.owner IS NULL THEN 0 WHEN {cond} "
            f"THEN 1 ELSE 0 END FROM arenas a WHERE a.id IN ({_marks(ids)})", (*args, *ids))}

    def take_lease(self, arena_id: str, lease_s: float,
                   lease: tuple[str | None, int, bool] | None = None) -> int | None:
        """Take the arena's lease when no live engine holds it (compare and set on the
        epoch: one engine wins); its new epoch, or None. `lease`: the arena's entry of
        `leases`, when just read."""
        lease = lease or self.leases([arena_id], lease_s).get(arena_id)
        if lease is None:
            return None
        owner, epoch, alive = lease
        if self.store.shared:
            if owner == self.engine_id:
                return epoch if self.epochs.get(arena_id) == epoch else None
            if owner and alive:
                return None
        elif owner == "" and epoch > 0 and arena_id in self.epochs:
            return epoch
        if self._w("UPDATE arenas SET owner = ?, epoch = epoch + 1 WHERE id = ? AND epoch = ?",
                   (self.engine_id, arena_id, epoch)) != 1:
            return None
        self.epochs[arena_id] = epoch + 1
        return epoch + 1

    def holds_lease(self, arena_id: str,
                    lease: tuple[str | None, int, bool] | None = None) -> bool:
        """Whether this engine still holds the arena's lease at the epoch it took; `lease`:
        the arena's entry of `leases`, when just read."""
        epoch = self.epochs.get(arena_id)
        if epoch is None:
            return False
        if lease is None:
            held = bool(self._r("SELECT 1 FROM arenas WHERE id = ? AND owner = ? AND "
                                "epoch = ?", (arena_id, self.engine_id, epoch)))
        else:
            held = lease[:2] == (self.engine_id, epoch)
        if not held:
            self.epochs.pop(arena_id, None)
        return held

    def release_lease(self, arena_id: str) -> None:
        epoch = self.epochs.pop(arena_id, None)
        if epoch is not None:
            self._w("UPDATE arenas SET owner = NULL, epoch = epoch + 1 WHERE id = ? AND "
                    "owner = ? AND epoch = ?", (arena_id, self.engine_id, epoch))

    def _fenced(self, sql: str, args: tuple, arena_id: str, expect: int | None = None,
                refused: Exception | None = None) -> int | None:
        """A write of the arena's matchmaker, made only while it holds the lease; with
        `expect`, `refused` (by default Fenced: its fence refused it) when it changes
        another number of rows."""
        epoch = self.epochs.get(arena_id)
        if epoch is None:
            raise Fenced(f"arena {arena_id}: this engine does not run its matchmaker")
        cond = "EXISTS (SELECT 1 FROM arenas WHERE id = ? AND owner = ? AND epoch = ?)"
        return self._w(sql.replace("{fence}", cond), args + (arena_id, self.engine_id, epoch),
                       expect, refused or Fenced(f"arena {arena_id}: another engine runs its "
                                                 f"matchmaker now"))

    # ----- presence ---------------------------------------------------------------------
    def connect(self, bot_id: str, arena: str, version: str, session: str, now: float,
                seat_limit: int = 0) -> None:
        """A lobby of the bot: this one replaces any other (its engine notices its session
        is gone and ends it). Not paused, free from now, seated in nothing yet."""
        self._w("INSERT INTO arena_presence (bot_id, arena, version, engine, session, "
                "connected, free_since, paused, seat_limit, seated) VALUES "
                "(?, ?, ?, ?, ?, ?, ?, '', ?, 0) "
                "ON CONFLICT (bot_id, arena) DO UPDATE SET version = excluded.version, "
                "engine = excluded.engine, session = excluded.session, "
                "connected = excluded.connected, free_since = excluded.free_since, "
                "paused = '', seat_limit = excluded.seat_limit, seated = 0",
                (bot_id, arena, version, self.engine_id, session, now, now, seat_limit))

    def count_seating(self, bot_ids: list[str], arena: str) -> None:
        """One more seat for each of these bots' lobbies (ArenaEnlist.max_matches); each is
        seated, not free, until its match is over (set_free)."""
        for part in _parts(bot_ids):
            self._w(f"UPDATE arena_presence SET seated = seated + 1, free_since = 0 WHERE "
                    f"arena = ? AND bot_id IN ({_marks(part)})", (arena, *part))

    def disconnect(self, bot_id: str, arena: str, session: str) -> None:
        self._w("DELETE FROM arena_presence WHERE bot_id = ? AND arena = ? AND session = ?",
                (bot_id, arena, session))

    def drop_presence(self, bot_id: str) -> None:
        """Every lobby of the bot ends (a rotated key, a retired bot)."""
        self._w("DELETE FROM arena_presence WHERE bot_id = ?", (bot_id,))

    def sessions(self) -> dict[str, str]:
        """session -> paused, of the presence rows of lobbies this engine holds: a lobby of
        its own whose session is not among them was replaced or ended. One parameter,
        whatever the number of lobbies: naming each session in an IN list made a new
        statement at every tick, which the driver split and the server planned anew, 3-8 %
        of an engine's Python time at 500 lobbies on it."""
        return dict(self._r("SELECT session, paused FROM arena_presence WHERE engine = ?",
                            (self.engine_id,)))

    def present(self, arena: str, lease_s: float, free: bool = False) -> list[tuple]:
        """(bot id, version, free since, paused, connected, seats left (None: no limit)) of
        the bots whose lobby is on a live engine; with `free`, only those neither seated
        nor paused. The matchmaker reads these at every cycle, and at a thousand bots
        nearly all are seated: it read a thousand rows to find a few dozen."""
        cond, args = self._live("p.engine", lease_s)
        only = " AND p.free_since > 0 AND p.paused = ''" if free else ""
        rows = self._r(f"SELECT p.bot_id, p.version, p.free_since, p.paused, p.connected, "
                       f"p.seat_limit, p.seated FROM arena_presence p WHERE p.arena = ? AND "
                       f"{cond}{only}", (arena, *args))
        return [(*r[:5], r[5] - r[6] if r[5] else None) for r in rows]

    def presence_of(self, bot_id: str, lease_s: float) -> list[tuple]:
        """(arena, version, connected, free since, paused) of the bot's live lobbies."""
        cond, args = self._live("p.engine", lease_s)
        return self._r(f"SELECT p.arena, p.version, p.connected, p.free_since, p.paused "
                       f"FROM arena_presence p WHERE p.bot_id = ? AND {cond}", (bot_id, *args))

    def pause(self, bot_id: str, arena: str, why: str) -> None:
        self._w("UPDATE arena_presence SET paused = ? WHERE bot_id = ? AND arena = ?",
                (why, bot_id, arena))

    def set_free(self, keys: list[tuple[str, str]], arena: str, now: float) -> None:
        for part in _parts([bot_id for bot_id, _ in keys]):
            self._w(f"UPDATE arena_presence SET free_since = ? WHERE arena = ? AND bot_id IN "
                    f"({_marks(part)})", (now, arena, *part))

    # ----- arena matches and seats (the matchmaker's, fenced) ---------------------------
    def add_matches(self, arena: str, matches: list[tuple]) -> None:
        """New matches of the arena, in play: (match id, lineup, engine placed on, created,
        set, rotation) each, with their seats; made together with their rows
        (add_match_rows, in one transaction: together). A cycle's matches go in a few
        statements, not a few each: every round trip of the matchmaker's is one more wait
        of every bot it is about to seat (docs/arena.md, "End to end")."""
        for part in _parts(matches, 8):
            self._fenced(f"INSERT INTO arena_matches (match_id, arena, lineup, status, "
                         f"created, engine, set_no, rotation) SELECT * FROM (VALUES "
                         f"{_rows(8, len(part))}) AS v WHERE {{fence}}",
                         tuple(v for m, lineup, engine, created, set_no, rotation in part
                               for v in (m, arena, json.dumps(lineup), PLAYING, created,
                                         engine, set_no, rotation)), arena, expect=len(part))
        seats = [(m, seat, bot_id, version, arena, created)
                 for m, lineup, _, created, _, _ in matches
                 for seat, (bot_id, version) in enumerate(lineup)]
        for part in _parts(seats, 6):
            self._fenced(f"INSERT INTO arena_seats (match_id, seat, bot_id, version, arena, "
                         f"created) SELECT * FROM (VALUES {_rows(6, len(part))}) AS v WHERE "
                         f"{{fence}}", tuple(v for row in part for v in row), arena)

    def set_match_status(self, arena: str, match_ids: list[str], status: str,
                         only_from: tuple = IN_PLAY, every: bool = False) -> int | None:
        """How many of these matches now have `status` (those in one of `only_from`); with
        `every`, AlreadyDone unless all of them were (the fence refused: AlreadyDone too)."""
        changed = 0
        for part in _parts(match_ids):
            each = (len(part), AlreadyDone("a match is out of play already")) if every else ()
            changed += self._fenced(f"UPDATE arena_matches SET status = ? WHERE match_id IN "
                                    f"({_marks(part)}) AND status IN ({_marks(only_from)}) "
                                    f"AND {{fence}}", (status, *part, *only_from), arena,
                                    *each) or 0
        return None if self._add is not None else changed

    def matches_in_play(self, arena: str) -> list[tuple]:
        """(match id, lineup, status, created, set, rotation) of the arena's matches in play."""
        rows = self._r("SELECT match_id, lineup, status, created, set_no, rotation FROM "
                       "arena_matches WHERE arena = ? AND status IN (?, ?)",
                       (arena, *IN_PLAY))
        return [(m, [tuple(k) for k in json.loads(lu)], st, c, s, r)
                for m, lu, st, c, s, r in rows]

    def arena_match(self, match_id: str) -> tuple | None:
        """(arena, lineup, status, created, set, rotation) of one arena match."""
        rows = self._r("SELECT arena, lineup, status, created, set_no, rotation FROM "
                       "arena_matches WHERE match_id = ?", (match_id,))
        if not rows:
            return None
        a, lu, st, c, s, r = rows[0]
        return a, [tuple(k) for k in json.loads(lu)], st, c, s, r

    # ----- duplicate sets: what shows a deal waits until no rotation of it will follow ------
    def close_set(self, arena: str, set_no: int) -> None:
        """No further rotation of this set will be made (it was dropped or is complete)."""
        self._fenced("INSERT INTO arena_sets_closed (arena, set_no) SELECT ?, ? WHERE {fence} "
                     "ON CONFLICT DO NOTHING", (arena, set_no), arena)

    def close_idle_sets(self, arena: str) -> None:
        """Close every set of the arena with no match in play: a matchmaker that starts
        (a restart, a takeover) continues only the sets whose match is in play."""
        self._fenced("INSERT INTO arena_sets_closed (arena, set_no) SELECT DISTINCT arena, "
                     "set_no FROM arena_matches WHERE arena = ? AND set_no NOT IN (SELECT "
                     "set_no FROM arena_matches WHERE arena = ? AND status IN (?, ?)) AND "
                     "{fence} ON CONFLICT DO NOTHING", (arena, arena, *IN_PLAY), arena)

    def set_open(self, arena: str, set_no: int) -> bool:
        """Whether a rotation of this set is in play or may still be made."""
        return not self._r("SELECT 1 FROM arena_sets_closed WHERE arena = ? AND set_no = ?",
                           (arena, set_no))

    def count_matches(self, arena: str) -> dict[str, int]:
        return dict(self._r("SELECT status, count(*) FROM arena_matches WHERE arena = ? "
                            "GROUP BY status", (arena,)))

    def bot_matches(self, bot_id: str, before: float, limit: int) -> list[tuple]:
        """(match id, arena, lineup, status, created, set, rotation) of the bot's matches
        created before `before` (0: any), newest first."""
        rows = self._r("SELECT m.match_id, m.arena, m.lineup, m.status, m.created, m.set_no, "
                       "m.rotation FROM arena_matches m JOIN arena_seats s ON s.match_id = "
                       "m.match_id WHERE s.bot_id = ? AND (? = 0 OR m.created < ?) "
                       "ORDER BY m.created DESC, m.match_id LIMIT ?",
                       (bot_id, before, before, limit))
        return [(m, a, [tuple(k) for k in json.loads(lu)], st, c, s, r)
                for m, a, lu, st, c, s, r in rows]

    def undelivered(self) -> list[tuple]:
        """(match id, seat, bot id, arena, session, seats left (None: no limit), owner
        engine id, its address) of seats not yet sent to their bot's lobby of the same
        version, for the lobbies this engine holds, of matches still in play (whose row
        exists). The owner is '' on a store no cluster shares."""
        owner, engines = ("r.owner, e.address", "LEFT JOIN engines e ON e.id = r.owner ") \
            if self.store.shared else ("'', ''", "")
        rows = self._r(f"SELECT s.match_id, s.seat, s.bot_id, s.arena, p.session, "
                       f"p.seat_limit, p.seated, {owner} FROM "
                       f"arena_seats s JOIN arena_presence p ON p.bot_id = s.bot_id AND "
                       f"p.arena = s.arena AND p.version = s.version "
                       f"JOIN arena_matches m ON m.match_id = s.match_id "
                       f"JOIN matches r ON r.id = s.match_id {engines}"
                       f"WHERE s.delivered = 0 AND p.engine = ? AND m.status IN (?, ?)",
                       (self.engine_id, *IN_PLAY))
        return [(*r[:5], r[5] - r[6] if r[5] else None, r[7] or "", r[8] or "")
                for r in rows]

    def delivered(self, seats: list[tuple[str, int]], now: float) -> None:
        """Mark these (match id, seat)s sent, at `now`."""
        for part in _parts(seats, 2):
            self._w("UPDATE arena_seats SET delivered = ? WHERE " +
                    " OR ".join("(match_id = ? AND seat = ?)" for _ in part),
                    (max(2, round(now * 1000)), *(v for pair in part for v in pair)))

    def sent(self, match_ids: list[str]) -> dict[tuple[str, int], float]:
        """(match id, seat) -> when its seat was sent to the bot's lobby (Unix seconds), of
        these matches' seats sent at a known time."""
        out = {}
        for part in _parts(match_ids):
            for match_id, seat, at in self._r(
                    f"SELECT match_id, seat, delivered FROM arena_seats WHERE delivered > 1 "
                    f"AND match_id IN ({_marks(part)})", tuple(part)):
                out[(match_id, seat)] = at / 1000
        return out

    def redeliver(self, bot_id: str, arena: str, version: str) -> None:
        """A new lobby of the bot: its seats in play, of that version, are sent again."""
        self._w("UPDATE arena_seats SET delivered = 0 WHERE bot_id = ? AND arena = ? AND "
                "version = ? AND match_id IN (SELECT match_id FROM arena_matches WHERE "
                "arena = ? AND status IN (?, ?))", (bot_id, arena, version, arena, *IN_PLAY))

    def placed_here(self) -> list[tuple[str, int]]:
        """(match id, epoch) of unfinished arena matches the store says this engine owns
        (placed here by a matchmaker elsewhere, or taken over)."""
        if not self.store.shared:
            return []
        return self._r("SELECT m.id, m.epoch FROM matches m JOIN arena_matches a ON "
                       "a.match_id = m.id WHERE m.owner = ? AND m.status != 'over' AND "
                       "a.status IN (?, ?)", (self.engine_id, *IN_PLAY))

    def fresh_rows(self, match_ids: list[str]) -> dict[str, MatchRow]:
        """match id -> row, of these matches that nothing has claimed a seat of or played
        in yet (placed here a moment ago): what holding them needs, one read for them all
        where a restore from the log reads a few for each."""
        out = {}
        for part in _parts(match_ids):
            for values in self._r(
                    f"SELECT {MATCH_COLUMNS} FROM matches m WHERE m.id IN ({_marks(part)}) "
                    f"AND NOT EXISTS (SELECT 1 FROM moves WHERE match_id = m.id) "
                    f"AND NOT EXISTS (SELECT 1 FROM seats WHERE match_id = m.id)",
                    tuple(part)):
                row = match_row(values)
                out[row.id] = row
        return out

    def match_state(self, match_ids: list[str]) -> dict[str, tuple[str, float]]:
        """match id -> (status of its match row, the time of its last logged move or its
        creation) for those that have a row."""
        out = {}
        for part in _parts(match_ids):
            for match_id, status, created, last in self._r(
                    f"SELECT m.id, m.status, m.created, (SELECT at FROM moves WHERE "
                    f"match_id = m.id ORDER BY version DESC LIMIT 1) FROM matches m WHERE "
                    f"m.id IN ({_marks(part)})",
                    tuple(part)):
                out[match_id] = (status, float(last or created))
        return out

    # ----- results ----------------------------------------------------------------------
    def add_result(self, match_id: str, arena: str, ended: float, result: dict) -> bool:
        """Insert a match's arena result once; False if it has one."""
        return self._w("INSERT INTO arena_results (match_id, arena, ended, row) VALUES "
                       "(?, ?, ?, ?) ON CONFLICT DO NOTHING",
                       (match_id, arena, ended, json.dumps(result))) == 1

    def uncounted(self, arena: str) -> list[tuple[str, float, dict]]:
        """(match id, ended, result) of results without a sequence number whose matches
        are in play (a voided match is never counted), in the order their matches ended."""
        rows = self._r("SELECT r.match_id, r.ended, r.row FROM arena_results r JOIN "
                       "arena_matches m ON m.match_id = r.match_id WHERE r.arena = ? AND "
                       "r.seq IS NULL AND m.status IN (?, ?) ORDER BY r.ended, r.match_id",
                       (arena, *IN_PLAY))
        return [(m, e, json.loads(r)) for m, e, r in rows]

    def count_results(self, arena: str, numbered: list[tuple[str, int]]) -> None:
        """Give these (match id, sequence number)s' results their numbers, in one statement
        (so one commit) for hundreds of them: a reader folding the results in order
        never sees a number before the ones under it. AlreadyDone unless every one was
        numbered here (one numbered already, or the fence refused)."""
        for part in _parts(numbered, 3):
            cases = " ".join("WHEN ? THEN ?" for _ in part)
            ids = [m for m, _ in part]
            self._fenced(f"UPDATE arena_results SET seq = CASE match_id {cases} END "
                         f"WHERE match_id IN ({_marks(ids)}) AND seq IS NULL AND {{fence}}",
                         (*(v for pair in part for v in pair), *ids), arena,
                         len(part), AlreadyDone("a result is numbered already"))

    def counted_after(self, arena: str, seq: int, limit: int = 5000) -> list[dict]:
        """Counted results with a sequence number above `seq`, in order; each with its
        "sequence"."""
        rows = self._r("SELECT seq, row FROM arena_results WHERE arena = ? AND seq > ? "
                       "ORDER BY seq LIMIT ?", (arena, seq, limit))
        return [{**json.loads(r), "sequence": s} for s, r in rows]

    def results_of(self, match_ids: list[str]) -> dict[str, dict]:
        """match id -> its result, with its "sequence" (None while not counted), of those of
        these matches that have one; in one read (the matchmaker's look at its matches
        over took two reads a match)."""
        out = {}
        for part in _parts(match_ids):
            for match_id, seq, row in self._r(f"SELECT match_id, seq, row FROM arena_results "
                                              f"WHERE match_id IN ({_marks(part)})",
                                              tuple(part)):
                out[match_id] = {**json.loads(row), "sequence": seq}
        return out

    # ----- match rows the matchmaker makes (placed on any engine) -----------------------
    def add_match_rows(self, rows: list[tuple]) -> None:
        """The matches' rows, (row, owner, epoch) each: owned by the engine each is placed on
        (`owner`, at `epoch`; None and 0 on a store no cluster shares), which adopts it
        (host.py)."""
        columns = f"{MATCH_COLUMNS}, owner, epoch"
        width = len(MATCH_COLUMNS.split(",")) + 2
        for part in _parts(rows, width):
            self._w(f"INSERT INTO matches ({columns}) VALUES {_rows(width, len(part))}",
                    tuple(v for row, owner, epoch in part
                          for v in (*match_values(row), owner, epoch)))
