#!/usr/bin/env bash
# Real clients against dustd on the web (issue 11):
#  - headless Chromium (Debian's chromium) loads the dashboard served by `dustd --demo`: the DOM
#    carries the numbers `dustctl day/week --json` prints, the console has no error, the CSP holds;
#    a phone-sized screenshot is taken (SCREENSHOT=docs/dashboard.png keeps it there);
#  - a household of two (issue 22, docs/REFERENCE.md §18): dustd run with `people:` on a copy of the
#    demo's database, polling a loopback AirKorea; Chromium sees the person switcher, follows the
#    second person's link to their page (another intake, dustctl --person's) and the week's
#    household table with both people's numbers;
#  - each person's own token (docs/REFERENCE.md §13): in Chromium a person signs in with the form and
#    sees their pages and nothing of anyone else's (scripts/chromium-signin.py);
#  - every text and grade mark meets WCAG's contrast, light and dark, phone and desktop (scripts/chromium-contrast.py);
#  - the pages fit a 320- and a 390-pixel phone with a Korean font, a household of four long names too (scripts/chromium-fit.py);
#  - a real Prometheus (Debian's prometheus) scrapes /metrics: its HTTP API returns finedust_ series
#    whose values equal the database's, today's intake labelled with its person; promtool checks
#    the exposition.
#
#   scripts/web-e2e.sh          (exit 77: skipped, with the reason, when chromium or prometheus is missing)
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -c 'import websocket' 2>/dev/null || { echo "web-e2e: SKIPPED: python3-websocket is not installed (apt-get install -y python3-websocket)"; exit 77; }
for tool in chromium prometheus promtool curl python3; do
    command -v "$tool" >/dev/null || { echo "web-e2e: SKIPPED: $tool is not installed (apt-get install -y chromium prometheus curl)"; exit 77; }
done
BIN=${BIN:-$(swift build --show-bin-path)}
[ -x "$BIN/dustd" ] && [ -x "$BIN/dustctl" ] || swift build
WORK=$(mktemp -d /tmp/finedust-web.XXXXXX)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    sleep 0.5
    for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "web-e2e: FAILED: $*"; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

echo "# defaults" > "$WORK/empty.yaml"
PORT=$(free_port)
DUSTD_CONFIG="$WORK/empty.yaml" DUSTD_HTTP_LISTEN="127.0.0.1:$PORT" \
    "$BIN/dustd" --demo --demo-database "$WORK/demo.sqlite" >"$WORK/dustd.out" 2>"$WORK/dustd.log" &
PIDS+=($!)
for _ in $(seq 100); do grep -q "Serving the dashboard" "$WORK/dustd.out" 2>/dev/null && break; sleep 0.1; done
grep -q "Serving the dashboard" "$WORK/dustd.out" || { cat "$WORK/dustd.out" "$WORK/dustd.log"; fail "dustd --demo did not start serving"; }
BASE="http://127.0.0.1:$PORT"
echo "ok: dustd --demo serves $BASE/"

# ---- Chromium -------------------------------------------------------------------------------
chrome() {
    # --no-sandbox: CI runs as root; --enable-logging=stderr prints the page's console messages.
    timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
        --user-data-dir="$WORK/chromium-profile" --enable-logging=stderr --v=0 "$@"
}
chrome --dump-dom "$BASE/day/2026-11-20?lang=en" >"$WORK/day.html" 2>"$WORK/chromium-day.log"
chrome --dump-dom "$BASE/week/2026-W47" >"$WORK/week.html" 2>"$WORK/chromium-week.log"
chrome --dump-dom "$BASE/" >"$WORK/today.html" 2>"$WORK/chromium-today.log"
chrome --screenshot="$WORK/dashboard.png" --window-size=412,2600 --hide-scrollbars "$BASE/" >/dev/null 2>"$WORK/chromium-shot.log"
[ -s "$WORK/dashboard.png" ] || fail "chromium took no screenshot"
if [ -n "${SCREENSHOT:-}" ]; then cp "$WORK/dashboard.png" "$SCREENSHOT"; fi
if [ -n "${SCREENSHOT_TO:-}" ]; then cp "$WORK/dashboard.png" "$SCREENSHOT_TO"; fi

# The page's console: no error, no refused style or resource (the CSP holds: everything the page
# needs is allowed, nothing else is asked for).
if grep -hE "CONSOLE|Refused to|Content Security Policy" "$WORK"/chromium-*.log | grep -v "DevTools" >"$WORK/console.txt"; then
    cat "$WORK/console.txt"
    fail "the page logged console messages or CSP violations"
