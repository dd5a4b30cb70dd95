#!/usr/bin/env bash
# Crash safety (issue 6): kill -9 `dustctl import` and `dustd` at random points during large
# ingests, RUNS times each (default 50). After every kill: PRAGMA integrity_check is ok, no
# response is half-stored, and running again completes the data.
#
#   scripts/crash-test.sh            RUNS=200 scripts/crash-test.sh
#
# Prints one summary line per part; exits non-zero on the first violation.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-50}
command -v sqlite3 >/dev/null || { echo "crash-test: needs the sqlite3 command"; exit 1; }
BIN=${BIN:-$(swift build --show-bin-path)}
[ -x "$BIN/dustctl" ] && [ -x "$BIN/dustd" ] || swift build
WORK=$(mktemp -d /tmp/finedust-crash.XXXXXX)
SERVER_PID=""
trap '[ -n "$SERVER_PID" ] && kill $SERVER_PID 2>/dev/null; rm -rf "$WORK"' EXIT
echo "# defaults" > "$WORK/empty.yaml"
export DUSTD_CONFIG="$WORK/empty.yaml"

# 20 responses of 2,200 rows, one station each.
python3 - "$WORK" <<'PY'
import sys
template = open("Fixtures/synthesized/station-jongno-ver1.5-3MONTH-2026-11-20.xml", encoding="utf-8").read()
for i in range(20):
    open(f"{sys.argv[1]}/K{i:02d}.xml", "w", encoding="utf-8").write(
        template.replace("<stationName>종로구</stationName>", f"<stationName>측정소{i:02d}</stationName>"))
PY

check() {  # database, expected rows per complete batch, label
    local integrity partial
    integrity=$(sqlite3 "$1" "PRAGMA integrity_check")
    [ "$integrity" = ok ] || { echo "crash-test: $3: integrity_check says: $integrity"; exit 1; }
    # Killed before the first migration committed: an empty, sound database.
    [ "$(sqlite3 "$1" "SELECT count(*) FROM sqlite_master WHERE name = 'measurement'")" = 1 ] || return 0
    partial=$(sqlite3 "$1" "SELECT count(*) FROM (SELECT station, count(*) AS n FROM measurement GROUP BY station) WHERE n NOT IN (0, $2)")
    [ "$partial" = 0 ] || { echo "crash-test: $3: a batch is half-stored"; sqlite3 "$1" "SELECT station, count(*) FROM measurement GROUP BY station"; exit 1; }
}

mid=0
for run in $(seq "$RUNS"); do
    db="$WORK/import-$run.sqlite"
    "$BIN/dustctl" import Fixtures/synthesized/empty-result-totalcount-0.xml --db "$db" >/dev/null
    delay=$(python3 -c 'import random; print(round(random.uniform(0.05, 2.5), 3))')
    "$BIN/dustctl" import "$WORK"/K*.xml --db "$db" >/dev/null &
    pid=$!
    sleep "$delay"
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    check "$db" 2200 "import run $run"
    complete=$(sqlite3 "$db" "SELECT count(DISTINCT station) FROM measurement")
    [ "$complete" -gt 0 ] && [ "$complete" -lt 20 ] && mid=$((mid + 1))
    "$BIN/dustctl" import "$WORK"/K*.xml --db "$db" >/dev/null
    [ "$(sqlite3 "$db" "SELECT count(*) FROM measurement")" = 44000 ] || { echo "crash-test: import run $run: the rerun did not complete"; exit 1; }
    rm -f "$db" "$db-wal" "$db-shm"
done
echo "dustctl import: $RUNS kill -9 runs ($mid landed between batches of a running import): integrity ok, no half batch, rerun complete"

# dustd: an empty database makes it backfill MONTH (720 rows in one response, dated up to yesterday:
# dustd stores only what a request's window covers) right after start.
python3 scripts/fake-airkorea.py Fixtures/synthesized/station-jongno-ver1.5-3MONTH-2026-11-20.xml --live >"$WORK/port" 2>/dev/null &
SERVER_PID=$!
for _ in $(seq 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
export DUSTD_API_BASE_URL="http://127.0.0.1:$(head -1 "$WORK/port")/B552584" DUSTD_STATION_NAME=종로구 \
       DUSTD_API_SERVICE_KEY=crash-test-key-0123456789abcdefghijklmnopqrstuv DUSTD_POLL_JITTER_SECONDS=0 DUSTD_HTTP_LISTEN=off
stored=0
for run in $(seq "$RUNS"); do
    db="$WORK/daemon-$run.sqlite"
    # Up to 0.8 s: long enough that some kills land after the backfill's commit, on a loaded machine too.
    delay=$(python3 -c 'import random; print(round(random.uniform(0.02, 0.8), 3))')
    DUSTD_STORAGE_PATH="$db" "$BIN/dustd" 2>/dev/null &
    pid=$!
    sleep "$delay"
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    [ -f "$db" ] || continue
    check "$db" 720 "dustd run $run"
    [ "$(sqlite3 "$db" "SELECT count(*) FROM measurement" 2>/dev/null)" = 720 ] && stored=$((stored + 1))
    DUSTD_STORAGE_PATH="$db" "$BIN/dustd" --once 2>/dev/null
    [ "$(sqlite3 "$db" "SELECT count(*) FROM measurement")" = 720 ] || { echo "crash-test: dustd run $run: the restart did not complete the backfill"; exit 1; }
    rm -f "$db" "$db-wal" "$db-shm"
done
echo "dustd: $RUNS kill -9 runs ($stored after the backfill was committed, the rest before): integrity ok, no half batch, restart completes it"
