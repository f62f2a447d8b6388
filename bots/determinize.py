"""Moved to engine_service/rules/determinize.py (the rules core, pure), next to the exact
sampler the engine serves (SampleWorlds); this name is kept for code that imports it from
here."""

from engine_service.rules.determinize import NoConsistentDeal, check, sample  # noqa: F401
