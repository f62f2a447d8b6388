"""A strategy's on_event hook gets its seat's events, in order, on the same thread as its
choices; it sees only what the seat may see."""

import threading

from bots.runner import play
from bots.strategies import make_strategy
from bots.strategy import Strategy


class Listener(Strategy):
    def __init__(self):
        super().__init__()
        self.events, self.threads, self.hands = [], set(), []

    def choose(self, view, legal_moves):
        self.threads.add(threading.get_ident())
        self.hands.append(set(view["hand"]))
        return legal_moves[0]

    def on_event(self, event):
        self.threads.add(threading.get_ident())
        self.events.append(event)


def test_on_event_sees_the_seats_events_in_order(engine):
    match_id, tokens = engine.client.new_match("hhl", {"hands": 1}, seed=12)
    listener, results = Listener(), {}
    bots = {0: listener, **{s: make_strategy("greedy") for s in (1, 2, 3)}}
    threads = [threading.Thread(target=lambda s=s: results.__setitem__(
        s, play(engine.address, match_id, tokens[s], bots[s])), daemon=True) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(results) == 4
    kinds = [e["kind"] for e in listener.events]
    assert kinds[-1] == "match_over" and "play" in kinds
    assert len(listener.threads) == 1          # never called from two threads
    record = engine.client.record(match_id)
    mine = [e for e in record["deals"][0]["moves"] if e["seat"] == 0 and "play" in e]
    assert [{k: v for k, v in e.items() if k != "kind"} for e in listener.events
            if e["kind"] == "play" and e["seat"] == 0] == mine
    # Other seats' tiles never show up before the hand is over.
    others = {t for s in (1, 2, 3) for t in record["deals"][0]["hands"][s]}
    for e in listener.events:
        if e["kind"] == "hand_start":
            assert not others & set(e.get("tiles", []))
        if e["kind"] == "draw" and e["seat"] != 0:
            assert not others & {t for v in e.values() if isinstance(v, list) for t in v}
