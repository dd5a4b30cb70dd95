#!/usr/bin/env bash
# Writes packaging/finedust.order: the functions dustd and dustctl run when they start and do
# their everyday work, which packaging/build-release.sh asks the linker (lld's
# --symbol-ordering-file) to place together at the start of the code.
#
#   packaging/make-order-file.sh        (from the repository's top directory; needs valgrind,
#                                        python3 and curl; about 3 minutes after the release build)
#   SCRATCH_PATH=.build-release packaging/make-order-file.sh   (SwiftPM's --scratch-path; default .build)
#
# Why: the kernel maps a program's code in 64 KiB runs around each page it touches, so code that
# runs is resident together with whatever the linker happened to put beside it. Spread over
# 31 MB of code, the few megabytes dustd runs kept about 19 MiB resident; packed together they
# need a fraction of that, and dustctl takes fewer page faults on every run
# (docs/PERFORMANCE.md, "Code layout").
#
# The list is made by running the release binaries under valgrind's callgrind, which records
# every function executed: dustd through start-up, a backfill from a loopback AirKorea and the polls
# after it (one a second), a forecast fetch, a loopback AirGradient monitor asked every 10 s, the
# dashboard, the JSON API and /metrics, and a SIGTERM; `dustd --demo` through a household's pages and
# documents; dustctl through its report, status, export, forecast and help commands on the demo
# database, and the household's (people, tracks, an indoor monitor) week, day and indoor commands.
# A stale list costs nothing but layout: names the code no longer has are skipped
# (--no-warn-symbol-ordering), new functions go after the listed ones. Regenerate it when the code has
# changed a lot (packaging/build-release.sh says when much of the list is gone), and commit the result.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf 'make-order-file: %s\n' "$*" >&2; }
for tool in valgrind python3 curl; do
    command -v "$tool" >/dev/null || { say "needs $tool (apt-get install -y $tool)"; exit 1; }
done
work=$(mktemp -d /tmp/finedust-order.XXXXXX)
fake=""
monitor=""
daemon=""
cleanup() {
    [ -n "$daemon" ] && kill "$daemon" 2>/dev/null || true
    [ -n "$fake" ] && kill "$fake" 2>/dev/null || true
    [ -n "$monitor" ] && kill "$monitor" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

# The release binaries as they ship (the layout they have does not change which functions run), so the
# list and the options recorded beside it are the shipping build's whatever the caller's environment.
unset FINEDUST_ORDER_FILE FINEDUST_LINKER
bin=$(packaging/build-release.sh --binaries-only "${SCRATCH_PATH:-.build}")
# The options the list is made for (packaging/build-release.sh warns when they change).
cp "${SCRATCH_PATH:-.build}/finedust-build-options" "$work/options"
# valgrind cannot read this toolchain's DWARF 5; it needs only the symbol table.
for tool in dustd dustctl; do
    cp "$bin/$tool" "$work/$tool-profiled"
    strip --strip-debug "$work/$tool-profiled"
done
callgrind() {
    local out=$1; shift
    valgrind --tool=callgrind --demangle=no --dump-instr=no --compress-strings=no --compress-pos=no \
        --callgrind-out-file="$out" "$@"
}

say "dustd: start-up, backfill and six polls, forecast, web, SIGTERM (slow under valgrind: about a minute)…"
# --revise: each answer revises the last hours' values, as AirKorea does, so every poll stores something.
python3 scripts/fake-airkorea.py Fixtures/synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml --revise > "$work/port" 2>/dev/null &
fake=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(head -1 "$work/port")
# An AirGradient monitor's local server (firmware 3.1's /measures/current), on loopback.
python3 - "$work/monitor-port" << 'PY' &
import http.server, json, sys
class Monitor(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"pm02": 9, "pm02Compensated": 7.5, "pm10": 12, "rco2": 612, "serialno": "84f3eb7a1c2d"}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *args): pass
server = http.server.HTTPServer(("127.0.0.1", 0), Monitor)
open(sys.argv[1], "w").write(str(server.server_address[1]))
server.serve_forever()
PY
monitor=$!
for _ in $(seq 100); do [ -s "$work/monitor-port" ] && break; sleep 0.1; done
cat > "$work/dustd.yaml" << YAML
indoor:
  sampleSeconds: 10
  sensors:
    - {name: living-room, kind: airgradient, url: "http://127.0.0.1:$(cat "$work/monitor-port")"}
