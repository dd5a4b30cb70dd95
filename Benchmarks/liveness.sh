#!/usr/bin/env bash
# Liveness under dustd's heaviest work (issue 35): is the web still answering, and is every poll on
# time, while dustd backfills the nation, keeps the places of four people tracked every minute, and
# dustctl imports a 1 GB Apple Health export into the same database?
#
#   Benchmarks/liveness.sh BIN_DIR [LABEL]
#
# BIN_DIR holds `dustd` and `dustctl` (a release or debug build, old or new: the script uses only
# options, DUSTD_ variables and configuration keys that 4d9b2c1 already had), LABEL names the run in
# the results (default: BIN_DIR). Appends a section to Benchmarks/results/liveness.md (RESULTS=... to
# write elsewhere) and prints it.
#
# Environment (all optional):
#   SCALE=1              the workload's size: 1 is the issue's (two years of minutes for four people,
#                        all 680 stations backfilled with 3MONTH, a 1 GB export); 0.05 shrinks every
#                        part of it in proportion, for a quick trial
#   WORK=/tmp/liveness/work   everything generated (the database is rebuilt from nothing every run)
#   CACHE=/tmp/liveness/cache the generated Health exports, reused across runs (they do not age)
#   IDLE_SECONDS=20      the idle baseline's length
#   MAX_WORK_SECONDS=1200  the most the measurement under work may last
#   POLL_INTERVAL=15     poll.intervalSeconds: how often dustd polls after the backfill (short, so that
#                        polls fall due while the keep pass and the import run)
#   WRK_DELAY_MS=10      each wrk connection waits this long between requests (0: back to back)
#   LATE_SECONDS=2       a poll starting later than this after its planned time is late
#   SETTLE_SECONDS=180   after the work, how long a poll still running may take to end (polls only)
#   COMMIT=...           the commit the binaries were built from (default: git of BIN_DIR, if any)
#   KEEP_WORK=1          keep the database and logs in $WORK afterwards
#
# What it does (every server on 127.0.0.1, everything niced by 5, every loop and wait bounded):
# 1. Builds a database from nothing under $WORK, as track-week.sh does: the station list (680
#    stations, `dustctl stations import` of a generated getMsrstnList answer); four people (jiho,
#    seoa, minji, junho; `station.mode: nation`) each with SPAN_DAYS = 730 × SCALE days of positions a
#    minute apart (one GPX each, laps of a 4 km circle in 서울, `dustctl activity import --person`);
#    hourly PM10, PM2.5 and gases for every station from the span's start up to the hour before the
#    3MONTH window (so each backfilled station's newest hour is 92 days old: dustd asks 3MONTH, and all
#    of the backfill's 2,200 hours per station are new rows). The GPX imports keep places themselves
#    (REFERENCE.md §19); the script then deletes every `slot_place` row, so every hour of the span is
#    unkept, as jiho-unkept is in track-week.sh, and dustd's pass after its first poll has the last
#    366 days (SlotPlace.daysKept; all of the span when shorter) × four people to weigh.
# 2. "A 3MONTH backfill of the nation": dustd backfills only the stations it polls (station.name,
#    station.fallbacks, the people's stations; the 전국 call is one hour). So station.fallbacks lists
#    the nation: 680 × SCALE stations (at least the four the people need), each answered by a loopback
#    fake AirKorea (written here, after scripts/fake-airkorea.py --live) with 2,200 hours ending at the
#    current hour, 1,000 a page as AirKorea pages them (3 requests a station). The fake's hours are its
#    own (values from Fixtures/synthesized/station-jongno-ver1.5-3MONTH-2026-11-20.xml, the station's
#    name and a small offset per station; its 전국 answer agrees with them, so a later poll that brings
#    nothing new revises nothing): scripts/fake-airkorea.py answers every station with 종로구's file,
#    whose items name 종로구, so it would store one station, not the nation. The fake is niced 5 more
#    than dustd: it stands for a server elsewhere.
# 3. Idle baseline: dustd starts with the web on and polls at once (its first poll, always); the
#    fake holds that first request open until it is told to release it (api.timeoutSeconds is raised
#    to cover the wait). So dustd is up, serving, and doing nothing: this works the same for both builds,
#    and the backfill then starts exactly when the work starts. /healthz answers 503 (no successful
#    poll yet) until the backfill's poll ends: that is its honest answer, and it is counted as non-2xx.
# 4. The work, all at once: the fake releases the first poll (the backfill; the keep pass follows it
#    by itself), `dustctl activity import --person jiho` of a generated export.xml of 1024 × SCALE MB
#    (scripts/make-health-export.py: distance and 2,000,000 × SCALE heart-rate records) into the same
#    database starts, and two wrk (-t1 -c4 --latency --timeout 30s; paced by WRK_DELAY_MS, so that
#    the clients, on the same two cores, do not take the CPU the work needs; a 30 s timeout so that a
#    stall is measured, not dropped as wrk's default 2 s timeout would) ask
#    /healthz and /api/v1/today until the import has ended and the keep pass has logged its places
#    (or MAX_WORK_SECONDS). Polls go on every POLL_INTERVAL seconds (jitter 0) meanwhile. A prober
#    asks /healthz five times a second throughout, so stalls can be placed in the phases.
# 5. Reports, per URL, idle and during the work: requests/s, p50, p99, max, non-2xx; how long the
#    backfill (release to its "Poll done"), the keep pass ("Poll done" to "Weighed hours kept") and the
#    import (wall clock) took; every poll's start (the fake's log) against its plan (dustd's next=/retry=);
#    dustd's peak RSS (VmHWM). Targets (issue 35): /healthz p99 ≤ 50 ms during the work, no poll late.
#
# Needs wrk, sqlite3, python3, curl and GNU time: apt-get install -y wrk sqlite3 python3 curl time
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)

