"""A minimal two-ended block-dominoes loop, written only as a speed yardstick.

Four players, seven tiles each, tiles as (a, b) tuples, random legal play, no drawing,
no scoring beyond finding the end. It is the least a dominoes engine can do per move,
so our engines' moves per second are read against it.
"""

import random

TILES = [(a, b) for a in range(7) for b in range(a, 7)]


def play_hand(rng: random.Random) -> int:
    tiles = TILES[:]
    rng.shuffle(tiles)
    hands = [tiles[i * 7:(i + 1) * 7] for i in range(4)]
    first = hands[0].pop(rng.randrange(7))
    left, right = first
    moves, passes, seat = 1, 0, 1
    while passes < 4:
        hand = hands[seat]
        options = [(t, side) for t in hand for side, end in ((0, left), (1, right)) if end in t]
        if options:
            t, side = rng.choice(options)
            hand.remove(t)
            if side == 0:
                left = t[1] if t[0] == left else t[0]
            else:
                right = t[1] if t[0] == right else t[0]
            moves += 1
            passes = 0
            if not hand:
                break
        else:
            passes += 1
        seat = (seat + 1) % 4
    return moves
