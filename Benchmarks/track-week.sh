#!/usr/bin/env bash
# Where each person was, in the week and the year (issue 23, docs/REFERENCE.md §19): whole `dustctl`
# processes, interleaved, for a person tracked every minute against the same person without tracks.
#
#   Benchmarks/track-week.sh DUSTCTL [RUNS]      (default 21 runs of each, after 3 warm-up rounds)
#
# The database ($WORK/track.sqlite, default WORK=/tmp/finedust-track-week) is built from nothing:
#   * the station list, through `dustctl stations import` of a generated getMsrstnList response: the
#     673 stations of Fixtures/synthesized/sido-jeonguk-ver1.5-673-2026-11-20-24h00.xml and the eight of
#     Fixtures/synthesized/msrstn-list-seoul-walk-8.xml (680 names; those eight at their real coordinates,
#     the others spread around their 시도, 서울's within the city), so the bounding box keeps a few dozen;
#   * a year of hourly PM10, PM2.5 and the four gases for all 680 stations (8,784 hours before
#     2026-11-21 00:00 KST, 5,973,120 rows: the national archive of `station.mode: nation`), each station
#     offset by its index so neighbours differ;
#   * jiho (born 1988-04, home station 종로구) tracked every minute of the year: one GPX of 527,040
#     points a minute apart, walking laps of a 4 km circle around 서울's centre at 1.2 m/s (past 종로구,
#     중구, 용산구, 서대문구, 마포구 …), imported by `dustctl activity import --person jiho` (the real path:
#     his walking and his positions);
#   * jiho-untracked, the same person (born, station) with the same walking, copied row for row from
#     jiho's `activity_source`, and no position;
#   * jiho-travels, jiho again (walking and positions copied in SQL into `activity_source` and
#     `track_position`) but spending 2026-11-20 (KST) in 부산: that day's positions moved by the offset
#     from 서울's centre to 부산's, so his week's bounding box spans the country from 서울 to 부산;
#   * jiho-unkept, jiho again (walking and positions copied in SQL), so none of his hours is kept
#     (`slot_place`, docs/REFERENCE.md §19): every read weighs every minute, as before places were kept.
# The import keeps jiho's weighed hours (what dustd's pass after each poll does for everyone it
# follows); the copies made in SQL have none, and reads never keep.
# Configuration: `station.mode: nation`, `location.radiusKm` left at its default (10 km), both people.
# Seven commands, one of each per round:
#   week --person jiho · jiho-untracked · jiho-travels · jiho-unkept              (--end 2026-11-20 --json)
#   export --person jiho · jiho-untracked · jiho-unkept           (--from 2025-11-21 --to 2026-11-20 --json)
# then each once under /usr/bin/time -v for its peak RSS, and jiho-travels' and jiho's last 30 days'
# export once each (jiho-travels' year would read 466 stations' year: minutes and gigabytes).
# Needs the sqlite3 command (apt-get install sqlite3). Targets (§19): the tracked week ≤ 2× the
# untracked one; the tracked year's export ≤ 3× the untracked one.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DUSTCTL=${1:?usage: Benchmarks/track-week.sh DUSTCTL [RUNS]}
RUNS=${2:-21}
WORK=${WORK:-/tmp/finedust-track-week}
DB="$WORK/track.sqlite"
mkdir -p "$WORK"
rm -f "$DB" "$DB-wal" "$DB-shm"

cat > "$WORK/track.yaml" << 'EOF'
station:
  name: 종로구
  mode: nation
people:
  - { name: jiho, born: 1988-04, sex: male, station: 종로구 }
  - { name: jiho-untracked, born: 1988-04, sex: male, station: 종로구 }
  - { name: jiho-travels, born: 1988-04, sex: male, station: 종로구 }
  - { name: jiho-unkept, born: 1988-04, sex: male, station: 종로구 }
EOF
export DUSTD_CONFIG="$WORK/track.yaml"

echo "== station list and a year's GPX under $WORK"
python3 - "$ROOT" "$WORK" << 'EOF'
import math
import sys
import time

root, work = sys.argv[1], sys.argv[2]
sys.path.insert(0, f"{root}/Benchmarks")
from station_list import write_station_list
write_station_list(root, f"{work}/msrstn-list.xml")

