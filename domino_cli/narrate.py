"""Events in words, for people reading a terminal (``domino demo``, ``domino replay``).

Plain English sentences; the Domeng words (CAPPU, MANGUNO, STONES, ...) stay in capitals,
as the rule text writes them. A place is an arm in HHL and an end in Domeng, and an event
does not say which game it comes from, so ``describe`` is told.
"""

from __future__ import annotations

PLACE = {"hhl": "arm", "domeng": "end"}
CAPPU_KIND = {"plain": "FIRST CAPPU", "ceki": "FIRST CAPPU with a CEKI",
              "pollo": "FIRST CAPPU with a POLLO"}


def _seat(s) -> str:
    return f"seat {s}"


def _seats(seats) -> str:
    """[2] -> "seat 2"; [1, 3] -> "seats 1 and 3"; [0, 1, 4] -> "seats 0, 1 and 4"."""
    seats = list(seats)
    if len(seats) == 1:
        return _seat(seats[0])
    return "seats " + ", ".join(map(str, seats[:-1])) + f" and {seats[-1]}"


def _source(src) -> str:
    return "the table" if src == "table" else _seat(src)


def _stones(n: int) -> str:
    return "1 STONE" if n == 1 else f"{n} STONES"


def _numbers(values, signed: bool = False) -> str:
    return ", ".join(f"{v:+d}" if signed else str(v) for v in values)


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _ranking(ranking) -> str:
    """[[2], [0, 3], [1]] -> "1st seat 2, 2nd seats 0 and 3, 4th seat 1" (a tie shares a place)."""
    parts, place = [], 1
    for group in ranking:
        parts.append(f"{_ordinal(place)} {_seats(group)}")
        place += len(group)
    return ", ".join(parts)


def _pass_payment(e: dict) -> str:
    """A Domeng PASS: the passer takes the STONES as a penalty, from the table first, then
    from the LAST MAPPANO (DOM-5). The web page says the same (gateway/static/narrate.js)."""
    who = f"{_seat(e['seat'])} {'PASSEBUNGE' if e.get('passebunge') else 'PASS'}"
    paid = e["stones"]
    if not paid:
        return f"{who}: is due {_stones(e['cost'])}, but there are none left to give"
    sources = [f"{x['count']} from {_source(x['from'])}" for x in paid]
    if len(paid) == 1:
        return f"{who}: takes {_stones(paid[0]['count'])} from {_source(paid[0]['from'])}"
    return f"{who}: takes {_stones(e['cost'])} — {' and '.join(sources)}"


def deal_word(variant: str) -> str:
    """What a deal is called in the game's own words: an HHL hand, a Domeng round."""
    return "round" if variant == "domeng" else "hand"


def describe(e: dict, variant: str) -> str:
    """One event dict (Event.to_dict, or an engine event) of a ``variant`` match as a sentence."""
    kind = e["kind"]
    if kind == "deal_start":
        camat = " (the CAMAT)" if e.get("camat") is not None and e["camat"] == e["leader"] else ""
        if e.get("camat") is not None and not camat:
            camat = f"; the CAMAT is {_seat(e['camat'])}"
        mine = f"; your tiles are {' '.join(e['tiles'])}" if "tiles" in e else ""
        # Deals and cycles are numbered from 0 on the wire, from 1 for people.
        return (f"-- {deal_word(variant)} {e['deal'] + 1} is dealt; {_seat(e['leader'])}{camat} "
                f"leads{mine}")
    if kind == "play":
        if "at" not in e:
            return f"{_seat(e['seat'])} plays {e['play']} to open"
        where = f"on the {e['at']} {PLACE.get(variant, 'side')}"
        mode = " as a barricade" if e.get("mode") == "barricade" else ""
        kul = ", a MAPPAKULING" if e.get("mappakuling") else ""
        return f"{_seat(e['seat'])} plays {e['play']} {where}{mode}{kul}"
    if kind == "draw":
        tiles = "a tile" if e["count"] == 1 else f"{e['count']} tiles"
        which = f": {' '.join(e['tiles'])}" if "tiles" in e else ""
        return f"{_seat(e['seat'])} draws {tiles} from the stock{which}"
    if kind == "pass":
        if "stones" not in e:
            return f"{_seat(e['seat'])} cannot play and passes"
        if e.get("cost") == 0:
            return (f"{_seat(e['seat'])} cannot play either, so the round is blocked: "
                    f"{_seat(e['seat'])} is the MANGUNO")
        return _pass_payment(e)
    if kind == "timeout":
        return (f"{_seat(e['seat'])}'s clock ran out; the engine played {e['move']} for it "
                f"({e['timeouts_in_a_row']} in a row)")
    if kind == "absent":
        return f"{_seat(e['seat'])} is absent now: the engine plays for it at once until it comes back"
    if kind == "returned":
        return f"{_seat(e['seat'])} is back"
    if kind == "time_up":
        return "time is up: the hand being played is the last"
    r = e.get("result")
    if kind == "deal_over":
        return "-- " + describe_result(r)
    if kind == "cycle_over":
        camat = (f"{_seat(r['camat'])} is CAMAT" if r["camat"] is not None
                 else "no CAMAT (the round cap ended it)")
        return (f"== cycle {r['cycle'] + 1} ends after {r['rounds']} rounds: {camat}; STONES held "
                f"{_numbers(r['held'])}")
    if kind == "match_over":
        if "totals" in r:
            return f"== match over: {_ranking(r['ranking'])}; totals {_numbers(r['totals'], True)}"
        return (f"== match over: {_ranking(r['ranking'])}; CAMAT titles "
                f"{_numbers(r['camat_titles'])}, STONES over the cycles {_numbers(r['stones'])}")
    return str(e)


def describe_result(r: dict) -> str:
    """A deal's result (docs/records.md) as a sentence."""
    if "points" in r:  # HHL
        if r["end"] == "domino":
            head = f"{_seat(r['winners'][0])} lays its last tile: domino"
        else:
            head = f"blocked; the fewest pips win: {_seats(r['winners'])}"
        return f"{head}. Pips left {_numbers(r['pips'])}; points {_numbers(r['points'], True)}"
    if r["end"] == "cappu":
        head = (f"{_seat(r['winner'])} is {CAPPU_KIND[r['kind']]}; its CUCUQ is "
                f"{_seat(r['cucuq'])}")
    else:
        head = f"blocked: {_seat(r['manguno'])} is the MANGUNO"
        if r["mattikkeng"]:
            head += (f", MATTIKKENG {_seats(r['mattikkeng'])}; {_seat(r['winner'])} wins "
                     "the round")
        else:
            head += (f" and wins the round, with no MATTIKKENG; its CUCUQ is "
                     f"{_seat(r['cucuq'])}")
    moved = "; ".join(f"{_seat(t['to'])} takes {_stones(t['count'])} from {_source(t['from'])}"
                      for t in r["transfers"]) or "no STONES move"
    camat = f"; {_seat(r['camat'])} is named CAMAT" if r["camat"] is not None else ""
    return (f"{head}. {moved[0].upper()}{moved[1:]}; the table holds {_stones(r['table'])}, "
            f"the seats {_numbers(r['held'])}{camat}")
