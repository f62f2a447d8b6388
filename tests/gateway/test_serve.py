"""`domino serve` starts the engine, the gateway and house bots, prints the URL, plays a
bot match, and stops everything on SIGTERM; `domino gateway` fronts a running engine."""

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request

import pytest
from gateway_support import start_engine, wait_for


def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as r:
        return r.status, json.loads(r.read())


def children(pid):
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


def house_bots(pid):
    """The child processes of `pid` that are `domino bot` processes."""
    out = subprocess.run(["ps", "-o", "pid=,args=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(line.split()[0]) for line in out.stdout.splitlines() if " bot " in line]


def test_serve_runs_everything_and_stops_cleanly_on_sigterm(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-m", "domino_cli", "serve", "--port", "0",
         "--engine-port", "0", "--db", str(tmp_path / "serve.sqlite3"), "--bots", "random"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = proc.stdout.readline()
        while line and not line.startswith("domino serving on "):   # skip the engine's log
            line = proc.stdout.readline()
        assert line.startswith("domino serving on http://127.0.0.1:"), line
        url = line.split()[3].rstrip("/")
        assert len(children(proc.pid)) == 1 + 1        # the engine and one house bot process
        variants = get(url + "/api/v1/variants")
        assert variants["strategies"] == ["random"]
        status, created = post(url + "/api/v1/matches", {
            "variant": "domeng", "seats": [{"kind": "bot", "strategy": "random"}] * 5})
        assert status == 201
        match_url = f"{url}/api/v1/matches/{created['match_id']}"
        wait_for(lambda: get(match_url)["status"] == "over", timeout=60, step=0.2)
        with urllib.request.urlopen(url + "/", timeout=10) as r:
            assert r.headers["Content-Type"].startswith("text/html")
        # A house bot that dies is started again, and bot matches go on.
        (dead,) = house_bots(proc.pid)
        os.kill(dead, signal.SIGKILL)
        wait_for(lambda: len(house_bots(proc.pid)) == 1 and house_bots(proc.pid) != [dead],
                 timeout=20, step=0.2)
        body = {"variant": "hhl", "options": {"hands": 1},
                "seats": [{"kind": "bot", "strategy": "random"}] * 4}

        def created_once_the_bot_enlisted():
            try:
                return post(url + "/api/v1/matches", body)
            except urllib.error.HTTPError as e:   # refused, saying why, until it enlists
                assert json.loads(e.read())["reason"] == "NO_HOUSE_BOT"
                return None
        status, again = wait_for(created_once_the_bot_enlisted, timeout=20, step=0.2)
        assert status == 201
        wait_for(lambda: get(f"{url}/api/v1/matches/{again['match_id']}")["status"] == "over",
                 timeout=60, step=0.2)
    finally:
        kids = children(proc.pid)
        proc.send_signal(signal.SIGTERM)
        try:
            out, _ = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            for pid in [proc.pid, *kids]:   # leave nothing running behind a failed test
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            raise
    assert proc.returncode == 0, out[-3000:]
    assert "domino serve: stopped" in out
    for kid in kids:   # nothing left behind
        assert not os.path.exists(f"/proc/{kid}") or "zombie" in open(f"/proc/{kid}/status").read()


def test_gateway_alone_fronts_a_running_engine(tmp_path):
    engine, port = start_engine(str(tmp_path / "e.sqlite3"))
    gw = subprocess.Popen(
        [sys.executable, "-m", "domino_cli", "gateway", "--engine",
         f"127.0.0.1:{port}", "--port", "0", "--bots", "greedy"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        warning = gw.stdout.readline()     # no house bot runs at this engine: said at once
        assert "warning: no house bot plays greedy" in warning, warning
        line = gw.stdout.readline()
        assert line.startswith("gateway listening on http://127.0.0.1:"), line
        url = line.split()[3].rstrip("/")
        assert get(url + "/api/v1/variants")["strategies"] == ["greedy"]
        assert get(url + "/api/v1/matches") == {"matches": []}
        with pytest.raises(urllib.error.HTTPError) as refused:   # and explained when asked
            post(url + "/api/v1/matches", {"variant": "hhl", "seats": [
                {"kind": "bot", "strategy": "greedy"}] * 4})
        answer = json.loads(refused.value.read())
        assert refused.value.code == 409 and answer["reason"] == "NO_HOUSE_BOT"
        assert "domino bot --pool house-greedy" in answer["message"]
    finally:
        gw.send_signal(signal.SIGINT)
        gw.communicate(timeout=20)
        engine.terminate()
        engine.wait(60)
    assert gw.returncode == 0
