"""The engine: every match of this process, created, found, restored and closed here.

The rpc layer (server.py) calls one method per request. Looking a match up is a dict read;
after that each request holds only its match's lock, so no lock spans matches.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time

from . import rules
from .clock import Clock
from .errors import EngineError
from .ladder_director import Ladders
from .ladder_store import LadderStore
from .match import LIVE, OVER, WAITING, Accepted, Match, SeatView
from .pools import Pools
from .seats import BOT, DEFAULT_CLOCK_MS, PERSON
from .store import MatchRow, SQLiteStore, Store

log = logging.getLogger(__name__)


class Engine:
    def __init__(self, store: Store | None = None, clock: Clock | None = None,
                 ladder_store: LadderStore | None = None):
        self.store = store if store is not None else SQLiteStore(":memory:")
        self.clock = clock if clock is not None else Clock()
        self._matches: dict[str, Match] = {}
        self.pools = Pools()
        self._loading = threading.Lock()   # only for loading a finished match on demand
        self.ladders = Ladders(self, ladder_store if ladder_store is not None else LadderStore())

    @classmethod
    def open(cls, db: str) -> Engine:
        """An engine on the SQLite file `db` (or ":memory:"): matches and ladders."""
        return cls(SQLiteStore(db), ladder_store=LadderStore(db))

    # ----- lifecycle ------------------------------------------------------------------
    def recover(self) -> list[str]:
        """Restore every unfinished match from the store (same state and version) and
        restart its clocks. Returns the restored match ids."""
        restored = []
        for row in self.store.unfinished():
            match = Match.restore(row, self.store, self.clock)
            self._matches[row.id] = match
            match.start()
            self._seat_from_pools(match)
            restored.append(row.id)
            log.info("match %s restored at version %d", row.id, match.version)
        self.ladders.resume()
        return restored

    def close(self) -> None:
        self.ladders.close()
        for match in list(self._matches.values()):
            match.close()
        self.clock.stop()
        self.store.close()
        self.ladders.store.close()

    # ----- creating and seating -------------------------------------------------------
    def create_match(self, variant: str, options: dict | None = None, seed: int | None = None,
                     deals: list | None = None, kinds: list[str] | None = None,
                     names: list[str] | None = None, bot_clock_ms: int = 0,
                     person_clock_ms: int = 0, pools: list[str] | None = None) -> Match:
        """A new match; `pools` names, per seat, the bot pool that fills it ("" for a seat
        claimed with a token)."""
        if variant not in rules.VARIANTS:
            raise EngineError("MALFORMED_REQUEST", f"unknown variant {variant!r}; use one of "
                              f"{', '.join(rules.VARIANTS)}")
        if seed is None:
            seed = secrets.randbelow(2**63)
        try:
            game = rules.new_match(variant, options or {}, seed=seed, deals=deals)
        except rules.MalformedInput as e:
            raise EngineError("MALFORMED_REQUEST", e.message) from None
        n = game.num_seats
        kinds = kinds or [BOT] * n
        names = names or [""] * n
        pools = pools or [""] * n
        if len(kinds) != n or len(names) != n or len(pools) != n:
            raise EngineError("MALFORMED_REQUEST", f"{variant} has {n} seats; got "
                              f"{len(kinds)} seat entries")
        clock_ms = {BOT: bot_clock_ms or DEFAULT_CLOCK_MS[BOT],
                    PERSON: person_clock_ms or DEFAULT_CLOCK_MS[PERSON]}
        if min(clock_ms.values()) < 0:
            raise EngineError("MALFORMED_REQUEST", "a turn clock cannot be negative")
        settings = {"kinds": kinds, "names": names, "clocks_ms": [clock_ms[k] for k in kinds],
                    "pools": pools}
        row = MatchRow(secrets.token_hex(8), variant, game.options, seed, deals, settings,
                       time.time(), WAITING)
        self.store.add_match(row)
        match = Match(row, self.store, self.clock)
        self._matches[row.id] = match
        match.start()
        log.info("match %s created: %s seed %d", row.id, variant, seed)
        self._seat_from_pools(match)
        return match

    def _seat_from_pools(self, match: Match) -> None:
        # After a restart pool seats are claimed already; they still need a bot.
        if not match.game.over:
            for seat, held in enumerate(match.seats):
                if held.pool:
                    self.pools.need(held.pool, match, seat)

    def claim_seat(self, match_id: str, seat: int) -> str:
        return self.get(match_id).claim(seat)

    # ----- finding --------------------------------------------------------------------
    def get(self, match_id: str) -> Match:
        match = self._matches.get(match_id)
        if match is not None:
            return match
        with self._loading:   # a match finished in an earlier run: replay it once
            match = self._matches.get(match_id)
            if match is None:
                row = self.store.match(match_id) if match_id else None
                if row is None:
                    raise EngineError("UNKNOWN_MATCH", f"no match with id {match_id!r}")
                match = Match.restore(row, self.store, None)
                self._matches[match_id] = match
            return match

    def list_matches(self, status: str = "", limit: int = 100) -> list[Match]:
        """Matches of this process (live, waiting, restored, or finished here), newest first."""
        found = [m for m in self._matches.values() if not status or m.status == status]
        found.sort(key=lambda m: m.row.created, reverse=True)
        return found[:limit or 100]

    # ----- acting for a seat ----------------------------------------------------------
    def view(self, match_id: str, token: str) -> SeatView:
        match = self.get(match_id)
        return match.seat_view(match.authenticate(token))

    def submit(self, match_id: str, token: str, version: int, move_id: str = "",
               move_text: str = "") -> tuple[int, Accepted]:
        """Returns (seat, accepted)."""
        match = self.get(match_id)
        seat = match.authenticate(token)
        if not move_id and not move_text:
            raise EngineError("MALFORMED_MOVE", "give a legal-move id or the move text",
                              match.version)
        return seat, match.submit(seat, version, move_id, move_text)

    def record(self, match_id: str) -> dict:
        return self.get(match_id).record()


__all__ = ["Engine", "LIVE", "OVER", "WAITING", "PERSON", "BOT"]
