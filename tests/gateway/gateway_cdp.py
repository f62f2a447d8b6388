"""A small Chrome DevTools Protocol driver for Debian's chromium (websocket-client only)."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request

import pytest

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--remote-debugging-port=0", "--remote-allow-origins=*"]


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    def __init__(self, width=1200, height=900):
        import websocket  # websocket-client

        self.profile = tempfile.mkdtemp(prefix="chromium-")
        self.proc = subprocess.Popen(
            [chromium_path(), *FLAGS, f"--user-data-dir={self.profile}",
             f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        port = None
        deadline = time.monotonic() + 30
        while port is None and time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            m = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            if m:
                port = int(m.group(1))
            elif not line and self.proc.poll() is not None:
                break
        if port is None:
            self.close()
            raise RuntimeError("chromium did not start")
        self.proc.stderr.close()
        pages = []
        while not pages and time.monotonic() < deadline:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=5) as r:
                pages = [t for t in json.load(r) if t["type"] == "page"]
            time.sleep(0.05)
        self.ws = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=30,
                                              suppress_origin=True)
        self.next_id = 0
        self.events: list[dict] = []
        self.send("Page.enable")
        self.send("Runtime.enable")

    def send(self, method: str, params: dict | None = None) -> dict:
        self.next_id += 1
        my_id = self.next_id
        self.ws.send(json.dumps({"id": my_id, "method": method, "params": params or {}}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == my_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def js(self, expression: str):
        result = self.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def goto(self, url: str) -> None:
        self.send("Page.navigate", {"url": url})

    # What an evaluation says while the page changes under it: not yet, ask again.
    NOT_YET = ("TypeError",                          # an element the route has not drawn yet
               "Inspected target navigated or closed",   # a navigation replaced the page
               "Execution context was destroyed", "Cannot find context with specified id")

    def wait(self, expression: str, timeout: float = 20.0, step: float = 0.05):
        """Until `expression` is truthy. A TypeError counts as not yet: the page may not have
        drawn the element the expression reads (a route is changing); so does an
        evaluation cut by a navigation (the new page is asked next)."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            try:
                value = self.js(expression)
            except RuntimeError as e:
                if not any(word in str(e) for word in self.NOT_YET):
                    raise
                value, last = None, e
            if value:
                return value
            time.sleep(step)
        raise AssertionError(f"timed out waiting for {expression}" + (f" (last: {last})" if last else ""))

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element."""
        box = self.js(f"""(() => {{ const e = document.querySelector({json.dumps(selector)});
            if (!e) return null; e.scrollIntoView({{block: 'center'}});
            const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()""")
        if box is None:
            raise AssertionError(f"nothing matches {selector}")
        x, y = box
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left",
                                                   "clickCount": 1})

    def click_until(self, selector: str, done: str, tries: int = 5) -> None:
        """Click, and click again while `done` stays false (the page may have moved the
        element between measuring and clicking: the board grows as bots play)."""
        for _ in range(tries):
            if self.js(done):
                return
            if not self.js(f"!!document.querySelector({json.dumps(selector)})"):
                self.wait(done, timeout=10)   # it went away: the click did its work
                return
            self.click(selector)
            try:
                self.wait(done, timeout=3.0)   # a loaded machine is slow to repaint
                return
            except AssertionError:
                continue
        raise AssertionError(f"clicking {selector} never led to {done}")

    def key(self, key: str, code: int) -> None:
        for kind in ("rawKeyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", {"type": kind, "key": key, "code": key,
                                                 "windowsVirtualKeyCode": code})

    def screenshot(self, path: str, selector: str | None = None) -> None:
        """The viewport, or only the element `selector` (wherever it is on the page)."""
        params = {"format": "png"}
        if selector:
            box = self.js(f"""(() => {{ const r = document.querySelector({json.dumps(selector)})
                .getBoundingClientRect(); return {{x: r.x + scrollX, y: r.y + scrollY,
                width: r.width, height: r.height}}; }})()""")
            params.update(clip={**box, "scale": 1}, captureBeyondViewport=True)
        data = self.send("Page.captureScreenshot", params)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:   # noqa: BLE001
            pass
        self.proc.terminate()
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)
        if os.path.exists(self.profile):
            shutil.rmtree(self.profile, ignore_errors=True)


needs_chromium = pytest.mark.skipif(chromium_path() is None, reason="chromium is not installed "
                                    "(apt-get install -y chromium)")
