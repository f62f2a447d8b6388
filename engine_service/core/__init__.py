"""The engine's core: match authority, with no grpc and no generated code in it.

engine.py finds and creates matches; referee.py referees one (seats, version, clock, log,
watchers); updates.py is what watchers hear; seats.py the seat tokens; pools.py seats
bots that enlisted in a pool; store.py the Store interface and sqlite_store.py its
embedded implementation; ladder_director.py and ladder_store.py run ladders; errors.py
names every refusal. The rpc layer (engine_service/rpc) is its only caller over the
network; tests/layers checks what each package may import.
"""