usage() { echo "usage: Benchmarks/liveness.sh BIN_DIR [LABEL]   (BIN_DIR holds dustd and dustctl; SCALE=0.05 for a quick trial)" >&2; exit 64; }
[ $# -ge 1 ] && [ $# -le 2 ] || usage
BIN=$(cd "$1" 2>/dev/null && pwd) || { echo "liveness: no directory $1" >&2; exit 66; }
LABEL=${2:-$BIN}
for program in dustd dustctl; do
    [ -x "$BIN/$program" ] || { echo "liveness: $BIN/$program is missing or not executable" >&2; exit 66; }
done
missing=()
for tool in wrk sqlite3 python3 curl; do command -v "$tool" >/dev/null || missing+=("$tool"); done
[ -x /usr/bin/time ] || missing+=(time)
if [ ${#missing[@]} -gt 0 ]; then
    echo "liveness: missing ${missing[*]}: apt-get install -y ${missing[*]}" >&2
    exit 69
fi

SCALE=${SCALE:-1}
WORK=${WORK:-/tmp/liveness/work}
CACHE=${CACHE:-/tmp/liveness/cache}
IDLE_SECONDS=${IDLE_SECONDS:-20}
MAX_WORK_SECONDS=${MAX_WORK_SECONDS:-1200}
POLL_INTERVAL=${POLL_INTERVAL:-15}
WRK_DELAY_MS=${WRK_DELAY_MS:-10}
LATE_SECONDS=${LATE_SECONDS:-2}
SETTLE_SECONDS=${SETTLE_SECONDS:-180}
RESULTS=${RESULTS:-$ROOT/Benchmarks/results/liveness.md}
if [ -z "${COMMIT:-}" ]; then
    COMMIT=$(git -C "$BIN" rev-parse --short HEAD 2>/dev/null || echo unknown)
    if [ "$COMMIT" != unknown ] && [ -n "$(git -C "$BIN" status --porcelain --untracked-files=no 2>/dev/null | head -1)" ]; then
        COMMIT="$COMMIT (tree modified)"
    fi
fi
read -r SPAN_DAYS BACKFILL_STATIONS EXPORT_MB HEART_SAMPLES < <(python3 - "$SCALE" << 'EOF'
import sys
s = float(sys.argv[1])
if not 0 < s <= 4:
    sys.exit("liveness: SCALE must be a number above 0 and at most 4")
print(max(2, round(730 * s)), max(4, min(680, round(680 * s))), max(1, round(1024 * s)), max(1000, round(2_000_000 * s)))
EOF
) || exit 64

renice -n 5 -p $$ >/dev/null 2>&1 || true   # every child inherits it: the machine is shared
LOAD_START=$(cut -d' ' -f1 /proc/loadavg)
mkdir -p "$WORK" "$CACHE"
rm -rf "$WORK"/run
RUN="$WORK/run"
mkdir -p "$RUN"
DB="$RUN/dust.sqlite"
DUSTD_LOG="$RUN/dustd.log"
FAKE_LOG="$RUN/fake-requests.tsv"
PIDS=()
DUSTD=

log() { printf '== %s %s\n' "$(date -u +%H:%M:%S)" "$*"; }
fail() {
    echo "liveness: $*" >&2
    exit 1
}
cleanup() {
    local status=$?
    # Only what this script started, by PID (and the import's dustctl, the child of /usr/bin/time).
    for pid in "${PIDS[@]}"; do pkill -TERM -P "$pid" 2>/dev/null || true; kill "$pid" 2>/dev/null || true; done
    if [ -n "$DUSTD" ] && kill -0 "$DUSTD" 2>/dev/null; then
        kill -TERM "$DUSTD" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$DUSTD" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$DUSTD" 2>/dev/null || true
    fi
    for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if [ "$status" -ne 0 ]; then
        if [ -s "$DUSTD_LOG" ]; then
            echo "---- the last 40 lines of dustd's log ($DUSTD_LOG)" >&2
            tail -40 "$DUSTD_LOG" >&2
        fi
        [ -s "$RUN/fake.err" ] && { echo "---- the fake AirKorea's errors" >&2; tail -20 "$RUN/fake.err" >&2; }
        echo "liveness: failed (exit $status); files kept in $RUN" >&2
    elif [ "${KEEP_WORK:-0}" != 1 ]; then
        rm -f "$DB" "$DB-wal" "$DB-shm" "$RUN"/*.gpx
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

echo "liveness: $LABEL, commit $COMMIT, SCALE=$SCALE: $SPAN_DAYS days of minutes × 4 people, $BACKFILL_STATIONS stations backfilled with 3MONTH, a $EXPORT_MB MB export ($HEART_SAMPLES heart-rate samples); load average $(cut -d' ' -f1-3 /proc/loadavg)"

# ---------------------------------------------------------------------------------------------------
# The Python helpers, written under $RUN.
cat > "$RUN/generate.py" << 'EOF'
# The station list, the backfilled stations, each person's GPX and the time anchors.
import math
import sys
import time

root, run, span_days, backfill, now = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
# The station list, as Benchmarks/track-week.sh writes it (Benchmarks/station_list.py).
sys.path.insert(0, f"{root}/Benchmarks")
from station_list import write_station_list
listed = write_station_list(root, f"{run}/msrstn-list.xml")

# The people: name, home station, the centre of their 4 km laps (all in 서울, a few km apart).
people = [("jiho", "종로구", 37.5550, 126.9900), ("seoa", "중구", 37.5750, 126.9500),
          ("minji", "용산구", 37.5300, 127.0300), ("junho", "마포구", 37.5900, 127.0250)]
with open(f"{run}/people.tsv", "w") as out:
    for name, station, _, _ in people:
        out.write(f"{name}\t{station}\n")
# station.name is 종로구; the fallbacks are the people's other stations, then the list in order
# (its interleaved 시도s spread them over the nation), up to `backfill` polled stations in all.
homes = [station for _, station, _, _ in people[1:]]
others = [name for name, _ in listed if name != "종로구" and name not in homes]
with open(f"{run}/fallbacks.txt", "w") as out:
    out.write("\n".join(homes + others[:max(0, backfill - 1 - len(homes))]) + "\n")

# Time anchors (whole seconds, UTC). The newest hour AirKorea has is the one ending at the current
# hour; the 3MONTH answer holds the 2,200 hours ending there; the stored readings end the hour before.
newest_end = now // 3600 * 3600
span_start = newest_end - span_days * 86_400
with open(f"{run}/times.env", "w") as out:
    out.write(f"NEWEST_END={newest_end}\nSPAN_START={span_start}\nLAST_STORED={newest_end - 2201 * 3600}\n")

# Positions: a point every minute from the span's start to now, laps of a 4 km circle at 1.2 m/s.
radius_deg, lap = 4000 / 111_195, 2 * math.pi * 4000 / 1.2
last_minute = now // 60 * 60
for index, (name, _, lat0, lon0) in enumerate(people):
    with open(f"{run}/{name}.gpx", "w") as out:
        out.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="liveness.sh"><trk><name>{name}</name>\n')
        t = span_start
        day = None
        lines = []
        while t <= last_minute:
            if (t - span_start) // 86_400 != day:
                if day is not None:
                    lines.append("</trkseg>\n")
                day = (t - span_start) // 86_400
                lines.append("<trkseg>\n")
            angle = 2 * math.pi * (t - span_start) / lap + index
            lat = lat0 + radius_deg * math.sin(angle)
            lon = lon0 + radius_deg * math.cos(angle) / math.cos(math.radians(lat0))
            lines.append(f'<trkpt lat="{lat:.7f}" lon="{lon:.7f}"><time>{time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))}</time></trkpt>\n')
            if len(lines) >= 8192:
                out.write("".join(lines))
                lines = []
            t += 60
        lines.append("</trkseg>\n</trk></gpx>\n")
        out.write("".join(lines))
EOF

cat > "$RUN/fake.py" << 'EOF'
# A loopback AirKorea for this benchmark (after scripts/fake-airkorea.py --live): every station's
# realtime request gets 2,200 hours ending at the current hour under its own name (DAILY the newest 24,
# MONTH 720, 3MONTH all), paged as AirKorea pages them; the 전국 request the latest hour of 673 stations;
# forecasts, the weekly outlook and advisories the synthesized fixtures. Measurement requests wait
# (at most HOLD seconds) until the file RELEASE exists. Each request is logged to LOG, tab-separated:
# start, end, operation, station, dataTerm, pageNo, numOfRows, items. Prints its port first.
import datetime
import http.server
import os
import re
import sys
import threading
import time
import urllib.parse

root, newest_end, release, hold, log_path = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4]), sys.argv[5]
synthesized = os.path.join(root, "Fixtures", "synthesized")
KST = datetime.timezone(datetime.timedelta(hours=9))


def data_time(end):
    """AirKorea's dataTime of the hour ending at `end`: `YYYY-MM-DD HH:00`, midnight as the day's 24:00."""
    moment = datetime.datetime.fromtimestamp(end, KST)
    if moment.hour == 0:
        return (moment - datetime.timedelta(days=1)).strftime("%Y-%m-%d") + " 24:00"
    return moment.strftime("%Y-%m-%d %H:00")


three_months = open(os.path.join(synthesized, "station-jongno-ver1.5-3MONTH-2026-11-20.xml"), "rb").read()
templates = re.findall(rb"<item>.*?</item>\s*", three_months, re.S)
HOURS = 2200
items = []
for i in range(HOURS):  # newest first, as AirKorea lists them
    text = re.sub(rb"<dataTime>[^<]*</dataTime>", b"<dataTime>" + data_time(newest_end - i * 3600).encode() + b"</dataTime>",
                  templates[i % len(templates)])
    items.append(text.replace(b"<stationName>\xec\xa2\x85\xeb\xa1\x9c\xea\xb5\xac</stationName>", b"<stationName>@STATION@</stationName>"))
head = b'<?xml version="1.0" encoding="UTF-8"?>\n<response>\n  <header>\n    <resultCode>00</resultCode>\n    <resultMsg>NORMAL_CODE</resultMsg>\n  </header>\n  <body>\n    <items>\n'
# The 전국 answer: the 673 stations of the synthesized 전국 file, each with the newest hour its own
# answer gives, so the two agree and a poll that brings nothing new revises nothing.
nation_names = re.findall(rb"<stationName>([^<]*)</stationName>",
                          open(os.path.join(synthesized, "sido-jeonguk-ver1.5-673-2026-11-20-24h00.xml"), "rb").read())
fixtures = {
    "PM10": open(os.path.join(synthesized, "forecast-pm10-2026-11-22.xml"), "rb").read(),
    "PM25": open(os.path.join(synthesized, "forecast-pm25-2026-11-22.xml"), "rb").read(),
    "outlook": open(os.path.join(synthesized, "weekly-outlook-2026-11-22.xml"), "rb").read(),
    "adv-PM10": open(os.path.join(synthesized, "advisories-pm10-2026.xml"), "rb").read(),
    "adv-PM25": open(os.path.join(synthesized, "advisories-pm25-2026.xml"), "rb").read(),
    "adv-O3": open(os.path.join(synthesized, "advisories-o3-2026.xml"), "rb").read(),
    "empty": open(os.path.join(synthesized, "empty-result-totalcount-0.xml"), "rb").read(),
}
TERMS = {"DAILY": 24, "MONTH": 720, "3MONTH": HOURS}
log = open(log_path, "a", buffering=1)
lock = threading.Lock()
started = time.time()


def named(chosen, station):
    """Items under a station's name, its PM10 a little off its neighbours'."""
    offset = sum(station) % 9
    body = b"".join(chosen).replace(b"@STATION@", station)
    if offset:
        body = re.sub(rb"<pm10Value>(\d+)</pm10Value>", lambda m: b"<pm10Value>%d</pm10Value>" % (int(m.group(1)) + offset), body)
    return body


def station_page(station, term, page, rows):
    total = TERMS.get(term, 24)
    chosen = items[(page - 1) * rows:min(page * rows, total)]
    body = named(chosen, station.encode())
    tail = b"    </items>\n    <numOfRows>%d</numOfRows>\n    <pageNo>%d</pageNo>\n    <totalCount>%d</totalCount>\n  </body>\n</response>\n" % (
        rows, page, total)
    return head + body + tail, len(chosen)


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        begun = time.time()
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        one = lambda key, default="": query.get(key, [default])[0]
        station, term, page, rows, count = "", "", one("pageNo", "1"), one("numOfRows", "10"), 0
        if "getMsrstnAcctoRltmMesureDnsty" in self.path or "getCtprvnRltmMesureDnsty" in self.path:
            if not os.path.exists(release):
                open(release + ".held", "w").close()
            while not os.path.exists(release) and time.time() - started < hold:
                time.sleep(0.05)
        if "getMsrstnAcctoRltmMesureDnsty" in self.path:
            operation, station, term = "station", one("stationName"), one("dataTerm", "DAILY")
            body, count = station_page(station, term, max(1, int(page)), max(1, int(rows)))
        elif "getCtprvnRltmMesureDnsty" in self.path:
            operation, station, count = "sido", one("sidoName"), len(nation_names)
            body = head + b"".join(named(items[:1], name) for name in nation_names) + (
                b"    </items>\n    <numOfRows>%d</numOfRows>\n    <pageNo>1</pageNo>\n    <totalCount>%d</totalCount>\n  </body>\n</response>\n"
                % (max(1, int(rows)), count))
        elif "getMinuDustWeekFrcstDspth" in self.path:
            operation, body = "outlook", fixtures["outlook"]
        elif "getMinuDustFrcstDspth" in self.path:
            operation, body = "forecast", fixtures["PM25" if one("InformCode") == "PM25" else "PM10"]
        elif "getUlfptcaAlarmInfo" in self.path:
            operation, body = "advisory", fixtures["adv-PM25" if one("itemCode") == "PM25" else "adv-PM10"]
        elif "getOzAdvsryOccrrncInfo" in self.path:
            operation, body = "advisory", fixtures["adv-O3"]
        else:
            operation, body = "other", fixtures["empty"]
        self.send_response(200)
        self.send_header("Content-Type", "text/xml;charset=UTF-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        with lock:
            log.write(f"{begun:.3f}\t{time.time():.3f}\t{operation}\t{station}\t{term}\t{page}\t{rows}\t{count}\n")

    def log_message(self, format, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
EOF

cat > "$RUN/stamp.py" << 'EOF'
# Prefixes each line of stdin with the time it arrived (seconds since 1970, to the millisecond).
import sys
import time
for line in sys.stdin.buffer:
    sys.stdout.buffer.write(b"%.3f " % time.time() + line)
    sys.stdout.buffer.flush()
EOF

cat > "$RUN/probe.py" << 'EOF'
# Asks URL every 0.2 s (one request at a time, a new connection each, as a health checker does) until
# the file STOP exists or LIMIT seconds have passed; logs start, milliseconds, HTTP status.
import http.client
import os
import sys
import time
port, path, out, stop, limit = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
began = time.time()
with open(out, "w", buffering=1) as log:
    while not os.path.exists(stop) and time.time() - began < limit:
        start = time.time()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            connection.request("GET", path)
            status = connection.getresponse().status
            connection.close()
        except Exception:
            status = 0
        elapsed = time.time() - start
        log.write(f"{start:.3f}\t{elapsed * 1000:.2f}\t{status}\n")
        time.sleep(max(0.0, 0.2 - elapsed))
EOF

# ---------------------------------------------------------------------------------------------------
log "1. the database from nothing: station list, positions, readings (under $RUN)"
NOW=$(date +%s)
python3 "$RUN/generate.py" "$ROOT" "$RUN" "$SPAN_DAYS" "$BACKFILL_STATIONS" "$NOW" || fail "generating the station list and the GPX failed"
# shellcheck source=/dev/null
. "$RUN/times.env"

people_yaml() {
    echo "people:"
    while IFS=$'\t' read -r name station; do
        echo "  - { name: $name, born: 1988-04, sex: male, station: \"$station\" }"
    done < "$RUN/people.tsv"
}
fallbacks_yaml() {
    echo "  fallbacks:"
    while read -r name; do [ -n "$name" ] && echo "    - \"$name\""; done < "$RUN/fallbacks.txt"
}
{
    echo "station:"
    echo "  name: 종로구"
    echo "  mode: nation"
    fallbacks_yaml
    people_yaml
} > "$RUN/setup.yaml"
chmod 600 "$RUN/setup.yaml"
export DUSTD_CONFIG="$RUN/setup.yaml"

"$BIN/dustctl" stations import --db "$DB" "$RUN/msrstn-list.xml" > "$RUN/stations-import.txt" 2>&1 \
    || { cat "$RUN/stations-import.txt" >&2; fail "dustctl stations import failed"; }
# The positions first: their import keeps places for the hours they reach, cheap while no hour has
# readings; those places are deleted below anyway.
while IFS=$'\t' read -r name _; do
    started=$(date +%s)
    "$BIN/dustctl" activity import --db "$DB" --person "$name" "$RUN/$name.gpx" > "$RUN/gpx-$name.txt" 2>&1 \
        || { cat "$RUN/gpx-$name.txt" >&2; fail "dustctl activity import --person $name of $RUN/$name.gpx failed"; }
    echo "   $name: $(tail -1 "$RUN/gpx-$name.txt") ($(( $(date +%s) - started )) s)"
    rm -f "$RUN/$name.gpx"
done < "$RUN/people.tsv"

HOURS=$(( (LAST_STORED - SPAN_START) / 3600 + 1 ))
[ "$HOURS" -ge 1 ] || HOURS=1
FIRST_STORED=$(( LAST_STORED - (HOURS - 1) * 3600 ))
log "   $HOURS hours of readings for every station, $(date -u -d "@$FIRST_STORED" +%FT%HZ) to $(date -u -d "@$LAST_STORED" +%FT%HZ)"
sqlite3 -cmd ".timeout 10000" "$DB" "
    BEGIN;
    CREATE TEMP TABLE s AS SELECT name AS station, row_number() OVER (ORDER BY name) AS shift FROM station;
    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $HOURS - 1)
    INSERT INTO measurement(station, slot_start, pm10, pm25, o3, no2, co, so2, fetched_at)
        SELECT station, $LAST_STORED - i * 3600, 20 + (i + shift) % 60, 8 + (i + shift * 3) % 35, 0.01 + (i % 40) * 0.001,
               0.012 + (i % 30) * 0.001, 0.3 + (i % 10) * 0.05, 0.002 + (i % 5) * 0.001, $LAST_STORED - i * 3600 + 4800
        FROM s, n ORDER BY station, i DESC;
    DELETE FROM slot_place;
    COMMIT;" || fail "storing the readings in SQL failed"
sqlite3 -separator ' ' "$DB" "
    SELECT 'stations', count(*), sum(latitude IS NOT NULL) FROM station;
    SELECT 'measurement rows', count(*), 'stations', count(DISTINCT station) FROM measurement;
    SELECT 'track_position', person, count(*), datetime(min(minute), 'unixepoch'), datetime(max(minute), 'unixepoch')
        FROM track_position GROUP BY person;
    SELECT 'slot_place (kept places, must be 0)', count(*) FROM slot_place;" | sed 's/^/   /'
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM slot_place')" = 0 ] || fail "places are still kept after DELETE FROM slot_place"
ls -l "$DB" | sed 's/^/   /'

EXPORT_DIR="$CACHE/export-${EXPORT_MB}mb-${HEART_SAMPLES}hr"
if [ ! -s "$EXPORT_DIR/export.xml" ]; then
    log "   generating a $EXPORT_MB MB Health export in $EXPORT_DIR (kept for later runs)"
    rm -rf "$EXPORT_DIR" "$EXPORT_DIR.tmp"
    python3 "$ROOT/scripts/make-health-export.py" --size-mb "$EXPORT_MB" --heart-rate-samples "$HEART_SAMPLES" --out "$EXPORT_DIR.tmp" \
        > "$RUN/export-gen.txt" 2>&1 || { cat "$RUN/export-gen.txt" >&2; fail "scripts/make-health-export.py failed"; }
    rm -f "$EXPORT_DIR.tmp/export.zip"
    mv "$EXPORT_DIR.tmp" "$EXPORT_DIR"
fi
EXPORT_BYTES=$(stat -c %s "$EXPORT_DIR/export.xml")

# ---------------------------------------------------------------------------------------------------
log "2. the fake AirKorea and dustd (web on, first poll held)"
RELEASE="$RUN/release"
FAKE_HOLD=$(( IDLE_SECONDS + 300 ))
# The fake stands for a server elsewhere: niced 5 below dustd, so it takes no CPU dustd wants.
nice -n 5 python3 "$RUN/fake.py" "$ROOT" "$NEWEST_END" "$RELEASE" "$FAKE_HOLD" "$FAKE_LOG" > "$RUN/fake.port" 2> "$RUN/fake.err" &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$RUN/fake.port" ] && break; sleep 0.1; done
FAKE_PORT=$(head -1 "$RUN/fake.port")
[ -n "$FAKE_PORT" ] || fail "the fake AirKorea did not start"
WEB=$(free_port)
{
    echo "station:"
    echo "  name: 종로구"
    echo "  mode: nation"
    fallbacks_yaml
    echo "api:"
    echo "  baseURL: http://127.0.0.1:$FAKE_PORT/B552584"
    echo "  timeoutSeconds: $(( FAKE_HOLD + 60 > 600 ? 600 : FAKE_HOLD + 60 ))"
    echo "poll:"
    echo "  intervalSeconds: $POLL_INTERVAL"
    echo "  jitterSeconds: 0"
    echo "  retryInitialSeconds: 5"
    echo "  retryMaxSeconds: 30"
    echo "storage:"
    echo "  path: $DB"
    echo "http:"
    echo "  listen: 127.0.0.1:$WEB"
    echo "log:"
    echo "  level: info"
    people_yaml
} > "$RUN/dustd.yaml"
chmod 600 "$RUN/dustd.yaml"
export DUSTD_CONFIG="$RUN/dustd.yaml"
DUSTD_API_SERVICE_KEY=liveness-test-key-0123456789abcdefghijklmnopqrstuv "$BIN/dustd" 2> >(exec python3 -u "$RUN/stamp.py" > "$DUSTD_LOG") > /dev/null &
DUSTD=$!
up=0
for _ in $(seq 300); do
    kill -0 "$DUSTD" 2>/dev/null || fail "dustd exited at start"
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$WEB/healthz" || true)
    if [ "$code" != 000 ] && [ -e "$RELEASE.held" ]; then up=1; break; fi
    sleep 0.2
done
[ "$up" = 1 ] || fail "dustd's web (127.0.0.1:$WEB) or its first poll did not come up within 60 s"
# dustd is serving and its first poll waits for the fake: let the start-up settle.
sleep 3

cat > "$RUN/pace.lua" << EOF
function delay() return $WRK_DELAY_MS end
EOF
PACE=()
[ "$WRK_DELAY_MS" != 0 ] && PACE=(-s "$RUN/pace.lua")
LAST_PID=
wrk_run() {  # NAME PATH SECONDS: wrk in the background (its PID in LAST_PID), its output in $RUN/wrk-NAME.txt
    wrk -t1 -c4 --latency --timeout 30s "${PACE[@]}" -d "$3s" "http://127.0.0.1:$WEB$2" > "$RUN/wrk-$1.txt" 2>&1 &
    LAST_PID=$!
    PIDS+=("$LAST_PID")
}
PROBE_STOP="$RUN/probe.stop"
python3 "$RUN/probe.py" "$WEB" /healthz "$RUN/probe.tsv" "$PROBE_STOP" $(( IDLE_SECONDS + MAX_WORK_SECONDS + 60 )) &
PIDS+=($!)

log "3. idle: wrk on /healthz and /api/v1/today for $IDLE_SECONDS s (dustd up, its first poll held by the fake)"
IDLE_START=$(date +%s.%N)
wrk_run idle-healthz /healthz "$IDLE_SECONDS"; w1=$LAST_PID
wrk_run idle-today /api/v1/today "$IDLE_SECONDS"; w2=$LAST_PID
wait "$w1" "$w2" || fail "wrk failed during the idle baseline: $(cat "$RUN/wrk-idle-healthz.txt" "$RUN/wrk-idle-today.txt")"
IDLE_END=$(date +%s.%N)
RSS_IDLE=$(awk '/VmRSS/ {print $2}' "/proc/$DUSTD/status")
if grep -q $'\t' "$FAKE_LOG"; then
    # Nothing may be answered before the release: if the fake's hold ran out, the baseline was not idle.
    awk -F'\t' -v t="$IDLE_END" '$3 == "station" && $2 < t { found = 1 } END { exit !found }' "$FAKE_LOG" \
        && fail "the fake answered a poll before the release (hold too short): the idle baseline was not idle"
fi

log "4. the work: release the backfill (the keep pass follows it), import $((EXPORT_BYTES / 1048576)) MB into the same database, wrk until both end (at most $MAX_WORK_SECONDS s)"
WORK_START=$(date +%s.%N)
wrk_run work-healthz /healthz "$MAX_WORK_SECONDS"; w1=$LAST_PID
wrk_run work-today /api/v1/today "$MAX_WORK_SECONDS"; w2=$LAST_PID
touch "$RELEASE"
IMPORT_START=$(date +%s.%N)
/usr/bin/time -v -o "$RUN/import-time.txt" "$BIN/dustctl" activity import --db "$DB" --person jiho "$EXPORT_DIR/export.xml" \
    > "$RUN/import.txt" 2>&1 &
IMPORT=$!
PIDS+=($IMPORT)
IMPORT_END=
KEEP_SEEN=
deadline=$(( $(date +%s) + MAX_WORK_SECONDS ))
while [ "$(date +%s)" -lt "$deadline" ]; do
    kill -0 "$DUSTD" 2>/dev/null || fail "dustd exited during the work"
    if [ -z "$IMPORT_END" ] && ! kill -0 "$IMPORT" 2>/dev/null; then
        IMPORT_END=$(date +%s.%N)
        wait "$IMPORT" || { cat "$RUN/import.txt" >&2; fail "dustctl activity import failed during the work"; }
        log "   import done: $(tail -1 "$RUN/import.txt")"
    fi
    if [ -z "$KEEP_SEEN" ] && grep -q "Poll done" "$DUSTD_LOG" \
        && sed -n '/Poll done/,$p' "$DUSTD_LOG" | grep -q "Weighed hours kept\|Could not keep the weighed hours"; then
        KEEP_SEEN=1
        log "   backfill and keep pass done"
    fi
    [ -n "$IMPORT_END" ] && [ -n "$KEEP_SEEN" ] && break
    sleep 0.5
done
WORK_END=$(date +%s.%N)
kill -INT "$w1" "$w2" 2>/dev/null || true
for _ in $(seq 100); do kill -0 "$w1" 2>/dev/null || kill -0 "$w2" 2>/dev/null || break; sleep 0.1; done
wait "$w1" "$w2" 2>/dev/null || true
touch "$PROBE_STOP"
if [ -z "$IMPORT_END" ]; then pkill -TERM -P "$IMPORT" 2>/dev/null || true; kill "$IMPORT" 2>/dev/null || true; fi
# A poll still running when the work ended is let finish (at most SETTLE_SECONDS), so that its length
# is known: a poll can start on time and still crawl while the work runs.
settle_deadline=$(( $(date +%s) + SETTLE_SECONDS ))
while [ "$(date +%s)" -lt "$settle_deadline" ] && kill -0 "$DUSTD" 2>/dev/null; do
    last_start=$(awk -F'\t' '$3 == "station" && $4 == "종로구" && $6 == "1" { t = $1 } END { printf "%.3f\n", t }' "$FAKE_LOG")
    last_end=$(awk '/Poll done|Poll failed/ { t = $1 } END { printf "%.3f\n", t }' "$DUSTD_LOG")
    awk -v s="$last_start" -v e="$last_end" 'BEGIN { exit !(e >= s) }' && break
    sleep 1
done
SETTLE_END=$(date +%s.%N)
RSS_PEAK=$(awk '/VmHWM/ {print $2}' "/proc/$DUSTD/status")
sqlite3 -cmd ".timeout 10000" -separator $'\t' "$DB" "SELECT person, count(*) FROM slot_place GROUP BY person;" > "$RUN/kept.tsv" 2>/dev/null || true
kill -TERM "$DUSTD" 2>/dev/null || true
for _ in $(seq 150); do kill -0 "$DUSTD" 2>/dev/null || break; sleep 0.2; done
kill -KILL "$DUSTD" 2>/dev/null || true
sleep 0.5

log "5. report"
mkdir -p "$(dirname "$RESULTS")"
export L_RUN="$RUN" L_RESULTS="$RESULTS" L_LABEL="$LABEL" L_COMMIT="$COMMIT" L_SCALE="$SCALE" L_IDLE_START="$IDLE_START" \
    L_IDLE_END="$IDLE_END" L_WORK_START="$WORK_START" L_WORK_END="$WORK_END" L_SETTLE_END="$SETTLE_END" L_IMPORT_START="$IMPORT_START" \
    L_IMPORT_END="${IMPORT_END:-nan}" L_SPAN_DAYS="$SPAN_DAYS" L_BACKFILL_STATIONS="$BACKFILL_STATIONS" \
    L_EXPORT_BYTES="$EXPORT_BYTES" L_HEART="$HEART_SAMPLES" L_POLL_INTERVAL="$POLL_INTERVAL" L_LATE="$LATE_SECONDS" \
    L_DELAY_MS="$WRK_DELAY_MS" L_RSS_IDLE="${RSS_IDLE:-0}" L_RSS_PEAK="${RSS_PEAK:-0}" L_MAX_WORK="$MAX_WORK_SECONDS" \
    L_LOAD_START="$LOAD_START" L_SETTLE="$SETTLE_SECONDS"
python3 - << 'EOF' || fail "the report failed"
import datetime
import os
import re

E = os.environ
run, results = E["L_RUN"], E["L_RESULTS"]
idle_start, idle_end = float(E["L_IDLE_START"]), float(E["L_IDLE_END"])
work_start, work_end, settle_end = float(E["L_WORK_START"]), float(E["L_WORK_END"]), float(E["L_SETTLE_END"])
import_start, import_end = float(E["L_IMPORT_START"]), float(E["L_IMPORT_END"])
late_limit, poll_interval, delay_ms = float(E["L_LATE"]), int(E["L_POLL_INTERVAL"]), int(E["L_DELAY_MS"])
UTC = datetime.timezone.utc


def ms(value, unit):
    return float(value) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit]


def wrk(name):
    text = open(f"{run}/wrk-{name}.txt").read()
    latency = re.search(r"Latency\s+([\d.]+)(us|ms|s|m)\s+([\d.]+)(us|ms|s|m)\s+([\d.]+)(us|ms|s|m)", text)
    p50, p99 = re.search(r"50%\s+([\d.]+)(us|ms|s|m)", text), re.search(r"99%\s+([\d.]+)(us|ms|s|m)", text)
    count = re.search(r"(\d+) requests in ([\d.]+)(us|ms|s|m)", text)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    if not (latency and p50 and p99 and count):
        return None
    seconds = ms(count.group(2), count.group(3)) / 1000
    return {"rate": int(count.group(1)) / seconds if seconds else 0.0, "p50": ms(*p50.groups()), "p99": ms(*p99.groups()),
            "max": ms(latency.group(5), latency.group(6)), "non2xx": int(non2xx.group(1)) if non2xx else 0,
            "requests": int(count.group(1)), "seconds": seconds,
            "errors": sum(int(x) for x in errors.groups()) if errors else 0, "timeouts": int(errors.group(4)) if errors else 0}


# dustd's log, each line prefixed with when it arrived: "<arrival> <ISO time> <level> <label>: <message> <metadata>".
lines = []
for line in open(f"{run}/dustd.log", errors="replace"):
    arrived, _, rest = line.partition(" ")
    try:
        lines.append((float(arrived), rest.rstrip("\n")))
    except ValueError:
        pass


def meta(text, key):
    found = re.search(r"\b" + key + r"=([^\s,\]]+)", text)
    return found.group(1) if found else None


def instant(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() if text else None


polls_done = [(t, text) for t, text in lines if "Poll done" in text]
cycle_ends = [(t, text) for t, text in lines if "Poll done" in text or "Poll failed" in text]
problems = [(t, text) for t, text in lines if "Poll failed" in text or re.match(r"\S+ (error|critical) ", text)]
first_end = cycle_ends[0][0] if cycle_ends else None
first_done = polls_done[0][0] if polls_done else None
kept = [(t, int(meta(text, "places") or 0)) for t, text in lines if "Weighed hours kept" in text and first_end and t >= first_end]
keep_errors = [(t, text) for t, text in lines if "Could not keep the weighed hours" in text]
backfilling = [text for t, text in lines if "Backfilling" in text and "3MONTH" in text]

# The fake's log: start, end, operation, station, term, page, rows, items.
requests = []
for line in open(f"{run}/fake-requests.tsv"):
    f = line.rstrip("\n").split("\t")
    if len(f) == 8:
        requests.append((float(f[0]), float(f[1]), f[2], f[3], f[4], f[5], int(f[7])))
backfill_requests = [r for r in requests if r[2] == "station" and r[4] == "3MONTH"]
# A cycle starts with station.name's first page (PollCycle walks station.name first).
starts = sorted(r[0] for r in requests if r[2] == "station" and r[3] == "종로구" and r[5] == "1")
polls = []  # (planned, started or None, lateness s)
for logged, text in cycle_ends:
    planned = instant(meta(text, "next") if "Poll done" in text else meta(text, "retry"))
    if planned is None or planned > settle_end:
        continue
    start = next((s for s in starts if s > logged), None)
    if start is None:
        polls.append((planned, None, settle_end - planned, None))
    else:
        end = next((t for t, _ in cycle_ends if t > start), None)
        polls.append((planned, start, start - planned, None if end is None else end - start))
late = [p for p in polls if p[2] > late_limit]

# The prober: /healthz every 0.2 s through idle and work; the answers of each phase.
probe = []
for line in open(f"{run}/probe.tsv"):
    f = line.split("\t")
    if len(f) == 3:
        probe.append((float(f[0]), float(f[1]), int(f[2])))
keep_end = kept[0][0] if kept else None
phases = [("idle", idle_start, idle_end), ("backfill: release to the first poll's end", work_start, first_end or work_end)]
if first_end:
    phases.append(("keep pass", first_end, keep_end or work_end))
if import_end == import_end:
    phases.append(("import (overlaps the others)", import_start, import_end))
phases.append(("the whole work window", work_start, work_end))


def took(a, b):
    return "—" if a is None or b is None or b != b else f"{b - a:,.1f} s"


out = [f"## {E['L_LABEL']} — {datetime.datetime.now(UTC):%Y-%m-%d %H:%M} UTC, commit {E['L_COMMIT']}, SCALE={E['L_SCALE']}", ""]
pace = f", {delay_ms} ms between a connection's requests" if delay_ms else ""
out.append(f"Workload: {E['L_SPAN_DAYS']} days of positions a minute apart × 4 people, none kept; "
           f"{E['L_BACKFILL_STATIONS']} stations backfilled with 3MONTH ({len(backfill_requests):,} requests, "
           f"{sum(r[6] for r in backfill_requests):,} hours); `dustctl activity import` of a {int(E['L_EXPORT_BYTES']) / 1048576:,.0f} MB "
           f"export.xml ({int(E['L_HEART']):,} heart-rate samples) into the same database. wrk -t1 -c4 --latency --timeout 30s{pace}, "
           f"/healthz and /api/v1/today at once; poll.intervalSeconds {poll_interval}, jitter 0. {os.cpu_count()} cores; "
           f"load average {E['L_LOAD_START']} at the start, {open('/proc/loadavg').read().split()[0]} at the end (a shared machine).")
out += ["", "| phase | URL | req/s | p50 ms | p99 ms | max ms | non-2xx | requests | socket errors |", "|---|---|---|---|---|---|---|---|---|"]
figures = {}
for phase, name in (("idle", "idle"), ("work", "during the work")):
    for key, url in (("healthz", "/healthz"), ("today", "/api/v1/today")):
        r = figures[(phase, key)] = wrk(f"{phase}-{key}")
        if r is None:
            out.append(f"| {name} | {url} | wrk gave no figures | | | | | | |")
        else:
            out.append(f"| {name} | {url} | {r['rate']:,.0f} | {r['p50']:.2f} | {r['p99']:.2f} | {r['max']:,.1f} | {r['non2xx']:,} | "
                       f"{r['requests']:,} in {r['seconds']:.0f} s | {r['errors']} ({r['timeouts']} timeouts) |")
first = polls_done[0][1] if polls_done else ""
out += ["", "| the work | took |", "|---|---|"]
out.append(f"| backfill: release to the first \"Poll done\" ({len(backfilling)} stations logged 3MONTH; "
           f"{meta(first, 'new') or '?'} new rows in {meta(first, 'requests') or '?'} requests) | {took(work_start, first_done)} |")
if kept:
    out.append(f"| keep pass: the first poll's end to \"Weighed hours kept\" ({kept[0][1]:,} places) | {took(first_end, kept[0][0])} |")
elif keep_errors:
    out.append(f"| keep pass failed: {keep_errors[0][1][-200:]} | {took(first_end, keep_errors[0][0])} |")
else:
    out.append("| keep pass: no \"Weighed hours kept\" line in the window | — |")
import_time = open(f"{run}/import-time.txt").read() if os.path.exists(f"{run}/import-time.txt") else ""
import_rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", import_time)
import_rss = f"; peak RSS {int(import_rss.group(1)) / 1024:,.0f} MiB" if import_rss else ""
out.append(f"| activity import, wall clock (started with the release{import_rss}) | {took(import_start, import_end)} |")
out.append(f"| the whole window (wrk stopped once all had ended, at most {E['L_MAX_WORK']} s) | {took(work_start, work_end)} |")
kept_rows = [line.split("\t") for line in open(f"{run}/kept.tsv").read().splitlines() if "\t" in line]
out.append(f"| places kept at the end, per person | {', '.join(f'{p} {int(n):,}' for p, n in kept_rows) or 'none'} |")
out.append(f"| dustd RSS idle, and peak (VmHWM) | {int(E['L_RSS_IDLE']) / 1024:,.0f} MiB, {int(E['L_RSS_PEAK']) / 1024:,.0f} MiB |")
out += ["", "A prober asked /healthz every 0.2 s throughout (one request at a time, a new connection each):", "",
        "| phase | length | answers | median ms | max ms | over 50 ms | non-200 |", "|---|---|---|---|---|---|---|"]
for name, a, b in phases:
    values = [(m, status) for t, m, status in probe if a <= t < b]
    if values:
        times = sorted(m for m, _ in values)
        out.append(f"| {name} | {b - a:,.1f} s | {len(times)} | {times[len(times) // 2]:.1f} | {times[-1]:,.1f} | "
                   f"{sum(m > 50 for m in times)} | {sum(status != 200 for _, status in values)} |")
out.append("")
if not polls:
    out.append(f"Polls: only the backfill's poll ran (the next was planned {poll_interval} s after its end, after dustd was "
               "stopped): no scheduled poll could be late.")
else:
    def described(p, s, lateness, length):
        when = f"planned {datetime.datetime.fromtimestamp(p, UTC):%H:%M:%S}, "
        if s is None:
            return when + f"not started {lateness:.1f} s after, when dustd was stopped"
        return when + f"started {lateness:+.1f} s, " + (f"took {length:.1f} s" if length is not None else
                                                        f"not done {settle_end - s:.1f} s later, when dustd was stopped")
    listed = "; ".join(described(*poll) for poll in polls)
    out.append(f"Polls after the backfill ({len(polls)}; dustd ran on {settle_end - work_end:.0f} s after the work, until no poll "
               f"was running, at most {E['L_SETTLE']} s): {listed}. Late by more than {late_limit:g} s: {len(late)}.")
import_line = (open(f"{run}/import.txt").read().strip().splitlines() or [""])[-1]
if import_line:
    out += ["", f"The import said: `{import_line.split(': ', 1)[-1]}`"]
if problems:
    out += ["", f"dustd logged {len(problems)} failure or error line(s); the first: `{problems[0][1][:300]}`"]
healthz = figures[("work", "healthz")]
web = "—" if healthz is None else ("met" if healthz["p99"] <= 50 and healthz["timeouts"] == 0 else "**not met**")
out += ["", f"Targets: /healthz p99 ≤ 50 ms during the work: {web}"
        + (f" ({healthz['p99']:.2f} ms)" if healthz else "")
        + f"; no poll late: {'met' if not late else '**not met**'}" + ("" if polls else " (none was due)")
        + (f" (the polls' start; the longest poll after the backfill took {max(p[3] for p in polls if p[3] is not None):.1f} s)"
           if any(p[3] is not None for p in polls) else "") + ".", ""]
text = "\n".join(out) + "\n"
print(text)
new = not os.path.exists(results)
with open(results, "a") as f:
    if new:
        f.write("# Liveness under dustd's heaviest work (Benchmarks/liveness.sh)\n\n"
                "One section per run of `Benchmarks/liveness.sh BIN_DIR LABEL`; the script's header says what it does.\n\n")
    f.write(text)
EOF
echo "liveness: appended to $RESULTS"
