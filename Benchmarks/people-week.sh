#!/usr/bin/env bash
# The household's week against one person's (issue 22, docs/REFERENCE.md §18): whole `dustctl`
# processes, interleaved, on one database with a year of hours.
#
#   Benchmarks/people-week.sh DUSTCTL [RUNS]      (default 41 runs of each, after 5 warm-up rounds)
#
# The database ($WORK/people.sqlite, default WORK=/tmp/finedust-people-week) is `dustctl demo`'s,
# with a year of hourly readings (PM and the four gases) for 종로구 and 강남구 added before the
# demo's last day (2026-11-20), the generated Watch export (heart rate, resting rates, sleep and
# walking) imported for dad (who also gets the demo's walks, handed from me at the first import) and
# the demo's walks again for 민지, and a Watch's year of heart rate and
# sleep for dad and mom (below). Two configurations:
#   * one.yaml: no people: (one person, me, at 종로구) — what `dustctl week` was before issue 22;
#   * six.yaml: six people, born 1958–2021, at 종로구 or 강남구, two with their own infiltration.
# Four commands, one of each per round, each with --json and --end 2026-11-20:
#   week (one.yaml) · week --person dad (six.yaml) · week --person 민지 (six.yaml) · week --everyone (six.yaml)
# Needs the sqlite3 command (apt-get install sqlite3), as Benchmarks/startup.py does.
# The report: each one's median and minimum wall time, and `--everyone`'s median against each
# single person's. Target (§18): `week --everyone` for 6 people ≤ 2× one person's `week`.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DUSTCTL=${1:?usage: Benchmarks/people-week.sh DUSTCTL [RUNS]}
RUNS=${2:-41}
WORK=${WORK:-/tmp/finedust-people-week}
DB="$WORK/people.sqlite"
mkdir -p "$WORK"
rm -f "$DB" "$DB-wal" "$DB-shm"

cat > "$WORK/one.yaml" << 'EOF'
station:
  name: 종로구
EOF
cat > "$WORK/six.yaml" << 'EOF'
station:
  name: 종로구
  fallbacks: [강남구]
people:
  - { name: dad, born: 1984-05, sex: male }
  - { name: mom, born: 1987-09, sex: female, station: 강남구 }
  - { name: 민지, born: 2018-03, sex: female, infiltration: 0.4 }
  - { name: 준호, born: 2021-11, sex: male, station: 강남구 }
  - { name: grandma, born: 1958-02, sex: female, infiltration: 0.5 }
  - { name: uncle, born: 1996-07, station: 강남구 }
EOF

echo "== demo database and a year of hours for 종로구 and 강남구 in $DB"
DUSTD_CONFIG="$WORK/one.yaml" "$DUSTCTL" demo --db "$DB" --fixtures "$ROOT/Fixtures" > /dev/null
# 2026-11-21 00:00 KST; a year of hours before it, the demo's own rows kept.
last=1795186800
sqlite3 "$DB" "
    BEGIN;
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 8784),
        s(station, shift) AS (VALUES ('종로구', 0), ('강남구', 7))
    INSERT OR IGNORE INTO measurement(station, slot_start, pm10, pm25, o3, no2, co, so2, fetched_at)
        SELECT station, $last - i * 3600, 20 + (i + shift) % 60, 8 + (i + shift) % 35, 0.01 + (i % 40) * 0.001,
               0.012 + (i % 30) * 0.001, 0.3 + (i % 10) * 0.05, 0.002 + (i % 5) * 0.001, $last - i * 3600 + 1200
        FROM n, s;
    COMMIT;"
DUSTD_CONFIG="$WORK/six.yaml" "$DUSTCTL" activity import --quiet --db "$DB" --person dad \
    "$ROOT/Fixtures/activity/generated-watch/export.xml"
DUSTD_CONFIG="$WORK/six.yaml" "$DUSTCTL" activity import --quiet --db "$DB" --person 민지 \
    "$ROOT/Fixtures/activity/jongno-week-walks.csv"
