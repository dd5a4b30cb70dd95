#!/usr/bin/env python3
"""`dustctl week` against the `sqlite3` command running the same queries (issue 10, item 9).

    python3 Benchmarks/startup.py DB [--config FILE] [--runs N] DUSTCTL [DUSTCTL ...]

DB is a demo database (`dustctl demo --db DB`); each DUSTCTL is a dustctl executable, e.g. a
release build before and after a change. The commands run interleaved, one of each in turn, so a
machine that gets busier or quieter during the run moves them all alike; the report is each one's
median and minimum wall time and its median's ratio to `sqlite3`'s. The target is ≤ 4.5×.
"""
import argparse
import os
import statistics
import time

parser = argparse.ArgumentParser()
parser.add_argument("db")
parser.add_argument("dustctl", nargs="+")
parser.add_argument("--config", default=None, help="the configuration file dustctl reads (default: a comment-only file)")
parser.add_argument("--runs", type=int, default=300)
parser.add_argument("--warmup", type=int, default=20)
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
commands = [("sqlite3", [sqlite3, arguments.db, SQL])]
for path in arguments.dustctl:
    commands.append((path, [path, "week", "--db", arguments.db, "--station", "종로구", "--end", "2026-11-20"]))

devnull = os.open(os.devnull, os.O_WRONLY)


def run(argv):
    """Wall seconds of one run, from spawn to exit; the output goes to /dev/null."""
    began = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, environment, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1)])
    _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter() - began
    if status != 0:
        raise SystemExit(f"startup.py: {' '.join(argv)} exited with status {status}")
    return elapsed


samples = {name: [] for name, _ in commands}
for round_number in range(arguments.warmup + arguments.runs):
    for name, argv in commands:
        elapsed = run(argv)
        if round_number >= arguments.warmup:
            samples[name].append(elapsed)
if arguments.config is None:
    os.remove(config)

baseline = statistics.median(samples["sqlite3"])
print(f"{arguments.runs} interleaved runs each, configuration {arguments.config or 'comment-only'}")
for name, values in samples.items():
    median = statistics.median(values)
    print(f"{os.path.basename(name) if name != 'sqlite3' else 'sqlite3':>16}  median {median * 1000:6.2f} ms  "
          f"min {min(values) * 1000:6.2f} ms  ratio {median / baseline:4.2f}×")
