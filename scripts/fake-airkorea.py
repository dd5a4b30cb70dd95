#!/usr/bin/env python3
"""A loopback stand-in for AirKorea, for scripts/systemd-e2e.sh.

Answers every GET with the given XML fixture and logs the request with the service key
redacted. Prints the port it listens on (127.0.0.1) as its first line.

    python3 scripts/fake-airkorea.py Fixtures/synthesized/station-jongno-ver1.5-DAILY-2026-11-20.xml
"""
import http.server
import re
import sys

body = open(sys.argv[1], "rb").read()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
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
