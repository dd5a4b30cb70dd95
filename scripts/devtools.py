"""A headless Chromium driven through the DevTools protocol (Debian's python3-websocket), for the
browser checks of scripts/web-e2e.sh (chromium-signin.py, chromium-contrast.py).

    with DevTools("chromium-signin", work, ["--window-size=390,844"]) as tools:
        tools.call("Page.navigate", url=...)
        tools.wait_for("Page.loadEventFired")

Messages that arrive while a call waits for its answer are kept in `events`, in order.
"""
import json
import socket
import subprocess
import time
import urllib.request

import websocket


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class DevTools:
    def __init__(self, name, work, arguments=()):
        """Starts Chromium with a profile and a log of `name`'s under `work`, and connects to its page."""
        self.name = name
        self.events = []
        self._counter = 0
        port = free_port()
        self._browser = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
             f"--user-data-dir={work}/{name}-profile", f"--remote-debugging-port={port}", *arguments, "about:blank"],
            stdout=subprocess.DEVNULL, stderr=open(f"{work}/{name}.log", "w"))
        try:
            deadline = time.time() + 30
            while True:
                try:
                    targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=2))
                    page = next(t for t in targets if t["type"] == "page")
                    break
                except Exception:
                    if time.time() > deadline:
                        raise SystemExit(f"{name}: Chromium's DevTools did not answer")
                    time.sleep(0.2)
            self._ws = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=30)
        except BaseException:
            self.close()
            raise

    def call(self, method, **params):
        """Sends `method` and returns its result; an error answer ends the script naming the method."""
        self._counter += 1
        self._ws.settimeout(30)
        self._ws.send(json.dumps({"id": self._counter, "method": method, "params": params}))
        while True:
            message = json.loads(self._ws.recv())
            if message.get("id") == self._counter:
                if "error" in message:
                    raise SystemExit(f"{self.name}: {method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method, seconds=20):
        """The first event `method`, taken from `events` or waited for up to `seconds`."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            for index, event in enumerate(self.events):
                if event.get("method") == method:
                    return self.events.pop(index)
            self._ws.settimeout(max(0.1, deadline - time.time()))
            try:
                self.events.append(json.loads(self._ws.recv()))
            except websocket.WebSocketTimeoutException:
                break
        raise SystemExit(f"{self.name}: no {method} within {seconds} s")

    def close(self):
        self._browser.terminate()
        try:
            self._browser.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._browser.kill()

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()
