"""The moments an analysis values, read off a finished match's record.

For each analysed seat and each hand (HHL) or round (Domeng): the deal (the seat's view
before anyone plays, for V0) and each of its *decisions*: a play where it had more than
one legal move. A forced draw or pass is no decision (the rules make it), nor is a play
with a single legal move (the opening double, a drawn tile that fits one arm only): those
are counted (``forced``) and their effect falls to luck. A moment carries the seat's view
(all the seat-honest value may read) and the true hidden tiles (for the
perfect-information value only), plain data that pickles to a worker process.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine_service.rules import Move, new_match, replay_record
from engine_service.rules.tiles import tiles_of


@dataclass
class Moment:
    """One moment to value for one seat. ``ply``: the play's index within its hand (every
    seat's plays counted), -1 for the deal. ``legal``: the legal moves' texts in the
    rules' order, empty at the deal; ``played``: the index of the move made."""
    deal: int
    ply: int
    seat: int
    view: dict
    hands: list           # every seat's true tiles (indices), for the perfect-information value
    rest: list            # HHL: the stock not yet drawn, in its true order; Domeng: sleeping
    held_at_deal: list    # Domeng: stones held per seat when the round was dealt; HHL: []
    legal: list = field(default_factory=list)
    played: int | None = None


@dataclass
class Hand:
    """One hand of one seat: its deal moment, its decisions, its result (module doc of
    policy.py), and how many of its plays were forced."""
    deal: int
    seat: int
    start: Moment
    decisions: list
    result: int | None = None
    forced: int = 0


def _moment(m, seat: int, deal: int, ply: int, held) -> Moment:
    pos = m.position
    hands = [tiles_of(h) for h in pos.hands]
    rest = list(pos.stock[pos.stock_pos:]) if m.variant == "hhl" else list(pos.sleeping)
    return Moment(deal, ply, seat, m.view(seat), hands, rest, list(held))


def result_of(variant: str, deal_result: dict, seat: int, held_at_deal) -> int:
    if variant == "hhl":
        return deal_result["points"][seat]
    return held_at_deal[seat] - deal_result["held"][seat]


def hands_of(record: dict, seats) -> list[Hand]:
    """Every finished hand of ``seats`` in the record, in order (a hand cut short by the
    end of a record is left out). The record is replayed by the rules first
    (replay_record: ReplayError, MalformedInput for a record they refuse)."""
    replay_record(record)
    # The record's own options (its rules profile) and deals, through the rules' API.
    deals = [{k: v for k, v in d.items() if k in ("hands", "stock", "sleeping")}
             for d in record["deals"]]
    m = new_match(record["variant"], record.get("options") or {}, record.get("seed", 0), deals)
    out: list[Hand] = []
    for i, deal in enumerate(record["deals"]):
        held = list(m.stones.held) if m.variant == "domeng" else []
        hands = {s: Hand(i, s, _moment(m, s, i, -1, held), []) for s in seats}
        ply = 0
        for entry in deal.get("moves", []):
            if "play" not in entry:
                continue
            seat = entry["seat"]
            if seat in hands:
                legal = [str(x) for x in m.legal_moves(seat)]
                if len(legal) > 1:
                    mo = _moment(m, seat, i, ply, held)
                    mo.legal, mo.played = legal, legal.index(str(Move.from_dict(entry)))
                    hands[seat].decisions.append(mo)
                else:
                    hands[seat].forced += 1
            m.play(seat, Move.from_dict(entry))
            ply += 1
        result = m.deals[i].result
        if result is None:
            break
        for h in hands.values():
            h.result = result_of(m.variant, result, h.seat, held)
            out.append(h)
    return out