# 2025-11-21 00:00 KST (2025-11-20T15:00:00Z) for 366 days, a day past the export's last: a point every
# minute, laps of a 4 km circle around 서울's centre at 1.2 m/s, one segment a day.
start, days = 1_763_650_800, 366
lat0, lon0, radius_deg = 37.5550, 126.9900, 4000 / 111_195
lap = 2 * math.pi * 4000 / 1.2
with open(f"{work}/year-minutes.gpx", "w") as out:
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="track-week.sh"><trk>\n')
    for day in range(days):
        out.write("<trkseg>\n")
        for minute in range(1440):
            t = start + day * 86_400 + minute * 60
            angle = 2 * math.pi * (t - start) / lap
            lat = lat0 + radius_deg * math.sin(angle)
            lon = lon0 + radius_deg * math.cos(angle) / math.cos(math.radians(lat0))
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
            out.write(f'<trkpt lat="{lat:.7f}" lon="{lon:.7f}"><time>{stamp}</time></trkpt>\n')
        out.write("</trkseg>\n")
    out.write("</trk></gpx>\n")
EOF
"$DUSTCTL" stations import --db "$DB" "$WORK/msrstn-list.xml"

echo "== a year of hours for every station"
# 2026-11-21 00:00 KST; 8,784 hours before it.
last=1795186800
sqlite3 "$DB" "
    BEGIN;
    CREATE TEMP TABLE s AS SELECT name AS station, row_number() OVER (ORDER BY name) AS shift FROM station;
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 8784)
    INSERT INTO measurement(station, slot_start, pm10, pm25, o3, no2, co, so2, fetched_at)
        SELECT station, $last - i * 3600, 20 + (i + shift) % 60, 8 + (i + shift * 3) % 35, 0.01 + (i % 40) * 0.001,
               0.012 + (i % 30) * 0.001, 0.3 + (i % 10) * 0.05, 0.002 + (i % 5) * 0.001, $last - i * 3600 + 1200
        FROM s, n ORDER BY station, i DESC;
    COMMIT;"

echo "== jiho's year of minutes"
"$DUSTCTL" activity import --quiet --db "$DB" --person jiho "$WORK/year-minutes.gpx"
# 2026-11-20 00:00 KST to 2026-11-21 00:00 KST: jiho-travels' day in 부산.
sqlite3 "$DB" "
    BEGIN;
    WITH w(who) AS (VALUES ('jiho-untracked'), ('jiho-travels'), ('jiho-unkept'))
    INSERT INTO activity_source(person, source, slot_start, distance_m, imported_at)
        SELECT who, source, slot_start, distance_m, imported_at FROM activity_source, w WHERE person = 'jiho';
    INSERT INTO track_position(person, source, minute, latitude, longitude, imported_at)
        SELECT 'jiho-travels', source, minute,
               CASE WHEN minute >= $last - 86400 AND minute < $last THEN latitude - 37.5550 + 35.1796 ELSE latitude END,
               CASE WHEN minute >= $last - 86400 AND minute < $last THEN longitude - 126.9900 + 129.0756 ELSE longitude END,
               imported_at
        FROM track_position WHERE person = 'jiho';
    INSERT INTO track_position(person, source, minute, latitude, longitude, imported_at)
        SELECT 'jiho-unkept', source, minute, latitude, longitude, imported_at FROM track_position WHERE person = 'jiho';
    COMMIT;
    VACUUM;"
sqlite3 "$DB" "SELECT 'stations', count(*), sum(latitude IS NOT NULL) FROM station;
    SELECT 'measurement', count(*), count(DISTINCT station), datetime(min(slot_start), 'unixepoch'), datetime(max(slot_start), 'unixepoch')
        FROM measurement;
    SELECT 'activity_source', person, count(*), round(sum(distance_m) / 1000) || ' km' FROM activity_source GROUP BY person;
    SELECT 'track_position', person, count(*), datetime(min(minute), 'unixepoch'), datetime(max(minute), 'unixepoch')
        FROM track_position GROUP BY person;
    SELECT 'slot_place', person, count(*), sum(length(place)) || ' bytes' FROM slot_place GROUP BY person;"
ls -l "$DB"

BENCHMARKS="$ROOT/Benchmarks" python3 - "$DUSTCTL" "$DB" "$WORK" "$RUNS" << 'EOF'
import json
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.environ["BENCHMARKS"])
from timing import timed_run  # noqa: E402

