#!/usr/bin/env python3
"""Measures queries and footprint, reads the in-process benchmark results, and writes
results/latest.md with every figure next to its baseline and the ratio. Called by run.sh."""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

BIN, OUT = sys.argv[1], sys.argv[2]
QUICK = os.environ.get("QUICK") == "1"
REPO = os.path.abspath("..")
WORK = tempfile.mkdtemp(prefix="finedust-bench-")
EMPTY_CONFIG = os.path.join(WORK, "empty.yaml")
open(EMPTY_CONFIG, "w").write("# defaults\n")
ENV = {"PATH": "/usr/bin:/bin", "DUSTD_CONFIG": EMPTY_CONFIG, "NO_COLOR": "1"}
lines = []


def out(text=""):
    print(text)
    lines.append(text)


def run_timed(command, runs=15):
    """Median and minimum wall milliseconds of a command, and its peak RSS in MiB."""
    samples, peak = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
        _, status, usage = os.wait4(process.pid, 0)
        samples.append((time.perf_counter() - start) * 1000)
        peak = max(peak, usage.ru_maxrss / 1024)
        if status != 0:
            raise SystemExit(f"failed: {' '.join(command)}: {process.stderr.read().decode()}")
    return statistics.median(samples), min(samples), peak


# ---- in-process benchmarks (ordo-one/benchmark markdown) ----
def parse_benchmarks(path):
    results, name = {}, None
    scale = {"ns": 1e-6, "μs": 1e-3, "us": 1e-3, "ms": 1.0, "s": 1000.0}
    count_scale = {"": 1, "K": 1e3, "M": 1e6, "#": 1}
    for line in open(path, encoding="utf-8"):
        if line.startswith("### "):
            name = line[4:].strip()
            results[name] = {}
        elif name and line.startswith("| Time (wall clock)"):
            unit = re.search(r"\((ns|μs|us|ms|s)\)", line).group(1)
            cells = [c.strip() for c in line.split("|")[2:-1]]
            results[name]["p50_ms"] = float(cells[2]) * scale[unit]
            results[name]["p0_ms"] = float(cells[0]) * scale[unit]
        elif name and line.startswith("| Malloc (total)"):
            unit_match = re.search(r"Malloc \(total\) \((K|M)\)", line)
            factor = count_scale[unit_match.group(1)] if unit_match else 1
            cells = [c.strip() for c in line.split("|")[2:-1]]
            results[name]["mallocs"] = float(cells[2]) * factor
    return results


bench = parse_benchmarks(os.path.join(OUT, "benchmark.md"))
etree = {}
for line in open(os.path.join(OUT, "etree.txt")):
    path, median, minimum, _ = line.split()
    etree["nation-673" if "jeonguk" in path else "3month-2200"] = float(median)
sizes = {
    "nation-673": (os.path.getsize(f"{REPO}/Fixtures/synthesized/sido-jeonguk-ver1.5-673-2026-11-20-24h00.xml"), 673),
    "3month-2200": (os.path.getsize(f"{REPO}/Fixtures/synthesized/station-jongno-ver1.5-3MONTH-2026-11-20.xml"), 2200),
}

out("# FineDust benchmark results")
out()
out(f"Machine: {os.cpu_count()} cores, {open('/proc/meminfo').readline().split()[1]} kB RAM, "
    f"{subprocess.run(['uname', '-sr'], capture_output=True, text=True).stdout.strip()}; "
    f"{subprocess.run(['swift', '--version'], capture_output=True, text=True).stdout.splitlines()[0]}")
out(f"Run: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, `Benchmarks/run.sh`{' (QUICK=1)' if QUICK else ''}. "
    "Times are medians (p50); ratio = baseline time / FineDust time (higher is better for FineDust).")
out()
out("## Parse (libxml2 streaming reader)")
out()
out("| response | FineDust | items/s | MB/s | C xmlTextReader floor | ratio (target ≥ 0.8) | FoundationXML | ratio (target ≥ 5) | Python etree | ratio (target ≥ 4) | allocations / item | allocations / field |")
out("|---|---|---|---|---|---|---|---|---|---|---|---|")
for response in ("nation-673", "3month-2200"):
    ours = bench[f"parse {response} FineDust"]
    floor = bench[f"parse {response} C xmlTextReader floor"]
    foundation = bench[f"parse {response} FoundationXML"]
    size, items = sizes[response]
    ms = ours["p50_ms"]
    fields = 29 if response == "nation-673" else 28
    out(f"| {response} ({size / 1e6:.2f} MB) | {ms:.2f} ms | {items / ms * 1000:,.0f} | {size / 1e6 / ms * 1000:.0f} | "
        f"{floor['p50_ms']:.2f} ms | {floor['p50_ms'] / ms:.2f}× | {foundation['p50_ms']:.2f} ms | {foundation['p50_ms'] / ms:.2f}× | "
        f"{etree[response]:.2f} ms | {etree[response] / ms:.2f}× | {ours['mallocs'] / items:.2f} | {ours['mallocs'] / items / fields:.3f} |")
