#!/usr/bin/env python3
"""A loopback stand-in for AirKorea, for the scripts in scripts/ and Benchmarks/.

Answers every GET with the given XML fixture (a forecast request, getMinuDustFrcstDspth, with
the synthesized forecast of its InformCode) and logs the request with the service key redacted.
Prints the port it listens on (127.0.0.1) as its first line.

    python3 scripts/fake-airkorea.py FIXTURE.xml [--revise] [--new-stations]

--revise        every answer changes the PM10 values a little, so each poll rewrites its rows
--new-stations  every answer renames the stations, so each poll adds new rows (fills a disk)
"""
import http.server
import os
import re
import sys
import threading

template = open(sys.argv[1], "rb").read()
SYNTHESIZED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "synthesized")
forecasts = {code: open(os.path.join(SYNTHESIZED, f"forecast-{code.lower()}-2026-11-22.xml"), "rb").read() for code in ("PM10", "PM25")}
revise = "--revise" in sys.argv
new_stations = "--new-stations" in sys.argv
counter = [0]
lock = threading.Lock()


def body_for_request():
    with lock:
        counter[0] += 1
        n = counter[0]
    body = template
    if revise:
        body = re.sub(rb"<pm10Value>(\d+)</pm10Value>", lambda m: b"<pm10Value>%d</pm10Value>" % (int(m.group(1)) + n % 7), body)
    if new_stations:
        body = re.sub(rb"<stationName>([^<]*)</stationName>", lambda m: b"<stationName>" + m.group(1) + b"-%d</stationName>" % n, body)
    return body


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if "getMinuDustFrcstDspth" in self.path:
            body = forecasts["PM25" if "InformCode=PM25" in self.path else "PM10"]
        else:
            body = body_for_request()
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
