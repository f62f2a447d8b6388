"""GET /variants: the games, their seats and options, and the house bot strategies."""

from flask import current_app

from ..schemas import VariantListSchema
from ..variants import VARIANTS
from . import PREFIX, Blueprint

blp = Blueprint("variants", __name__, url_prefix=PREFIX + "/variants",
                description="The games this server runs")


@blp.route("")
@blp.response(200, VariantListSchema())
def list_variants():
    """The games, their seat counts and rules options, and the house bot strategies"""
    return {"variants": VARIANTS, "strategies": list(current_app.config["HOUSE_STRATEGIES"])}
