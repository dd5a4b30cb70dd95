#!/usr/bin/env bash
# FineDust on PostgreSQL (issue 24, docs/REFERENCE.md §20), side by side in one run on one throwaway
# server: imports of many people at once against SQLite's single writer, the web API under wrk on one
# dustd and on two (and on one dustd on SQLite holding the same people), and the poller's failover time.
#
#   Benchmarks/postgres-bench.sh [imports] [web] [failover]      (default: all three, in that order)
#
# BIN (default .build/release) holds release dustd and dustctl. Knobs, with their defaults:
#   PEOPLE=1000 JOBS=8            imports: people, each a year of hourly walking and heart rate, and how many
#                                 `dustctl activity import --person` run at once against PostgreSQL
#   PG_SERIAL=1                   imports: also run PostgreSQL's imports one after another (0 leaves it out)
#   DURATION=15 CONNECTIONS=32 ROUNDS=3   web: each wrk run's seconds, total connections, interleaved rounds
#   CPU_PER_DUSTD=                    web: a share of one core (e.g. 0.25) each dustd is capped at, in a cgroup of its
#                                 own, as if on a small machine of its own beside the database's; empty: uncapped
#   KILLS=10 INTERVALS="30 3600"  failover: SIGKILLs of the poller for each poll.intervalSeconds
#
# The server: Debian's `postgresql` (as scripts/postgres-e2e.sh starts it), run as the postgres user in a
# temporary data directory, listening on a Unix socket there and on no TCP address, its settings the
# defaults (fsync and synchronous_commit on; SQLite's are FineDust's own: WAL, synchronous FULL): both durable.
# dustd serves on 127.0.0.1 only. Every load is bounded in count and time; everything started is stopped.
#
# The input: 8 generated Health exports (export.xml: a Watch's walking distance and a
# heart-rate sample in every hour of the 365 days ending today, KST — 17,520 records, ~3 MB each); person
# pNNNN imports variant NNNN mod 8, so every person's rows are their own and no file is read cold.
#
# Results: Benchmarks/results/postgres-{imports,web,failover}.md (and the raw numbers under $WORK).
# Needs psql, sqlite3, wrk, python3, curl (apt-get install -y postgresql sqlite3 wrk).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
PARTS=("$@")
[ ${#PARTS[@]} -gt 0 ] || PARTS=(imports web failover)
BIN=${BIN:-$ROOT/.build/release}
PEOPLE=${PEOPLE:-1000}
JOBS=${JOBS:-8}
PG_SERIAL=${PG_SERIAL:-1}
DURATION=${DURATION:-15}
CONNECTIONS=${CONNECTIONS:-32}
ROUNDS=${ROUNDS:-3}
CPU_PER_DUSTD=${CPU_PER_DUSTD:-}
KILLS=${KILLS:-10}
INTERVALS=${INTERVALS:-30 3600}
RESULTS=$ROOT/Benchmarks/results
mkdir -p "$RESULTS"
for tool in psql sqlite3 wrk python3 curl; do command -v "$tool" >/dev/null || { echo "postgres-bench: install $tool first"; exit 1; }; done
[ -x "$BIN/dustd" ] || { echo "postgres-bench: no release dustd in $BIN"; exit 1; }
[[ " ${PARTS[*]} " != *" imports "* && " ${PARTS[*]} " != *" web "* ]] || [ -x "$BIN/dustctl" ] ||
    { echo "postgres-bench: no release dustctl in $BIN"; exit 1; }
PGBIN=$(find /usr/lib/postgresql -maxdepth 3 -name initdb -path '*/bin/*' 2>/dev/null | sort -V | tail -1 | xargs -r dirname)
[ -n "$PGBIN" ] || { echo "postgres-bench: no PostgreSQL server (apt-get install -y postgresql)"; exit 1; }

WORK=$(mktemp -d /tmp/finedust-pgbench.XXXXXX)
chmod 755 "$WORK"
PIDS=()
CGROUPS=()
if [ "$(id -u)" -eq 0 ]; then AS_PG=(runuser -u postgres --); else AS_PG=(); fi
pg() { "${AS_PG[@]}" "$PGBIN/$@"; }
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    [ -f "$WORK/failover-pids" ] && while read -r pid; do kill -9 "$pid" 2>/dev/null || true; done <"$WORK/failover-pids"
    pg pg_ctl -D "$WORK/pgdata" -m fast -w -t 30 stop >/dev/null 2>&1 || true
    sleep 0.3
    for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    for group in "${CGROUPS[@]}"; do rmdir "$group" 2>/dev/null || true; done
    [ -n "${KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
# cap_cpu NAME PID: PID (all its threads) into a CPU cgroup of its own capped at CPU_PER_DUSTD cores (cgroup v2's
# cpu.max where the unified hierarchy has the cpu controller, else v1's cpu.cfs_quota_us).
cap_cpu() {
    local group quota=$(python3 -c "print(int(float('$CPU_PER_DUSTD') * 100000))")
    if grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
        group=/sys/fs/cgroup/finedust-bench-$1-$$
        mkdir "$group" && echo "$quota 100000" >"$group/cpu.max"
    elif [ -w /sys/fs/cgroup/cpu ]; then
        group=/sys/fs/cgroup/cpu/finedust-bench-$1-$$
        mkdir "$group" && echo 100000 >"$group/cpu.cfs_period_us" && echo "$quota" >"$group/cpu.cfs_quota_us"
    else
        echo "postgres-bench: CPU_PER_DUSTD needs a writable CPU cgroup (run as root)"
        exit 1
    fi
    CGROUPS+=("$group")
    echo "$2" >"$group/cgroup.procs"
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
machine() {
    echo "$(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), $(free -g | awk '/Mem:/ {print $2}') GiB," \
        "Linux $(uname -r), PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}'), SQLite $(sqlite3 --version | awk '{print $1}')," \
        "load average at the start $(cut -d' ' -f1-3 /proc/loadavg)"
}

# --- The server.
mkdir -p "$WORK/pgdata" "$WORK/sock"
SUPER_PASSWORD="super-$RANDOM$RANDOM"
PASSWORD="bench-$RANDOM-$RANDOM"
printf '%s\n' "$SUPER_PASSWORD" >"$WORK/super-password"
printf '%s\n' "$PASSWORD" >"$WORK/password"
chmod 600 "$WORK/password"
[ ${#AS_PG[@]} -eq 0 ] || chown postgres "$WORK/pgdata" "$WORK/sock" "$WORK/super-password"
chmod 700 "$WORK/pgdata"
pg initdb -D "$WORK/pgdata" -U postgres -A scram-sha-256 --pwfile="$WORK/super-password" -E UTF8 --locale=C.UTF-8 >"$WORK/initdb.log" 2>&1 ||
    { cat "$WORK/initdb.log"; exit 1; }
pg pg_ctl -D "$WORK/pgdata" -l "$WORK/sock/postgres.log" -w -t 60 -o "-c listen_addresses='' -k $WORK/sock -c port=5432" start >/dev/null
psql_super() { PGPASSWORD="$SUPER_PASSWORD" psql -X -q -v ON_ERROR_STOP=1 -h "$WORK/sock" -U postgres "$@"; }
psql_super -d postgres -c "CREATE ROLE finedust LOGIN PASSWORD '$PASSWORD';"
sql() {  # database, statement
    PGPASSWORD="$PASSWORD" psql -X -q -t -A -v ON_ERROR_STOP=1 -h "$WORK/sock" -U finedust -d "$1" -c "$2"
}
echo "== PostgreSQL on $WORK/sock; $(machine)"

# --- The fake AirKorea: yesterday's 24 hours at 종로구 on every poll.
python3 scripts/fake-airkorea.py Fixtures/synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml --live >"$WORK/fake-port" 2>"$WORK/fake.log" &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$WORK/fake-port" ] && break; sleep 0.1; done
FAKE_PORT=$(head -1 "$WORK/fake-port")

# config FILE DATABASE [key: value…]: a configuration with PEOPLE people, on PostgreSQL's DATABASE (or,
# for a DATABASE ending .sqlite, that SQLite file), the extra lines appended.
config() {
    local file=$1 database=$2
    shift 2
    {
        echo "station:"
        echo "  name: 종로구"
        if [[ $database == *.sqlite ]]; then
            printf 'storage:\n  path: %s\n' "$database"
        else
            printf 'storage:\n  url: postgresql://finedust@/%s?host=%s\n  passwordFile: %s\n' "$database" "$WORK/sock" "$WORK/password"
        fi
        printf 'api:\n  baseURL: http://127.0.0.1:%s/B552584\n' "$FAKE_PORT"
        for line in "$@"; do echo "$line"; done
        echo "people:"
        for i in $(seq "$PEOPLE"); do printf '  - { name: p%04d, born: %d-%02d }\n' "$i" $((1950 + i % 70)) $((1 + i % 12)); done
    } >"$file"
}
createdb() { psql_super -d postgres -c "CREATE DATABASE $1 OWNER finedust;"; }

# --- The exports: 8 variants of a year of hours, ending today (KST).
python3 - "$WORK/exports" <<'PY'
import datetime, os, sys
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
text = open("Fixtures/activity/health-export-small.xml", encoding="utf-8").read()
prolog = text[: text.index("]>\n") + 3]
kst = datetime.timezone(datetime.timedelta(hours=9))
today = datetime.datetime.now(kst).replace(hour=0, minute=0, second=0, microsecond=0)
first = today - datetime.timedelta(days=364)
for variant in range(8):
    lines = [prolog, '<HealthData locale="ko_KR">\n', f' <ExportDate value="{today:%Y-%m-%d} 23:59:00 +0900"/>\n']
    for hour in range(365 * 24):
        at = first + datetime.timedelta(hours=hour)
        stamp = f"{at:%Y-%m-%d %H}"
        km = 0.05 + ((hour * 7 + variant * 13) % 90) / 100
        bpm = 58 + (hour * 11 + variant * 5) % 70
        lines.append(f' <Record type="HKQuantityTypeIdentifierDistanceWalkingRunning" sourceName="Apple Watch" unit="km" '
                     f'startDate="{stamp}:10:00 +0900" endDate="{stamp}:40:00 +0900" value="{km:.2f}"/>\n')
        lines.append(f' <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Apple Watch" unit="count/min" '
                     f'startDate="{stamp}:20:00 +0900" endDate="{stamp}:20:00 +0900" value="{bpm}"/>\n')
    lines.append("</HealthData>\n")
    with open(os.path.join(out, f"export-{variant}.xml"), "w", encoding="utf-8") as f:
        f.writelines(lines)
PY
printf 'start,distance_m\n' >"$WORK/empty.csv"

# import_people NAME DATABASE JOBS: PEOPLE imports, JOBS at a time, into DATABASE (fresh); one TSV line.
import_people() {
    local name=$1 database=$2 jobs=$3
    config "$WORK/$name.yaml" "$database"
    if [[ $database == *.sqlite ]]; then rm -f "$database" "$database-wal" "$database-shm"; else createdb "$database"; fi
    # The schema first (an empty CSV for the first person), so every timed import finds it made.
    DUSTD_CONFIG="$WORK/$name.yaml" "$BIN/dustctl" activity import --quiet --person p0001 "$WORK/empty.csv" >/dev/null
    python3 - "$BIN/dustctl" "$WORK/$name.yaml" "$WORK/exports" "$PEOPLE" "$jobs" "$name" "$WORK/err-$name" <<'PY'
import os, statistics, subprocess, sys, time
dustctl, config, exports, people, jobs, name, errors = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6], sys.argv[7]
os.makedirs(errors, exist_ok=True)
env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "DUSTD_CONFIG": config}
pending = [(f"p{i:04d}", os.path.join(exports, f"export-{i % 8}.xml")) for i in range(1, people + 1)]
pending.reverse()
running, took = {}, []
began = time.perf_counter()
while pending or running:
    while pending and len(running) < jobs:
        person, path = pending.pop()
        err = open(os.path.join(errors, person), "w")
        process = subprocess.Popen([dustctl, "activity", "import", "--quiet", "--person", person, path],
                                   env=env, stdout=subprocess.DEVNULL, stderr=err)
        running[process.pid] = (process, person, time.perf_counter())
    pid, status = os.wait()
    process, person, started = running.pop(pid)
    took.append(time.perf_counter() - started)
    if status != 0:
        sys.exit(f"{name}: the import for {person} failed ({status}): {open(os.path.join(errors, person)).read()}")
wall = time.perf_counter() - began
took.sort()
print(f"{name}\t{jobs}\t{wall:.2f}\t{statistics.median(took):.3f}\t{took[int(len(took) * 0.9)]:.3f}\t{took[-1]:.3f}\t{os.getloadavg()[0]:.2f}")
PY
}
rows() {  # database: walking rows and heart-rate rows of the timed people
    if [[ $1 == *.sqlite ]]; then
        sqlite3 "$1" "SELECT (SELECT count(*) FROM activity_source) || ' ' || (SELECT count(*) FROM heart_rate);"
    else
        sql "$1" "SELECT (SELECT count(*) FROM activity_source) || ' ' || (SELECT count(*) FROM heart_rate);"
    fi
}

part_imports() {
    echo "== imports: $PEOPLE people × a year of hourly walking and heart rate"
    local table="$WORK/imports.tsv"
    : >"$table"
    local runs=("sqlite_serial $WORK/serial.sqlite 1" "pg_parallel bench_parallel $JOBS")
    [ "$PG_SERIAL" = 1 ] && runs+=("pg_serial bench_serial 1")
    for run in "${runs[@]}"; do
        read -r name database jobs <<<"$run"
        line=$(import_people "$name" "$database" "$jobs")
        echo "$line	$(rows "$database")" | tee -a "$table"
    done
    {
        echo "# PostgreSQL imports ($(date -u '+%Y-%m-%d %H:%M UTC'))"
        echo
        echo "$(machine | sed 's/load average at the start.*//')load average at the end $(cut -d' ' -f1-3 /proc/loadavg)."
        echo "$PEOPLE people, each \`dustctl activity import --quiet --person pNNNN export-(NNNN mod 8).xml\`"
        echo "(17,520 records: 8,760 hourly walking distances and 8,760 heart-rate samples, 365 days ending today)."
        echo
        echo "| run | at once | wall s | rows stored | rows/s | people/s | one import: median s | p90 s | max s | load at end |"
        echo "|---|---|---|---|---|---|---|---|---|---|"
        while IFS=$'\t' read -r name jobs wall median p90 max load counts; do
            read -r walking heart <<<"$counts"
            python3 -c "
import sys
name, jobs, wall, median, p90, mx, load, walking, heart, people = sys.argv[1:]
total = int(walking) + int(heart)
print(f'| {name} | {jobs} | {float(wall):.1f} | {total:,} ({int(walking):,} walking + {int(heart):,} heart rate) | '
      f'{total / float(wall):,.0f} | {int(people) / float(wall):.1f} | {median} | {p90} | {mx} | {load} |')
" "$name" "$jobs" "$wall" "$median" "$p90" "$max" "$load" "$walking" "$heart" "$PEOPLE"
        done <"$table"
        echo
        python3 - "$table" <<'PY'
import sys
rows = {line.split("\t")[0]: float(line.split("\t")[2]) for line in open(sys.argv[1]) if line.strip()}
if "sqlite_serial" in rows and "pg_parallel" in rows:
    print(f"PostgreSQL, several at once, against SQLite one after another: {rows['sqlite_serial'] / rows['pg_parallel']:.2f}× the rows per second.")
if "pg_serial" in rows and "pg_parallel" in rows:
    print(f"PostgreSQL, several at once, against PostgreSQL one after another: {rows['pg_serial'] / rows['pg_parallel']:.2f}×.")
if "pg_serial" in rows and "sqlite_serial" in rows:
    print(f"PostgreSQL one after another against SQLite one after another: {rows['sqlite_serial'] / rows['pg_serial']:.2f}×.")
PY
    } | tee "$RESULTS/postgres-imports.md"
}

# wrk_run FILE URL CONNECTIONS: one bounded wrk, requests rotating over the people.
cat >"$WORK/people.lua" <<LUA
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", string.format("/api/v1/today?person=p%04d", n % $PEOPLE + 1))
end
LUA
wrk_run() { timeout $((DURATION + 30)) wrk -t1 -c"$3" -d"${DURATION}s" --latency -s "$WORK/people.lua" "$2" >"$1"; }

part_web() {
    echo "== web: /api/v1/today?person=… under wrk, one dustd and two on one PostgreSQL, and one dustd on SQLite"
    local database=bench_parallel
    if [ "$(sql postgres "SELECT count(*) FROM pg_database WHERE datname = '$database'")" != 1 ]; then
        database=bench_web
        import_people web "$database" "$JOBS" >/dev/null
    fi
    # The same people on SQLite (the imports' database when that part ran), served by a dustd of its own:
    # issue 38 asks PostgreSQL's one dustd for at least half of SQLite's rate in the same run.
    local lite=$WORK/serial.sqlite
    [ -f "$lite" ] || import_people web_sqlite "$lite" 1 >/dev/null
    local port_a port_b port_c
    port_a=$(free_port)
    port_b=$(free_port)
    port_c=$(free_port)
    config "$WORK/web-a.yaml" "$database" "http:" "  listen: 127.0.0.1:$port_a" "poll:" "  jitterSeconds: 0"
    config "$WORK/web-b.yaml" "$database" "http:" "  listen: 127.0.0.1:$port_b" "poll:" "  jitterSeconds: 0"
    config "$WORK/web-c.yaml" "$lite" "http:" "  listen: 127.0.0.1:$port_c" "poll:" "  jitterSeconds: 0"
    DUSTD_CONFIG="$WORK/web-a.yaml" DUSTD_API_SERVICE_KEY=bench-key-0123456789abcdefghijklmnopqrstuv "$BIN/dustd" >/dev/null 2>"$WORK/web-a.log" &
    PIDS+=($!)
    local a=$!
    for _ in $(seq 300); do grep -q "Poll done" "$WORK/web-a.log" && break; sleep 0.2; done
    DUSTD_CONFIG="$WORK/web-b.yaml" DUSTD_API_SERVICE_KEY=bench-key-0123456789abcdefghijklmnopqrstuv "$BIN/dustd" >/dev/null 2>"$WORK/web-b.log" &
    PIDS+=($!)
    local b=$!
    DUSTD_CONFIG="$WORK/web-c.yaml" DUSTD_API_SERVICE_KEY=bench-key-0123456789abcdefghijklmnopqrstuv "$BIN/dustd" >/dev/null 2>"$WORK/web-c.log" &
    PIDS+=($!)
    local c=$!
    if [ -n "$CPU_PER_DUSTD" ]; then
        cap_cpu a "$a"
        cap_cpu b "$b"
        cap_cpu c "$c"
    fi
    for _ in $(seq 300); do grep -q "Poll done" "$WORK/web-c.log" && break; sleep 0.2; done
    for port in "$port_a" "$port_b" "$port_c"; do
        for _ in $(seq 300); do curl -fs -o /dev/null "http://127.0.0.1:$port/api/v1/today?person=p0001" && break; sleep 0.2; done
    done
    curl -fs "http://127.0.0.1:$port_a/api/v1/today?person=p0002" >"$WORK/today-a.json"
    curl -fs "http://127.0.0.1:$port_b/api/v1/today?person=p0002" >"$WORK/today-b.json"
    cmp -s "$WORK/today-a.json" "$WORK/today-b.json" || { echo "web: the two dustd answer differently"; exit 1; }
    echo "today?person=p0002: $(wc -c <"$WORK/today-a.json") bytes, the same from both"
    curl -fs "http://127.0.0.1:$port_c/api/v1/today?person=p0002" >"$WORK/today-c.json"
    cmp -s "$WORK/today-a.json" "$WORK/today-c.json" || echo "web: SQLite's dustd answers differently from PostgreSQL's (compared anyway)"
    local half=$((CONNECTIONS / 2)) table="$WORK/web.tsv"
    : >"$table"
    # Warm-up, then rounds: one dustd (two wrk, both at A) and two dustd (one wrk at A, one at B), interleaved.
    wrk_run "$WORK/warm.txt" "http://127.0.0.1:$port_a" "$half"
    wrk_run "$WORK/warm-c.txt" "http://127.0.0.1:$port_c" "$half"
    for round in $(seq "$ROUNDS"); do
        for shape in one two sqlite; do
            local target_a=$port_a target_b=$port_a
            [ "$shape" = two ] && target_b=$port_b
            [ "$shape" = sqlite ] && target_a=$port_c && target_b=$port_c
            wrk_run "$WORK/wrk-$shape-$round-1.txt" "http://127.0.0.1:$target_a" "$half" &
            local w1=$!
            wrk_run "$WORK/wrk-$shape-$round-2.txt" "http://127.0.0.1:$target_b" "$half" &
            local w2=$!
            wait "$w1" "$w2"
            python3 - "$shape" "$round" "$WORK/wrk-$shape-$round-1.txt" "$WORK/wrk-$shape-$round-2.txt" <<'PY' | tee -a "$table"
import re, sys
shape, round_number, files = sys.argv[1], sys.argv[2], sys.argv[3:]
def ms(value, unit):
    return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
rate, p50, p99, bad = 0.0, [], [], 0
for name in files:
    text = open(name).read()
    rate += float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
    p50.append(ms(*re.search(r"50%\s+([\d.]+)(us|ms|s)", text).groups()))
    p99.append(ms(*re.search(r"99%\s+([\d.]+)(us|ms|s)", text).groups()))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    bad += int(errors.group(1)) if errors else 0
    bad += sum(map(int, socket_errors.groups())) if socket_errors else 0
print(f"{shape}\t{round_number}\t{rate:.0f}\t{max(p50):.2f}\t{max(p99):.2f}\t{bad}\t{open('/proc/loadavg').read().split()[0]}")
PY
        done
    done
    local polls_b
    polls_b=$(grep -c "Poll done" "$WORK/web-b.log" || true)
    kill "$a" "$b" "$c"
    wait "$a" "$b" "$c" 2>/dev/null || true
    {
        echo "# PostgreSQL: the web API on one dustd and on two ($(date -u '+%Y-%m-%d %H:%M UTC'))"
        echo
        echo "$(machine | sed 's/load average at the start.*//')release dustd; $PEOPLE people, a year of their hours stored."
        echo "Each run: two \`wrk -t1 -c$half -d${DURATION}s --latency -s people.lua\` at once (GET /api/v1/today?person=pNNNN,"
        echo "rotating over the people), both at dustd A (one dustd) or one at A and one at B (two dustd); summed;"
        echo "\`sqlite\`: both at dustd C, on a SQLite database holding the same people's imports."
        echo "The second dustd polled $polls_b times (it should not: A holds the lease)."
        [ -z "$CPU_PER_DUSTD" ] || echo "Each dustd capped at $CPU_PER_DUSTD of a core (a CPU cgroup of its own); PostgreSQL and wrk uncapped."
        echo
        echo "| dustd | round | req/s (sum) | p50 ms (worse wrk) | p99 ms (worse wrk) | errors | load |"
        echo "|---|---|---|---|---|---|---|"
        while IFS=$'\t' read -r shape round rate p50 p99 bad load; do echo "| $shape | $round | $rate | $p50 | $p99 | $bad | $load |"; done <"$table"
        echo
        python3 - "$table" <<'PY'
import statistics, sys
rates = {"one": [], "two": [], "sqlite": []}
for line in open(sys.argv[1]):
    shape, _, rate = line.split("\t")[:3]
    rates[shape].append(float(rate))
one, two, lite = (statistics.median(rates[shape]) for shape in ("one", "two", "sqlite"))
print(f"Median: one dustd {one:,.0f} req/s, two dustd {two:,.0f} req/s: {two / one:.2f}× (target ≥ 1.6×).")
print(f"One dustd on PostgreSQL against one on SQLite: {one:,.0f} against {lite:,.0f} req/s, {one / lite:.2f}× (issue 38: ≥ 0.5×).")
PY
    } | tee "$RESULTS/postgres-web${CPU_PER_DUSTD:+-capped}.md"
}

part_failover() {
    echo "== failover: SIGKILL of the poller, $KILLS times for each poll interval ($INTERVALS)"
    createdb bench_failover
    local port_a port_b
    port_a=$(free_port)
    port_b=$(free_port)
    : >"$WORK/failover.tsv"
    for interval in $INTERVALS; do
        config "$WORK/failover-$interval-a.yaml" bench_failover "poll:" "  intervalSeconds: $interval" "  jitterSeconds: 0" \
            "http:" "  listen: 127.0.0.1:$port_a"
        config "$WORK/failover-$interval-b.yaml" bench_failover "poll:" "  intervalSeconds: $interval" "  jitterSeconds: 0" \
            "http:" "  listen: 127.0.0.1:$port_b"
        python3 - "$BIN/dustd" "$WORK" "$interval" "$KILLS" <<'PY' | tee -a "$WORK/failover.tsv"
import os, random, signal, subprocess, sys, time
dustd, work, interval, kills = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
random.seed(24 + interval)
generation = 0


def start(side):
    global generation
    generation += 1
    log = os.path.join(work, f"failover-{interval}-{side}-{generation}.log")
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "DUSTD_API_SERVICE_KEY": "bench-key-0123456789abcdefghijklmnopqrstuv",
           "DUSTD_CONFIG": os.path.join(work, f"failover-{interval}-{side}.yaml")}
    process = subprocess.Popen([dustd], env=env, stdout=subprocess.DEVNULL, stderr=open(log, "w"))
    with open(os.path.join(work, "failover-pids"), "a") as pids:
        pids.write(f"{process.pid}\n")
    return process, log


def wait_for(log, text, seconds, after=0):
    deadline = time.time() + seconds
    while time.time() < deadline:
        with open(log, encoding="utf-8", errors="replace") as f:
            if f.read().count(text) > after:
                return time.time()
        time.sleep(0.02)
    sys.exit(f"failover: no {text!r} in {log} within {seconds} s")


running = {}
running["a"] = start("a")
wait_for(running["a"][1], "now polls AirKorea", 120)
running["b"] = start("b")
wait_for(running["b"][1], "Another dustd polls AirKorea", 120)
poller, standby = "a", "b"
for kill in range(kills):
    # A moment at random within the standby's 30 s retry period, so the kills sample its phase.
    time.sleep(random.uniform(1, 31))
    process, _ = running[poller]
    os.kill(process.pid, signal.SIGKILL)
    killed = time.time()
    process.wait()
    took = wait_for(running[standby][1], "now polls AirKorea", 3 * 3600) - killed
    print(f"{interval}\t{kill + 1}\t{took:.2f}", flush=True)
    running[poller] = start(poller)
    wait_for(running[poller][1], "Another dustd polls AirKorea", 120)
    poller, standby = standby, poller
for process, _ in running.values():
    process.terminate()
    process.wait()
PY
    done
    {
        echo "# PostgreSQL: the poller's failover ($(date -u '+%Y-%m-%d %H:%M UTC'))"
        echo
        echo "$(machine | sed 's/load average at the start.*//')release dustd; two dustd on one database over the Unix socket."
        echo "Each kill: a random moment 1–31 s after the standby reported \"Another dustd polls AirKorea\", \`kill -9\` of the"
        echo "poller, then the time until the standby's log says \"This dustd now polls AirKorea\" (checked every 20 ms);"
        echo "the killed one is started again as the new standby."
        echo
        python3 - "$WORK/failover.tsv" <<'PY'
import statistics, sys
took = {}
for line in open(sys.argv[1]):
    interval, _, seconds = line.split("\t")
    took.setdefault(int(interval), []).append(float(seconds))
print("| poll.intervalSeconds | kills | median s | min s | max s | every takeover s |")
print("|---|---|---|---|---|---|")
for interval, values in took.items():
    print(f"| {interval} | {len(values)} | {statistics.median(values):.1f} | {min(values):.1f} | {max(values):.1f} | "
          f"{', '.join(f'{v:.1f}' for v in values)} |")
PY
    } | tee "$RESULTS/postgres-failover.md"
}

for part in "${PARTS[@]}"; do
    case $part in
    imports) part_imports ;;
    web) part_web ;;
    failover) part_failover ;;
    *) echo "postgres-bench: no part $part (imports, web, failover)"; exit 64 ;;
    esac
done
echo "postgres-bench: done; results in $RESULTS/postgres-*.md"