fi
echo "ok: Chromium rendered /, /day/2026-11-20 and /week/2026-W47 with a clean console"

# Contrast as the browser draws it (issue 37): every text and grade mark of the pages, light and dark,
# at a phone's width and a desktop's, from Chromium's computed colours (scripts/chromium-contrast.py).
timeout 300 python3 scripts/chromium-contrast.py "$BASE" "$WORK" / /day/2026-11-20 /week/2026-W47 "/?lang=ko" "/?person=seoa" \
    || fail "a text or mark of the dashboard is below WCAG's contrast minimum"

# dustd --demo serves the demo's household (Fixtures/demo-household.yaml): its pages are the first person's, jiho's.
DUSTCTL=("$BIN/dustctl" --db "$WORK/demo.sqlite" --station 종로구 --json)
DUSTD_CONFIG="$PWD/Fixtures/demo-household.yaml" "${DUSTCTL[@]:0:1}" day 2026-11-20 "${DUSTCTL[@]:1}" >"$WORK/day.json"
DUSTD_CONFIG="$PWD/Fixtures/demo-household.yaml" "${DUSTCTL[@]:0:1}" week --iso 2026-W47 "${DUSTCTL[@]:1}" >"$WORK/week.json"
python3 - "$WORK" <<'PY' || fail "the page's numbers differ from dustctl's"
import json, sys
from html.parser import HTMLParser

work = sys.argv[1]

class DataAttributes(HTMLParser):
    def __init__(self):
        super().__init__()
        self.elements = []
    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if any(key.startswith("data-") for key in attributes):
            self.elements.append(attributes)

def data(path):
    parser = DataAttributes()
    parser.feed(open(path, encoding="utf-8").read())
    return parser.elements

def number(text):
    return None if text in (None, "null") else float(text)

day = json.load(open(f"{work}/day.json"))
elements = data(f"{work}/day.html")
hours = {e["data-hour"]: e for e in elements if "data-hour" in e}
assert len(hours) >= 24, f"{len(hours)} hour elements"
checked = 0
for row in day["hourly"]:
    element = hours[row["start"]]
    for pollutant in ("pm10", "pm25"):
        assert number(element[f"data-{pollutant}"]) == row[pollutant], (row["start"], pollutant, element, row)
        assert number(element[f"data-intake-{pollutant}"]) == row["intake"][pollutant], (row["start"], pollutant)
    checked += 1
# Issue 39: the living-room monitor's card, each hour the indoor value the dose used, as day --json says.
indoor = {e["data-indoor-hour"]: e for e in elements if "data-indoor-hour" in e}
assert len(indoor) == 24, f"{len(indoor)} indoor hour elements"
used = 0
for row in day["hourly"]:
    element = indoor[row["start"]]
    assert number(element["data-indoor-pm25"]) == row["indoor"]["pm25"], (row["start"], element, row["indoor"])
    assert element["data-indoor-source"] == row["indoorSource"], (row["start"], element, row["indoorSource"])
    used += row["indoorSource"] == "sensor"
assert used == 6 and day["indoor"]["sensorHours"] == 6, (used, day["indoor"])
totals = next(e for e in elements if e.get("data-scope") == "day")
for pollutant in ("pm10", "pm25"):
    assert number(totals[f"data-intake-{pollutant}"]) == day["intake"][pollutant], (totals, day["intake"])
    assert number(totals[f"data-mean-{pollutant}"]) == day["mean"][pollutant]

week = json.load(open(f"{work}/week.json"))
bars = {e["data-date"]: e for e in data(f"{work}/week.html") if "data-date" in e}
assert len(bars) == 7, bars.keys()
for row in week["days"]:
    for pollutant in ("pm10", "pm25"):
        assert number(bars[row["date"]][f"data-intake-{pollutant}"]) == row["intake"][pollutant], (row["date"], pollutant)
print(f"ok: the DOM carries dustctl's numbers: {checked} hours of 2026-11-20 and 7 days of 2026-W47 (PM2.5 intake "
      f"{day['intake']['pm25']:.1f} µg on the day, {week['total']['intake']['pm25']:.1f} µg in the week)")
