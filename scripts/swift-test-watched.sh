#!/usr/bin/env bash
# The README's test command, `swift test`, run by CI under a watch for a stalled run.
#
# Rarely (two runs in about twenty on the 2-core CI machine), the test process stopped making progress for good:
# every test still open waited, no thread of Swift's task pool was left, and the process used no CPU. The cause was
# found on 2026-12-02 (docs/RELIABILITY.md, "The stall's cause, found"): a PostgreSQL statement sent on a connection
# already closed, whose promise PostgresNIO never completes; every statement now has a deadline and a promise of
# FineDust's own. No run has stalled since, in well over a hundred full runs, so a stall is no longer run again: when
# `swift test` prints nothing for FINEDUST_TEST_STALL_SECONDS (default 600; the suite prints a line every few seconds
# and its longest test takes under three minutes), this script prints what it can see of the stall (the tests
# started and never ended, every thread's stack, the processes), stops the run and fails.
set -uo pipefail
cd "$(dirname "$0")/.."

stall_seconds=${FINEDUST_TEST_STALL_SECONDS:-600}
poll=$(( stall_seconds < 150 ? stall_seconds / 10 + 1 : 15 ))
work=$(mktemp -d)
session=
# SwiftPM starts the test binary (and the compilers) in process groups of their own, but within the session
# `setsid` gave `swift test`: so the session is what is stopped, also when CI itself is stopped.
stop_session() { [ -n "$session" ] && pkill -KILL -s "$session" 2>/dev/null; return 0; }
trap 'stop_session; rm -rf "$work"' EXIT
trap 'exit 143' INT TERM

# Which tests printed "started" and never "passed", "failed" or "skipped" (a parameterised test ends "with N test
# cases passed").
unfinished() {
    python3 - "$1" <<'EOF'
import re, sys
started, ended = [], set()
for line in open(sys.argv[1], errors="replace"):
    m = re.search(r'Test "(.*)" started', line)
    if m:
        started.append(m.group(1))
        continue
    m = re.search(r'Test "(.*?)"( with .*)? (passed|failed|skipped)', line)
    if m:
        ended.add(m.group(1))
for name in started:
    if name not in ended:
        print("  - " + name)
EOF
}

# Runs `swift test` in a session of its own, its output streamed; returns its status, or 124 after a stall.
run_once() {
    local log=$1
    : > "$log"
    # Without job control a background job is never a process group leader, so setsid does not fork: $! is the
    # session's leader (checked, since a forked setsid would end at once and its status say nothing).
    setsid swift test > "$log" 2>&1 &
    local pid=$!
    session=$pid
    if [ "$(ps -o sid= -p "$pid" 2>/dev/null | tr -d ' ')" != "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        sleep 1
        if [ "$(ps -o sid= -p "$pid" 2>/dev/null | tr -d ' ')" != "$pid" ] && kill -0 "$pid" 2>/dev/null; then
            echo "ci: swift test (pid $pid) is not the leader of its own session; cannot watch it" >&2
            return 2
        fi
    fi
    tail -n +1 --pid="$pid" -f "$log" &
    local follower=$!
    while kill -0 "$pid" 2>/dev/null; do
        sleep "$poll"
        kill -0 "$pid" 2>/dev/null || break
        local idle=$(( $(date +%s) - $(stat -c %Y "$log") ))
        if [ "$idle" -ge "$stall_seconds" ]; then
            sleep 1
            echo
            echo "ci: swift test printed nothing for $idle seconds: the run stalled. What it was doing:"
            echo "ci: tests started and never ended:"
            unfinished "$log"
            echo "ci: the processes of the run:"
            ps -o pid,pgid,stat,etime,time,args --forest -s "$pid" || true
            local xctest stacks
            xctest=$(pgrep -s "$pid" -f '\.xctest' | head -n 1 || true)
            if [ -z "$xctest" ]; then
                echo "ci: no test process (*.xctest) in the run's session"
            elif ! command -v gdb >/dev/null; then
                echo "ci: gdb is not installed: no thread stacks of the test process ($xctest)"
            else
                stacks=$(timeout 120 gdb -p "$xctest" -batch -ex "thread apply all bt 25" 2>&1 | grep -E '^(Thread|#)' | cut -c1-220)
                if [ -n "$stacks" ]; then
                    echo "ci: every thread of the test process ($xctest):"
                    echo "$stacks"
                else
                    echo "ci: gdb could not read the test process ($xctest) (ptrace not allowed?)"
                fi
            fi
            stop_session
            wait "$pid" 2>/dev/null
            wait "$follower" 2>/dev/null
            return 124
        fi
    done
    wait "$pid"
    local status=$?
    wait "$follower" 2>/dev/null
    # Whatever the run left behind in its session (nothing, when the tests clean up after themselves).
    stop_session
    return "$status"
}

status=0
run_once "$work/run.log" || status=$?
[ "$status" -eq 124 ] && echo "ci: swift test STALLED (what it was doing is above; docs/RELIABILITY.md)."
exit "$status"
