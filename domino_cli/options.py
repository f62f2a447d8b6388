"""Match options from the command line: repeated --option KEY=VALUE (integers)."""


def parse_options(pairs) -> dict:
    options = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"domino: --option wants KEY=VALUE, got {pair!r}")
        try:
            options[key] = int(value)
        except ValueError:
            raise SystemExit(f"domino: option {key} wants an integer, got {value!r}") from None
    return options