PY
grep -q '<html lang="en"' "$WORK/day.html" || fail "?lang=en did not give an English page"
grep -q '<html lang="en"' "$WORK/today.html" || fail "Chromium's Accept-Language (en-US) did not give an English page"
# Into a file first: grep -q stops reading at the first match, and under pipefail curl's
# "failed writing body" would then fail the check.
curl -sf "$BASE/" -o "$WORK/plain.html" || fail "GET / without Accept-Language failed"
grep -q '<html lang="ko"' "$WORK/plain.html" || fail "the page without Accept-Language is not Korean"
policy=$(curl -sI "$BASE/" | tr -d '\r' | sed -n 's/^[Cc]ontent-[Ss]ecurity-[Pp]olicy: //p')
case "$policy" in
    "default-src 'none'; style-src 'sha256-"*) echo "ok: CSP: $policy" ;;
    *) fail "unexpected Content-Security-Policy: $policy" ;;
esac

# ---- A household of two (docs/REFERENCE.md §18) ----------------------------------------------
# A real dustd with people: on a copy of the demo's readings (SQLite's backup API: the demo holds
# its database open in WAL mode), polling a loopback AirKorea so it never reaches the network.
python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).backup(sqlite3.connect(sys.argv[2]))' \
    "$WORK/demo.sqlite" "$WORK/household.sqlite"
python3 scripts/fake-airkorea.py Fixtures/synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml >"$WORK/fake-port" 2>"$WORK/fake.log" &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$WORK/fake-port" ] && break; sleep 0.1; done
[ -s "$WORK/fake-port" ] || fail "the loopback AirKorea did not start"
HOUSEHOLD_PORT=$(free_port)
# The demo follows jiho along his walk (docs/REFERENCE.md §19): 15:00 is tracked 40 of 60 minutes, its PM10
# intake the hand-computed 13.260777 µg (DemoWalkTests; the document writes 3 decimals, docs/REFERENCE.md §6),
# and the page's row says where he was.
python3 - "$WORK/day.json" <<'PY' || fail "dustctl day --json does not follow jiho along his walk at 15:00"
import json, sys
hour = next(h for h in json.load(open(sys.argv[1]))["hourly"] if h["start"].endswith("T15:00:00+09:00"))
assert hour["where"]["kind"] == "track" and hour["where"]["trackedFraction"] == 0.667, hour["where"]
assert hour["intake"]["pm10"] == 13.261, hour["intake"]
PY
grep -qF 'tracked 67%, near <span lang="ko">종로구</span> 0.1 km' "$WORK/day.html" || fail "the day page's 15:00 row does not say it followed jiho"
echo "ok: the page's 15:00 says tracked 67%, near 종로구 0.1 km, and dustctl's hour follows the walk (13.26 µg of PM10)"
cat >"$WORK/household.yaml" <<YAML
station:
  name: 종로구
http:
  listen: 127.0.0.1:$HOUSEHOLD_PORT
people:
  - name: dad
    born: "1986-05"
  - name: 민지
    born: "2018-03"
YAML
DUSTD_CONFIG="$WORK/household.yaml" DUSTD_STORAGE_PATH="$WORK/household.sqlite" DUSTD_API_SERVICE_KEY=web-e2e-key-0123456789abcdefghijklmnopqrstuv \
    DUSTD_API_BASE_URL="http://127.0.0.1:$(head -1 "$WORK/fake-port")/B552584" \
    "$BIN/dustd" >"$WORK/household-dustd.out" 2>"$WORK/household-dustd.log" &
PIDS+=($!)
HOUSEHOLD="http://127.0.0.1:$HOUSEHOLD_PORT"
for _ in $(seq 100); do curl -s -o /dev/null "$HOUSEHOLD/healthz" && break; sleep 0.1; done
curl -s -o /dev/null "$HOUSEHOLD/healthz" || { cat "$WORK/household-dustd.log"; fail "dustd with people: did not start serving"; }
chrome --dump-dom "$HOUSEHOLD/day/2026-11-20?lang=en" >"$WORK/household-first.html" 2>"$WORK/chromium-household-first.log"
# Follow the second person's link as the switcher gives it.
second=$(python3 - "$WORK/household-first.html" <<'PY'
import sys
from html.parser import HTMLParser
class Switcher(HTMLParser):
    links, inside = [], False
    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "nav" and "people" in attributes.get("class", ""): self.inside = True
        elif tag == "a" and self.inside: self.links.append(attributes)
    def handle_endtag(self, tag):
        if tag == "nav": self.inside = False
switcher = Switcher()
switcher.feed(open(sys.argv[1], encoding="utf-8").read())
assert len(switcher.links) == 2, switcher.links
assert switcher.links[0].get("aria-current") == "page" and "aria-current" not in switcher.links[1], switcher.links
print(switcher.links[1]["href"])
PY
) || fail "the first person's page has no switcher of two links with the first marked"
chrome --dump-dom "$HOUSEHOLD$second" >"$WORK/household-second.html" 2>"$WORK/chromium-household-second.log"
chrome --dump-dom "$HOUSEHOLD/week/2026-W47?lang=en" >"$WORK/household-week.html" 2>"$WORK/chromium-household-week.log"
if grep -hE "CONSOLE|Refused to|Content Security Policy" "$WORK"/chromium-household-*.log | grep -v "DevTools" >"$WORK/console.txt"; then
    cat "$WORK/console.txt"
    fail "a household page logged console messages or CSP violations"
