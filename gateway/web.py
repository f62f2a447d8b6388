"""The web page at / (static files, no build step), the rules page, the favicon and the API
docs page."""

from pathlib import Path

from flask import Blueprint, Response, current_app, redirect

from . import rules_page
from .errors import ApiError

web = Blueprint("web", __name__)


@web.route("/")
def index():
    return current_app.send_static_file("index.html")


@web.route("/rules")
def rules():
    html = rules_page.render(Path(current_app.config["RULES_PATH"]))
    if html is None:
        raise ApiError(404, "NO_RULES", "the rules page is not available: docs/rules.md is not "
                       "installed next to this gateway")
    return Response(html, mimetype="text/html")


@web.route("/favicon.ico")
def favicon():
    # Browsers ask for /favicon.ico on their own, whatever the page's <link rel="icon">.
    return current_app.send_static_file("favicon.svg")


@web.route("/api/v1/docs")
def docs():
    return current_app.send_static_file("docs.html")


@web.route("/api/v1/")
@web.route("/api/v1")
def api_root():
    return redirect("/api/v1/docs")
