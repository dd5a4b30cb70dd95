#!/usr/bin/env bash
# Indoor air's costs (issue 39, docs/REFERENCE.md §21), each against its baseline in the same sitting:
#
#   Benchmarks/indoor.sh BIN_DIR [RUNS]     (BIN_DIR holds dustd and dustctl; default 31 runs of each week)
#
# 1. Import: a year of minute samples for one sensor (525,600 rows, ~25 MB of CSV) with
#    `dustctl indoor import`: wall time and peak RSS (GNU time). Target: peak RSS ≤ 64 MiB.
# 2. `dustctl week --json --end 2025-12-31` for a person with a year of minute samples from two sensors,
#    against the same command and database with no sensor configured, interleaved. Target ≤ 1.2×.
# 3. dustd idle: two dustd side by side on two copies of one database for IDLE_SECONDS (default 300),
#    one asking 10 loopback AirGradient monitors every minute, the other none; their CPU time (utime +
#    stime from /proc/PID/stat) and RSS at the end. Target: ≤ 1 MiB and ≤ 0.5 % of a CPU more.
# Every server on 127.0.0.1; every loop bounded. Appends to Benchmarks/results/indoor.md (RESULTS=...).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:?usage: Benchmarks/indoor.sh BIN_DIR [RUNS]}
RUNS=${2:-31}
WORK=${WORK:-/tmp/finedust-indoor-bench}
IDLE_SECONDS=${IDLE_SECONDS:-300}
RESULTS=${RESULTS:-$ROOT/Benchmarks/results/indoor.md}
rm -rf "$WORK"; mkdir -p "$WORK"
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

cat > "$WORK/none.yaml" << 'YAML'
station:
  name: 종로구
YAML
cat > "$WORK/two.yaml" << 'YAML'
station:
  name: 종로구
indoor:
  sensors:
    - {name: living-room, kind: import}
    - {name: bedroom, kind: import}
YAML

echo "== a year of hours for 종로구 (2025) and a year of minute samples for two sensors" >&2
DB="$WORK/year.sqlite"
DUSTD_CONFIG="$WORK/none.yaml" "$BIN/dustctl" demo --db "$DB" --fixtures "$ROOT/Fixtures" > /dev/null
python3 - "$WORK" << 'PY'
import sys
work = sys.argv[1]
start = 1735657200  # 2025-01-01 00:00 KST
for name, shift in (("living-room", 0), ("bedroom", 11)):
    with open(f"{work}/{name}.csv", "w") as out:
        out.write("time,pm25,pm10\n")
        for minute in range(525_600):
            t = start + minute * 60
            # ISO 8601 with the offset, as a monitor's export writes it.
            day, rest = divmod(t + 9 * 3600, 86400)
            import datetime
            stamp = datetime.datetime.fromtimestamp(t, datetime.timezone(datetime.timedelta(hours=9))).strftime("%Y-%m-%dT%H:%M:%S+09:00")
            out.write(f"{stamp},{(minute + shift) % 40 + 2.5:.1f},{(minute + shift) % 70 + 4.5:.1f}\n")
PY
sqlite3 "$DB" "
    BEGIN;
    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 8759)
    INSERT OR IGNORE INTO measurement(station, slot_start, pm10, pm25, fetched_at)
        SELECT '종로구', 1735657200 + i * 3600, 20 + i % 60, 8 + i % 35, 1735657200 + i * 3600 + 4800 FROM n;
    COMMIT;"

echo "== 1. import of 525,600 minute samples" >&2
/usr/bin/time -f "%e %M" -o "$WORK/import.time" env DUSTD_CONFIG="$WORK/two.yaml" \
    "$BIN/dustctl" indoor import "$WORK/living-room.csv" --sensor living-room --db "$DB" > "$WORK/import.out"
read -r import_seconds import_kib < "$WORK/import.time"
DUSTD_CONFIG="$WORK/two.yaml" "$BIN/dustctl" indoor import "$WORK/bedroom.csv" --sensor bedroom --db "$DB" > /dev/null

echo "== 2. dustctl week with two sensors' year against none, $RUNS runs each, interleaved" >&2
python3 - "$BIN/dustctl" "$DB" "$WORK" "$RUNS" "$ROOT/Benchmarks" > "$WORK/week.txt" << 'PY'
import os, statistics, sys
sys.path.insert(0, sys.argv[5])
from timing import timed_run
dustctl, db, work, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
times = {"none": [], "two": []}
for round in range(runs + 3):
    for name in ("none", "two"):
        environment = dict(os.environ, DUSTD_CONFIG=f"{work}/{name}.yaml")
        elapsed = timed_run([dustctl, "week", "--json", "--end", "2025-12-31", "--db", db], environment, "indoor.sh")
        if round >= 3:
            times[name].append(elapsed)
