#!/usr/bin/env python3
"""Writes Fixtures/indoor/demo-living-room-2026-11-20.csv: the demo's living-room monitor (docs/REFERENCE.md §21).

Synthesized, not recorded: one sample a minute on 2026-11-20 (KST) from 17:00, when the household came home
and plugged in a PM2.5/PM10 monitor in a flat in 종로구, to midnight. Indoors follows the station's hourly
values (Fixtures/synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml) with a lag and infiltration 0.55,
plus a small deterministic wobble, until 19:00, when a purifier is switched on: the concentration then falls
with a time constant of 20 minutes towards 4 µg/m³ PM2.5 (6 PM10), and stays there to midnight. A 35-minute
gap at 21:10 (the monitor's Wi-Fi dropped) leaves the 21:00 hour under 30 minutes covered, so that hour keeps
the estimate. The hours before 17:00 (jiho's walk of §19 among them) have no sample.

Run from the repository's top directory: python3 scripts/make-indoor-fixtures.py
"""
import math
import re

STATION = "Fixtures/synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"
OUT = "Fixtures/indoor/demo-living-room-2026-11-20.csv"

hourly = {}
for item in re.findall(r"<item>(.*?)</item>", open(STATION, encoding="utf-8").read(), re.S):
    time = re.search(r"<dataTime>(.*?)</dataTime>", item).group(1)
    if not time.startswith("2026-11-20"):
        continue
    hour = int(time[11:13]) - 1  # the hour that ends at dataTime
    values = []
    for tag in ("pm25Value", "pm10Value"):
        text = re.search(rf"<{tag}>(.*?)</{tag}>", item).group(1)
        values.append(float(text) if re.fullmatch(r"\d+(\.\d+)?", text) else None)
    hourly[hour] = values

def outdoor(minute, index):
    """The station's value, linearly between the middles of its hours; a missing hour takes its neighbour's."""
    position = minute / 60 - 0.5
    low = max(0, min(23, math.floor(position)))
    high = max(0, min(23, low + 1))
    def value(hour):
        for offset in (0, -1, 1, -2, 2):
            found = hourly.get(hour + offset, [None, None])[index]
            if found is not None:
                return found
        return 20.0
    weight = min(1.0, max(0.0, position - low))
    return value(low) * (1 - weight) + value(high) * weight

rows = ["time,pm25,pm10"]
level = [None, None]
for minute in range(17 * 60, 24 * 60):
    if 21 * 60 + 10 <= minute < 21 * 60 + 45:
        continue  # the monitor's Wi-Fi dropped
    for index, floor in ((0, 4.0), (1, 6.0)):
        target = 0.55 * outdoor(max(0, minute - 30), index)
        if minute >= 19 * 60:
            start = level[index] if level[index] is not None else target
            target = floor + (start - floor) * math.exp(-1 / 20)
        level[index] = target
    wobble = 0.6 * math.sin(minute / 7.0) + 0.3 * math.sin(minute / 2.3)
    pm25 = max(0.0, level[0] + wobble)
    pm10 = max(0.0, level[1] + 1.5 * wobble)
    rows.append(f"2026-11-20 {minute // 60:02d}:{minute % 60:02d},{pm25:.1f},{pm10:.1f}")
open(OUT, "w", encoding="utf-8").write("\n".join(rows) + "\n")
print(f"{OUT}: {len(rows) - 1} samples")
