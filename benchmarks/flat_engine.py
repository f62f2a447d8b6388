"""A flat-list engine of both games, written only as a speed yardstick for ``domino simulate``.

The same rules as engine_service/rules (HHL-1..10, DOM-1..11) played by random bots, with
nothing but lists of ints: no events, no views, no records, no validation, no objects.
It is about the least a plain Python engine of these rules can do per move, so
``domino simulate``'s moves per second are read against it (benchmarks/rules_bench.py).

It deals and chooses exactly like ``bots.simulate.simulate`` with random bots: the deal
is shuffled by ``random.Random(match seed)``, each seat chooses uniformly from its own
``random.Random`` seeded as simulate seeds its bots, drawing the very numbers
``Random.shuffle`` and ``Random.choice`` draw (``below``: the same ``getrandbits`` calls,
without their two Python frames), and legal moves are listed in the rules core's order
(HHL: arm by arm, tiles ascending, a double normal before barricade; Domeng: the left
end's tiles ascending, then the right end's). So the two play the very same games, and
``simulate`` here returns the same hands, moves and outcomes (tests/rules/test_flat_engine.py
checks it, match by match).

A tile is an index 0..27 in the rules core's order ([0|0], [1|0], ... [6|6]); a hand is a
sorted list of tiles; an HHL move is tile*8 + arm*2 + barricade, a Domeng move tile*2 + end.
"""

import random
from bisect import insort
from collections import Counter

HI, LO = [], []
for _lo in range(7):
    for _hi in range(_lo, 7):
        HI.append(_hi)
        LO.append(_lo)
PIPS = [h + lo for h, lo in zip(HI, LO, strict=True)]
DOUBLE = [t for t in range(28) if HI[t] == LO[t]]  # DOUBLE[v]: the tile [v|v]
IS_DOUBLE = [HI[t] == LO[t] for t in range(28)]
SHOWS = [{t for t in range(28) if v in (HI[t], LO[t])} for v in range(7)]  # the tiles showing v
BITS = [n.bit_length() for n in range(64)]


def below(bits, n):
    """A random int in 0..n-1 from ``bits`` (a Random's getrandbits): the draws of
    ``Random._randbelow(n)``, so ``seq[below(bits, len(seq))]`` is ``Random.choice(seq)``."""
    k = BITS[n]
    r = bits(k)
    while r >= n:
        r = bits(k)
    return r


def shuffled(bits):
    """``Random.shuffle(list(range(28)))``, its same draws (Fisher-Yates from the top)."""
    x = list(range(28))
    for i in range(27, 0, -1):
        j = below(bits, i + 1)
        x[i], x[j] = x[j], x[i]
    return x


# ----- Homo Homini Lupus -------------------------------------------------------------
def hhl_hand(deal_bits, bits):
    """One hand: (plays, "domino" | "blocked", points per seat). ``bits``: each seat's
    getrandbits."""
    tiles = shuffled(deal_bits)
    hands = [sorted(tiles[s * 6:s * 6 + 6]) for s in range(4)]
    stock = tiles[24:]
    # HHL-2: the lowest double leads; it is the spinner, four arms open at its number.
    seat = v = 0
    for v in range(7):
        seat = next((s for s in range(4) if DOUBLE[v] in hands[s]), -1)
        if seat >= 0:
            break
    below(bits[seat], 1)  # the bot is asked even when it has one move
    hands[seat].remove(DOUBLE[v])
    ends = [v, v, v, v]  # -1: closed by a barricade
    plays = 1
    while True:
        # The next seat with a play. When it has none, first the block (HHL-8: no tile
        # anywhere fits an open arm), then draws until a playable tile (HHL-6) or a pass.
        checked = False
        while True:
            seat = (seat + 1) % 4
            hand = hands[seat]
            legal = hhl_legal(hand, ends)
            if legal:
                break
            if not checked:
                checked = True
                if not any(hhl_legal(h, ends) for h in hands) and not hhl_legal(stock, ends):
                    break
            while stock:
                t = stock.pop(0)
                insort(hand, t)
                legal = hhl_legal([t], ends)
                if legal:
                    break
            if legal:
                break
        if not legal:
            end = "blocked"
            break
        m = legal[below(bits[seat], len(legal))]
        t, i = m >> 3, (m >> 1) & 3
        hand.remove(t)
        e = ends[i]
        ends[i] = -1 if m & 1 else (LO[t] if HI[t] == e else HI[t])
        plays += 1
        if not hand:
            end = "domino"  # HHL-7
            break
    pips = [sum(PIPS[t] for t in h) for h in hands]
    c = sum(pips)
    return plays, end, [25 * c - 100 * r for r in pips]  # HHL-9


def hhl_legal(tiles, ends):
    """The moves of these tiles, arm by arm, tiles in order, a double normal then barricade."""
    legal = []
    i = 0  # arm * 2
    for e in ends:
        if e >= 0:  # -1: closed (HHL-5)
            shows = SHOWS[e]
            for t in tiles:
                if t in shows:
                    legal.append(t * 8 + i)
                    if IS_DOUBLE[t]:
                        legal.append(t * 8 + i + 1)  # HHL-5: barricade
        i += 2
    return legal


def hhl_match(seed, bits, hands=8):
    deal_bits = random.Random(seed).getrandbits
    plays, outcomes, totals = 0, Counter(), [0] * 4
    for _ in range(hands):
        n, end, points = hhl_hand(deal_bits, bits)
        plays += n
        outcomes[end] += 1
        for s in range(4):
            totals[s] += points[s]
    return plays, outcomes, totals


