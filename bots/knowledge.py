"""Moved to engine_service/rules/knowledge.py, so that the engine's world sampler
(SampleWorlds) infers exactly what the bots do; this name is kept for code that imports
it from here."""

from engine_service.rules.knowledge import (  # noqa: F401
    ALL_TILES,
    Batch,
    Knowledge,
    KnowledgeError,
    SeatKnowledge,
    describe,
    fits_batches,
    from_view,
    numbers_mask_fits,
)