YAML
listen=127.0.0.1:$((20000 + RANDOM % 20000))
env -i PATH=/usr/bin:/bin DUSTD_CONFIG="$work/dustd.yaml" DUSTD_STATION_NAME=종로구 \
    DUSTD_API_BASE_URL="http://127.0.0.1:$port/B552584" DUSTD_API_SERVICE_KEY=order-file-run-0123456789abcdefghijklmnopqrstuv \
    DUSTD_STORAGE_PATH="$work/dustd.sqlite" DUSTD_HTTP_LISTEN="$listen" DUSTD_POLL_INTERVAL_SECONDS=1 DUSTD_POLL_JITTER_SECONDS=0 \
    valgrind --tool=callgrind --demangle=no --dump-instr=no --compress-strings=no --compress-pos=no \
        --callgrind-out-file="$work/dustd.callgrind" "$work/dustd-profiled" > /dev/null 2> "$work/dustd.log" &
daemon=$!
# The first poll is the backfill; an idle dustd's life is the polls after it (every hour; every second here),
# which run code the backfill does not (a kept connection, a revision of hours already stored): six polls.
polls() { grep -c "Poll done" "$work/dustd.log" 2>/dev/null || true; }
for _ in $(seq 2400); do [ "$(polls)" -ge 6 ] && break; sleep 0.25; done
[ "$(polls)" -ge 6 ] || { cat "$work/dustd.log" >&2; say "dustd did not poll six times"; exit 1; }
sleep 25  # the forecast fetch, the first idle tick and the monitor asked twice or more
# What dustd runs every day and hour comes first in the list, the web's and the stop's after it: an idle
# dustd then has its code in a few megabytes (docs/PERFORMANCE.md, "Code layout, function by function").
callgrind_control --dump=idle "$daemon" > /dev/null
for _ in $(seq 100); do compgen -G "$work/dustd.callgrind.*" > /dev/null && break; sleep 0.2; done
for path in / /api/v1/today /api/v1/day/2026-11-20 /api/v1/week /api/v1/status /api/v1/forecast /metrics /healthz \
    /day/2026-11-20 /week/2026-W47; do
    curl -s -m 60 -o /dev/null "http://$listen$path" || true
done
kill -TERM "$daemon"
wait "$daemon" || true
daemon=""

# A household's web: the demo's people, tracks and monitor, each person's page and documents. The run
# above has one person and no tracks, and the code only a household runs, left out of the list, spread
# dustd's resident code over the whole executable while it served the demo (docs/PERFORMANCE.md,
# twentieth session).
say "dustd --demo: a household's pages and documents (about a minute)…"
mkdir "$work/demo"
listen=127.0.0.1:$((20000 + RANDOM % 20000))
(cd "$work/demo" && exec valgrind --tool=callgrind --demangle=no --dump-instr=no --compress-strings=no --compress-pos=no \
    --callgrind-out-file="$work/demo.callgrind" "$work/dustd-profiled" --demo --fixtures "$OLDPWD/Fixtures" --listen "$listen" \
    > /dev/null 2> "$work/demo.log") &
