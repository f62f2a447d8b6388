"""The engine: every match of this process, created, found, restored and closed here.

The rpc layer calls one method per request. Looking a match up is a dict read; after
that each request holds only its match's lock (the referee's), so no lock spans matches.
"""

from __future__ import annotations

import logging
import secrets
import threading

from .. import rules
from ..plumbing.clock import Clock
from .errors import EngineError, Reason
from .ladder_director import Ladders
from .ladder_store import LadderStore
from .pools import Pools
from .referee import LIVE, OVER, WAITING, Accepted, Referee, SeatView
from .seats import BOT, DEFAULT_CLOCK_MS, PERSON
from .sqlite_store import SQLiteStore
from .store import MatchRow, Store
from .updates import Subscriber, UpdateQueue

log = logging.getLogger(__name__)


class Engine:
    def __init__(self, store: Store | None = None, clock: Clock | None = None,
                 ladder_store: LadderStore | None = None):
        self.store = store if store is not None else SQLiteStore(":memory:")
        self.clock = clock if clock is not None else Clock()
        self._referees: dict[str, Referee] = {}
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
            referee = Referee.restore(row, self.store, self.clock)
            self._referees[row.id] = referee
            referee.start()
            self._seat_from_pools(referee)
            restored.append(row.id)
            log.info("match %s restored at version %d", row.id, referee.version)
        self.ladders.resume()
        return restored

    def close(self) -> None:
        self.ladders.close()
        for referee in list(self._referees.values()):
            referee.close()
        self.clock.stop()
        self.store.close()
        self.ladders.store.close()

    # ----- creating and seating -------------------------------------------------------
    def create_match(self, variant: str, options: dict | None = None, seed: int | None = None,
                     deals: list | None = None, kinds: list[str] | None = None,
                     names: list[str] | None = None, bot_clock_ms: int = 0,
                     person_clock_ms: int = 0, pools: list[str] | None = None) -> Referee:
        """A new match; `pools` names, per seat, the bot pool that fills it ("" for a seat
        claimed with a token)."""
        if variant not in rules.VARIANTS:
            raise EngineError(Reason.MALFORMED_REQUEST, f"unknown variant {variant!r}; use one "
                              f"of {', '.join(rules.VARIANTS)}")
        if seed is None:
            seed = secrets.randbelow(2**63)
        try:
            match = rules.new_match(variant, options or {}, seed=seed, deals=deals)
        except rules.MalformedInput as e:
            raise EngineError(Reason.MALFORMED_REQUEST, e.message) from None
        n = match.num_seats
        kinds = kinds or [BOT] * n
        names = names or [""] * n
        pools = pools or [""] * n
        if len(kinds) != n or len(names) != n or len(pools) != n:
            raise EngineError(Reason.MALFORMED_REQUEST, f"{variant} has {n} seats; got "
                              f"{len(kinds)} seat entries")
        clock_ms = {BOT: bot_clock_ms or DEFAULT_CLOCK_MS[BOT],
                    PERSON: person_clock_ms or DEFAULT_CLOCK_MS[PERSON]}
        if min(clock_ms.values()) < 0:
            raise EngineError(Reason.MALFORMED_REQUEST, "a turn clock cannot be negative")
        settings = {"kinds": kinds, "names": names, "clocks_ms": [clock_ms[k] for k in kinds],
                    "pools": pools}
        row = MatchRow(secrets.token_hex(8), variant, match.options, seed, deals, settings,
                       self.clock.now(), WAITING)
        self.store.add_match(row)
        referee = Referee(row, self.store, self.clock)
        self._referees[row.id] = referee
        referee.start()
        log.info("match %s created: %s seed %d", row.id, variant, seed)
        self._seat_from_pools(referee)
        return referee

    def _seat_from_pools(self, referee: Referee) -> None:
        # After a restart pool seats are claimed already; they still need a bot.
        if not referee.match.over:
            for seat, held in enumerate(referee.seats):
                if held.pool:
                    self.pools.need(held.pool, referee, seat)

    def claim_seat(self, match_id: str, seat: int) -> str:
        return self.get(match_id).claim(seat)

    # ----- finding --------------------------------------------------------------------
    def get(self, match_id: str) -> Referee:
        referee = self._referees.get(match_id)
        if referee is not None:
            return referee
        with self._loading:   # a match finished in an earlier run: replay it once
            referee = self._referees.get(match_id)
            if referee is None:
                row = self.store.match(match_id) if match_id else None
                if row is None:
                    raise EngineError(Reason.UNKNOWN_MATCH, f"no match with id {match_id!r}")
                referee = Referee.restore(row, self.store, None)
                self._referees[match_id] = referee
            return referee

    def list_matches(self, status: str = "", limit: int = 100) -> list[Referee]:
        """Matches of this process (live, waiting, restored, or finished here), newest first."""
        found = [r for r in self._referees.values() if not status or r.status == status]
        found.sort(key=lambda r: r.row.created, reverse=True)
        return found[:limit or 100]

    # ----- acting for a seat ----------------------------------------------------------
    def seat(self, match_id: str, seat_token: str) -> tuple[Referee, int]:
        """The match and the seat that `seat_token` holds in it."""
        referee = self.get(match_id)
        return referee, referee.authenticate(seat_token)

    def view(self, match_id: str, seat_token: str) -> SeatView:
        referee, seat = self.seat(match_id, seat_token)
        return referee.seat_view(seat)

    def submit(self, match_id: str, seat_token: str, version: int, move_id: str = "",
               move_text: str = "") -> tuple[int, Accepted]:
        """Returns (seat, accepted)."""
        referee, seat = self.seat(match_id, seat_token)
        if not move_id and not move_text:
            raise EngineError(Reason.MALFORMED_MOVE, "give a legal-move id or the move text",
                              referee.version)
        return seat, referee.submit(seat, version, move_id, move_text)

    def watch(self, match_id: str, seat_token: str, queue: UpdateQueue
              ) -> tuple[Referee, Subscriber, SeatView]:
        """A watcher of the match: the seat's private one with a token, a spectator
        without. Returns the referee, the subscriber and the snapshot it starts from."""
        referee = self.get(match_id)
        seat = referee.authenticate(seat_token) if seat_token else None
        sub, view = referee.subscribe(seat, queue)
        return referee, sub, view

    def record(self, match_id: str) -> dict:
        return self.get(match_id).record()


__all__ = ["Engine", "LIVE", "OVER", "WAITING", "PERSON", "BOT"]
