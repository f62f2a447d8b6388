"""The arena on a cluster of three real engines on one PostgreSQL store: registered bot
processes play through whichever engines they reach, arena matches are placed on the
least-loaded engines (the lobby, the matchmaker and the match on different engines), the
matchmaker's engine is killed
with kill -9, another takes its lease, and the arena goes on. Afterwards every result is
counted once, in one unbroken sequence, no bot is left seated in a match that never
starts, and every engine's leaderboard is the recomputation of the stored results."""

from __future__ import annotations

import json
import signal

from domino_proto.domino.v1 import arena_pb2
from ladders.leaderboard import Board
from tests.arena.support import ArenaClient, arena_bot, wait_until
from tests.cluster.support import new_match


def lease_holder(cluster) -> int | None:
    rows = cluster.sql("SELECT e.address FROM arenas a JOIN engines e ON e.id = a.owner "
                       "WHERE a.id = 'hhl' AND e.heartbeat > now() - interval '2 seconds'")
    addresses = [cluster.address(i) for i in range(len(cluster.ports))]
    return addresses.index(rows[0][0]) if rows and rows[0][0] in addresses else None


def counted(cluster) -> int:
    return cluster.sql("SELECT count(*) FROM arena_results WHERE arena = 'hhl' AND seq IS NOT "
                       "NULL")[0][0]


def test_a_kill_of_the_matchmakers_engine_loses_no_result_and_strands_no_bot(cluster):
    c = cluster(3, extra=("--arena", "hhl"))
    clients = [ArenaClient(c.address(i)) for i in range(3)]
    bots = []
    try:
        keys = [clients[i % 3].register(f"bot{i}").bot_key for i in range(3)]
        holder, = wait_until(lambda: (h := lease_holder(c)) is not None and (h,), 20,
                             "a matchmaker")
        # Load the matchmaker's engine with matches nobody plays, so that placement sends
        # arena matches to the other engines: their lobbies and seats then cross engines.
        holding = c.router(holder)
        for _ in range(4):
            new_match(holding, "hhl", {"hands": 1}, 1, here=True)
        holding.close()
        for i, key in enumerate(keys):
            bots.append(arena_bot(c.addresses, key, "--give-up", "0", "--delay", "0.005",
                                  strategy=("greedy", "heuristic", "random")[i], matches=0))
        wait_until(lambda: counted(c) >= 6, 90, "six counted arena results")
        placed = c.sql("SELECT DISTINCT e.address FROM arena_matches a JOIN engines e ON "
                       "e.id = a.engine")
        assert {a for (a,) in placed} - {c.address(holder)}, "no match placed elsewhere"
        before = counted(c)
        c.kill(holder)
        survivor, = wait_until(lambda: (h := lease_holder(c)) not in (None, holder) and (h,),
                               30, "another engine running the matchmaker")
        wait_until(lambda: counted(c) >= before + 6, 120, "six more results after the kill")
        for b in bots:
            b.send_signal(signal.SIGTERM)
        for b in bots:
            out, err = b.communicate(timeout=60)
            assert b.returncode == 0, err[-3000:]
            entry = json.loads(out.strip().splitlines()[-1])
            assert "error" not in entry, entry
        # No bot stays seated in a match that never starts: everything ends counted or voided.
        wait_until(lambda: not c.sql("SELECT match_id FROM arena_matches WHERE status IN "
                                     "('placing', 'playing')"), 120, "every arena match to end")
        matches = dict(c.sql("SELECT match_id, status FROM arena_matches"))
        results = c.sql("SELECT match_id, seq, row FROM arena_results WHERE arena = 'hhl'")
        seqs = sorted(s for _, s, _ in results if s is not None)
        assert seqs == list(range(1, len(seqs) + 1)), "a gap or a double in the sequence"
        counted_ids = {m for m, s, _ in results if s is not None}
        assert counted_ids == {m for m, st in matches.items() if st == "counted"}
        assert all(st in ("counted", "voided") for st in matches.values())
        # Each counted match has exactly one result (match_id is the key) and is over.
        over = dict(c.sql("SELECT id, status FROM matches WHERE id = ANY(%s)",
                          (list(counted_ids),)))
        assert set(over.values()) == {"over"}
        # Every engine's leaderboard is the recomputation of the stored results.
        board = Board.of("hhl", [{**json.loads(r), "sequence": s} for _, s, r in results
                                 if s is not None])
        expected = {k: (e.mu, e.sigma, e.matches) for k, e in board.entries.items()}
        for i in range(3):
            if i == holder:
                continue
            rows = clients[i].board(all_versions=True).rows
            got = {(r.bot_id, r.version): (r.mu, r.sigma, r.matches) for r in rows if r.matches}
            assert got == expected
        # The matchmaker is a live engine: not always the first to take the lease over,
        # since on a loaded machine a late heartbeat lets it move again (a lease is fenced,
        # not pinned), which the checks above show loses and doubles nothing.
        info = clients[survivor].call("ListArenas", arena_pb2.ListArenasRequest()).arenas[0]
        assert info.matchmaker in {c.address(i) for i in range(3) if i != holder}
        assert info.matches_counted == len(seqs)
    finally:
        for b in bots:
            if b.poll() is None:
                b.kill()
                b.wait(10)
        for cl in clients:
            cl.close()
