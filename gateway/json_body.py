"""Request bodies as JSON, refused politely when they are not JSON a client should send.

Python's json parser accepts what the rest of the gateway cannot carry: a lone surrogate
("\\ud800" is not a character, and the engine's protobuf strings refuse it) and documents
nested deep enough to exhaust the parser's recursion. Both become ValueError here, which
Flask answers with 400 MALFORMED_REQUEST like any other undecodable body.
"""

from __future__ import annotations

import json
import re

from flask.json.provider import DefaultJSONProvider

from domino_wire.jsontext import nesting_depth

MAX_DEPTH = 32
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class StrictJSONProvider(DefaultJSONProvider):
    def loads(self, s, **kwargs):
        if isinstance(s, (bytes, bytearray)):
            s = s.decode("utf-8")      # UnicodeDecodeError is a ValueError
        if nesting_depth(s, MAX_DEPTH + 1) > MAX_DEPTH:
            raise ValueError(f"the JSON is nested more than {MAX_DEPTH} deep")
        try:
            value = json.loads(s, **kwargs)
        except RecursionError:
            raise ValueError(f"the JSON is nested more than {MAX_DEPTH} deep") from None
        # A lone surrogate can only come from an escape (the text is valid UTF-8): only a
        # body with an escape in that range is looked at closely.
        if _SURROGATE_ESCAPE.search(s):
            try:
                json.dumps(value, ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError("the JSON holds a lone surrogate (like \\ud800), which is "
                                 "no character: send valid Unicode text") from None
        return value
