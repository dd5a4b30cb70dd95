#!/usr/bin/env python3
"""`dustctl week` against the `sqlite3` command running the same queries (issue 10, item 9).

    python3 Benchmarks/startup.py DB [--config FILE] [--runs N] [--history-years N] DUSTCTL [DUSTCTL ...]

DB is a demo database (`dustctl demo --db DB`); each DUSTCTL is a dustctl executable, e.g. a
release build before and after a change. A DUSTCTL given as PATH@OTHER_DB reads OTHER_DB instead
(a build whose schema is older than DB's refuses DB: give it a demo database it made itself). The commands run interleaved, one of each in turn, so a
machine that gets busier or quieter during the run moves them all alike; the report is each one's
median and minimum wall time and its median's ratio to `sqlite3`'s. The target is ≤ 4.5×.

--every-command (issue 38) times every report command of each DUSTCTL on DB beside `sqlite3` and the
build's own `--version` (what start-up alone costs): `today`, `day`, `hourly`, `week` (rolling and ISO),
`forecast`, `advisories`, `status`, `stations list`, `export` and `activity sources`, at the demo's
instant (`--now`) where the clock matters. `status` exits 3 on a database no dustd is writing (it says
so): that is its answer, and timed like the others.

--history-years N (issue 19, item 22) also runs every command on two copies of DB holding N more
years of hourly rows for 종로구 (and a poll attempt for each hour) before the week: one as a
FineDust before 0.19 left it (the persistent -wal as large as the import that wrote the years) and
one as FineDust leaves it now (the -wal cut to 0 bytes when the writer closed). A week's query must
not cost in proportion to history. `sqlite3` runs with -readonly, as dustctl reads, so it leaves
the -wal as it found it.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import timed_run  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("db")
parser.add_argument("dustctl", nargs="+")
parser.add_argument("--config", default=None, help="the configuration file dustctl reads (default: a comment-only file)")
parser.add_argument("--runs", type=int, default=300)
parser.add_argument("--warmup", type=int, default=20)
parser.add_argument("--history-years", type=int, default=0)
parser.add_argument("--every-command", action="store_true")
arguments = parser.parse_args()

# The week 2026-11-14 – 2026-11-20 in Korea: what `dustctl week --end 2026-11-20` reads.
start = 1794582000
end = start + 7 * 86400
SQL = (f"SELECT date(slot_start + 32400, 'unixepoch') AS d, count(pm10), avg(pm10), max(pm10), count(pm25), avg(pm25), "
       f"max(pm25), sum(pm10 * 0.189), sum(pm25 * 0.189) FROM measurement WHERE station = '종로구' "
       f"AND slot_start >= {start} AND slot_start < {end} GROUP BY d ORDER BY d; "
       f"SELECT slot_start, max(distance_m) FROM activity_source WHERE slot_start >= {start} AND slot_start < {end} "
       f"GROUP BY slot_start;")

config = arguments.config
if config is None:
    config = f"/tmp/finedust-startup-{os.getpid()}.yaml"
    with open(config, "w") as file:
        file.write("# defaults only\n")
environment = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "DUSTD_CONFIG": config, "LANG": "C.UTF-8"}
sqlite3 = next(os.path.join(d, "sqlite3") for d in environment["PATH"].split(":") if os.access(os.path.join(d, "sqlite3"), os.X_OK))


def with_history(years, truncate_wal):
    """A copy of the database with `years` more years of hours before the week, written in one
    transaction by a writer in persistent-WAL mode, as dustd and dustctl import write."""
    path = f"/tmp/finedust-startup-{os.getpid()}-{'truncated' if truncate_wal else 'kept'}.sqlite"
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    shutil.copyfile(arguments.db, path)
    hours = years * 8766
    limit = ["PRAGMA journal_size_limit = 4194304;"] if truncate_wal else []
    subprocess.run([sqlite3, path, ".filectrl persist_wal 1", *limit, f"""
        BEGIN;
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {hours})
        INSERT OR IGNORE INTO measurement(station, slot_start, pm10, pm25, fetched_at)
            SELECT '종로구', {start} - i * 3600, 20 + i % 60, 8 + i % 35, {start} - i * 3600 + 1200 FROM n;
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {hours})
        INSERT INTO poll_attempt(started_at, station, operation, outcome, rows_new)
            SELECT {start} - i * 3600 + 1200, '종로구', 'station 종로구 DAILY page 1', 'ok', 1 FROM n;
        COMMIT;"""], check=True, stdout=subprocess.DEVNULL)
    return path


# The report commands and what each needs; the demo's "now" for those that read the clock.
NOW = ["--now", "2026-11-20T23:30:00+09:00"]
STATION = ["--station", "종로구"]
EVERY = [
    ("--version", ["--version"], False),
    ("today", ["today", *NOW, *STATION], True),
    ("day", ["day", "2026-11-20", *STATION], True),
    ("hourly", ["hourly", "2026-11-20", *STATION], True),
    ("week", ["week", "--end", "2026-11-20", *STATION], True),
    ("week --iso", ["week", "--iso", "2026-W47", *STATION], True),
    ("forecast", ["forecast", *NOW, *STATION], True),
    ("advisories", ["advisories", *NOW, *STATION], True),
    ("status", ["status"], True),
    ("stations list", ["stations", "list"], True),
    ("export", ["export", "--week", "2026-W47", *STATION], True),
    ("activity sources", ["activity", "sources"], True),
]
# Exit statuses that are a command's answer, not a failure: `status` on a database no dustd writes.
ANSWERS = {"status": (0, 3)}

databases = [("demo", arguments.db)]
if arguments.history_years > 0:
    databases.append((f"+{arguments.history_years} years, -wal kept", with_history(arguments.history_years, False)))
    databases.append((f"+{arguments.history_years} years, -wal cut", with_history(arguments.history_years, True)))
commands = []
for label, db in databases:
    commands.append((label, "sqlite3", [sqlite3, "-readonly", db, SQL]))
    for given in arguments.dustctl:
        path, _, own = given.partition("@")
        target = own if own and label == "demo" else db
        commands.append((label, path, [path, "week", "--db", target, "--station", "종로구", "--end", "2026-11-20"]))

def run(argv):
    return timed_run(argv, environment, "startup.py")


if arguments.every_command:
    every = [("sqlite3", "sqlite3", [sqlite3, "-readonly", arguments.db, SQL], (0,))]
    for given in arguments.dustctl:
        path, _, own = given.partition("@")
        db = own or arguments.db
        for name, argv, reads in EVERY:
            every.append((path, name, [path, *argv, *(["--db", db] if reads else [])], ANSWERS.get(argv[0], (0,))))
    times = {(build, name): [] for build, name, _, _ in every}
    for round_number in range(arguments.warmup + arguments.runs):
        for build, name, argv, accepted in every:
            elapsed = timed_run(argv, environment, "startup.py", accepted=accepted, quiet=True)
            if round_number >= arguments.warmup:
                times[(build, name)].append(elapsed)
    baseline = statistics.median(times[("sqlite3", "sqlite3")])
    print(f"{arguments.runs} interleaved runs of each command; sqlite3 (the week's query) median {baseline * 1000:.2f} ms")
    for given in arguments.dustctl:
        path = given.partition("@")[0]
        version = statistics.median(times[(path, "--version")])
        print(f"{path}:")
        print(f"{'command':>18}  {'median ms':>9}  {'min ms':>7}  {'÷ sqlite3':>9}  {'÷ --version':>11}")
        for name, _, _ in EVERY:
            values = times[(path, name)]
            median = statistics.median(values)
            print(f"{name:>18}  {median * 1000:9.2f}  {min(values) * 1000:7.2f}  {median / baseline:8.2f}×  {median / version:10.2f}×")
    if arguments.config is None:
        os.remove(config)
    raise SystemExit(0)


samples = {(label, name): [] for label, name, _ in commands}
for round_number in range(arguments.warmup + arguments.runs):
    for label, name, argv in commands:
        elapsed = run(argv)
        if round_number >= arguments.warmup:
            samples[(label, name)].append(elapsed)
if arguments.config is None:
    os.remove(config)

print(f"{arguments.runs} interleaved runs each, configuration {arguments.config or 'comment-only'}")
for label, db in databases:
    wal = os.path.getsize(db + "-wal") if os.path.exists(db + "-wal") else 0
    print(f"{label} ({os.path.getsize(db) / 1e6:.1f} MB, -wal {wal / 1e6:.1f} MB):")
    baseline = statistics.median(samples[(label, "sqlite3")])
    for (row_label, name), values in samples.items():
        if row_label != label:
            continue
        median = statistics.median(values)
        print(f"{os.path.basename(name) if name != 'sqlite3' else 'sqlite3':>16}  median {median * 1000:6.2f} ms  "
              f"min {min(values) * 1000:6.2f} ms  ratio {median / baseline:4.2f}×")
for label, db in databases[1:]:
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
