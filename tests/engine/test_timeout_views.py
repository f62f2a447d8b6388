"""The views a timed-out seat leaves behind read as the rules' views do.

The engine tells a timeout just before the move the clock makes, so a seat that times
out after drawing has a ``timeout`` between its draw and its play in every other seat's
history as the wire carries it. What a seat knows (engine_service/rules/knowledge.py)
and the plays a bot's inference reads (bots/inference.py) read past it: they took the
draw for one that ran the stock out and raised KnowledgeError for the rest of the deal.
And the arena's residents are given the rules' view, without the engine's events, as a
strategy in a bot process is: they were given the wire's, and their expert fell back to
its first legal move whenever a bot timed out after a draw.
"""

from bots.inference import read_plays
from engine_service.rules import knowledge

from .support import clock_plays_for, wait_for


def view_of(referee, seat: int) -> dict:
    """The seat's view as a bot reads it (the residents build theirs the same way)."""
    seen = referee.seat_view(seat)
    return {**seen.view, "history": [e.to_dict(seat) for e in seen.history]}


def test_a_seat_timed_out_after_a_draw_leaves_views_every_seat_can_read(served_manual):
    served, met = served_manual, 0
    for seed in range(40):
        match_id, _ = served.new_match("hhl", {"hands": 1}, seed=seed, clock_ms=150)
        referee = served.engine.get(match_id)
        while not referee.match.over:
            seat, seen = referee.match.to_move, referee.seat_view(referee.match.to_move)
            if seat == 0 and seen.view.get("drawn"):
                clock_plays_for(served, match_id, 0)    # drew, then let its clock run out
            else:
                referee.submit(seat, seen.version, move_id="0")
            for other in (1, 2, 3):
                view = view_of(referee, other)
                knowledge.from_view(view)      # raises KnowledgeError if misread
                read_plays(view)
                kinds = [e["kind"] for e in view["history"]]
                met += any(kinds[i:i + 3] == ["draw", "timeout", "play"]
                           for i in range(len(kinds)))
        if met >= 20:
            break
    assert met >= 20, "too few timeouts just after a draw were met"


class Spy:
    """A first-legal strategy that keeps the history of every view it is given, with the
    rules' own history of the same moment (Match.view)."""

    def __init__(self, referee, seat):
        self.referee, self.seat, self.seen = referee, seat, []

    def choose(self, view, legal):
        self.seen.append((view["history"], self.referee.match.view(self.seat)["history"]))
        return legal[0]


def test_a_resident_is_given_the_rules_view_as_a_bot_process_is(served_manual):
    """The residents' strategies get what `domino bot` gives a strategy: the rules' view,
    without the engine's events (docs/bots.md), here with a seat timing out after draws."""
    from engine_service.core.arena.residents import Residents

    served, spies, clocked = served_manual, [], 0
    for seed in range(40):
        match_id, _ = served.new_match("hhl", {"hands": 1}, seed=seed, clock_ms=150)
        referee = served.engine.get(match_id)
        made = {s: Spy(referee, s) for s in (1, 2, 3)}
        spies += made.values()
        residents = Residents({f"spy{s}": (lambda spy=spy: spy) for s, spy in made.items()})
        try:
            for s in made:
                residents.play(referee, s, f"spy{s}")
            while True:
                wait_for(lambda r=referee: r.match.over or r.match.to_move == 0,
                         what="seat 0's turn or the end")
                if referee.match.over:
                    break
                seen = referee.seat_view(0)
                if seen.view.get("drawn"):
                    clock_plays_for(served, match_id, 0)
                    clocked += 1
                else:
                    referee.submit(0, seen.version, move_id="0")
        finally:
            residents.close()
    told = [given for spy in spies for given, rules_own in spy.seen]
    assert len(told) > 400 and clocked >= 5
    assert all(given == rules_own for spy in spies for given, rules_own in spy.seen)
