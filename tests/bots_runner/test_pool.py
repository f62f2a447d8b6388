"""Pool mode: `domino bot --pool` processes enlist and play match after match, several
at once per stream, several streams per process."""


from domino_wire import game

from .support import domino_bot, outputs


def test_pool_bots_play_several_matches_in_a_row(engine):
    client = engine.client
    secret = {"DOMINO_POOL_SECRET": engine.define_pool("tourney")}
    match_ids = [client.new_match("hhl", {"hands": 1}, seed=s, pools=["tourney"] * 4)[0]
                 for s in range(3)]
    assert all(client.summary(m).status == 1 for m in match_ids)   # waiting for bots
    common = ["--pool", "tourney", "--matches", "3"]
    bots = [
        # Two streams from one process, each playing up to two matches at once.
        domino_bot(engine.address, *common, "--name", "duo", "--bots", "2", "--capacity", "2",
                   "--strategy", "greedy", env=secret),
        domino_bot(engine.address, *common, "--name", "heur", "--strategy", "heuristic",
                   "--seed", "1", env=secret),
        domino_bot(engine.address, *common, "--name", "rand", "--strategy", "random",
                   "--seed", "2", env=secret),
    ]
    lines = outputs(bots, timeout=80)
    assert [line["name"] for line in lines] == ["duo-1", "duo-2", "heur", "rand"]
    finals = {m: client.summary(m) for m in match_ids}
    assert all(s.status == 3 for s in finals.values())
    for line in lines:
        assert line["pool"] == "tourney"
        assert sorted(line["matches"]) == sorted(match_ids)    # one seat in each match
        assert line["results"] == [game.match_result(finals[m].result) for m in line["matches"]]
        assert line["stats"]["fallbacks"] == 0 and line["stats"]["refusals"] == []
        assert line["stats"]["moves"] > 0