out()
out("## Ingest (parse + upsert into SQLite, one transaction)")
out()
out("| response | FineDust parse+upsert | rows/s | C prepared INSERT … ON CONFLICT floor | ratio (target ≥ 0.5) | 3MONTH < 50 ms |")
out("|---|---|---|---|---|---|")
for response in ("nation-673", "3month-2200"):
    ours = bench[f"ingest {response} FineDust parse+upsert"]
    floor = bench[f"ingest {response} C prepared INSERT floor"]
    items = sizes[response][1]
    verdict = ("yes" if ours["p50_ms"] < 50 else "NO") if response == "3month-2200" else ""
    out(f"| {response} | {ours['p50_ms']:.2f} ms | {items / ours['p50_ms'] * 1000:,.0f} | {floor['p50_ms']:.2f} ms | "
        f"{floor['p50_ms'] / ours['p50_ms']:.2f}× | {verdict} |")
out()


# ---- databases for the query benchmarks ----
def make_database(name, stations, days):
    path = os.path.join(WORK, name + ".sqlite")
    subprocess.run([f"{BIN}/dustctl", "import", f"{REPO}/Fixtures/synthesized/empty-result-totalcount-0.xml", "--db", path],
                   check=True, stdout=subprocess.DEVNULL, env=ENV)
    first = 1795100400 - (days - 1) * 86400  # 2026-11-20 00:00 KST minus days-1
    hours = days * 24
    names = ",".join(f"('{s}')" for s in stations)
    sql = f"""
        PRAGMA journal_mode=WAL;
        CREATE TEMP TABLE s(name TEXT PRIMARY KEY);
        INSERT INTO s VALUES {names};
        BEGIN;
        WITH RECURSIVE h(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM h WHERE i < {hours - 1})
        INSERT INTO measurement (station, slot_start, pm10, pm25, fetched_at)
        SELECT s.name, {first} + h.i * 3600,
               CASE WHEN h.i % 97 = 5 THEN NULL ELSE 15 + (h.i * 7 + length(s.name) * 13) % 70 END,
               CASE WHEN h.i % 89 = 3 THEN NULL ELSE 5 + (h.i * 5 + length(s.name) * 11) % 40 END, 0
        FROM s CROSS JOIN h;
        COMMIT;
        ANALYZE;
    """
    subprocess.run(["sqlite3", path], input=sql, text=True, check=True, stdout=subprocess.DEVNULL)
    return path


stations_nation = ["종로구"] + [f"측정소{i:03d}" for i in range(672)]
databases = [("1 station × 1 year", make_database("one-1y", ["종로구"], 365)),
             ("1 station × 10 years", make_database("one-10y", ["종로구"], 3650))]
if not QUICK:
    start = time.perf_counter()
    databases.append(("673 stations × 1 year (national archive)", make_database("nation-1y", stations_nation, 365)))
    out(f"The national archive database ({673 * 365 * 24:,} rows) was generated in {time.perf_counter() - start:.0f} s.")
    out()

DAY = (1795100400, 1795100400 + 86400)
WEEK = (1795100400 - 6 * 86400, 1795100400 + 86400)
YEAR = (1795100400 - 364 * 86400, 1795100400 + 86400)


def sql_for(kind):
    if kind == "day":
        a, b = DAY
        return (f"SELECT station, slot_start, pm10, pm25, pm10_flag, pm25_flag FROM measurement "
                f"WHERE station IN ('종로구') AND slot_start >= {a} AND slot_start < {b} ORDER BY slot_start, station; "
                f"SELECT slot_start, max(distance_m) FROM activity_source WHERE slot_start >= {a} AND slot_start < {b} GROUP BY slot_start;")
    a, b = WEEK if kind == "week" else YEAR
    return (f"SELECT date(slot_start + 32400, 'unixepoch') AS d, count(pm10), avg(pm10), max(pm10), count(pm25), avg(pm25), max(pm25), "
            f"sum(pm10 * 0.189), sum(pm25 * 0.189) FROM measurement WHERE station = '종로구' AND slot_start >= {a} AND slot_start < {b} "
            f"GROUP BY d ORDER BY d; SELECT slot_start, max(distance_m) FROM activity_source WHERE slot_start >= {a} AND slot_start < {b} GROUP BY slot_start;")


