#!/usr/bin/env bash
# End-to-end test of the systemd unit: boots real systemd in a PID and mount namespace, installs
# systemd/dustd.service exactly as shipped (with its sandboxing and the sysusers.d user) pointed
# at a loopback fake AirKorea, and checks that it becomes active, reports its status, logs to the
# journal, stores data and stops cleanly.
#
#   sudo scripts/systemd-e2e.sh            (builds debug binaries first if needed)
#
# Exit 0: passed. Exit 77: skipped (not root, or no systemd/unshare here), with the reason.
# Nothing leaks to the host: /etc, /var, /run, /tmp and /usr/local/bin are private to the namespace.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)

skip() { echo "systemd-e2e: SKIPPED: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root (run it with sudo)"
for tool in unshare nsenter python3; do command -v "$tool" >/dev/null || skip "$tool is missing"; done
[ -x /lib/systemd/systemd ] || skip "/lib/systemd/systemd is missing"
unshare --fork --pid --mount --propagation private true 2>/dev/null || skip "cannot create PID and mount namespaces here"

BIN=${E2E_BIN:-$(swift build --show-bin-path)}
if [ ! -x "$BIN/dustd" ] || [ ! -x "$BIN/dustctl" ]; then
    swift build --product dustd && swift build --product dustctl
fi

WORK=$(mktemp -d /tmp/finedust-e2e.XXXXXX)
SYSTEMD_PID=""
SERVER_PID=""
cleanup() {
    if [ -n "$SYSTEMD_PID" ] && kill -0 "$SYSTEMD_PID" 2>/dev/null; then
        nsenter -t "$SYSTEMD_PID" -a systemctl poweroff --force --force >/dev/null 2>&1 || true
        sleep 1
        kill -KILL "$SYSTEMD_PID" 2>/dev/null || true
    fi
    [ -n "${UNSHARE_PID:-}" ] && kill -KILL "$UNSHARE_PID" 2>/dev/null || true
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

# The fake AirKorea on the host's loopback (the namespace shares the network).
# --live: the fixture's day moved to yesterday (KST), as dustd stores only what a request's window covers.
python3 scripts/fake-airkorea.py Fixtures/synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml --live >"$WORK/port" 2>"$WORK/server.log" &
SERVER_PID=$!
for _ in $(seq 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
PORT=$(head -1 "$WORK/port")
[ -n "$PORT" ] || { echo "systemd-e2e: the fake AirKorea did not start"; cat "$WORK/server.log"; exit 1; }

KEY="e2e-secret-key-$RANDOM$RANDOM-0123456789abcdefghijklmnopqrstuv"
# api.serviceKeyFile is only a fallback: dustd reads the systemd credential first and uses the
# file only where this systemd cannot hand credentials to an unprivileged service (see the probe).
cat >"$WORK/dustd.yaml" <<YAML
station:
  name: 종로구
api:
  baseURL: http://127.0.0.1:$PORT/B552584
  serviceKeyFile: /etc/dustd/fallback-key
poll:
  intervalSeconds: 3
  jitterSeconds: 0
YAML
# Probes whether this systemd can pass a credential to a non-root service at all.
cat >"$WORK/finedust-credential-probe.service" <<'PROBE'
[Service]
Type=oneshot
RemainAfterExit=yes
User=nobody
LoadCredential=probe:/etc/hostname
ExecStart=/bin/sh -c 'test -r "$CREDENTIALS_DIRECTORY/probe"'
PROBE

# Runs inside the namespaces, as PID 1's parent-to-be; ends by exec'ing systemd.
cat >"$WORK/inside.sh" <<INSIDE
#!/usr/bin/env bash
set -euo pipefail
# Binaries first, while the host's /tmp (where a CI clone may live) is still visible.
mount -t tmpfs -o mode=0755 tmpfs /usr/local/bin
install -m 0755 "$BIN/dustd" "$BIN/dustctl" /usr/local/bin/
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /run/stage /run/etc
cp "$WORK/dustd.yaml" "$WORK/finedust-credential-probe.service" "$REPO/systemd/dustd.service" "$REPO/systemd/dustd.sysusers" /run/stage/
printf '%s\n' "$KEY" >/run/stage/key
# A private copy of /etc, so users, units and configuration never touch the host.
cp -a /etc/. /run/etc/
mount --bind /run/etc /etc
mount -t tmpfs -o mode=0755 tmpfs /var
mkdir -p /var/lib /var/log /var/cache /var/tmp && chmod 1777 /var/tmp
mount -t tmpfs -o mode=1777 tmpfs /tmp
# Install as scripts/install.sh does.
install -d -m 0755 /etc/sysusers.d
install -m 0644 /run/stage/dustd.sysusers /etc/sysusers.d/dustd.conf
systemd-sysusers /etc/sysusers.d/dustd.conf
install -m 0644 /run/stage/dustd.service /etc/systemd/system/dustd.service
install -d -m 0755 /etc/dustd
install -m 0640 -g dustd /run/stage/dustd.yaml /etc/dustd/dustd.yaml
install -m 0600 /run/stage/key /etc/dustd/airkorea-service-key
install -m 0600 -o dustd /run/stage/key /etc/dustd/fallback-key
rm -f /run/stage/key
install -m 0644 /run/stage/finedust-credential-probe.service /etc/systemd/system/
mkdir -p /run/systemd/system
cat >/run/systemd/system/finedust-e2e.target <<TARGET
[Unit]
Description=FineDust end-to-end test
DefaultDependencies=no
Wants=systemd-journald.socket systemd-journald.service finedust-credential-probe.service dustd.service
TARGET
exec env container=other /lib/systemd/systemd --system --unit=finedust-e2e.target
INSIDE
chmod +x "$WORK/inside.sh"

unshare --fork --pid --mount --mount-proc --propagation private "$WORK/inside.sh" >"$WORK/systemd.log" 2>&1 &
UNSHARE_PID=$!
for _ in $(seq 100); do
    SYSTEMD_PID=$(pgrep -P "$UNSHARE_PID" -x systemd || true)
    [ -n "$SYSTEMD_PID" ] && break
    sleep 0.1
done
[ -n "$SYSTEMD_PID" ] || { echo "systemd-e2e: systemd did not start"; cat "$WORK/systemd.log"; exit 1; }
inside() { nsenter -t "$SYSTEMD_PID" -a "$@"; }

fail() {
    echo "systemd-e2e: FAILED: $*"
    inside systemctl status dustd --no-pager 2>&1 | head -30 || true
    inside journalctl -u dustd --no-pager 2>&1 | tail -30 || true
    exit 1
}

state=""
for _ in $(seq 120); do
    state=$(inside systemctl is-active dustd 2>/dev/null || true)
    [ "$state" = active ] && break
    [ "$state" = failed ] && fail "dustd failed to start"
    sleep 0.5
done
[ "$state" = active ] || fail "dustd is '$state', not active"
echo "ok: systemctl is-active dustd = active"

status=""
for _ in $(seq 60); do
    status=$(inside systemctl show -p StatusText --value dustd)
    case "$status" in "Last poll ok"*) break ;; esac
    sleep 0.5
done
case "$status" in "Last poll ok"*) echo "ok: StatusText = $status" ;; *) fail "StatusText is '$status'" ;; esac

