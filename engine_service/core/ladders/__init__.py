"""Ladders the engine runs (docs/ladders.md). director.py schedules a ladder's matches into
its pools, counts each slot once, charges faults and resumes after a restart; the formats,
ratings and standings themselves are the pure top-level package `ladders`."""
