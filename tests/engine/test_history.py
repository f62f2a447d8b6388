"""A view's history holds the engine's own events where a watcher heard them: a seat that
reloads (a fresh GetView, GetMatch, or a Watch snapshot) reads the deal as it was seen
live, the clock's moves named as the clock's (timeout, absent) and the end of HHL's time
limit (time_up, HHL-10) told. A match restored from its log tells the same.

The engine runs on a manual clock: a turn clock runs out only when a test moves it."""

from domino_proto.domino.v1 import engine_pb2
from domino_wire import game
from engine_service.core.matches.referee import Referee

from .support import clock_plays_for


class Heard:
    """A spectator on the referee itself: its snapshot's history, then every event as it
    is published."""

    def __init__(self, referee):
        self.events: list[dict] = []
        _, snapshot = referee.subscribe(None, self)
        self.events = [e.to_dict(None) for e in snapshot.history]

    def put(self, update) -> None:
        if hasattr(update, "events"):
            self.events += [e.to_dict(None) for e in update.events]

    def this_deal(self) -> list[dict]:
        """The events heard since the deal in play began."""
        starts = [i for i, e in enumerate(self.events) if e["kind"] == "deal_start"]
        return self.events[starts[-1]:]


def fresh_histories(served, match_id, tokens) -> list[list[dict]]:
    """The history as each way of reading the match afresh gives it: the spectator's view
    (GetMatch), a seat's view (GetView) and a seat's Watch snapshot, each cut for the
    spectator so they compare (a seat sees its own tiles in deal_start and draws)."""
    spectator = game.view(served.summary(match_id).view)["history"]
    seat_view = game.view(served.view(match_id, tokens[1]).view)["history"]
    stream = served.stub.Watch(engine_pb2.WatchRequest(match_id=match_id,
                                                       seat_token=tokens[1]), timeout=10)
    snapshot = game.view(next(stream).snapshot.state.view)["history"]
    stream.cancel()
    return [spectator, public(seat_view), public(snapshot)]


def public(history: list[dict]) -> list[dict]:
    return [{k: v for k, v in e.items() if k != "tiles"} for e in history]


def test_a_history_read_afresh_names_the_clocks_moves_as_a_watcher_heard_them(served_manual):
    served = served_manual
    match_id, tokens = served.new_match("hhl", {"hands": 3}, seed=2, clock_ms=150)
    referee = served.engine.get(match_id)
    heard = Heard(referee)
    mover = referee.match.to_move
    clock_plays_for(served, match_id, mover)
    # The clock played the mover's first move: read afresh, the history says so, the
    # timeout just before that play.
    for history in fresh_histories(served, match_id, tokens):
        assert history == heard.this_deal()
        kinds = [(e["kind"], e.get("seat")) for e in history]
        at = kinds.index(("timeout", mover))
        assert kinds[at + 1] == ("play", mover)
        assert history[at]["move"] == history[at + 1]["play"]   # the opening lead: no place
    # The same seat misses its turn twice more: absent, then played at once. Others move.
    while not referee.match.over and not referee.seats[mover].absent:
        seat = referee.match.to_move
        if seat == mover:
            clock_plays_for(served, match_id, seat)
        else:
            served.submit(match_id, tokens[seat], referee.version, move_id="0")
        if not referee.match.over:
            assert fresh_histories(served, match_id, tokens)[0] == heard.this_deal()
    assert not referee.match.over     # (seed 2: the third timeout comes in the first hand)
    history = fresh_histories(served, match_id, tokens)[0]
    assert history == heard.this_deal()
    assert [(e["kind"], e.get("seat")) for e in history].count(("timeout", mover)) == 3
    assert [e for e in heard.events if e["kind"] == "absent"] == [{"kind": "absent",
                                                                   "seat": mover}]
    assert {"kind": "absent", "seat": mover} in history
    # A returning holder is told too, and a strategy's view (the rules' own) has none of it.
    served.view(match_id, tokens[mover])
    assert fresh_histories(served, match_id, tokens)[0] == heard.this_deal()
    assert heard.this_deal()[-1] == {"kind": "returned", "seat": mover}
    lazy = game.LazyView(served.view(match_id, tokens[mover]))
    assert lazy["history"] == referee.match.view(mover)["history"]
    assert len(lazy["history"]) < len(game.seat_view(served.view(match_id, tokens[mover]))[
        "history"])


def test_the_time_limit_is_told_in_the_history_and_a_restored_match_tells_it_too(
        served_manual):
    """HHL-10: when the time is up the hand in progress is the last; its history says so
    from then on, as the event stream did. The log has the clock's moves and the time
    limit, so a restored match's history holds them in the same places."""
    served = served_manual
    match_id, tokens = served.new_match("hhl", {"minutes": 1}, seed=3, clock_ms=40_000)
    referee = served.engine.get(match_id)
    heard = Heard(referee)
    clock_plays_for(served, match_id, referee.match.to_move)     # 40 s: a timeout, the lead
    served.submit(match_id, tokens[referee.match.to_move], referee.version, move_id="0")
    served.alarms.advance(20)      # 60 s: the time limit, before the next clock (80 s)
    assert heard.events[-1] == {"kind": "time_up"}
    history = fresh_histories(served, match_id, tokens)[0]
    assert history == heard.this_deal() and history[-1] == {"kind": "time_up"}
    served.submit(match_id, tokens[referee.match.to_move], referee.version, move_id="0")
    assert fresh_histories(served, match_id, tokens)[0] == heard.this_deal()

    again = Referee.restore(served.engine.store.match(match_id), served.engine.store, None)
    restored = [e.to_dict(None) for e in again.seat_view(None).history]
    assert restored == heard.this_deal()
    assert [e["kind"] for e in restored].count("timeout") == 1
    # The sampler reasons over the rules' events alone.
    assert [e.kind for e in again.seat_view(None).rules_history] == [
        e.kind for e in again.match.deal_events]
