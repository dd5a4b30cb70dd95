#!/usr/bin/env bash
# dustd's pages and API documents on the demo (issue 38): `wrk -t1 -c8` against each for this tree's
# release dustd and, with BEFORE=DIR, against the dustd in DIR (an older release) in the same sitting,
# the two taking turns target by target so the machine's noise falls on both. Bounded: each wrk run
# lasts DURATION seconds (default 10).
#
#   Benchmarks/web-pages.sh                          (needs wrk, curl and python3)
#   BEFORE=/path/to/old/bin Benchmarks/web-pages.sh  (ratios against an older build)
#   BIN=DIR ...                                      (this dustd instead of building the tree)
# Writes Benchmarks/results/web-pages.md (RESULTS=FILE elsewhere), with each dustd's RSS right after
# the load and SETTLE_SECONDS (default 35) later.
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in wrk curl python3; do
    command -v "$tool" >/dev/null || { echo "web-pages: install $tool first (apt-get install -y $tool)"; exit 1; }
done
DURATION=${DURATION:-10}
BIN=$(realpath "${BIN:-$(packaging/build-release.sh --binaries-only .build)}")
BEFORE=${BEFORE:+$(realpath "$BEFORE")}
WORK=$(mktemp -d /tmp/finedust-pages.XXXXXX)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; sleep 0.5; rm -rf "$WORK"' EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

# start NAME DIR: dustd --demo of DIR on a free port; sets PORT_<NAME> and PID_<NAME>.
start() {
    local port
    port=$(free_port)
    mkdir -p "$WORK/$1"
    (cd "$WORK/$1" && exec "$2/dustd" --demo --fixtures "$OLDPWD/Fixtures" --listen "127.0.0.1:$port" >dustd.out 2>dustd.log) &
    local pid=$!
    PIDS+=("$pid")
    for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
    curl -sf "http://127.0.0.1:$port/healthz" >/dev/null || { echo "web-pages: $2/dustd --demo did not start"; cat "$WORK/$1/dustd.log"; exit 1; }
    printf -v "PORT_$1" '%s' "$port"
    printf -v "PID_$1" '%s' "$pid"
}

builds=(now)
start now "$BIN"
if [ -n "${BEFORE:-}" ]; then
    builds=(before now)
    start before "$BEFORE"
fi
sleep 1

# Every request of a "computed" row asks for a target no answer is kept for (a counter in a query
# parameter the server ignores): what the first question after a write costs.
cat >"$WORK/unique.lua" <<'LUA'
counter = 0
request = function()
    counter = counter + 1
    local separator = string.find(wrk.path, "?", 1, true) and "&" or "?"
    return wrk.format("GET", wrk.path .. separator .. "n=" .. counter)
end
LUA

# measure NAME PATH: one wrk run; prints "req/s<TAB>p50<TAB>p99<TAB>non-2xx". A PATH beginning
# "computed " is asked with a new query each time (unique.lua).
measure() {
    local port_var="PORT_$1"
    local file="$WORK/wrk.txt"
    local path=$2 script=()
    if [ "${path#computed }" != "$path" ]; then path=${path#computed }; script=(-s "$WORK/unique.lua"); fi
    wrk -t1 -c8 -d"${DURATION}s" --latency "${script[@]}" "http://127.0.0.1:${!port_var}$path" >"$file"
    python3 Benchmarks/wrk_summary.py "$file"
}

targets=(
    "/api/v1/today?person=jiho"
    "/"
    "/?person=seoa"
    "/api/v1/day/2026-11-20?person=jiho"
    "/api/v1/week?person=jiho"
    "/week/2026-W47"
    "/metrics"
    "/healthz"
    "computed /api/v1/today?person=jiho"
    "computed /"
)
: >"$WORK/table.tsv"
for target in "${targets[@]}"; do
    for build in "${builds[@]}"; do
        printf '%s\t%s\t%s\n' "$target" "$build" "$(measure "$build" "$target")" >>"$WORK/table.tsv"
    done
done
rss() { awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }
hwm() { awk '/VmHWM/ {print int($2 / 1024)}' "/proc/$1/status"; }

# Resident memory right after the load, and once dustd has had time to give back what the load freed
# (HeapTrimService, every 30 s): the figure a home server lives with between bursts.
declare -A AFTER_LOAD
for build in "${builds[@]}"; do pid_var="PID_$build"; AFTER_LOAD[$build]=$(rss "${!pid_var}"); done
sleep "${SETTLE_SECONDS:-35}"
mkdir -p Benchmarks/results
{
    echo "# dustd's web on the demo ($(date -u +%Y-%m-%d), $(nproc) cores, wrk -t1 -c8 -d${DURATION}s, release static dustd)"
    echo
    python3 - "$WORK/table.tsv" "${builds[*]}" <<'PY'
import sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
builds = sys.argv[2].split()
by = {(r[0], r[1]): r[2:] for r in rows}
targets = list(dict.fromkeys(r[0] for r in rows))
if len(builds) == 1:
    print("| target | req/s | p50 ms | p99 ms | non-2xx |")
    print("|---|---|---|---|---|")
    for t in targets:
        rate, p50, p99, err = by[(t, "now")]
        print(f"| `{t}` | {rate} | {p50} | {p99} | {err} |")
else:
    print("| target | before req/s | now req/s | now ÷ before | before p99 ms | now p99 ms | non-2xx |")
    print("|---|---|---|---|---|---|---|")
    for t in targets:
        b, n = by[(t, "before")], by[(t, "now")]
        ratio = float(n[0]) / float(b[0]) if float(b[0]) else float("nan")
        print(f"| `{t}` | {b[0]} | {n[0]} | {ratio:.2f}× | {b[2]} | {n[2]} | {int(b[3]) + int(n[3])} |")
PY
    echo
    for build in "${builds[@]}"; do
        pid_var="PID_$build"
        echo "dustd ($build) RSS after the load: ${AFTER_LOAD[$build]} MiB, ${SETTLE_SECONDS:-35} s later $(rss "${!pid_var}") MiB, peak $(hwm "${!pid_var}") MiB."
    done
} | tee "${RESULTS:-Benchmarks/results/web-pages.md}"
