"""JSON text fields of the contract (options_json, deals_json, the REST bodies): how deep
one is nested, found without parsing it, so that a document nested thousands deep costs a
scan and not the parser's recursion."""


def nesting_depth(text: str, stop_at: int) -> int:
    """The deepest nesting of arrays and objects in `text`, counted up to `stop_at` (the
    scan ends there). Brackets inside strings do not count."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest >= stop_at:
                    return deepest
        elif ch in "]}":
            depth -= 1
    return deepest
