#!/usr/bin/env bash
# Disk full (issue 6): the database on a 1 MiB tmpfs that fills up. dustd must log a clear
# error, keep running, keep what it stored intact, and recover by itself once space returns.
#
#   sudo scripts/disk-full-test.sh        (exit 77: skipped, not root)
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "disk-full-test: SKIPPED: needs root to mount a small tmpfs"; exit 77; }
BIN=${BIN:-$(swift build --show-bin-path)}
[ -x "$BIN/dustd" ] || swift build
WORK=$(mktemp -d /tmp/finedust-diskfull.XXXXXX)
DISK="$WORK/disk"
mkdir -p "$DISK"
mount -t tmpfs -o size=1m tmpfs "$DISK"
PIDS=()
ALONE="$WORK/alone"
trap 'kill "${PIDS[@]}" 2>/dev/null; sleep 0.5; umount "$DISK" 2>/dev/null; umount "$ALONE" 2>/dev/null; rm -rf "$WORK"' EXIT
echo "# defaults" > "$WORK/empty.yaml"

# In nation mode every poll's 전국 answer brings 720 new stations' newest hour (720 rows), so every
# poll needs new space (a station's own answer naming others is never stored, docs/REFERENCE.md §2).
python3 scripts/fake-airkorea.py Fixtures/synthesized/station-jongno-ver1.5-3MONTH-2026-11-20.xml --live --new-stations >"$WORK/port" 2>/dev/null &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
DUSTD_CONFIG="$WORK/empty.yaml" DUSTD_STORAGE_PATH="$DISK/dust.sqlite" DUSTD_STATION_NAME=종로구 DUSTD_STATION_MODE=nation DUSTD_API_SERVICE_KEY=disk-full-key-0123456789abcdefghijklmnopqrstuv \
DUSTD_API_BASE_URL="http://127.0.0.1:$(head -1 "$WORK/port")/B552584" DUSTD_POLL_INTERVAL_SECONDS=1 DUSTD_POLL_JITTER_SECONDS=0 \
DUSTD_POLL_RETRY_INITIAL_SECONDS=1 DUSTD_POLL_RETRY_MAX_SECONDS=1 "$BIN/dustd" 2>"$WORK/dustd.log" &
DUSTD=$!
PIDS+=($DUSTD)

for _ in $(seq 120); do grep -q "is full" "$WORK/dustd.log" && break; sleep 0.5; done
grep -q "is full" "$WORK/dustd.log" || { echo "disk-full-test: FAILED: no 'disk is full' error in the log"; tail "$WORK/dustd.log"; exit 1; }
sleep 3
kill -0 "$DUSTD" || { echo "disk-full-test: FAILED: dustd died on a full disk"; tail "$WORK/dustd.log"; exit 1; }
integrity=$(sqlite3 "file:$DISK/dust.sqlite?mode=ro" "PRAGMA integrity_check")
[ "$integrity" = ok ] || { echo "disk-full-test: FAILED: integrity_check: $integrity"; exit 1; }
# Whole answers only: 종로구's own month (up to 720 hours) and 720 new stations of one hour each a poll.
partial=$(sqlite3 "file:$DISK/dust.sqlite?mode=ro" "SELECT count(*) % 720 FROM measurement WHERE station != '종로구'")
[ "$partial" = 0 ] || { echo "disk-full-test: FAILED: a batch is half-stored on the full disk"; exit 1; }
stored_full=$(sqlite3 "file:$DISK/dust.sqlite?mode=ro" "SELECT count(*) FROM measurement")
echo "ok: disk full after $stored_full rows: dustd logged it, kept running, integrity ok, no half batch"
grep -m1 "is full" "$WORK/dustd.log" | sed 's/^/    /'
# dustctl status never names the failure as the network. When the disk has room for the status
# record (a failed batch leaves its space in the WAL), it says storage; when the last batch took the
# last page, dustd cannot record anything and its late heartbeat reads as "not responding" — true,
# and checked again below once space returns.
for _ in $(seq 20); do
    DUSTD_CONFIG="$WORK/empty.yaml" "$BIN/dustctl" status --json --db "$DISK/dust.sqlite" --station 종로구 >"$WORK/status.json" || true
    python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); e=s["lastError"]; sys.exit(0 if (e and e["kind"] == "storage") or s["daemon"] == "notResponding" else 1)' "$WORK/status.json" && break
    sleep 0.5
done
python3 - "$WORK/status.json" <<'PY' || { echo "disk-full-test: FAILED: dustctl status does not report a storage error"; cat "$WORK/status.json"; exit 1; }
import json, sys
status = json.load(open(sys.argv[1]))
error = status["lastError"]
if error:
    assert error["kind"] == "storage", status
    assert "is full" in error["message"] and "AirKorea" not in error["message"], error
    print("ok: dustctl status: kind=storage, " + error["message"])
