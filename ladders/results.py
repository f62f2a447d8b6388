"""A ladder result: the immutable record one counted match leaves in its ladder, made from
the match's result (standings.py describes the shape)."""


def ladder_result(variant: str, index: int, set_no: int, set_size: int, seed: int, lineup: list[str],
               result: dict, hands: int, faults: dict | None = None, void: bool = False) -> dict:
    if variant == "hhl":
        scores, titles = list(result["totals"]), [0] * len(lineup)
    else:
        scores, titles = list(result["stones"]), list(result["camat_titles"])
    return {"index": index, "set": set_no, "set_size": set_size, "seed": seed, "lineup": list(lineup),
            "hands": hands, "scores": scores, "titles": titles, "faults": faults or {}, "void": void}
