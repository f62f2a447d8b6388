"""Records as the command line reads them: the file format (docs/records.md), or the same
document as REST sends it (GET /api/v1/matches/{match_id}/record), whose seed is a decimal
string because a JavaScript number holds integers exactly only up to 2^53."""


def numeric_seed(record):
    """The record with a seed of decimal digits made the number the rules read; anything
    else is left as it is, for the rules to refuse by name."""
    seed = record.get("seed") if isinstance(record, dict) else None
    if isinstance(seed, str) and seed.isascii() and seed.isdigit() and len(seed) <= 20:
        return {**record, "seed": int(seed)}
    return record
