#!/usr/bin/env bash
# PostgreSQL end to end (issue 24, docs/REFERENCE.md §20): a real server, two dustd on one database,
# the poller killed, the other taking over, nothing lost or written twice.
#
#   scripts/postgres-e2e.sh            (builds debug binaries first if needed)
#
# Starts a throwaway PostgreSQL cluster (Debian's `postgresql`, installed where missing) in a
# temporary directory, listening on a Unix socket there and on no TCP address; creates a role
# `finedust` with a password and its database, and a read-only role `reader`; runs a loopback fake
# AirKorea and two dustd (each serving the web on its own 127.0.0.1 port) with `storage.url` and
# `storage.passwordFile`; checks that exactly one polls and both name it; kills the poller with
# SIGKILL and checks the other polls within one poll interval, that every hour is stored once and
# never revised by the handover, that a server restart is survived, that the read-only role reads
# and cannot write, and that the password appears in no log, status or process listing. Stops
# everything it started.
#
# Exit 0: passed. Exit 77: skipped, with the reason (no PostgreSQL and no way to install it).
set -euo pipefail
cd "$(dirname "$0")/.."

skip() { echo "postgres-e2e: SKIPPED: $*"; exit 77; }
fail() { echo "postgres-e2e: FAILED: $*"; exit 1; }

