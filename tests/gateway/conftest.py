"""One real engine process and real house bot processes (pool "house-random") for the whole
gateway suite, plus the gateway app as a Flask test client and behind a live server."""

import json

import pytest
from gateway_support import STRATEGIES, LiveGateway, start_engine, start_house_bots

from gateway import create_app


@pytest.fixture(scope="session")
def engine_address(tmp_path_factory):
    from domino_cli.serve_cmd import house_pools

    tmp = tmp_path_factory.mktemp("gateway-engine")
    secrets = house_pools(STRATEGIES)
    proc, port = start_engine(str(tmp / "engine.sqlite3"), 0, str(tmp / "engine.log"),
                              env={"DOMINO_POOL_SECRETS": json.dumps(secrets)})
    address = f"127.0.0.1:{port}"
    bots = start_house_bots(address, STRATEGIES, secrets, str(tmp / "bots.log"))
    yield address
    for p in [*bots, proc]:
        p.terminate()
    for p in [*bots, proc]:
        try:
            p.wait(60)
        except Exception:   # noqa: BLE001
            p.kill()


@pytest.fixture(scope="session")
def app(engine_address):
    app = create_app({"ENGINE_ADDRESS": engine_address, "HOUSE_STRATEGIES": STRATEGIES,
                      "TESTING": True})
    yield app
    app.extensions["engine"].close()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(scope="session")
def live(engine_address):
    gw = LiveGateway(engine_address, STRATEGIES)
    yield gw
    gw.close()


@pytest.fixture
def browser():
    from gateway_cdp import Browser
    b = Browser()
    yield b
    b.close()
