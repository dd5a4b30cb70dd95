#!/usr/bin/env python3
"""Checks that dashboard pages fit a phone, as Chromium lays them out with a Korean font (the fonts-nanum
package, as a phone has one): at 320 and 390 CSS pixels, Korean and English, nothing is wider than the
screen, the person switcher's links stay on it, the big grade word is one line, and the household
chart's legend names neither overlap one another nor leave the chart.

    python3 scripts/chromium-fit.py BASE WORK PATH...

Exits 1 naming each page, width and language that does not fit.
"""
import json
import sys
import time

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from devtools import DevTools  # noqa: E402

base, work, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
MEASURE = r"""
(() => {
  const width = document.documentElement.clientWidth, problems = [];
  if (document.documentElement.scrollWidth > width) problems.push(`the page is ${document.documentElement.scrollWidth}px wide`);
  for (const a of document.querySelectorAll('nav.people a')) {
    const box = a.getBoundingClientRect();
    if (box.left < 0 || box.right > width + 0.5) problems.push(`switcher link "${a.textContent}" at ${box.left.toFixed(0)}–${box.right.toFixed(0)}px`);
  }
  for (const word of document.querySelectorAll('.badge .word')) {
    const range = document.createRange(); range.selectNodeContents(word);
    const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
    if (lines > 1) problems.push(`the grade word "${word.textContent}" takes ${lines} lines`);
  }
  for (const chart of document.querySelectorAll('svg.household-chart')) {
    const frame = chart.getBoundingClientRect();
    const labels = [...chart.querySelectorAll(':scope > text.label')].filter(t => t.querySelector('title'))
      .map(t => ({name: t.lastChild.textContent, box: t.getBoundingClientRect()}));
    if (labels.length < 2) problems.push('the household chart has no legend');
    for (const [i, a] of labels.entries()) {
      if (a.box.left < frame.left - 0.5 || a.box.right > frame.right + 0.5) problems.push(`legend "${a.name}" leaves the chart`);
      for (const b of labels.slice(i + 1)) {
        const apart = a.box.right <= b.box.left || b.box.right <= a.box.left || a.box.bottom <= b.box.top || b.box.bottom <= a.box.top;
        if (!apart) problems.push(`legend "${a.name}" overlaps "${b.name}"`);
      }
    }
  }
  return JSON.stringify(problems);
})()
"""
failures = []
with DevTools("chromium-fit", work) as tools:
    call = tools.call
    call("Page.enable")
    call("Network.enable")
    for width in (320, 390):
        call("Emulation.setDeviceMetricsOverride", width=width, height=800, deviceScaleFactor=3, mobile=True)
        for language in ("ko-KR", "en-US"):
            call("Network.setExtraHTTPHeaders", headers={"Accept-Language": language})
            for path in paths:
                call("Page.navigate", url=base + path)
                for _ in range(100):
                    state = call("Runtime.evaluate", expression="document.readyState", returnByValue=True)["result"].get("value")
                    if state == "complete":
                        break
                    time.sleep(0.1)
                problems = json.loads(call("Runtime.evaluate", expression=MEASURE, returnByValue=True)["result"]["value"])
                failures += [f"{path} at {width}px, {language}: {problem}" for problem in problems]
for failure in failures:
    print(f"chromium-fit: {failure}")
sys.exit(1 if failures else 0)