dustctl, db, work, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
environment = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "DUSTD_CONFIG": os.path.join(work, "track.yaml")}
week = [dustctl, "week", "--db", db, "--end", "2026-11-20", "--json"]
export = [dustctl, "export", "--db", db, "--from", "2025-11-21", "--to", "2026-11-20", "--json"]
commands = [
    ("week, tracked", week + ["--person", "jiho"]),
    ("week, untracked", week + ["--person", "jiho-untracked"]),
    ("week, a day in 부산", week + ["--person", "jiho-travels"]),
    ("week, tracked, none kept", week + ["--person", "jiho-unkept"]),
    ("export a year, tracked", export + ["--person", "jiho"]),
    ("export a year, untracked", export + ["--person", "jiho-untracked"]),
    ("export a year, tracked, none kept", export + ["--person", "jiho-unkept"]),
]


def output(argv):
    return subprocess.run(argv, env=environment, check=True, capture_output=True).stdout


# Each document once, so a failure, or tracks that change nothing, shows before the timing.
for label, argv in commands:
    print(f"{label}: {len(output(argv))} bytes of JSON")
days = {}
for person in ("jiho", "jiho-untracked", "jiho-unkept"):
    document = json.loads(output(export + ["--person", person]))
    days[person] = {day["date"]: day for day in document}
changed = sum(1 for date, day in days["jiho"].items() if day != days["jiho-untracked"].get(date))
print(f"export: {len(days['jiho'])} days; {changed} of jiho's differ from jiho-untracked's")
# Kept places must not change a byte: jiho's year read from them is jiho-unkept's weighed afresh.
kept_year = output(export + ["--person", "jiho"]).replace(b'"person":"jiho"', b'"person":"?"')
weighed_year = output(export + ["--person", "jiho-unkept"]).replace(b'"person":"jiho-unkept"', b'"person":"?"')
if kept_year != weighed_year:
    sys.exit("track-week: jiho's kept year differs from jiho-unkept's weighed year")
print("export: jiho's year read from kept places is byte for byte jiho-unkept's weighed afresh")
# One tracked day hour by hour: where the weighted values came from.
hours = json.loads(output([dustctl, "day", "2026-11-20", "--db", db, "--json", "--person", "jiho"]))["hourly"]
stations = sorted({entry["station"] for hour in hours for entry in (hour.get("where") or {}).get("stations", {}).get("pm10", [])})
kinds = sorted({(hour.get("where") or {}).get("kind", "none") for hour in hours})
print(f"day 2026-11-20, jiho: where.kind {kinds}; PM10 weighted from {len(stations)} stations: {', '.join(stations)}")

def run(argv):
    return timed_run(argv, environment, "track-week")


warmup = 3
samples = {label: [] for label, _ in commands}
began = time.time()
for round_number in range(warmup + runs):
    for label, argv in commands:
        elapsed = run(argv)
        if round_number >= warmup:
            samples[label].append(elapsed)
print(f"{runs} interleaved runs each ({warmup} warm-up rounds, {time.time() - began:.0f} s), "
      f"load average {os.getloadavg()[0]:.2f} at the end")
rss = {}
for label, argv in commands:
    report = subprocess.run(["/usr/bin/time", "-v"] + argv, env=environment, check=True, capture_output=True).stderr.decode()
    rss[label] = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", report).group(1)) / 1024
month = [dustctl, "export", "--db", db, "--from", "2026-10-22", "--to", "2026-11-20", "--json"]
for label, argv in (("export 30 days, tracked", month + ["--person", "jiho"]),
                    ("export 30 days, a day in 부산", month + ["--person", "jiho-travels"])):
    report = subprocess.run(["/usr/bin/time", "-v"] + argv, env=environment, check=True, capture_output=True).stderr.decode()
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", report).group(1)
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", report).group(1)) / 1024
    print(f"once: {label}: wall {wall}, peak RSS {peak:.1f} MiB")
print(f"{'':>26}  {'median':>10}  {'min':>10}  {'peak RSS':>9}  tracked ÷ untracked (median, min)")
for kind, target in (("week", 2), ("export a year", 3)):
    untracked = samples[f"{kind}, untracked"]
    for label in [name for name, _ in commands if name.startswith(kind + ",")]:
        values = samples[label]
        tracked = values
        ratio = ""
        if not label.endswith(", untracked"):
            ratio = (f"{statistics.median(tracked) / statistics.median(untracked):4.2f}× / {min(tracked) / min(untracked):4.2f}× "
                     f"(target ≤ {target}×)")
        print(f"{label:>26}  {statistics.median(values) * 1000:7.2f} ms  {min(values) * 1000:7.2f} ms  {rss[label]:5.1f} MiB  {ratio}")
EOF