fi
for person in dad 민지; do
    DUSTD_CONFIG="$WORK/household.yaml" "$BIN/dustctl" day 2026-11-20 --person "$person" --db "$WORK/household.sqlite" --json \
        >"$WORK/household-day-$person.json"
    DUSTD_CONFIG="$WORK/household.yaml" "$BIN/dustctl" week --iso 2026-W47 --person "$person" --db "$WORK/household.sqlite" --json \
        >"$WORK/household-week-$person.json"
done
python3 - "$WORK" "$second" <<'PY' || fail "the household's pages differ from dustctl --person's"
import json, sys
from html.parser import HTMLParser
work, second = sys.argv[1], sys.argv[2]
class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.elements, self.current, self.inside, self.text = [], None, False, ""
    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.elements.append(attributes)
        if tag == "nav" and "people" in attributes.get("class", ""): self.inside = True
        elif tag == "a" and self.inside and attributes.get("aria-current") == "page": self.current, self.text = attributes, ""
    def handle_data(self, data):
        if self.current is not None and not self.text: self.text = data
    def handle_endtag(self, tag):
        if tag == "nav": self.inside = False
def page(name):
    parsed = Page()
    parsed.feed(open(f"{work}/{name}.html", encoding="utf-8").read())
    return parsed
def number(text):
    return None if text in (None, "null") else float(text)
first, child = page("household-first"), page("household-second")
assert first.text == "dad" and child.text == "민지", (first.text, child.text)
assert "person=%EB%AF%BC%EC%A7%80" in second, second
intake = {}
for name, shown in (("dad", first), ("민지", child)):
    day = json.load(open(f"{work}/household-day-{name}.json"))
    totals = next(e for e in shown.elements if e.get("data-scope") == "day")
    intake[name] = number(totals["data-intake-pm25"])
    assert intake[name] == day["intake"]["pm25"], (name, totals, day["intake"])
assert intake["dad"] != intake["민지"], intake
cells = [e for e in page("household-week").elements if "data-person" in e]
checked = 0
for name in ("dad", "민지"):
    week = json.load(open(f"{work}/household-week-{name}.json"))
    mine = [e for e in cells if e["data-person"] == name]
    expected = [row["intake"][p] for row in week["days"] for p in ("pm10", "pm25")]
    expected += [week["total"]["intake"][p] for p in ("pm10", "pm25")]
    assert [number(e["data-intake"]) for e in mine] == expected, (name, mine, expected)
    checked += len(mine)
print(f"ok: household of two: the switcher leads from dad to 민지, PM2.5 intake on 2026-11-20 {intake['dad']:.1f} µg vs "
      f"{intake['민지']:.1f} µg (dustctl --person's); the week's table holds both people's {checked} numbers")
PY

# ---- On a phone: a household of four with long names (docs/REFERENCE.md §18) ----------------
# The demo's pages and a household whose names are as long as people: allows (32 Hangul letters) fit a
# 320- and a 390-pixel phone in Chromium with a Korean font (fonts-nanum): no page wider than the
# screen, the switcher on it, the grade word on one line, the week chart's legend apart and inside it.
FIT_PORT=$(free_port)
cat >"$WORK/long-names.yaml" <<YAML
station:
  name: 종로구
http:
  listen: 127.0.0.1:$FIT_PORT
people:
  - { name: 김민준아빠님의아주긴이름입니다정말로요, born: "1980-01" }
  - { name: 박서연엄마, born: "1982-05" }
  - { name: 할머니김순자할머니김순자할머니김순자할머니김순자할머니김순자길다, born: "1950-03" }
  - { name: averyveryveryverylonglatinname12, born: "2019-07" }