# A Watch's year for dad and mom besides: heart rate every 5 minutes from 07:00 to 23:00 KST
# (13 of them at 100–135 beats/min in an evening walk), a night's sleep 23:30–06:30 split in two at
# 03:00, so most hours of their weeks take §18's heart-rate or sleep path; dad's 2026-11-20 (and
# the night before it) is the Watch export's alone.
sqlite3 "$DB" "
    BEGIN;
    WITH RECURSIVE d(day) AS (SELECT 1 UNION ALL SELECT day + 1 FROM d WHERE day < 366),
        m(minute) AS (SELECT 420 UNION ALL SELECT minute + 5 FROM m WHERE minute < 1375),
        who(person, shift, first_day) AS (VALUES ('dad', 0, 2), ('mom', 2, 1))
    INSERT OR IGNORE INTO heart_rate(person, at, source, beats_per_minute, imported_at)
        SELECT person, $last - day * 86400 + minute * 60 + shift * 60, 'health',
               CASE WHEN minute BETWEEN 1140 AND 1200 THEN 100 + (day + minute) % 36 ELSE 58 + (day * 7 + minute) % 27 END, $last
        FROM d, m, who WHERE day >= first_day;
    WITH RECURSIVE d(day) AS (SELECT 1 UNION ALL SELECT day + 1 FROM d WHERE day < 366),
        who(person, first_day) AS (VALUES ('dad', 2), ('mom', 1)),
        part(start_minute, end_minute) AS (VALUES (-30, 180), (180, 390))
    INSERT OR IGNORE INTO sleep_interval(person, start_at, source, end_at, imported_at)
        SELECT person, $last - day * 86400 + start_minute * 60, 'health', $last - day * 86400 + end_minute * 60, $last
        FROM d, who, part WHERE day >= first_day;
    COMMIT;"
sqlite3 "$DB" "SELECT station, count(*), date(min(slot_start) + 32400, 'unixepoch'), date(max(slot_start) + 32400, 'unixepoch')
    FROM measurement WHERE station IN ('종로구', '강남구') GROUP BY station;
    SELECT 'heart_rate', person, count(*) FROM heart_rate GROUP BY person;
    SELECT 'sleep_interval', person, count(*) FROM sleep_interval GROUP BY person;
    SELECT 'activity_source', person, count(*) FROM activity_source GROUP BY person;"

BENCHMARKS="$ROOT/Benchmarks" python3 - "$DUSTCTL" "$DB" "$WORK" "$RUNS" << 'EOF'
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.environ["BENCHMARKS"])
from timing import timed_run  # noqa: E402

dustctl, db, work, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
week = [dustctl, "week", "--db", db, "--end", "2026-11-20", "--json"]
commands = [
    ("week (no people:)", "one.yaml", week),
    ("week --person dad", "six.yaml", week + ["--person", "dad"]),
    ("week --person 민지", "six.yaml", week + ["--person", "민지"]),
    ("week --everyone (6)", "six.yaml", week + ["--everyone"]),
]
environments = {name: {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "DUSTD_CONFIG": os.path.join(work, name)}
                for _, name, _ in commands}
# Each document once, so a failure or an empty household shows before the timing.
for label, config, argv in commands:
    out = subprocess.run(argv, env=environments[config], check=True, capture_output=True).stdout
    print(f"{label}: {len(out)} bytes of JSON")
def run(argv, environment):
    return timed_run(argv, environment, "people-week")


warmup = 5
samples = {label: [] for label, _, _ in commands}
for round_number in range(warmup + runs):
    for label, config, argv in commands:
        elapsed = run(argv, environments[config])
        if round_number >= warmup:
            samples[label].append(elapsed)
print(f"{runs} interleaved runs each ({warmup} warm-up rounds), load average {os.getloadavg()[0]:.2f} at the end")
everyone = statistics.median(samples["week --everyone (6)"])
for label, values in samples.items():
    median = statistics.median(values)
    print(f"{label:>22}  median {median * 1000:7.2f} ms  min {min(values) * 1000:7.2f} ms  "
          f"everyone/this {everyone / median:4.2f}×")
EOF
