#!/usr/bin/env python3
"""Python's xml.etree doing the parse floor's extraction (dataTime, stationName, pm10Value,
pm25Value of every item). Prints the median milliseconds of each file, one line each."""
import statistics
import sys
import time
import xml.etree.ElementTree as ET


def extract(data):
    items = []
    for item in ET.fromstring(data).iter("item"):
        def text(name):
            node = item.find(name)
            return node.text if node is not None else None
        def number(name):
            value = text(name)
            try:
                return float(value)
            except (TypeError, ValueError):
                return None
        items.append((text("dataTime"), text("stationName"), number("pm10Value"), number("pm25Value")))
    return items


for path, expected in zip(sys.argv[1::2], sys.argv[2::2]):
    data = open(path, "rb").read()
    assert len(extract(data)) == int(expected)
    samples = []
    deadline = time.perf_counter() + 3
    while time.perf_counter() < deadline or len(samples) < 5:
        start = time.perf_counter()
        extract(data)
        samples.append((time.perf_counter() - start) * 1000)
    print(f"{path} {statistics.median(samples):.3f} {min(samples):.3f} {len(samples)}")
