#!/usr/bin/env bash
# Concurrency (issue 6): dustctl readers in loops while dustd writes 720 rows every second.
# No reader may fail, and no "database is locked" may reach a user.
#
#   scripts/concurrency-test.sh              READS=600 scripts/concurrency-test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
READS=${READS:-900}
BIN=${BIN:-$(swift build --show-bin-path)}
[ -x "$BIN/dustctl" ] && [ -x "$BIN/dustd" ] || swift build
WORK=$(mktemp -d /tmp/finedust-concurrency.XXXXXX)
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null; rm -rf "$WORK"' EXIT
echo "# defaults" > "$WORK/empty.yaml"
export DUSTD_CONFIG="$WORK/empty.yaml" DUSTD_STORAGE_PATH="$WORK/dust.sqlite"

# --live: dated up to yesterday, as dustd stores only what a request's window covers; --new-stations
# with station.mode nation: each poll's 전국 answer writes 720 rows of new stations, beside 종로구's
# own month that the readers read.
python3 scripts/fake-airkorea.py Fixtures/synthesized/station-jongno-ver1.5-3MONTH-2026-11-20.xml --live --new-stations >"$WORK/port" 2>/dev/null &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
DUSTD_API_BASE_URL="http://127.0.0.1:$(head -1 "$WORK/port")/B552584" DUSTD_STATION_NAME=종로구 DUSTD_STATION_MODE=nation DUSTD_API_SERVICE_KEY=concurrency-key-0123456789abcdefghijklmnopqrstuv \
    DUSTD_POLL_INTERVAL_SECONDS=1 DUSTD_POLL_JITTER_SECONDS=0 "$BIN/dustd" 2>"$WORK/dustd.log" &
PIDS+=($!)
until grep -q "Poll done" "$WORK/dustd.log" 2>/dev/null; do sleep 0.2; done

reader() {  # name, command…
    local name=$1; shift
    local failures=0
    for _ in $(seq $((READS / 3))); do
        if ! "$BIN/dustctl" "$@" --station 종로구 >/dev/null 2>>"$WORK/$name.err"; then failures=$((failures + 1)); fi
    done
    echo "$failures" > "$WORK/$name.failures"
}
start=$(date +%s)
readers=()
day=$(TZ=Asia/Seoul date -d yesterday +%F)
reader day day "$day" --json & readers+=($!)
reader week week --end "$day" --json & readers+=($!)
reader export export --from "$(TZ=Asia/Seoul date -d "40 days ago" +%F)" --to "$day" & readers+=($!)
wait "${readers[@]}"
elapsed=$(( $(date +%s) - start ))
polls=$(grep -c "Poll done" "$WORK/dustd.log")
written=$(grep -o "new=[0-9]*" "$WORK/dustd.log" | awk -F= '{s += $2} END {print s}')
failures=$(cat "$WORK"/*.failures | awk '{s += $1} END {print s}')
locked=$(cat "$WORK"/*.err | grep -ci "locked\|busy" || true)
echo "concurrency: $READS dustctl reads in $elapsed s while dustd made $polls polls writing $written rows: $failures failed reads, $locked 'locked' messages"
[ "$failures" = 0 ] && [ "$locked" = 0 ] || { cat "$WORK"/*.err | head; exit 1; }
