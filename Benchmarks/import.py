#!/usr/bin/env python3
"""Whole-process ingest: `dustctl import` of saved AirKorea responses, for release builds side by side.

    python3 Benchmarks/import.py [--runs N] [--warmup N] DUSTCTL [DUSTCTL ...]

Each DUSTCTL is a dustctl executable (e.g. a release build before and after a change; give them
distinct file names, they label the rows). Three imports, each the real pipeline: start-up, the
configuration, opening (and for a new file creating and migrating) the database, libxml2's parse,
the key-echo check on every text and the upsert in one transaction:

  new file     the 3MONTH answer for 종로구 (2,200 hours) into a database that does not exist yet
  again        the same answer into that database again (every row unchanged: read, compared, kept)
  province     the national answer for 24:00 (673 stations) into the same database

The commands run interleaved, one of each in turn, so a machine that gets busier or quieter during
the run moves them all alike; the report is each one's median and minimum wall time and its
median's ratio to the first DUSTCTL's.
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import timed_run  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("dustctl", nargs="+")
parser.add_argument("--runs", type=int, default=40)
parser.add_argument("--warmup", type=int, default=3)
arguments = parser.parse_args()

here = os.path.dirname(os.path.abspath(__file__))
fixtures = os.path.join(here, "..", "Fixtures", "synthesized")
three_months = os.path.join(fixtures, "station-jongno-ver1.5-3MONTH-2026-11-20.xml")
province = os.path.join(fixtures, "sido-jeonguk-ver1.5-673-2026-11-20-24h00.xml")
work = f"/tmp/finedust-import-bench-{os.getpid()}"
os.makedirs(work, exist_ok=True)
config = os.path.join(work, "empty.yaml")
with open(config, "w") as file:
    file.write("# defaults only\n")
environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "DUSTD_CONFIG": config, "LANG": "C.UTF-8"}
def database(index):
    return os.path.join(work, f"{index}.sqlite")


def remove(path):
    for suffix in ("", "-wal", "-shm", ".lock"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)


def run(argv):
    return timed_run(argv, environment, "import.py")


steps = [
    ("new file", lambda path, db: [path, "import", "--db", db, "--station", "종로구", three_months]),
    ("again", lambda path, db: [path, "import", "--db", db, "--station", "종로구", three_months]),
    ("province", lambda path, db: [path, "import", "--db", db, province]),
]
samples = {(step, index): [] for step, _ in steps for index in range(len(arguments.dustctl))}
for round_number in range(arguments.warmup + arguments.runs):
    for index, path in enumerate(arguments.dustctl):
        remove(database(index))
        for step, argv in steps:
            elapsed = run(argv(path, database(index)))
            if round_number >= arguments.warmup:
                samples[(step, index)].append(elapsed)
for index in range(len(arguments.dustctl)):
    remove(database(index))
os.remove(config)
os.rmdir(work)

print(f"{arguments.runs} interleaved runs each (after {arguments.warmup} warm-up rounds)")
for step, _ in steps:
    print(f"{step}:")
    baseline = statistics.median(samples[(step, 0)])
    for index, path in enumerate(arguments.dustctl):
        values = samples[(step, index)]
        median = statistics.median(values)
        print(f"{os.path.basename(path):>18}  median {median * 1000:7.2f} ms  min {min(values) * 1000:7.2f} ms  "
              f"ratio {median / baseline:4.2f}×")