# ----- Domeng ----------------------------------------------------------------------------
FIRST_LEADS = (DOUBLE[6], DOUBLE[5], DOUBLE[4], DOUBLE[3])  # DOM-2


def pay(stones, to, count, payer):
    """DOM-9: from the table first, the shortfall from the payer, the rest waived."""
    held = stones[1]
    from_table = min(count, stones[0])
    from_payer = min(count - from_table, held[payer])
    stones[0] -= from_table
    held[payer] -= from_payer
    held[to] += from_table + from_payer


def domeng_round(deal_bits, bits, leader, stones):
    """One round: (plays, outcome as simulate names it, winner, CAMAT or None).
    ``leader`` None: the match's first round (DOM-2)."""
    tiles = shuffled(deal_bits)
    hands = [sorted(tiles[s * 5:s * 5 + 5]) for s in range(5)]
    if leader is None:
        lead = next(d for d in FIRST_LEADS if any(d in h for h in hands))
        seat = next(s for s in range(5) if lead in hands[s])
        legal = [lead * 2]
    else:
        seat = leader  # DOM-3: any tile
        legal = [t * 2 for t in hands[seat]]
    t = legal[below(bits[seat], len(legal))] >> 1
    hand = hands[seat]
    hand.remove(t)
    left, right = HI[t], LO[t]
    laid = [False] * 5
    laid[seat] = True
    last = seat  # the LAST MAPPANO
    plays, mapp = 1, False
    while hand:
        # the next seat with a play; passes are paid (DOM-5) until the block (DOM-8)
        blocked = False
        while True:
            seat = (seat + 1) % 5
            hand = hands[seat]
            shows_left, shows_right = SHOWS[left], SHOWS[right]
            legal = [t * 2 for t in hand if t in shows_left]
            legal += [t * 2 + 1 for t in hand if t in shows_right]
            if legal:
                break
            if seat == last:
                blocked = True
                break
            pay(stones, seat, 1 if laid[seat] else 2, last)
        if blocked:
            break
        m = legal[below(bits[seat], len(legal))]
        t = m >> 1
        hand.remove(t)
        if m & 1:
            right = LO[t] if HI[t] == right else HI[t]
        else:
            left = LO[t] if HI[t] == left else HI[t]
        mapp = left == right  # DOM-6
        laid[seat] = True
        last = seat
        plays += 1
    held = stones[1]
    if not blocked:
        # DOM-7: FIRST CAPPU; the CUCUQ before it gets 1, 3 (CEKI) or 5 (POLLO)
        kind = ("pollo" if IS_DOUBLE[t] else "ceki") if mapp else "plain"
        winner = seat
        pay(stones, (seat - 1) % 5, {"plain": 1, "ceki": 3, "pollo": 5}[kind], seat)
        camat = winner if stones[0] == 0 and held[winner] == 0 else None  # DOM-10
        return plays, kind, winner, camat
    x = seat  # the MANGUNO (DOM-8)
    pips = [sum(PIPS[t] for t in h) for h in hands]
    matt = [s for s in range(5) if s != x and pips[s] <= pips[x]]
    if not matt:
        pay(stones, (x - 1) % 5, 1, x)
        return plays, "blocked", x, None
    winner = min(matt, key=lambda s: (pips[s], (s - x) % 5))
    pay(stones, x, 1 if len(matt) > 1 or pips[winner] == pips[x] else 5, winner)
    return plays, "blocked+mattikkeng", winner, None


def domeng_match(seed, bits, cycles=1, round_cap=200):
    deal_bits = random.Random(seed).getrandbits
    plays, outcomes = 0, Counter()
    titles, total_held = [0] * 5, [0] * 5  # DOM-11: what the match ranks by
    stones = [25, [0] * 5]
    camat = prev_winner = None
    done = rounds = 0
    first = True
    while done < cycles:
        leader = None if first else (camat if camat is not None else prev_winner)
        first = False
        n, outcome, prev_winner, named = domeng_round(deal_bits, bits, leader, stones)
        plays += n
        outcomes[outcome] += 1
        rounds += 1
        if named is not None:
            camat = named
        if named is not None or rounds >= round_cap:  # DOM-10, DOM-11: the cycle ends
            done += 1
            for s in range(5):
                total_held[s] += stones[1][s]
            if named is not None:
                titles[named] += 1
            stones[0], stones[1], rounds = 25, [0] * 5, 0
    return plays, outcomes, titles, total_held


# ----- what simulate counts --------------------------------------------------------------
def simulate(variant: str, matches: int, seed: int, options=None) -> dict:
    """``bots.simulate.simulate(variant, matches, seed, ["random"] * seats)``'s games:
    deals (HHL hands, Domeng rounds), plays and outcomes."""
    options = options or {}
    seats = 4 if variant == "hhl" else 5
    plays, deals, outcomes = 0, 0, Counter()
    for k in range(matches):
        # each seat's generator, seeded as simulate seeds its bots
        bits = [random.Random(seed * 1000 + k * 10 + s).getrandbits for s in range(seats)]
        if variant == "hhl":
            n, out, _ = hhl_match(seed + k, bits, options.get("hands", 8))
        else:
            n, out, _, _ = domeng_match(seed + k, bits, options.get("cycles", 1),
                                        options.get("round_cap", 200))
        plays += n
        deals += sum(out.values())
        outcomes += out
    return {"deals": deals, "moves": plays, "outcomes": dict(outcomes)}
