"""An engine lets go of its arenas' matchmakers from two threads at once when it drains (the
main thread's drain, and the arena thread that sees the drain or finds a lease taken):
each matchmaker is stopped once, its lease released, and neither thread fails."""

from engine_service.core.arena import spec
from engine_service.core.engine import Engine
from tests.arena.support import wait_until


def test_a_matchmaker_stopped_by_the_other_thread_meanwhile_is_skipped():
    engine = Engine(arenas=[spec.parse("hhl"), spec.parse("domeng")])
    engine.recover()
    try:
        arenas = engine.arenas
        wait_until(lambda: len(arenas.matchmakers) == 2, 120, "both matchmakers")
        first, second = list(arenas.matchmakers)
        stopped = []
        mm = arenas.matchmakers[first]
        stop = mm.stop

        def stop_and_race():
            # what the arena thread does while the drain is between two matchmakers
            stop()
            stopped.append(first)
            arenas.let_go("draining")
        mm.stop = stop_and_race
        other = arenas.matchmakers[second]
        other_stop = other.stop
        other.stop = lambda: (stopped.append(second), other_stop())

        arenas.let_go("the engine is draining")
        assert stopped == [first, second] and arenas.matchmakers == {}
        assert all(not arenas.store.holds_lease(a) for a in (first, second))
    finally:
        engine.close()