out("## Queries (whole processes: `dustctl` against the `sqlite3` command on the same database)")
out()
out("| database | rows | query | dustctl | sqlite3 | ratio (target ≤ 3×) | target wall |")
out("|---|---|---|---|---|---|---|")
for label, path in databases:
    rows = subprocess.run(["sqlite3", path, "SELECT count(*) FROM measurement"], capture_output=True, text=True).stdout.strip()
    for kind, command, limit in [
        ("day", ["day", "2026-11-20", "--json"], 30),
        ("week", ["week", "--end", "2026-11-20", "--json"], 30),
        ("export a year per day", ["export", "--from", "2025-11-21", "--to", "2026-11-20"], 100),
    ]:
        ours, _, _ = run_timed([f"{BIN}/dustctl"] + command + ["--station", "종로구", "--db", path])
        theirs, _, _ = run_timed(["sqlite3", path, sql_for(kind.split()[0])])
        out(f"| {label} | {int(rows):,} | {kind} | {ours:.1f} ms | {theirs:.1f} ms | {ours / theirs:.2f}× | "
            f"{'< ' + str(limit) + ' ms: ' + ('yes' if ours < limit else 'NO')} |")
startup, _, startup_rss = run_timed([f"{BIN}/dustctl", "--help"])
sqlite_startup, _, _ = run_timed(["sqlite3", "-version"])
out(f"| (process start-up floor) | – | `dustctl --help` / `sqlite3 -version` | {startup:.1f} ms | {sqlite_startup:.1f} ms | "
    f"{startup / sqlite_startup:.2f}× | – |")
plan = subprocess.run(["sqlite3", databases[-1][1], "EXPLAIN QUERY PLAN " + sql_for("day").split(";")[0]],
                      capture_output=True, text=True).stdout.strip().replace("\n", " ")
out()
out(f"Query plan of the day query: `{plan}`")
out()

# ---- footprint ----
out("## Footprint")
out()
today_ms, _, today_rss = run_timed([f"{BIN}/dustctl", "today", "--station", "종로구", "--db", databases[-1][1]], runs=10)
out(f"- `dustctl today` on the largest database: {today_ms:.1f} ms wall (median of 10), peak RSS {today_rss:.1f} MiB (target ≤ 30 MiB)")

polls = 20 if QUICK else 100
server = subprocess.Popen(["python3", f"{REPO}/scripts/fake-airkorea.py", f"{REPO}/Fixtures/synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
port = server.stdout.readline().strip()
log_path = os.path.join(WORK, "dustd.log")
env = dict(ENV, DUSTD_STATION_NAME="종로구", DUSTD_API_BASE_URL=f"http://127.0.0.1:{port}/B552584",
           DUSTD_API_SERVICE_KEY="benchmark-key-0123456789abcdefghijklmnopqrstuv", DUSTD_STORAGE_PATH=os.path.join(WORK, "dustd.sqlite"),
           DUSTD_POLL_INTERVAL_SECONDS="1", DUSTD_POLL_JITTER_SECONDS="0")
with open(log_path, "w") as log:
    daemon = subprocess.Popen([f"{BIN}/dustd"], env=env, stdout=subprocess.DEVNULL, stderr=log)


def rss_kib(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])


def wait_for_polls(count):
    while open(log_path).read().count("Poll done") < count:
        time.sleep(0.2)


wait_for_polls(10)
after_10 = rss_kib(daemon.pid)
wait_for_polls(polls)
time.sleep(0.5)  # idle, between polls
after_n = rss_kib(daemon.pid)
daemon.terminate()
daemon.wait(timeout=10)
server.terminate()
out(f"- `dustd` idle RSS after 10 polls: {after_10 / 1024:.1f} MiB; after {polls} polls: {after_n / 1024:.1f} MiB "
    f"(target ≤ 25 MiB, no growth: {'+' if after_n >= after_10 else ''}{(after_n - after_10) / 1024:.1f} MiB)")
out(f"- Allocations per parsed item: see the parse table ({bench['parse 3month-2200 FineDust']['mallocs'] / 2200:.2f} per item on 3MONTH).")

open(os.path.join(OUT, "latest.md"), "w").write("\n".join(lines) + "\n")