YAML
DUSTD_CONFIG="$WORK/long-names.yaml" DUSTD_STORAGE_PATH="$WORK/household.sqlite" DUSTD_API_SERVICE_KEY=web-e2e-key-0123456789abcdefghijklmnopqrstuv \
    DUSTD_API_BASE_URL="http://127.0.0.1:$(head -1 "$WORK/fake-port")/B552584" \
    "$BIN/dustd" >"$WORK/long-names-dustd.out" 2>"$WORK/long-names-dustd.log" &
PIDS+=($!)
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$FIT_PORT/healthz" && break; sleep 0.1; done
timeout 300 python3 scripts/chromium-fit.py "http://127.0.0.1:$FIT_PORT" "$WORK" / /week/2026-W47 "/day/2026-11-20?person=박서연엄마" \
    || { tail -5 "$WORK/long-names-dustd.log"; fail "a page does not fit a phone (scripts/chromium-fit.py)"; }
timeout 300 python3 scripts/chromium-fit.py "$BASE" "$WORK" / /day/2026-11-20 /week/2026-W47 || fail "a demo page does not fit a phone"
echo "ok: the pages fit 320- and 390-pixel phones in Korean and English, four long names included"

# ---- Prometheus -----------------------------------------------------------------------------
curl -sf "$BASE/metrics" >"$WORK/metrics.txt" || fail "/metrics did not answer"
promtool check metrics <"$WORK/metrics.txt" >"$WORK/promtool.txt" 2>&1 || { cat "$WORK/promtool.txt"; fail "promtool check metrics found problems"; }
curl -sf "$HOUSEHOLD/metrics" >"$WORK/household-metrics.txt" || fail "the household's /metrics did not answer"
promtool check metrics <"$WORK/household-metrics.txt" >"$WORK/promtool.txt" 2>&1 \
    || { cat "$WORK/promtool.txt"; fail "promtool check metrics found problems in the household's"; }
echo "ok: promtool check metrics is clean ($(grep -c '^finedust_' "$WORK/metrics.txt") finedust_ samples)"
PROM_PORT=$(free_port)
cat >"$WORK/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: dustd
    static_configs:
      - targets: ["127.0.0.1:$PORT"]
  - job_name: household
    static_configs:
      - targets: ["127.0.0.1:$HOUSEHOLD_PORT"]
YAML
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
    --web.listen-address="127.0.0.1:$PROM_PORT" >"$WORK/prometheus.log" 2>&1 &
PIDS+=($!)
query() { curl -sf --get "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1"; }
for _ in $(seq 60); do
    query 'finedust_concentration_grams_per_cubic_meter{pollutant="pm25"}' >"$WORK/pm25.json" 2>/dev/null \
        && python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["data"]["result"] else 1)' "$WORK/pm25.json" && break
    sleep 0.5
done
# The demo's series only (job="dustd"): the household's dustd runs on the real clock and polls the loopback
# AirKorea, whose 2026-11-20 경보 was never lifted, so its series say other things at other moments.
query 'finedust_concentration_grams_per_cubic_meter{job="dustd"}' >"$WORK/concentration.json" || fail "Prometheus did not answer"
query 'finedust_intake_today_grams{job="dustd"}' >"$WORK/intake.json"
for _ in $(seq 60); do
    query 'finedust_intake_today_grams{job="household"}' >"$WORK/household-intake.json" \
        && python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["data"]["result"] else 1)' "$WORK/household-intake.json" \
        && break
    sleep 0.5
done
query 'up{job="dustd"}' >"$WORK/up.json"
query 'finedust_gas_ppm{job="dustd"}' >"$WORK/gas.json"
query 'finedust_cai{job="dustd"}' >"$WORK/cai.json"
query 'finedust_advisory_in_force{job="dustd"}' >"$WORK/advisory.json"
DUSTD_CONFIG="$WORK/empty.yaml" "$BIN/dustctl" --version >/dev/null
python3 - "$WORK" <<'PY' || { tail -5 "$WORK/prometheus.log"; fail "Prometheus's values differ from the database's"; }
import json, sqlite3, sys
work = sys.argv[1]
def series(name, person=None):
    result = json.load(open(f"{work}/{name}.json"))["data"]["result"]
    return {tuple(sorted((k, v) for k, v in r["metric"].items() if k in ("station", "pollutant"))): float(r["value"][1])
            for r in result if person is None or r["metric"].get("person") == person}
