"""GET /variants: the games, their seats and options, and the house bot strategies."""

from flask import current_app

from domino_wire.names import VARIANT

from ..schemas import VariantListSchema
from ..variants import RULES
from . import PREFIX, Blueprint, documented, engine

blp = Blueprint("variants", __name__, url_prefix=PREFIX + "/variants",
                description="The games this server runs")


@blp.route("")
@blp.response(200, VariantListSchema())
@documented(blp)
def list_variants():
    """The games, their seat counts and rules options (with their ranges), and the house
    bot strategies"""
    variants = [{"id": VARIANT.word(v.variant), "name": v.name, "seats": v.seats,
                 "options": [option(o) for o in v.options],
                 "rules": RULES[VARIANT.word(v.variant)]}
                for v in engine().list_variants().variants]
    return {"variants": variants, "strategies": list(current_app.config["HOUSE_STRATEGIES"])}


def option(o) -> dict:
    """One OptionSpec of ListVariants: an integer's range, or an enum option's words."""
    if o.choices:
        return {"name": o.name, "type": "enum", "default": o.default_choice, "min": None,
                "max": None, "choices": list(o.choices), "description": o.description}
    return {"name": o.name, "type": "integer",
            "default": o.default_value if o.HasField("default_value") else None,
            "min": o.min, "max": o.max, "choices": [], "description": o.description}