sleep 4  # at least one more poll at poll.intervalSeconds
journal=$(inside journalctl -u dustd --no-pager -o cat)
echo "$journal" | grep -q "dustd starting" || fail "no start line in the journal"
echo "$journal" | grep -q "Poll done" || fail "no poll line in the journal"
[ "$(echo "$journal" | grep -c "Poll done")" -ge 2 ] || fail "fewer than two polls in the journal"
if [ "$(inside systemctl show -p Result --value finedust-credential-probe)" = success ]; then
    echo "$journal" | grep -q "key=systemd credential" || fail "the key did not come from the systemd credential"
    echo "ok: the key came from the systemd credential (LoadCredential=)"
else
    # Seen on this machine: systemd 252 in a PID namespace leaves /run/credentials/UNIT root-only,
    # even for a minimal User=nobody unit. dustd must then say so and use the next source.
    echo "$journal" | grep -q "may not read airkorea-service-key" || fail "dustd did not report the unreadable credential"
    echo "$journal" | grep -q "key=key file /etc/dustd/fallback-key" || fail "the key did not come from the fallback key file"
    echo "note: this systemd cannot pass credentials to unprivileged services (probe failed);"
    echo "      dustd reported it and used api.serviceKeyFile, as designed"
fi
if echo "$journal" | grep -qF "$KEY"; then fail "the service key appears in the journal"; fi
priority=$(inside journalctl -u dustd --no-pager -o json | python3 -c 'import json,sys; print(sorted({json.loads(l).get("PRIORITY") for l in sys.stdin if "Poll done" in l}))')
[ "$priority" = "['6']" ] || fail "poll lines have priority $priority, expected ['6'] (info) from the <6> prefix"
echo "ok: journal has the start line, $(echo "$journal" | grep -c "Poll done") polls at priority info, no key"

