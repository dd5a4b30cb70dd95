#!/usr/bin/env bash
# Runs every FineDust benchmark and its baselines in one go and writes Benchmarks/results/latest.md.
#
#   Benchmarks/run.sh            (about 10 minutes; needs sqlite3 and python3)
#   QUICK=1 Benchmarks/run.sh    (skips the 5.9 M-row national archive and the 100-poll dustd run)
#   PREVIOUS=DIR Benchmarks/run.sh   (DIR holds the previous release's dustd and dustctl: the web's
#                                     pages and documents are measured for both in the same sitting)
set -euo pipefail
cd "$(dirname "$0")"
command -v sqlite3 >/dev/null || { echo "run.sh: install sqlite3 (apt-get install -y sqlite3)"; exit 1; }

mkdir -p results
echo "== release builds"
# As they ship: packaging/build-release.sh (static Swift runtime, lld, packed relocations).
BIN=$(cd .. && packaging/build-release.sh --binaries-only .build)

echo "== in-process benchmarks (ordo-one/benchmark): parse and ingest against the C floors and FoundationXML"
swift package --allow-writing-to-package-directory benchmark --format markdown --no-progress > results/benchmark.md 2>results/benchmark.log

echo "== Python etree baseline"
python3 etree_baseline.py \
    ../Fixtures/synthesized/sido-jeonguk-ver1.5-673-2026-11-20-24h00.xml 673 \
    ../Fixtures/synthesized/station-jongno-ver1.5-3MONTH-2026-11-20.xml 2200 > results/etree.txt

echo "== queries, footprint and the report"
python3 report.py "$BIN" results

echo "== the web on the demo: every page and document, wrk -t1 -c8 (web-pages.sh)"
BIN="$BIN" BEFORE="${PREVIOUS:-}" RESULTS=Benchmarks/results/web-pages.md ./web-pages.sh >/dev/null
{ echo; cat results/web-pages.md; } >> results/latest.md

echo "== every report command against sqlite3 and --version (startup.py --every-command)"
STARTUP=$(mktemp -d /tmp/finedust-startup.XXXXXX)
(cd "$STARTUP" && "$BIN/dustctl" demo --db now.sqlite --fixtures "$OLDPWD/../Fixtures" >/dev/null)
builds=("$BIN/dustctl@$STARTUP/now.sqlite")
if [ -n "${PREVIOUS:-}" ]; then
    (cd "$STARTUP" && "$PREVIOUS/dustctl" demo --db before.sqlite --fixtures "$OLDPWD/../Fixtures" >/dev/null)
    builds=("$PREVIOUS/dustctl@$STARTUP/before.sqlite" "${builds[@]}")
fi
python3 startup.py "$STARTUP/now.sqlite" --every-command --runs 40 --warmup 5 "${builds[@]}" > results/startup-every.txt
{ echo; echo '```'; cat results/startup-every.txt; echo '```'; } >> results/latest.md
rm -rf "$STARTUP"
echo "== written: Benchmarks/results/latest.md"
