"""What the gateway knows of the games without asking the engine: each game's seat count
(a default seat list is made before the engine is called) and its rules link, an anchor of
the rules page (GET /rules). Names and rules options come from the engine (ListVariants);
tests/gateway checks these against the rules core."""

from .rules_page import ANCHORS

SEATS = {"hhl": 4, "domeng": 5}           # what CreateMatch needs before it asks the engine
RULES = {v: "/rules#" + ANCHORS[v] for v in SEATS}