user=$(inside systemctl show -p MainPID --value dustd | xargs -I{} nsenter -t "$SYSTEMD_PID" -a ps -o user= -p {})
[ "$user" = dustd ] || fail "dustd runs as '$user', not dustd"
echo "ok: runs as user dustd"

verify=$(inside systemd-analyze verify /etc/systemd/system/dustd.service 2>&1 || true)
[ -z "$verify" ] || fail "systemd-analyze verify: $verify"
exposure=$(inside systemd-analyze security --offline=yes /etc/systemd/system/dustd.service 2>/dev/null | sed -n 's/.*Overall exposure level for dustd.service: \([0-9.]*\).*/\1/p')
python3 -c "import sys; sys.exit(0 if float('$exposure') <= 1.5 else 1)" || fail "exposure level $exposure is above 1.5"
echo "ok: systemd-analyze verify is clean; security exposure $exposure (≤ 1.5)"

# A member of the dustd group reads the live database with dustctl, no sudo.
inside useradd --no-create-home --groups dustd finedust-reader
day=$(TZ=Asia/Seoul date -d yesterday +%F)
today=$(inside runuser -u finedust-reader -- /usr/local/bin/dustctl day "$day" --json --config /etc/dustd/dustd.yaml) || fail "a dustd group member cannot run dustctl: $today"
echo "$today" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["hours"]["pm10"] == 23, d' || fail "dustctl day as a group member: $today"
echo "ok: a member of the group dustd runs dustctl day without sudo (23 PM10 hours on $day, the fixture's 2026-11-20)"

# dustctl status exits 0, or 4 once the fixture's newest hour (today 00:00 KST) is over 3 hours old (stale).
status_json=$(inside /usr/local/bin/dustctl status --json --config /etc/dustd/dustd.yaml || true)
rows=$(echo "$status_json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["rows"])')
[ "$rows" = 24 ] || fail "dustctl status reports $rows rows, expected 24"
daemon=$(echo "$status_json" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["daemon"], d["exitStatus"])')
case "$daemon" in "running 0" | "running 4") ;; *) fail "dustctl status says '$daemon', expected 'running 0' or 'running 4' (stale after 03:00 KST)" ;; esac
mode=$(inside stat -c '%a %U' /var/lib/dustd/dust.sqlite)
[ "$mode" = "640 dustd" ] || fail "the database is '$mode', expected '640 dustd'"
if inside grep -rqF "$KEY" /var/lib/dustd; then fail "the service key is in the state directory"; fi
echo "ok: dustctl status sees 24 rows; database mode 640, owner dustd, no key inside"

inside systemctl reload dustd
sleep 1
inside journalctl -u dustd --no-pager -o cat | grep -q "Configuration reloaded" || fail "SIGHUP did not reload"
echo "ok: systemctl reload dustd reloads the configuration"

inside systemctl stop dustd
result=$(inside systemctl show -p Result --value dustd)
code=$(inside systemctl show -p ExecMainStatus --value dustd)
[ "$result" = success ] && [ "$code" = 0 ] || fail "stop gave Result=$result ExecMainStatus=$code"
inside journalctl -u dustd --no-pager -o cat | grep -q "dustd stopped" || fail "no clean stop line"
integrity=$(inside python3 -c 'import sqlite3; print(sqlite3.connect("file:/var/lib/dustd/dust.sqlite?mode=ro", uri=True).execute("PRAGMA integrity_check").fetchone()[0])')
[ "$integrity" = ok ] || fail "integrity_check: $integrity"
echo "ok: systemctl stop: Result=success, exit 0, integrity_check ok"
echo "systemd-e2e: PASSED"
