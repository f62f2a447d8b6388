"""What the gateway knows of the games without asking the engine: each game's seat count
(a default seat list is made before the engine is called), its rules link, an anchor of
the rules page (GET /rules), and its rules options with their ranges, for the OpenAPI
document. The engine tells the options too (ListVariants, GET /variants) and is the one
that checks them; tests/gateway/test_options.py checks these against both the engine's
answer and the rules core."""

from domino_wire.names import CLOSING_PASS, DEAD_STOCK, FIRST_LEAD, PROFILE

from .rules_page import ANCHORS

SEATS = {"hhl": 4, "domeng": 5}           # what CreateMatch needs before it asks the engine
RULES = {v: "/rules#" + ANCHORS[v] for v in SEATS}
# Each game's integer rules options: name -> (least, greatest, default). A request may also
# give null, which is the default (HHL: minutes 60 unless hands is given; hands none).
OPTIONS = {
    "hhl": {"minutes": (1, 1440, 60), "hands": (1, 1000, None)},
    "domeng": {"cycles": (1, 100, 1), "round_cap": (1, 1000, 200)},
}
# Each game's enum rules options: name -> its words, the default first. ``profile`` sets
# the readings of the rulings that depart from the rule texts' letter; a reading given on
# its own wins over it (docs/rules.md, "Where a ruling departs from the literal text").
WORDS = {
    "hhl": {"profile": PROFILE.words, "dead_stock": DEAD_STOCK.words},
    "domeng": {"profile": PROFILE.words, "closing_pass": CLOSING_PASS.words,
               "first_lead": FIRST_LEAD.words},
}
OPTION_TYPES = ("integer", "enum")   # GET /variants: an option's type
