"""A ladder result: the immutable record one counted match leaves in its ladder, made from
the match's result (standings.py describes the shape)."""

# Keys of results stored before the words were settled (docs/glossary.md): "hands" for the
# deals played, "void" for voided. Stores keep them as written; they are read in today's.
_FORMER_KEYS = {"hands": "deals", "void": "voided"}


def ladder_result(variant: str, index: int, set_no: int, set_size: int, seed: int, lineup: list[str],
               result: dict, deals: int, faults: dict | None = None, voided: bool = False,
               unplayed: bool = False) -> dict:
    """`unplayed`: no seat made a move of its own (every move the clock's): nobody played
    it, and a ladder of such matches pauses (docs/ladders.md)."""
    if variant == "hhl":
        scores, titles = list(result["totals"]), [0] * len(lineup)
    else:
        scores, titles = list(result["stones"]), list(result["camat_titles"])
    return {"index": index, "set": set_no, "set_size": set_size, "seed": seed, "lineup": list(lineup),
            "deals": deals, "scores": scores, "titles": titles, "faults": faults or {},
            "voided": voided, "unplayed": unplayed}


def read_stored(result: dict) -> dict:
    """A ladder result as a store gives it back, in today's keys."""
    return {_FORMER_KEYS.get(k, k): v for k, v in result.items()}