daemon=$!
for _ in $(seq 1200); do curl -sf -m 5 -o /dev/null "http://$listen/healthz" && break; sleep 0.25; done
curl -sf -m 5 -o /dev/null "http://$listen/healthz" || { cat "$work/demo.log" >&2; say "dustd --demo did not answer"; exit 1; }
for path in / "/?person=seoa" "/api/v1/today?person=jiho" "/api/v1/day/2026-11-20?person=jiho" "/api/v1/week?person=jiho" \
    /week/2026-W47 "/day/2026-11-20?person=seoa" /api/v1/status /metrics /healthz; do
    # Twice: the second answer is the kept one, as a phone's reload and Home Assistant's poll get it.
    for _ in 1 2; do curl -s -m 60 -o /dev/null "http://$listen$path" || true; done
done
kill -TERM "$daemon"
wait "$daemon" || true
daemon=""

say "dustctl: reports, status, export, forecast, help…"
db="$work/demo.sqlite"
export DUSTD_CONFIG="$PWD/Config/dustd.yaml"
"$bin/dustctl" demo --db "$db" --fixtures Fixtures > /dev/null
runs=(
    "today --db $db --station 종로구"
    "day 2026-11-20 --db $db --station 종로구"
    "day 2026-11-20 --db $db --station 종로구 --json"
    "week --db $db --station 종로구 --end 2026-11-20"
    "week --db $db --station 종로구 --end 2026-11-20 --json"
    "hourly --db $db --station 종로구 --from 2026-11-19 --to 2026-11-20"
    "export --db $db --station 종로구 --from 2026-11-01 --to 2026-11-20"
    "status --db $db"
    "forecast --db $db"
    "alerts list --db $db"
    "activity sources --db $db"
    "week --db $db --config Fixtures/demo-household.yaml --person jiho --end 2026-11-20"
    "week --db $db --config Fixtures/demo-household.yaml --end 2026-11-20 --json"
    "day 2026-11-20 --db $db --config Fixtures/demo-household.yaml --person jiho"
    "day 2026-11-20 --db $db --config Fixtures/demo-household.yaml --json"
    "indoor --db $db --config Fixtures/demo-household.yaml"
    "--help"
    "--version"
)
i=0
for arguments in "${runs[@]}"; do
    i=$((i + 1))
    # shellcheck disable=SC2086 # the arguments are words
    callgrind "$work/dustctl-$i.callgrind" "$work/dustctl-profiled" $arguments > /dev/null 2>&1 || true
done

python3 - "$work" packaging/finedust.order <<'PY'
import collections, glob, os, sys
work, out = sys.argv[1], sys.argv[2]

def functions(path):
    """The functions of the profiled executable that ran, as the linker names them."""
    names, obj = set(), None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("ob="):
                obj = line[3:].strip()
            elif line.startswith("fn=") and obj and obj.endswith("-profiled"):
                name = line[3:].strip().split("'")[0]  # callgrind marks recursion as name'2
                if name and not name.startswith("0x") and " " not in name:
                    names.add(name)
    return names

# The dump taken before the web was asked (dustd.callgrind.1: start-up, polls, idle), then the rest.
idle = set()
for path in glob.glob(os.path.join(work, "dustd.callgrind.*")):
    idle |= functions(path)
daemon = functions(os.path.join(work, "dustd.callgrind")) | idle
household = functions(os.path.join(work, "demo.callgrind"))
uses = collections.Counter()
for path in sorted(glob.glob(os.path.join(work, "dustctl-*.callgrind"))):
    uses.update(functions(path))
# dustd's functions first (its resident memory): those an idle dustd runs, then its web's, then a
# household's web; then dustctl's by how many commands run them.
served = daemon | household
order = (sorted(idle) + sorted(daemon - idle) + sorted(household - daemon)
         + sorted((n for n in uses if n not in served), key=lambda n: (-uses[n], n)))
with open(out, "w") as f:
    f.write("\n".join(order) + "\n")
print(f"make-order-file: {len(order)} functions ({len(idle)} from an idle dustd, {len(served)} from dustd with a household's web) in {out}",
      file=sys.stderr)
PY
cp "$work/options" packaging/finedust.order.options
say "options it was made for in packaging/finedust.order.options"
