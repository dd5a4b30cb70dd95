#!/usr/bin/env python3
"""One wrk run's summary, tab-separated: [LABEL] req/s, p50 ms, p99 ms, non-2xx answers.

    python3 Benchmarks/wrk_summary.py WRK_OUTPUT_FILE [LABEL]      (wrk run with --latency)
"""
import re
import sys

text = open(sys.argv[1]).read()
rate = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))


def ms(value, unit):
    return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]


p50 = ms(*re.search(r"50%\s+([\d.]+)(us|ms|s)", text).groups())
p99 = ms(*re.search(r"99%\s+([\d.]+)(us|ms|s)", text).groups())
errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
fields = [f"{rate:.0f}", f"{p50:.2f}", f"{p99:.2f}", errors.group(1) if errors else "0"]
print("\t".join(sys.argv[2:3] + fields))