up = json.load(open(f"{work}/up.json"))["data"]["result"]
assert up and up[0]["value"][1] == "1", up
concentration = series("concentration")
database = sqlite3.connect(f"file:{work}/demo.sqlite?mode=ro", uri=True)
# The demo's clock stands at 2026-11-20 23:59:59 KST: the latest stored hour is 23:00–24:00 (slot start 14:00Z),
# the hour the dashboard's card and the API's latest show (issue 37: one hour on every surface).
latest = database.execute("SELECT pm10, pm25 FROM measurement WHERE station = '종로구' AND slot_start = ?",
                          (1795183200,)).fetchone()
# Prometheus base units: grams per cubic metre.
expected = {(("pollutant", "pm10"), ("station", "종로구")): latest[0], (("pollutant", "pm25"), ("station", "종로구")): latest[1]}
for key, value in expected.items():
    assert abs(concentration.get(key) * 1e6 - value) < 1e-9, (key, concentration.get(key), value)
day = json.load(open(f"{work}/day.json"))
intake = series("intake", person="jiho")
for pollutant in ("pm10", "pm25"):
    got = intake[(("pollutant", pollutant), ("station", "종로구"))]
    assert abs(got * 1e6 - day["intake"][pollutant]) < 1e-6, (pollutant, got, day["intake"][pollutant])
# Issue 22: the intake is a person's; the demo's household is jiho and seoa. The other household: one series each.
people = sorted(r["metric"].get("person", "") for r in json.load(open(f"{work}/intake.json"))["data"]["result"])
assert people == ["jiho", "jiho", "seoa", "seoa"], people
household = sorted((r["metric"].get("person", ""), r["metric"]["pollutant"])
                   for r in json.load(open(f"{work}/household-intake.json"))["data"]["result"])
# That dustd runs on the real clock, whose today has no stored hour: no intake is known, so no series (never 0).
assert household == [], household
print(f"ok: Prometheus scraped dustd: up=1, 종로구 PM10 {latest[0]:g} / PM2.5 {latest[1]:g} µg/m³ as stored, "
      f"jiho's intake today {day['intake']['pm25']:.3f} µg PM2.5 as dustctl --person computes it, seoa's beside it; no intake "
      f"series for a today with no hour")
# Issue 21: the gases and the index of that hour as stored, and the advisories in force (none on the demo's day).
gases = {dict(r["metric"])["gas"]: float(r["value"][1]) for r in json.load(open(f"{work}/gas.json"))["data"]["result"]
         if dict(r["metric"]).get("station") == "종로구"}
stored = database.execute("SELECT o3, no2, co, so2, cai FROM measurement WHERE station = '종로구' AND slot_start = ?",
                          (1795183200,)).fetchone()
assert gases == dict(zip(("o3", "no2", "co", "so2"), stored[:4])), (gases, stored)
cai = [float(r["value"][1]) for r in json.load(open(f"{work}/cai.json"))["data"]["result"] if r["metric"].get("station") == "종로구"]
assert cai == [stored[4]], (cai, stored)
active = {(r["metric"]["pollutant"], r["metric"]["level"]): float(r["value"][1])
          for r in json.load(open(f"{work}/advisory.json"))["data"]["result"]}
# The demo's day (좋음 to 보통) has no advisory in force (issue 37: one story); every series is there, at 0.
assert {pollutant for pollutant, _ in active} == {"pm10", "pm25", "o3"} and set(active.values()) == {0.0}, active
print(f"ok: gases {gases} ppm and CAI {stored[4]} as stored; no advisory in force, its {len(active)} series at 0")
PY
# The README's Home Assistant package, rendered with Jinja2 (Home Assistant's template engine) against
# the API document it asks for: every sensor gets a value, and the measurements are numbers. Then against
# copies with each value missing (no hour yet today, an hour without PM2.5 or CO, no forecast): the
# sensors that read it are unavailable (their `availability` renders False), and no sensor that stays
# available renders "None" or nothing, which Home Assistant would show or refuse.
curl -sf "$BASE/api/v1/today" -o "$WORK/today.json" || fail "/api/v1/today did not answer"
python3 - "$WORK" README.md <<'PY' || fail "the README's Home Assistant package does not render against /api/v1/today"
import copy, json, re, sys
import jinja2, yaml
work, readme = sys.argv[1], open(sys.argv[2], encoding="utf-8").read()
block = re.search(r"<!-- home-assistant-package -->\n```yaml\n(.*?)\n```", readme, re.S).group(1)
yaml.SafeLoader.add_constructor("!secret", lambda loader, node: "secret")
package = yaml.safe_load(block)
document = json.load(open(f"{work}/today.json"))
environment = jinja2.Environment(undefined=jinja2.StrictUndefined)
sensors = package["rest"][0]["sensor"]

