"""Events in words, for people reading a terminal (``domino demo``, ``domino replay``)."""


def _seat(s) -> str:
    return f"seat {s}"


def _source(src) -> str:
    return "the table" if src == "table" else _seat(src)


def _stones(stones) -> str:
    if not stones:
        return "nothing paid"
    return ", ".join(f"{x['count']} from {_source(x['from'])}" for x in stones)


def describe(e: dict) -> str:
    """One event dict (Event.to_dict) as a sentence."""
    kind = e["kind"]
    if kind == "deal_start":
        extra = f", CAMAT seat {e['camat']}" if e.get("camat") is not None else ""
        mine = f"; your tiles {' '.join(e['tiles'])}" if "tiles" in e else ""
        unit = "round" if "cycle" in e else "hand"  # Domeng says round
        return f"-- {unit} {e['deal']} dealt; seat {e['leader']} leads{extra}{mine}"
    if kind == "play":
        where = f" on the {e['at']}" if "at" in e else " to open"
        mode = " as a barricade" if e.get("mode") == "barricade" else ""
        kul = " (MAPPAKULING)" if e.get("mappakuling") else ""
        return f"{_seat(e['seat'])} plays {e['play']}{where}{mode}{kul}"
    if kind == "draw":
        which = f": {' '.join(e['tiles'])}" if "tiles" in e else ""
        return f"{_seat(e['seat'])} draws {e['count']}{which}"
    if kind == "pass":
        if "stones" not in e:
            return f"{_seat(e['seat'])} passes"
        if e.get("cost") == 0:
            return f"{_seat(e['seat'])} cannot play either: blocked, it is the MANGUNO"
        word = "PASSEBUNGE" if e.get("passebunge") else "PASS"
        return f"{_seat(e['seat'])} {word}, owes {e['cost']}: {_stones(e['stones'])}"
    r = e["result"]
    if kind == "deal_over":
        return "-- " + describe_result(r)
    if kind == "cycle_over":
        camat = f"CAMAT seat {r['camat']}" if r["camat"] is not None else "no CAMAT (round cap)"
        return f"== cycle {r['cycle']} over after {r['rounds']} rounds: {camat}; stones held {r['held']}"
    if kind == "match_over":
        return f"== match over: ranking {r['ranking']}"
    return str(e)


def describe_result(r: dict) -> str:
    if "points" in r:  # HHL
        how = "domino!" if r["end"] == "domino" else "blocked"
        return f"{how} winners {r['winners']}; pips {r['pips']}; points {r['points']}"
    if r["end"] == "cappu":
        kind = {"plain": "FIRST CAPPU", "ceki": "CEKI", "pollo": "POLLO"}[r["kind"]]
        head = f"{kind} by seat {r['winner']}, CUCUQ seat {r['cucuq']}"
    else:
        matt = f", MATTIKKENG {r['mattikkeng']}" if r["mattikkeng"] else ", no MATTIKKENG"
        head = f"blocked: MANGUNO seat {r['manguno']}{matt}, winner seat {r['winner']}"
    moved = "; ".join(f"{t['count']} to seat {t['to']} from {_source(t['from'])}"
                      for t in r["transfers"]) or "no stones move"
    camat = f"; CAMAT seat {r['camat']}" if r["camat"] is not None else ""
    return f"{head}; {moved}; table {r['table']}, held {r['held']}{camat}"
