"""The games this server runs, their seat counts and rules options with defaults.

Static facts of the rules (docs/rules.md), not game state; tests/gateway checks them
against the rules core. Each `rules` link is an anchor of the rules page (GET /rules).
"""

from .rules_page import ANCHORS

VARIANTS = [
    {
        "id": "hhl",
        "name": "Homo Homini Lupus",
        "seats": 4,
        "options": [
            {"name": "hands", "type": "integer", "default": None,
             "description": "play this many hands, then end (HHL-10); what ladders and "
                            "tests use"},
            {"name": "minutes", "type": "integer", "default": 60,
             "description": "time limit in minutes of play; the hand in progress is finished "
                            "(HHL-10). Used when hands is not set"},
        ],
        "rules": "/rules#" + ANCHORS["hhl"],
    },
    {
        "id": "domeng",
        "name": "Domeng",
        "seats": 5,
        "options": [
            {"name": "cycles", "type": "integer", "default": 1,
             "description": "game cycles in the match; a cycle ends when a CAMAT is named "
                            "(DOM-11)"},
            {"name": "round_cap", "type": "integer", "default": 200,
             "description": "rounds per cycle at most; a cycle cut by the cap names no CAMAT "
                            "(DOM-11)"},
        ],
        "rules": "/rules#" + ANCHORS["domeng"],
    },
]

SEATS = {v["id"]: v["seats"] for v in VARIANTS}