def shown(document):
    """Each sensor's state: its value, or None when its availability template says unavailable."""
    states = {}
    for sensor in sensors:
        render = lambda key: environment.from_string(sensor[key]).render(value_json=document).strip()
        if "availability" in sensor and render("availability") != "True":
            assert render("availability") == "False", (sensor["name"], render("availability"))
            states[sensor["unique_id"]] = None
            continue
        value = render("value_template")
        assert value not in ("", "None"), (sensor["name"], value)
        if "state_class" in sensor:
            float(value)
        if sensor.get("device_class") == "enum":
            # A grade: one of the four words (Home Assistant's enum sensor).
            assert value in ("좋음", "보통", "나쁨", "매우나쁨"), (sensor["name"], value)
        states[sensor["unique_id"]] = value
    return states

whole = shown(document)
assert None not in whole.values(), whole
def missing(change, unavailable):
    changed = copy.deepcopy(document)
    change(changed)
    states = shown(changed)
    gone = {key for key, value in states.items() if value is None}
    assert gone == set(unavailable), (change.__doc__, gone, unavailable)
    return states
def no_hour_yet(d):
    "after midnight, before the day's first hour"
    d["latest"] = None; d["gases"]["latest"] = None; d["intake"]["pm25"] = None
missing(no_hour_yet, {"finedust_pm10", "finedust_pm25", "finedust_pm10_grade", "finedust_pm25_grade",
                      "finedust_pm25_intake_today", "finedust_o3", "finedust_no2", "finedust_so2", "finedust_co", "finedust_cai"})
def no_pm25(d):
    "an hour with PM10 and no PM2.5"
    d["latest"]["pm25"] = None; d["latest"]["grade"]["pm25"] = None
missing(no_pm25, {"finedust_pm25", "finedust_pm25_grade"})
def no_co(d):
    "an hour without CO"
    d["gases"]["latest"]["co"] = None
missing(no_co, {"finedust_co"})
def no_forecast(d):
    "no forecast stored"
    d["forecastTomorrow"] = None
missing(no_forecast, {"finedust_pm25_forecast_tomorrow"})
def pm10_forecast_only(d):
    "only PM10's forecast stored"
    d["forecastTomorrow"]["pm25"] = None
missing(pm10_forecast_only, {"finedust_pm25_forecast_tomorrow"})
def warning(d):
    "a 미세먼지 경보 in force"
    d["advisory"] = {"pollutant": "PM10", "levelWord": "경보"}
assert missing(warning, set())["finedust_advisory"] == "미세먼지 경보"
print("ok: Home Assistant package renders:", "; ".join(f"{k} = {v}" for k, v in whole.items()),
      "; unavailable, never None, with each value missing")
PY
# Issue 39: the package `dustctl homeassistant` prints for the demo household (whose living room has a
# monitor) renders against the demo day's document, its indoor sensor the last hour the monitor measured.
DUSTD_CONFIG="$PWD/Fixtures/demo-household.yaml" "$BIN/dustctl" homeassistant >"$WORK/household-package.yaml"
python3 - "$WORK" <<'PY' || fail "dustctl homeassistant's indoor sensor does not render against day --json"
import json, sys
import jinja2, yaml
work = sys.argv[1]
yaml.SafeLoader.add_constructor("!secret", lambda loader, node: "secret")
package = yaml.safe_load(open(f"{work}/household-package.yaml"))
document = json.load(open(f"{work}/day.json"))
environment = jinja2.Environment(undefined=jinja2.StrictUndefined)
sensor = next(s for s in package["rest"][0]["sensor"] if s["unique_id"] == "finedust_indoor_pm25")
value = float(environment.from_string(sensor["value_template"]).render(value_json=document))
last = [h for h in document["hourly"] if h["indoor"]["pm25"] is not None][-1]
assert value == last["indoor"]["pm25"], (value, last)
print(f"ok: the household package's indoor PM2.5 renders {value:g} µg/m³, the monitor's last measured hour ({last['start']})")
PY
# The shipped Grafana dashboard asks Prometheus valid questions about series dustd exports.
python3 - "$WORK" "$PROM_PORT" <<'PY' || fail "Config/grafana/finedust.json does not match dustd's metrics"
import json, re, sys, urllib.parse, urllib.request
work, port = sys.argv[1], sys.argv[2]
exported = set(re.findall(r"^(finedust_\w+)", open(f"{work}/metrics.txt").read(), re.M))
# Counters appear once dustd has polled; the demo serves without polling.
exported |= {"finedust_poll_attempts_total", "finedust_airkorea_result_codes_total"}
dashboard = json.load(open("Config/grafana/finedust.json"))
for panel in dashboard["panels"]:
    for target in panel["targets"]:
        expression = target["expr"]
        for name in re.findall(r"finedust_\w+", expression):
            assert name in exported, f"{panel['title']}: {name} is not exported"
        url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": expression})
        answer = json.load(urllib.request.urlopen(url))
        assert answer["status"] == "success", (expression, answer)
