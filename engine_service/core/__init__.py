"""The engine's core: match authority, with no grpc and no generated code in it.

Rooms by job, each importing only the rooms below it (tests/layers checks it):

    engine.py    the Engine: every match of this process, created, found, restored and
                 closed; the one module that puts the rooms together
    ladders/     ladders the engine schedules, plays and rates (the director)
    cluster/     several engines on one store: membership, ownership, placement
    sampling/    worlds for a seat from its own view (SampleWorlds), bounded
    matches/     one match's referee (seats, version, turn clock, log, watchers), what
                 watchers hear, seat tokens, bot pools, forks
    storage/     where matches and ladders survive a crash: SQLite and PostgreSQL
    security/    operators' API keys and quotas, the bounds of every input, rates
    errors.py    every refusal, named once, with its status
    metrics.py   what the engine counts for /metrics

The rpc layer (engine_service/rpc) is its only caller over the network.
"""
