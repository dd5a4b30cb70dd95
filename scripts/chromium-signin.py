#!/usr/bin/env python3
"""A person signs in to dustd's dashboard in a real headless Chromium, as on a phone, and sees only
their own data (docs/REFERENCE.md §13, "Who may see whose data").

Driven through the DevTools protocol (Debian's python3-websocket), with real key presses: the page
is the 401 sign-in form, a wrong token is refused with a message, the person's token typed and Enter
pressed leads back to the page asked for with an HttpOnly SameSite=Strict cookie; that cookie opens
the person's pages and API documents and nothing of the other person's (404), /metrics and
/api/v1/status included; the sign-out button removes it.

    chromium-signin.py BASE TOKEN OWN OTHER WORKDIR
"""
import json
import os
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from devtools import DevTools  # noqa: E402

base, token, own, other, work = sys.argv[1:6]


with DevTools("chromium-signin", work, ["--window-size=390,844"]) as tools:
    call, wait_for, events = tools.call, tools.wait_for, tools.events

    def statuses():
        """The main document's statuses since the last call, in order."""
        found = [e["params"]["response"]["status"] for e in events
                 if e.get("method") == "Network.responseReceived" and e["params"].get("type") == "Document"]
        events[:] = [e for e in events if e.get("method") != "Network.responseReceived"]
        return found

    def dom():
        return call("Runtime.evaluate", expression="document.documentElement.outerHTML")["result"]["value"]

    def location():
        return call("Runtime.evaluate", expression="location.pathname + location.search")["result"]["value"]

    def open_page(path):
        events.clear()
        call("Page.navigate", url=base + path)
        wait_for("Page.loadEventFired")
        return statuses()[-1], dom()

    def type_and_enter(text):
        document = call("DOM.getDocument")["root"]["nodeId"]
        field = call("DOM.querySelector", nodeId=document, selector="#token")["nodeId"]
        assert field, "the sign-in form has no token field"
        call("DOM.focus", nodeId=field)
        call("Input.insertText", text=text)
        return enter()

    def enter():
        """Presses Enter where the focus is, and waits for the page that follows."""
        events.clear()
        for kind in ("keyDown", "keyUp"):
            call("Input.dispatchKeyEvent", type=kind, key="Enter", code="Enter", windowsVirtualKeyCode=13,
                 **({"text": "\r"} if kind == "keyDown" else {}))
        wait_for("Page.loadEventFired")
        return statuses(), dom()

    def press(selector):
        document = call("DOM.getDocument")["root"]["nodeId"]
        node = call("DOM.querySelector", nodeId=document, selector=selector)["nodeId"]
        assert node, f"no {selector} on the page"
        call("DOM.focus", nodeId=node)
        return enter()

    def session_cookie():
        cookies = call("Network.getCookies", urls=[base + "/"])["cookies"]
        return next((c for c in cookies if c["name"] == "dustd_session"), None)

    call("Page.enable")
    call("Network.enable")
    call("Runtime.enable")

    # Not signed in: the page asked for is the sign-in form, with 401, showing nothing of anyone.
    status, html = open_page("/day/2026-11-20?lang=en")
    assert status == 401, status
    assert 'action="/login"' in html and own not in html and other not in html and "종로구" not in html, html[:400]
    print("ok: chromium-signin: a page asked for without a token is the sign-in form (401), no data on it")

    # A wrong token: refused, with the form's message.
    seen, html = type_and_enter("not-the-token-0123456789abcdefghijklmnop")
    assert seen[-1] == 401 and 'role="alert"' in html, (seen, html[:400])
    assert session_cookie() is None
    # The person's token, typed, Enter: back on the page asked for, theirs.
    seen, html = type_and_enter(token)
    assert seen[:1] == [303] or seen[-1] == 200, seen
    assert location() == "/day/2026-11-20?lang=en", location()
    assert other not in html, f"{other} appears on {own}'s page"
    assert 'action="/logout"' in html
    cookie = session_cookie()
    assert cookie and cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/", cookie
    assert token not in cookie["value"]
    print(f"ok: chromium-signin: {own}'s token typed and Enter leads to their page; the cookie is HttpOnly, SameSite=Strict")

    # Their own documents; nothing of the other's, nor what is everyone's.
    status, html = open_page("/api/v1/day/2026-11-20")
    assert status == 200 and '"intake"' in html, (status, html[:300])
    for path in [f"/api/v1/day/2026-11-20?person={urllib.parse.quote(other)}", f"/?person={urllib.parse.quote(other)}",
                 f"/week/2026-W47?person={urllib.parse.quote(other)}", "/metrics", "/api/v1/status"]:
        status, html = open_page(path)
        assert status == 404, (path, status)
    status, html = open_page("/week/2026-W47?lang=en")
    assert status == 200 and other not in html, f"the week page shows {other} to {own}"
    print(f"ok: chromium-signin: the cookie opens {own}'s pages and documents; {other}'s, /metrics and /api/v1/status are 404")

    # Signing out: the cookie goes, and the pages ask for a token again.
    seen, html = press('form[action="/logout"] button')
    assert session_cookie() is None, "the session cookie survived signing out"
    status, html = open_page("/")
    assert status == 401 and 'action="/login"' in html
    print("ok: chromium-signin: signing out removes the cookie; the pages ask for a token again")