pg_bin() { find /usr/lib/postgresql -maxdepth 3 -name initdb -path '*/bin/*' 2>/dev/null | sort -V | tail -1 | xargs -r dirname; }
PGBIN=$(pg_bin)
if [ -z "$PGBIN" ]; then
    [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null || skip "PostgreSQL is not installed and this user cannot install it (apt-get install -y postgresql)"
    echo "postgres-e2e: installing postgresql"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    PGBIN=$(pg_bin)
    [ -n "$PGBIN" ] || skip "apt-get installed no PostgreSQL server"
fi
for tool in python3 curl; do command -v "$tool" >/dev/null || skip "$tool is missing"; done

BIN=${BIN:-$(swift build --show-bin-path)}
[ -x "$BIN/dustd" ] && [ -x "$BIN/dustctl" ] || swift build

WORK=$(mktemp -d /tmp/finedust-pg.XXXXXX)
chmod 755 "$WORK"
PIDS=()
# The server runs as an unprivileged user: initdb and postgres refuse root.
if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || skip "running as root, and there is no postgres user to run the server as"
    AS_PG=(runuser -u postgres --)
else
    AS_PG=()
fi
pg() { "${AS_PG[@]}" "$PGBIN/$@"; }
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    pg pg_ctl -D "$WORK/pgdata" -m immediate stop >/dev/null 2>&1 || true
    sleep 0.3
    for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

# --- The server: a temporary cluster on a Unix socket only, password authentication everywhere.
mkdir -p "$WORK/pgdata" "$WORK/sock" "$WORK/pglog"
SUPER_PASSWORD="super-$RANDOM$RANDOM"
PASSWORD="pw-$RANDOM-$RANDOM-secret"
READER_PASSWORD="reader-$RANDOM$RANDOM"
printf '%s\n' "$SUPER_PASSWORD" >"$WORK/super-password"
[ ${#AS_PG[@]} -eq 0 ] || chown postgres "$WORK/pgdata" "$WORK/sock" "$WORK/pglog" "$WORK/super-password"
chmod 700 "$WORK/pgdata"
pg initdb -D "$WORK/pgdata" -U postgres -A scram-sha-256 --pwfile="$WORK/super-password" -E UTF8 --locale=C.UTF-8 >"$WORK/initdb.log" 2>&1 ||
    { cat "$WORK/initdb.log"; fail "initdb failed"; }
pg pg_ctl -D "$WORK/pgdata" -l "$WORK/pglog/postgres.log" -w -t 60 \
    -o "-c listen_addresses='' -k $WORK/sock -c port=5432" start >/dev/null || { cat "$WORK/pglog/postgres.log"; fail "the server did not start"; }
psql_super() { PGPASSWORD="$SUPER_PASSWORD" psql -X -q -v ON_ERROR_STOP=1 -h "$WORK/sock" -U postgres "$@"; }
psql_super -d postgres <<SQL
CREATE ROLE finedust LOGIN PASSWORD '$PASSWORD';
CREATE DATABASE finedust OWNER finedust;
CREATE ROLE reader LOGIN PASSWORD '$READER_PASSWORD';
SQL
echo "ok: PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}') on $WORK/sock (no TCP address)"
sql() { PGPASSWORD="$PASSWORD" psql -X -q -t -A -v ON_ERROR_STOP=1 -h "$WORK/sock" -U finedust -d finedust -c "$1"; }

# --- The fake AirKorea: yesterday's 24 hours at 종로구 on every poll.
python3 scripts/fake-airkorea.py Fixtures/synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml --live >"$WORK/port" 2>"$WORK/fake.log" &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
FAKE_PORT=$(head -1 "$WORK/port")
[ -n "$FAKE_PORT" ] || fail "the fake AirKorea did not start"

INTERVAL=6
printf '%s\n' "$PASSWORD" >"$WORK/password"
chmod 600 "$WORK/password"
KEY="pg-e2e-key-$RANDOM$RANDOM-0123456789abcdefghijklmnopqrstuv"
write_config() {  # file, http port
    cat >"$1" <<YAML
station:
  name: 종로구
storage:
  url: postgresql://finedust@/finedust?host=$WORK/sock
  passwordFile: $WORK/password
poll:
  intervalSeconds: $INTERVAL
  jitterSeconds: 0
api:
  baseURL: http://127.0.0.1:$FAKE_PORT/B552584
http:
  listen: 127.0.0.1:$2
YAML
}
PORT_A=$(free_port)
PORT_B=$(free_port)
write_config "$WORK/a.yaml" "$PORT_A"
write_config "$WORK/b.yaml" "$PORT_B"
start_dustd() {  # name, config, the variable that gets its PID (not a $(…) subshell: PIDS is this shell's)
    DUSTD_CONFIG="$2" DUSTD_API_SERVICE_KEY="$KEY" "$BIN/dustd" >"$WORK/$1.out" 2>"$WORK/$1.log" &
    PIDS+=($!)
    printf -v "$3" '%s' "$!"
}
stop_dustd() {  # name, PID, the failure when it is still running 20 s after SIGTERM
    kill "$2"
    local deadline=$((SECONDS + 20))
    while kill -0 "$2" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
    kill -0 "$2" 2>/dev/null && { tail -20 "$WORK/$1.log"; fail "$3"; }
    wait "$2" 2>/dev/null || true
}
wait_for() {  # file, pattern, seconds
    local deadline=$((SECONDS + $3))
    while [ $SECONDS -lt $deadline ]; do grep -q -- "$2" "$1" 2>/dev/null && return 0; sleep 0.2; done
    return 1
}

# --- Two dustd: exactly one polls, both serve and name it.
start_dustd a "$WORK/a.yaml" PID_A
wait_for "$WORK/a.log" "now polls AirKorea" 60 || { cat "$WORK/a.log"; fail "the first dustd did not become the poller"; }
wait_for "$WORK/a.log" "Poll done" 60 || { cat "$WORK/a.log"; fail "the first dustd did not poll"; }
start_dustd b "$WORK/b.yaml" PID_B
wait_for "$WORK/b.log" "Another dustd polls AirKorea" 60 || { cat "$WORK/b.log"; fail "the second dustd did not see the poller"; }
for _ in $(seq 100); do curl -fs -o /dev/null "http://127.0.0.1:$PORT_B/healthz" && break; sleep 0.1; done
sleep $((INTERVAL * 2))
grep -q "Poll done" "$WORK/b.log" && fail "the second dustd polled while the first held the lease"
for port in "$PORT_A" "$PORT_B"; do
    curl -fs "http://127.0.0.1:$port/api/v1/status" >"$WORK/status-$port.json" || fail "dustd on $port serves no status"
    python3 - "$WORK/status-$port.json" "$PID_A" <<'PY' || fail "/api/v1/status on $port does not name the first dustd as the poller"
import json, sys
poller = json.load(open(sys.argv[1]))["poller"]
assert poller["pid"] == int(sys.argv[2]), poller
PY
done
DUSTD_CONFIG="$WORK/b.yaml" "$BIN/dustctl" status >"$WORK/ctl-status.txt" 2>&1 || true
grep -q "PID $PID_A" "$WORK/ctl-status.txt" || { cat "$WORK/ctl-status.txt"; fail "dustctl status does not name the poller"; }
ROWS=$(sql "SELECT count(*) FROM measurement WHERE station = '종로구'")
[ "$ROWS" = 24 ] || fail "$ROWS hours stored for 종로구, not the 24 of yesterday"
echo "ok: two dustd on one database: only PID $PID_A polls; both APIs and dustctl status name it; 24 hours stored"

# --- The poller killed: the other takes over within one poll interval, nothing lost or doubled.
kill -KILL "$PID_A"
KILLED_AT=$(date +%s.%N)
wait_for "$WORK/b.log" "now polls AirKorea" $((INTERVAL + 30)) || { cat "$WORK/b.log"; fail "the second dustd never took over"; }
TOOK=$(python3 -c "import time; print(f'{time.time() - $KILLED_AT:.1f}')")
python3 -c "import sys; sys.exit(0 if $TOOK <= $INTERVAL + 2 else 1)" || fail "the takeover took $TOOK s, more than one poll interval ($INTERVAL s)"
wait_for "$WORK/b.log" "Poll done" 60 || { cat "$WORK/b.log"; fail "the new poller did not poll"; }
[ "$(sql "SELECT count(*) FROM measurement WHERE station = '종로구'")" = 24 ] || fail "the handover changed the number of stored hours"
DOUBLED=$(sql "SELECT count(*) FROM (SELECT station, slot_start FROM measurement GROUP BY 1, 2 HAVING count(*) > 1) d")
[ "$DOUBLED" = 0 ] || fail "$DOUBLED hours stored twice"
REVISED=$(sql "SELECT count(*) FROM measurement WHERE revision > 0")
[ "$REVISED" = 0 ] || fail "the handover revised $REVISED hours that did not change"
curl -fs "http://127.0.0.1:$PORT_B/api/v1/status" | python3 -c "import json, sys; p = json.load(sys.stdin)['poller']; assert p['pid'] == $PID_B, p" ||
    fail "/api/v1/status does not name the new poller"
echo "ok: SIGKILL of the poller: PID $PID_B polls after $TOOK s (interval $INTERVAL s); 24 hours, none twice, none revised"

# --- The server restarted under the poller: it carries on.
pg pg_ctl -D "$WORK/pgdata" -m fast -w -t 60 restart -o "-c listen_addresses='' -k $WORK/sock -c port=5432" >/dev/null ||
    fail "the server did not restart"
RESTARTED=$(wc -l <"$WORK/b.log")
for _ in $(seq $((INTERVAL * 10))); do tail -n +"$RESTARTED" "$WORK/b.log" | grep -q "Poll done" && break; sleep 0.5; done
tail -n +"$RESTARTED" "$WORK/b.log" | grep -q "Poll done" || { tail -n 30 "$WORK/b.log"; fail "no poll succeeded after the server restarted"; }
kill -0 "$PID_B" || fail "dustd died when the server restarted"
echo "ok: the server restarted under the poller: it polled again, still running"

# --- The read-only role reads and cannot write.
psql_super -d finedust -c "GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader;"
printf '%s\n' "$READER_PASSWORD" >"$WORK/reader-password"
chmod 600 "$WORK/reader-password"
cat >"$WORK/reader.yaml" <<YAML
station:
  name: 종로구
storage:
  url: postgresql://reader@/finedust?host=$WORK/sock
  passwordFile: $WORK/reader-password
YAML
YESTERDAY=$(TZ=Asia/Seoul date -d yesterday +%F)
DUSTD_CONFIG="$WORK/reader.yaml" "$BIN/dustctl" day "$YESTERDAY" --json >"$WORK/reader-day.json" || fail "the read-only role cannot read a day"
DUSTD_CONFIG="$WORK/a.yaml" "$BIN/dustctl" day "$YESTERDAY" --json >"$WORK/owner-day.json" || fail "the owner cannot read a day"
cmp -s "$WORK/reader-day.json" "$WORK/owner-day.json" || fail "the read-only role reads another day than the owner"
status=0
DUSTD_CONFIG="$WORK/reader.yaml" "$BIN/dustctl" import Fixtures/synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml \
    >"$WORK/reader-import.out" 2>&1 || status=$?
[ "$status" -ne 0 ] || fail "the read-only role imported"
grep -qi "network" "$WORK/reader-import.out" && fail "a refused write is called a network failure: $(cat "$WORK/reader-import.out")"
echo "ok: the read-only role reads yesterday as the owner does; its import is refused (exit $status): $(head -1 "$WORK/reader-import.out")"

# --- The password is nowhere.
ps -eo args >"$WORK/ps.txt"
for file in "$WORK"/a.log "$WORK"/b.log "$WORK"/*.out "$WORK"/ctl-status.txt "$WORK"/status-*.json "$WORK"/ps.txt; do
    if grep -qF -- "$PASSWORD" "$file"; then fail "the database password is in $(basename "$file")"; fi
done
echo "ok: the password is in no log, status or process listing"

# --- SIGTERM ends the poller cleanly, as systemctl stop does, and gives the lease up.
stop_dustd b "$PID_B" "dustd did not stop within 20 s of SIGTERM"
echo "ok: SIGTERM stopped the poller"

# --- The server gone under a poller: SIGTERM still stops dustd (as systemctl stop after the database's own stop).
start_dustd c "$WORK/a.yaml" PID_C
wait_for "$WORK/c.log" "Poll done" 60 || { cat "$WORK/c.log"; fail "the restarted dustd did not poll"; }
pg pg_ctl -D "$WORK/pgdata" -m fast -w -t 60 stop >/dev/null || fail "the server did not stop"
sleep 2
stop_dustd c "$PID_C" "with the server gone, dustd did not stop within 20 s of SIGTERM"
echo "ok: with the server stopped under it, SIGTERM stopped dustd"
echo "postgres-e2e: PASSED"
