"""Bot ladders: schedules (formats), the seeds of their deals (seeds), ratings, statistics
and standings.

Pure (no I/O, nothing of the other packages: tests/layers checks it): a ladder's
results are immutable, and the standings are always recomputed from them. The engine
(engine_service/core/ladders/director.py) schedules the real matches and stores the
results; bots/inprocess_ladder.py plays a ladder in-process.
"""
