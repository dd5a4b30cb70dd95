#!/usr/bin/env python3
"""A PNG of one element of a dashboard page, as Chromium draws it, for the pictures in docs/.

    python3 scripts/chromium-card-shot.py BASE PATH SELECTOR OUT.png WIDTH light|dark WORK

BASE is a running dustd (`dustd --demo`), PATH the page, SELECTOR a CSS selector of the element,
WIDTH the viewport's width in CSS pixels (390 a phone, 1440 a desktop). The picture is taken at
twice the pixel density. E.g. the demo's indoor card (docs/REFERENCE.md §21):

    python3 scripts/chromium-card-shot.py http://127.0.0.1:8478 /day/2026-11-20 section.indoor docs/indoor-390-light.png 390 light /tmp
"""
import base64
import json
import sys
import time

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from devtools import DevTools  # noqa: E402

base, path, selector, out, width, scheme, work = sys.argv[1:8]
width = int(width)
with DevTools("chromium-card-shot", work) as tools:
    call = tools.call
    call("Page.enable")
    call("Emulation.setEmulatedMedia", features=[{"name": "prefers-color-scheme", "value": scheme}])
    call("Emulation.setDeviceMetricsOverride", width=width, height=900, deviceScaleFactor=2, mobile=width < 600)
    call("Page.navigate", url=base + path)
    for _ in range(100):
        if call("Runtime.evaluate", expression="document.readyState", returnByValue=True)["result"].get("value") == "complete":
            break
        time.sleep(0.1)
    box = call("Runtime.evaluate", returnByValue=True, expression=(
        f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
        " e.scrollIntoView(); const r = e.getBoundingClientRect();"
        " return {x: r.x + window.scrollX, y: r.y + window.scrollY, width: r.width, height: r.height}; })()"))["result"].get("value")
    if not box:
        raise SystemExit(f"chromium-card-shot: no {selector} on {path}")
    margin = 8
    clip = {"x": max(0, box["x"] - margin), "y": max(0, box["y"] - margin), "width": box["width"] + 2 * margin,
            "height": box["height"] + 2 * margin, "scale": 1}
    shot = call("Page.captureScreenshot", format="png", clip=clip, captureBeyondViewport=True)
    open(out, "wb").write(base64.b64decode(shot["data"]))
    print(f"chromium-card-shot: {out}: {selector} of {path} at {width} px, {scheme}")