else:
    assert status["daemon"] == "notResponding" and status["state"] is None, status
    print("ok: dustctl status: not responding (the disk had no room for its status record either)")
PY

mount -o remount,size=64m "$DISK"
before=$(grep -c "Poll done" "$WORK/dustd.log" || true)
for _ in $(seq 60); do [ "$(grep -c "Poll done" "$WORK/dustd.log")" -gt "$before" ] && break; sleep 0.5; done
[ "$(grep -c "Poll done" "$WORK/dustd.log")" -gt "$before" ] || { echo "disk-full-test: FAILED: no successful poll after space returned"; tail "$WORK/dustd.log"; exit 1; }
stored_after=$(sqlite3 "file:$DISK/dust.sqlite?mode=ro" "SELECT count(*) FROM measurement")
[ "$stored_after" -gt "$stored_full" ] || { echo "disk-full-test: FAILED: nothing stored after recovery"; exit 1; }
echo "ok: space returned: dustd stored again ($stored_full → $stored_after rows) without a restart"
DUSTD_CONFIG="$WORK/empty.yaml" "$BIN/dustctl" status --json --db "$DISK/dust.sqlite" --station 종로구 >"$WORK/status.json" || true
python3 - "$WORK/status.json" <<'PY' || { echo "disk-full-test: FAILED: dustctl status does not keep the storage error"; cat "$WORK/status.json"; exit 1; }
import json, sys
status = json.load(open(sys.argv[1]))
error = status["lastError"]
assert status["daemon"] == "running" and error and error["kind"] == "storage", status
assert "is full" in error["message"] and "AirKorea" not in error["message"], error
print("ok: dustctl status after recovery: running, last error kind=storage")
PY

# The same disk read-only, as the kernel leaves an SD card after write errors (a mount in use cannot be
# made read-only by hand, so dustd stops first): a writing dustctl says so (74), not "disk I/O error",
# and a reader still reads.
kill -TERM "$DUSTD"; wait "$DUSTD" 2>/dev/null || true
mount -o remount,ro "$DISK"
set +e
DUSTD_CONFIG="$WORK/empty.yaml" "$BIN/dustctl" import Fixtures/synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml --db "$DISK/dust.sqlite" 2>"$WORK/import.err"
status=$?
set -e
[ "$status" = 74 ] && grep -q "is read-only here" "$WORK/import.err" \
    || { echo "disk-full-test: FAILED: dustctl import on a read-only disk: exit $status"; cat "$WORK/import.err"; exit 1; }
DUSTD_CONFIG="$WORK/empty.yaml" "$BIN/dustctl" stations list --db "$DISK/dust.sqlite" >/dev/null \
    || { echo "disk-full-test: FAILED: a reader could not read a read-only disk"; exit 1; }
echo "ok: read-only disk: dustctl import exits 74 saying so, readers read"
sed 's/^/    /' "$WORK/import.err"
mount -o remount,rw "$DISK"

# A database copied alone (no -wal, no -shm beside it) onto a read-only disk: SQLite cannot read it
# without the -shm it cannot make there. The reader says so and what to do, not that stored data can
# still be read (what it said before), and reads the copy it is told to make.
mkdir -p "$ALONE"
mount -t tmpfs -o size=8m tmpfs "$ALONE"
sqlite3 "$DISK/dust.sqlite" ".backup '$ALONE/dust.sqlite'"
[ "$(sqlite3 "$ALONE/dust.sqlite" 'PRAGMA journal_mode')" = wal ] && [ ! -e "$ALONE/dust.sqlite-shm" ] \
    || { echo "disk-full-test: FAILED: the copy is not a WAL database alone"; ls -la "$ALONE"; exit 1; }
mount -o remount,ro "$ALONE"
set +e
DUSTD_CONFIG="$WORK/empty.yaml" "$BIN/dustctl" stations list --db "$ALONE/dust.sqlite" >/dev/null 2>"$WORK/alone.err"
status=$?
set -e
[ "$status" = 74 ] && grep -q "has no -shm file beside it" "$WORK/alone.err" && ! grep -q "can still be read" "$WORK/alone.err" \
    || { echo "disk-full-test: FAILED: a reader of a database alone on a read-only disk: exit $status"; cat "$WORK/alone.err"; exit 1; }
cp "$ALONE/dust.sqlite" "$WORK/copy.sqlite"
DUSTD_CONFIG="$WORK/empty.yaml" "$BIN/dustctl" stations list --db "$WORK/copy.sqlite" >/dev/null \
    || { echo "disk-full-test: FAILED: the copy the message asks for could not be read"; exit 1; }
echo "ok: a database alone on a read-only disk: readers exit 74 saying why and what to do; its copy reads"
sed 's/^/    /' "$WORK/alone.err"
echo "disk-full-test: PASSED"
