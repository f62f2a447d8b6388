"""Bot ladders: schedules (formats), ratings, statistics and standings.

The pure parts live here (no I/O): a ladder's results are immutable rows, and the
standings are always recomputed from them. The engine side (scheduling real matches,
storing rows, the Ladder service) uses these.
"""
