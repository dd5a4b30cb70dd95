#!/usr/bin/env python3
"""Every text dustd's dashboard draws, read by a real headless Chromium in light and dark mode, at a
phone's width and a desktop's, meets WCAG 2's contrast minimum against what is behind it (4.5:1,
3:1 for large text), and every bar and badge of a grade against its card (3:1, WCAG 1.4.11).

The colours are the browser's computed ones (style sheet, inheritance, dark-mode media query and
ancestors' opacity applied), not read from the style sheet; the background is the nearest ancestor's
opaque one, blended through any translucent ones. Driven through the DevTools protocol (Debian's
python3-websocket).

The sign-in page (`/login`, its own style sheet) is checked too, in Korean and English, wherever
BASE shows it: a dustd that asks for a token. One that asks for none sends `/login` to the dashboard,
whose pages the PATHs check, and the sign-in page is then said to be left unchecked.

    chromium-contrast.py BASE WORKDIR PATH [PATH ...]
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from devtools import DevTools  # noqa: E402

base, work, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
SIGN_IN = ["/login?lang=ko", "/login?lang=en"]

# Runs in the page (through DevTools; the page itself has no script). Returns every text and every
# graded mark with its colours and contrast.
MEASURE = r"""
(() => {
  const parse = (text) => {
    const m = text.match(/rgba?\(([^)]+)\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,\/]+/).filter(Boolean).map(Number);
    return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
  };
  const blend = (top, bottom) => ({
    r: top.r * top.a + bottom.r * (1 - top.a), g: top.g * top.a + bottom.g * (1 - top.a),
    b: top.b * top.a + bottom.b * (1 - top.a), a: 1});
  const luminance = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const ratio = (x, y) => {
    const [a, b] = [luminance(x), luminance(y)];
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  };
  // What is painted behind `element`: the ancestors' backgrounds from the page down, blended.
  const background = (element) => {
    const chain = [];
    for (let e = element; e && e.nodeType === 1; e = e.parentElement) chain.push(e);
    let colour = {r: 255, g: 255, b: 255, a: 1};
    for (const e of chain.reverse()) {
      if (e instanceof SVGElement && !(e instanceof SVGSVGElement)) continue;
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) colour = blend(c, colour);
    }
    return colour;
  };
  const opacity = (element) => {
    let o = 1;
    for (let e = element; e && e.nodeType === 1; e = e.parentElement) o *= Number(getComputedStyle(e).opacity);
    return o;
  };
  const visible = (e) => {
    const r = e.getBoundingClientRect();
    const s = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none";
  };
  const results = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const element = node.parentElement;
    if (!node.textContent.trim() || seen.has(element) || !visible(element)) continue;
    if (element.closest("title, style")) continue;
    seen.add(element);
    const style = getComputedStyle(element);
    const svg = element instanceof SVGElement;
    const ink = parse(svg ? style.fill : style.color);
    if (!ink) continue;
    const behind = background(element);
    const shown = blend({...ink, a: ink.a * opacity(element)}, behind);
    const size = parseFloat(style.fontSize);
    // Text in a chart scales with it: its size is what the viewBox makes of it on the screen.
    const scale = svg && element.ownerSVGElement ? element.ownerSVGElement.getBoundingClientRect().width / element.ownerSVGElement.viewBox.baseVal.width : 1;
    const pixels = size * scale;
    const bold = Number(style.fontWeight) >= 700;
    const large = pixels >= 24 || (bold && pixels >= 18.66);
    results.push({kind: "text", text: node.textContent.trim().slice(0, 40), ratio: ratio(shown, behind),
                  need: large ? 3 : 4.5, tag: element.tagName.toLowerCase(), cls: element.getAttribute("class") || ""});
  }
  // Marks that carry meaning by colour: the grade bars, the household's bars, the big badge.
  for (const element of document.querySelectorAll("rect.bar, rect.person, .badge")) {
    if (!visible(element)) continue;
    const style = getComputedStyle(element);
    const fill = parse(element instanceof SVGElement ? style.fill : style.backgroundColor);
    if (!fill) continue;
    const behind = background(element.parentElement);
    results.push({kind: "mark", text: element.getAttribute("class"), ratio: ratio(blend(fill, behind), behind), need: 3,
                  tag: element.tagName.toLowerCase(), cls: element.getAttribute("class") || ""});
  }
  return JSON.stringify(results);
})()
"""


with DevTools("chromium-contrast", work) as tools:
    call = tools.call

    call("Page.enable")
    failures, checked, unchecked = [], 0, set()
    for scheme in ("light", "dark"):
        call("Emulation.setEmulatedMedia", features=[{"name": "prefers-color-scheme", "value": scheme}])
        for width, height in ((390, 844), (1440, 900)):
            call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=width < 600)
            for path in paths + SIGN_IN:
                call("Page.navigate", url=base + path)
                # The page is server-rendered with no script: loaded when its document is complete.
                for _ in range(100):
                    state = call("Runtime.evaluate", expression="document.readyState", returnByValue=True)
                    if state["result"].get("value") == "complete":
                        break
                    time.sleep(0.1)
                if path in SIGN_IN:
                    form = call("Runtime.evaluate", expression="!!document.querySelector('form[action=\"/login\"] #token')",
                                returnByValue=True)["result"].get("value")
                    if not form:
                        unchecked.add(path)
                        continue
                value = call("Runtime.evaluate", expression=MEASURE, returnByValue=True)["result"]["value"]
                results = json.loads(value)
                if not any(r["kind"] == "text" for r in results):
                    raise SystemExit(f"chromium-contrast: {path} showed no text in {scheme} at {width} px")
                checked += len(results)
                for r in results:
                    if r["ratio"] < r["need"]:
                        failures.append(f"{scheme} {width}px {path}: {r['kind']} <{r['tag']} class='{r['cls']}'> "
                                        f"'{r['text']}' {r['ratio']:.2f}:1 < {r['need']}:1")
    if unchecked:
        print(f"chromium-contrast: {base} asks for no token, so it shows no sign-in page: {', '.join(sorted(unchecked))} not checked")
    if failures:
        print("\n".join(failures[:40]))
        raise SystemExit(f"chromium-contrast: {len(failures)} of {checked} texts and marks below WCAG's contrast")
    pages = len(paths) + len(SIGN_IN) - len(unchecked)
    print(f"ok: chromium-contrast: {checked} texts and marks on {pages} pages, light and dark, 390 and 1,440 px, "
          "all at WCAG AA contrast or above (4.5:1 text, 3:1 large text and grade marks)")
