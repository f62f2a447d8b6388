"""The REST gateway: a Flask app (create_app) in front of the engine's gRPC service, and a
static web client served from the same origin."""


def create_app(config: dict | None = None):
    """The Flask app (see gateway/app.py); imported here lazily so that `import gateway`
    (e.g. by the command line) stays cheap."""
    from .app import create_app as make
    return make(config)


__all__ = ["create_app"]
