"""A strategy's on_event hook gets its seat's events, in order, on the same thread as its
choices; it sees only what the seat may see."""

import threading
import time

from bots.play import play, seat_hello
from bots.runner import Runner
from bots.strategies import make_strategy
from bots.strategy import Strategy
from bots.strategy_adapter import runs_inline


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
    listener, results, bodies = Listener(), {}, {s: set() for s in range(4)}
    bots = {0: listener, **{s: make_strategy("greedy") for s in (1, 2, 3)}}
    threads = [threading.Thread(target=lambda s=s: results.__setitem__(
        s, play(engine.address, match_id, tokens[s], bots[s],
                on_message=lambda m: bodies[s].add(m.WhichOneof("body")))), daemon=True)
        for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(results) == 4
    kinds = [e["kind"] for e in listener.events]
    assert kinds[-1] == "match_over" and "play" in kinds
    assert len(listener.threads) == 1          # never called from two threads
    # Greedy does not listen: its streams asked for no EventBatch (Hello.skip_events).
    assert "events" in bodies[0] and all("events" not in bodies[s] for s in (1, 2, 3))
    assert all("turn" in bodies[s] and "match_over" in bodies[s] for s in range(4))
    record = engine.client.record(match_id)
    mine = [e for e in record["deals"][0]["moves"] if e["seat"] == 0 and "play" in e]
    assert [{k: v for k, v in e.items() if k != "kind"} for e in listener.events
            if e["kind"] == "play" and e["seat"] == 0] == mine
    # Other seats' tiles never show up before the hand is over.
    others = {t for s in (1, 2, 3) for t in record["deals"][0]["hands"][s]}
    for e in listener.events:
        if e["kind"] == "deal_start":
            assert not others & set(e.get("tiles", []))
        if e["kind"] == "draw" and e["seat"] != 0:
            assert not others & {t for v in e.values() if isinstance(v, list) for t in v}


class SlowAtTheEnd(Listener):
    """A strategy still busy with the last event when its match is over: play() must not
    return before it is done (the runner drains its strategies' calls)."""

    def on_event(self, event):
        if event["kind"] == "match_over":
            time.sleep(0.5)     # a slow strategy, not a wait on anything
        super().on_event(event)


def test_play_returns_after_the_strategy_has_seen_the_last_event(engine):
    match_id, tokens = engine.client.new_match("hhl", {"hands": 1}, seed=13)
    slow, results = SlowAtTheEnd(), {}
    bots = {0: slow, **{s: make_strategy("greedy") for s in (1, 2, 3)}}
    threads = [threading.Thread(target=lambda s=s: results.__setitem__(
        s, play(engine.address, match_id, tokens[s], bots[s])), daemon=True) for s in range(4)]
    for t in threads:
        t.start()
    threads[0].join(60)
    assert 0 in results
    assert slow.events and slow.events[-1]["kind"] == "match_over"
    for t in threads[1:]:
        t.join(60)


def test_events_and_answers_are_asked_for_as_told_and_only_known_fast_strategies_run_inline():
    hello = seat_hello("m", "t")
    assert Runner("x", hello, None, events=False).hello.skip_events
    assert not Runner("x", hello, None, events=True).hello.skip_events
    runner = Runner("x", hello, None)
    assert runner.hello.skip_events == hello.skip_events is False    # events=None: as given
    assert runner.hello.skip_accepted and not hello.skip_accepted    # the caller's is a copy
    assert not Runner("x", hello, None, answers=True).hello.skip_accepted
    assert runs_inline(make_strategy("greedy")) and runs_inline(make_strategy("random"))
    assert not runs_inline(Listener())                 # its calls stay on one thread
    wrapped = make_strategy("greedy")
    wrapped.choose = lambda view, legal_moves: legal_moves[0]
    assert not runs_inline(wrapped)                    # anything unknown may be slow

    class Slower(type(make_strategy("greedy"))):
        def choose(self, view, legal_moves):
            return legal_moves[-1]
    assert not runs_inline(Slower())