none, two = statistics.median(times["none"]), statistics.median(times["two"])
print(f"{none * 1000:.1f} {two * 1000:.1f} {two / none:.2f} {min(times['none']) * 1000:.1f} {min(times['two']) * 1000:.1f}")
PY
read -r week_none week_two week_ratio week_none_min week_two_min < "$WORK/week.txt"

echo "== 3. dustd idle for ${IDLE_SECONDS}s: 10 monitors asked each minute against none" >&2
python3 - "$WORK" << 'PY' &
import http.server, json, sys, threading, socketserver
work = sys.argv[1]
class Monitor(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"pm02": 9, "pm02Compensated": 7.5, "pm10": 12, "rco2": 612, "atmp": 22.1, "rhum": 45,
                           "serialno": "84f3eb7a1c2d", "firmware": "3.1.3"}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *args): pass
class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
server = Server(("127.0.0.1", 0), Monitor)
open(f"{work}/monitor-port", "w").write(str(server.server_address[1]))
server.serve_forever()
PY
PIDS+=($!)
for _ in $(seq 100); do [ -s "$WORK/monitor-port" ] && break; sleep 0.1; done
MONITOR=$(cat "$WORK/monitor-port")
python3 "$ROOT/scripts/fake-airkorea.py" "$ROOT/Fixtures/synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml" --live \
    > "$WORK/airkorea-port" 2> "$WORK/airkorea.log" &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$WORK/airkorea-port" ] && break; sleep 0.1; done
AIRKOREA="http://127.0.0.1:$(head -1 "$WORK/airkorea-port")/B552584"
{ cat "$WORK/none.yaml"; echo "indoor:"; echo "  sensors:"
  for i in $(seq 0 9); do echo "    - {name: monitor-$i, kind: airgradient, url: \"http://127.0.0.1:$MONITOR\"}"; done; } > "$WORK/ten.yaml"
for name in none ten; do
    cp "$DB" "$WORK/idle-$name.sqlite"
    DUSTD_CONFIG="$WORK/$name.yaml" DUSTD_STORAGE_PATH="$WORK/idle-$name.sqlite" DUSTD_API_BASE_URL="$AIRKOREA" \
        DUSTD_API_SERVICE_KEY=bench-key-0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd \
        DUSTD_HTTP_LISTEN=off DUSTD_FORECAST_ENABLED=false DUSTD_ADVISORIES_ENABLED=false \
        "$BIN/dustd" > "$WORK/dustd-$name.log" 2>&1 &
    PIDS+=($!)
    echo $! > "$WORK/dustd-$name.pid"
done
# Past the start (the first poll's backfill), then the window.
sleep 60
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
none_pid=$(cat "$WORK/dustd-none.pid"); ten_pid=$(cat "$WORK/dustd-ten.pid")
none_start=$(cpu "$none_pid"); ten_start=$(cpu "$ten_pid")
sleep "$IDLE_SECONDS"
none_cpu=$(( $(cpu "$none_pid") - none_start )); ten_cpu=$(( $(cpu "$ten_pid") - ten_start ))
none_rss=$(rss "$none_pid"); ten_rss=$(rss "$ten_pid")
ticks=$(getconf CLK_TCK)
samples=$(sqlite3 "$WORK/idle-ten.sqlite" "SELECT sum(length(samples)) / 19 FROM indoor_hour WHERE sensor LIKE 'monitor-%'")

{
    echo
    echo "## Indoor air (issue 39), $(date -u +%Y-%m-%d), $(git -C "$ROOT" rev-parse --short HEAD), $BIN"
    echo
    echo "| measure | value | target |"
    echo "|---|---|---|"
    echo "| \`dustctl indoor import\` of 525,600 minute samples (one sensor, a year) | ${import_seconds} s, peak RSS $((import_kib / 1024)) MiB | peak RSS ≤ 64 MiB |"
    echo "| \`dustctl week --json\`, a year of two sensors' minutes vs no sensor (median of $RUNS, interleaved) | ${week_two} ms vs ${week_none} ms: **${week_ratio}×** (min ${week_two_min} vs ${week_none_min}) | ≤ 1.2× |"
    echo "| dustd idle ${IDLE_SECONDS} s, 10 monitors each minute vs none: CPU | $(python3 -c "print(f'{$ten_cpu / $ticks:.2f} s vs {$none_cpu / $ticks:.2f} s: {($ten_cpu - $none_cpu) / $ticks / $IDLE_SECONDS * 100:.2f} % of a CPU more')") | ≤ 0.5 % more |"
    echo "| dustd idle, the same: RSS at the end | $((ten_rss / 1024)).$(( (ten_rss % 1024) * 10 / 1024 )) MiB vs $((none_rss / 1024)).$(( (none_rss % 1024) * 10 / 1024 )) MiB ($(( ten_rss - none_rss )) KiB more) | ≤ 1 MiB more |"
    echo "| samples stored by the 10 monitors in the run | $samples | one a minute each |"
} | tee -a "$RESULTS"