print(f"ok: the Grafana dashboard's {len(dashboard['panels'])} panels query exported series with valid PromQL")
PY
# ---- Who may see whose data (docs/REFERENCE.md §13) -----------------------------------------
# A household where each person has a token of their own: in Chromium, dad signs in with the form
# (real key presses), sees his pages and nothing of 민지's, and signs out (scripts/chromium-signin.py).
python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).backup(sqlite3.connect(sys.argv[2]))' \
    "$WORK/demo.sqlite" "$WORK/access.sqlite"
ACCESS_PORT=$(free_port)
( umask 077; echo "admin-e2e-0123456789abcdefghijklmnopqrstuvwxyz" >"$WORK/admin-token"
  echo "dad-e2e-0123456789abcdefghijklmnopqrstuvwxyz" >"$WORK/dad-token"
  echo "minji-e2e-0123456789abcdefghijklmnopqrstuvwxyz" >"$WORK/minji-token" )
cat >"$WORK/access.yaml" <<YAML
station:
  name: 종로구
http:
  listen: 127.0.0.1:$ACCESS_PORT
  tokenFile: $WORK/admin-token
people:
  - { name: dad, born: "1986-05", tokenFile: $WORK/dad-token }
  - { name: 민지, born: "2018-03", tokenFile: $WORK/minji-token }
YAML
DUSTD_CONFIG="$WORK/access.yaml" DUSTD_STORAGE_PATH="$WORK/access.sqlite" DUSTD_API_SERVICE_KEY=web-e2e-key-0123456789abcdefghijklmnopqrstuv \
    DUSTD_API_BASE_URL="http://127.0.0.1:$(head -1 "$WORK/fake-port")/B552584" \
    "$BIN/dustd" >"$WORK/access-dustd.out" 2>"$WORK/access-dustd.log" &
PIDS+=($!)
ACCESS="http://127.0.0.1:$ACCESS_PORT"
for _ in $(seq 100); do curl -s -o /dev/null "$ACCESS/healthz" && break; sleep 0.1; done
curl -s -o /dev/null "$ACCESS/healthz" || { cat "$WORK/access-dustd.log"; fail "dustd with tokens did not start serving"; }
[ "$(curl -s -o /dev/null -w '%{http_code}' "$ACCESS/metrics")" = 401 ] || fail "/metrics answered without a token"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $(cat "$WORK/dad-token")" "$ACCESS/metrics")" = 404 ] \
    || fail "/metrics answered dad's token"
[ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $(cat "$WORK/admin-token")" "$ACCESS/metrics")" = 200 ] \
    || fail "/metrics refused the administrator's token"
timeout 120 python3 scripts/chromium-signin.py "$ACCESS" "$(cat "$WORK/dad-token")" dad 민지 "$WORK" \
    || { tail -20 "$WORK/access-dustd.log"; fail "a person's sign-in in Chromium"; }
# The sign-in page's own style sheet, light and dark (its button was 2.42:1 in dark): a dustd that asks for a token shows it.
timeout 300 python3 scripts/chromium-contrast.py "$ACCESS" "$WORK" \
    || fail "a text of the sign-in page is below WCAG's contrast minimum"
if grep -qF "$(cat "$WORK/dad-token")" "$WORK/access-dustd.log" "$WORK/access-dustd.out"; then fail "dad's token reached dustd's log"; fi

echo "web-e2e: PASSED"
