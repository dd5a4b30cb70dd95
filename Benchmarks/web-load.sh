#!/usr/bin/env bash
# Load on dustd's web server while it polls (issue 11): wrk against /api/v1/today and /metrics of a
# release dustd that polls a loopback fake AirKorea every second, and against Debian's
# prometheus-node-exporter serving its /metrics on the same machine in the same run.
# Bounded: every wrk run lasts DURATION seconds (default 15) with 2 threads and 32 connections.
#
#   Benchmarks/web-load.sh      (needs wrk and prometheus-node-exporter: apt-get install -y wrk prometheus-node-exporter)
# Writes Benchmarks/results/web-load.md. BIN=DIR measures the dustd in DIR instead of building this tree
# (an older release, for a before/after in one sitting); RESULTS=FILE writes elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in wrk prometheus-node-exporter python3 curl; do
    command -v "$tool" >/dev/null || { echo "web-load: install $tool first"; exit 1; }
done
DURATION=${DURATION:-15}
BIN=${BIN:-$(packaging/build-release.sh --binaries-only .build)}  # as they ship
WORK=$(mktemp -d /tmp/finedust-load.XXXXXX)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; sleep 0.5; rm -rf "$WORK"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

python3 scripts/fake-airkorea.py Fixtures/synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml --revise >"$WORK/fake-port" 2>/dev/null &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$WORK/fake-port" ] && break; sleep 0.1; done
WEB=$(free_port)
NODE=$(free_port)
echo "# defaults" >"$WORK/empty.yaml"
DUSTD_CONFIG="$WORK/empty.yaml" DUSTD_STATION_NAME=종로구 DUSTD_API_SERVICE_KEY=load-test-key-0123456789abcdefghijklmnopqrstuv \
DUSTD_API_BASE_URL="http://127.0.0.1:$(head -1 "$WORK/fake-port")/B552584" DUSTD_STORAGE_PATH="$WORK/dust.sqlite" \
DUSTD_POLL_INTERVAL_SECONDS=1 DUSTD_POLL_JITTER_SECONDS=0 DUSTD_HTTP_LISTEN="127.0.0.1:$WEB" "$BIN/dustd" 2>"$WORK/dustd.log" &
DUSTD=$!
PIDS+=($DUSTD)
prometheus-node-exporter --web.listen-address="127.0.0.1:$NODE" >/dev/null 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$WEB/api/v1/today" >/dev/null 2>&1 && curl -sf "http://127.0.0.1:$NODE/metrics" >/dev/null 2>&1 && break; sleep 0.1; done
sleep 2
rss() { awk '/VmRSS/ {print $2}' "/proc/$DUSTD/status"; }
polls() { grep -c "Poll done" "$WORK/dustd.log" || true; }

run() {  # name url
    local file="$WORK/wrk-$(echo "$1" | tr -c 'a-z0-9' '_').txt"
    wrk -t2 -c32 -d"${DURATION}s" --latency "$2" >"$file"
    python3 Benchmarks/wrk_summary.py "$file" "$1"
}

rss_before=$(rss)
polls_before=$(polls)
started=$(date +%s)
{
    run "dustd /api/v1/today" "http://127.0.0.1:$WEB/api/v1/today"
    run "dustd /metrics" "http://127.0.0.1:$WEB/metrics"
    run "node-exporter /metrics" "http://127.0.0.1:$NODE/metrics"
} >"$WORK/table.tsv"
elapsed=$(( $(date +%s) - started ))
polls_during=$(( $(polls) - polls_before ))
rss_after=$(rss)

mkdir -p Benchmarks/results
{
    echo "# Web load ($(date -u +%Y-%m-%d), $(nproc) cores, wrk -t2 -c32 -d${DURATION}s, release static dustd)"
    echo
    echo "| target | req/s | p50 ms | p99 ms | non-2xx |"
    echo "|---|---|---|---|---|"
    while IFS=$'\t' read -r name rate p50 p99 errors; do echo "| $name | $rate | $p50 | $p99 | $errors |"; done <"$WORK/table.tsv"
    echo
    echo "dustd polled a fake AirKorea every second throughout: $polls_during polls in ${elapsed} s of load (one a second is ${elapsed})."
    echo "dustd RSS: $((rss_before / 1024)) MiB before the load, $((rss_after / 1024)) MiB after."
} | tee "${RESULTS:-Benchmarks/results/web-load.md}"
