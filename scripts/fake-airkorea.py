#!/usr/bin/env python3
"""A loopback stand-in for AirKorea, for the scripts in scripts/ and Benchmarks/.

Answers every GET with the given XML fixture (a forecast request, getMinuDustFrcstDspth, with
the synthesized forecast of its InformCode; the weekly outlook, getMinuDustWeekFrcstDspth, with
the synthesized one; an advisory request, getUlfptcaAlarmInfo or getOzAdvsryOccrrncInfo, with the
synthesized advisories of its itemCode) and logs the request with the service key redacted.
Prints the port it listens on (127.0.0.1) as its first line.

    python3 scripts/fake-airkorea.py FIXTURE.xml [--live] [--revise] [--new-stations] [--advisories-unapproved]

--live          answer as AirKorea would today: every dataTime moved by whole days so the newest is
                yesterday (KST) at 24:00, and each answer holds only what its dataTerm asks for
                (DAILY the newest 24 items, MONTH 720, 3MONTH all), with numOfRows and totalCount
                to match. dustd stores only what a request's window covers (docs/RELIABILITY.md), so a
                fixture's fixed dates would otherwise age out of every window.
--revise        every answer changes the PM10 values a little, so each poll rewrites its rows
--new-stations  the nation's answer (getCtprvnRltmMesureDnsty, `station.mode: nation`) names 720 new
                stations each time, at the fixture's newest hour, so each poll adds 720 rows (fills a
                disk); a station's answer is left as it is (dustd stores only the station it asked for)
--advisories-unapproved  the PM advisory service answers that the key is not approved for it (reason 20)
"""
import datetime
import http.server
import os
import re
import sys
import threading
import urllib.parse

template = open(sys.argv[1], "rb").read()
live = "--live" in sys.argv
if live:
    # Whole days keep each item's hour, so a day's report reads as it did on the fixture's date.
    KST = datetime.timezone(datetime.timedelta(hours=9))
    DATA_TIME = rb"<dataTime>(\d{4}-\d\d-\d\d) (\d\d:00)</dataTime>"
    newest = max(datetime.date.fromisoformat(day.decode()) for day, _ in re.findall(DATA_TIME, template))
    shift = (datetime.datetime.now(KST) - datetime.timedelta(days=1)).date() - newest
    template = re.sub(DATA_TIME, lambda m: b"<dataTime>%s %s</dataTime>" % (
        (datetime.date.fromisoformat(m.group(1).decode()) + shift).isoformat().encode(), m.group(2)), template)
ITEMS_PER_TERM = {"DAILY": 24, "MONTH": 720}
SYNTHESIZED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "synthesized")
forecasts = {code: open(os.path.join(SYNTHESIZED, f"forecast-{code.lower()}-2026-11-22.xml"), "rb").read() for code in ("PM10", "PM25")}
weekly_outlook = open(os.path.join(SYNTHESIZED, "weekly-outlook-2026-11-22.xml"), "rb").read()
advisories = {code: open(os.path.join(SYNTHESIZED, f"advisories-{code.lower()}-2026.xml"), "rb").read() for code in ("PM10", "PM25", "O3")}
unapproved = open(os.path.join(SYNTHESIZED, "error-gateway-20-advisory-service-access-denied.xml"), "rb").read()
advisories_unapproved = "--advisories-unapproved" in sys.argv
revise = "--revise" in sys.argv
new_stations = "--new-stations" in sys.argv
NEW_STATIONS = 720
counter = [0]
lock = threading.Lock()


def answer_for_term(body, path):
    """Only the newest items a dataTerm asks for (the fixture lists the newest first)."""
    term = urllib.parse.parse_qs(urllib.parse.urlsplit(path).query).get("dataTerm", [""])[0]
    keep = ITEMS_PER_TERM.get(term)
    items = list(re.finditer(rb"<item>.*?</item>\s*", body, re.S))
    if keep is None or len(items) <= keep:
        return body
    body = body[:items[0].start()] + b"".join(m.group(0) for m in items[:keep]) + body[items[-1].end():]
    body = re.sub(rb"<numOfRows>\d+</numOfRows>", b"<numOfRows>%d</numOfRows>" % keep, body)
    return re.sub(rb"<totalCount>\d+</totalCount>", b"<totalCount>%d</totalCount>" % keep, body)


def body_for_request(path):
    with lock:
        counter[0] += 1
        n = counter[0]
    body = answer_for_term(template, path) if live else template
    if revise:
        body = re.sub(rb"<pm10Value>(\d+)</pm10Value>", lambda m: b"<pm10Value>%d</pm10Value>" % (int(m.group(1)) + n % 7), body)
    if new_stations and "getCtprvnRltmMesureDnsty" in path:
        items = list(re.finditer(rb"<item>.*?</item>\s*", body, re.S))
        newest = items[0].group(0)
        named = [re.sub(rb"<stationName>([^<]*)</stationName>", lambda m: b"<stationName>" + m.group(1) + b"-%d-%d</stationName>" % (n, i), newest)
                 for i in range(NEW_STATIONS)]
        body = body[:items[0].start()] + b"".join(named) + body[items[-1].end():]
        body = re.sub(rb"<numOfRows>\d+</numOfRows>", b"<numOfRows>%d</numOfRows>" % NEW_STATIONS, body)
        body = re.sub(rb"<totalCount>\d+</totalCount>", b"<totalCount>%d</totalCount>" % NEW_STATIONS, body)
    return body


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if "getMinuDustWeekFrcstDspth" in self.path:
            body = weekly_outlook
        elif "getMinuDustFrcstDspth" in self.path:
            body = forecasts["PM25" if "InformCode=PM25" in self.path else "PM10"]
        elif "getUlfptcaAlarmInfo" in self.path:
            body = unapproved if advisories_unapproved else advisories["PM25" if "itemCode=PM25" in self.path else "PM10"]
        elif "getOzAdvsryOccrrncInfo" in self.path:
            body = advisories["O3"]
        else:
            body = body_for_request(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "text/xml;charset=UTF-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        line = format % args
        sys.stderr.write(re.sub(r"serviceKey=[^&\s]*", "serviceKey=***", line) + "\n")


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
