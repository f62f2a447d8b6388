"""The web page at / (static files, no build step) and the API docs page."""

from flask import Blueprint, current_app, redirect

web = Blueprint("web", __name__)


@web.route("/")
def index():
    return current_app.send_static_file("index.html")


@web.route("/api/v1/docs")
def docs():
    return current_app.send_static_file("docs.html")


@web.route("/api/v1/")
@web.route("/api/v1")
def api_root():
    return redirect("/api/v1/docs")
