"""Worlds for a seat from its own view (docs/bots.md, "SampleWorlds"). service.py: the
service the Play stream calls, with its bounds and rate; the sampler itself is pure
(engine_service/rules/worlds.py)."""
