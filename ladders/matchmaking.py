"""The arena's matchmaking, pure: which free bots sit at the next table, and where.

One call of `next_table` makes one table out of the bots free now; the matchmaker
(engine_service/core/arena/matchmaker.py) calls it until it says None. The rules, in the
order they weigh:

- the seed is the free registered bot that has waited longest (ties: the smaller key);
  a table always has a registered bot, so residents never play each other alone;
- the other seats go to the free bots closest to the seed in rating. The rating compared
  is mu, not mu - 3 sigma: mu is the best guess of a bot's strength, while mu - 3 sigma
  ranks a new bot (sigma 8.3) as the weakest of all whatever it is, which would pit every
  newcomer against the bottom of the board;
- at most one seat per owner (operator key) while bots of other owners are free; only
  when too few owners are free does an owner get a second seat;
- residents (house strategies, always free) fill the seats only when too few registered
  bots are free, each resident at most once per table, the closest in rating first; the
  matchmaker lets them in only once the seed has waited a moment for other bots
  (`residents_now`), so that in a busy arena bots meet bots;
- the line-up that the seed played last is not repeated when another bot (or resident)
  could take the place of the one that fits worst;
- the seat order rotates: the line-up sorted by key, turned by `turn` places (the
  matchmaker counts its tables), so nobody keeps the same seat position.
A bot never chooses its opponents: nothing here comes from the bots but their ratings.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Candidate:
    """A bot the matchmaker may seat: registered and free, or a resident."""
    key: tuple[str, str]      # (bot id, version)
    owner: str                # the operator key's name; "house" for residents
    rating: float             # mu
    waiting_since: float = 0.0   # when it became free, any clock (residents: unused)
    resident: bool = False


def next_table(free: list[Candidate], residents: list[Candidate], seats: int,
               last_lineup: dict[tuple[str, str], frozenset] | None = None,
               turn: int = 0, residents_now: bool = True) -> list[Candidate] | None:
    """The next table, by seat: `seats` candidates, or None when no registered bot is free
    or bots and residents together are too few. `last_lineup`: each bot's last line-up as
    a set of keys. With `residents_now` false, a table that would need a resident (to fill
    a seat, or to keep the seed's last line-up from coming back) is not made: None, and
    the seed waits for more bots."""
    bots = [c for c in free if not c.resident]
    if not bots:
        return None
    if not residents_now:
        residents = []
    seed = min(bots, key=lambda c: (c.waiting_since, c.key))
    chosen = [seed] + _fill(seed, [c for c in bots if c is not seed],
                            [r for r in residents if r.key != seed.key], seats - 1)
    if len(chosen) < seats:
        return None
    last = (last_lineup or {}).get(seed.key)
    if last is not None and frozenset(c.key for c in chosen) == last:
        other = _other_than(chosen, seed, bots, residents, last)
        if other is None and not residents_now:
            return None
        chosen = other or chosen
    ordered = sorted(chosen, key=lambda c: c.key)
    shift = turn % seats
    return ordered[shift:] + ordered[:shift]


def _fill(seed: Candidate, bots: list[Candidate], residents: list[Candidate],
          n: int) -> list[Candidate]:
    """n candidates for the seed's table: registered bots of other owners, then bots of
    owners already seated, then residents; each group closest in rating first."""
    def near(c: Candidate):
        return (abs(c.rating - seed.rating), c.waiting_since, c.key)

    picked: list[Candidate] = []
    owners = {seed.owner}
    for c in sorted(bots, key=near):            # one seat per owner
        if len(picked) < n and c.owner not in owners:
            picked.append(c)
            owners.add(c.owner)
    for c in sorted(bots, key=near):            # too few owners: a second seat
        if len(picked) < n and c not in picked:
            picked.append(c)
    for c in sorted(residents, key=near):       # too few bots: the house fills in
        if len(picked) < n:
            picked.append(c)
    return picked


def _other_than(chosen: list[Candidate], seed: Candidate, bots: list[Candidate],
                residents: list[Candidate], last: frozenset) -> list[Candidate] | None:
    """The same table but for its worst-fitting seat (the last filled, farthest in rating),
    given to the nearest candidate left out; None when there is none. A resident replaces
    a bot only if no bot is left."""
    keys = {c.key for c in chosen}
    left = [c for c in bots if c.key not in keys] + [r for r in residents if r.key not in keys]
    if not left:
        return None
    others = [c for c in chosen if c is not seed]
    worst = max(others, key=lambda c: (abs(c.rating - seed.rating), c.key))
    owners = {c.owner for c in chosen if c is not worst}

    def rank(c: Candidate):
        return (c.resident, c.owner in owners, abs(c.rating - seed.rating), c.key)

    best = min(left, key=rank)
    out = [best if c is worst else c for c in chosen]
    return out if frozenset(c.key for c in out) != last else None
