#!/usr/bin/env bash
# Fuzzes the AirKorea XML parser, the activity CSV importer, the Apple Health export reader, the
# GPX reader, the export.zip path and the indoor readers with libFuzzer and AddressSanitizer.
#
#   scripts/fuzz.sh                 # all six targets, 150 s each: 15 minutes in all
#   scripts/fuzz.sh parser 600      # one target, 10 minutes
#   scripts/fuzz.sh "health gpx"    # some targets, 150 s each
#   scripts/fuzz.sh --typecheck     # every harness still compiles against the code it fuzzes
#   scripts/fuzz.sh --seeds         # CI: every harness built and run once over its seed corpus, so its
#                                   # checks still hold for the code as it is (three had gone stale)
#
# Targets: parser (AirKorea XML), activity (CSV), health (Health export.xml from memory), gpx (GPX
# 1.0/1.1 from memory), zip (an export.zip from a file: ZIPFoundation's directory, FineDust's own
# inflate, the readers; ZIPFoundation's sources are compiled in from SwiftPM's checkout), indoor (a
# monitor's answer as dustd reads it each minute: AirGradient, PurpleAir, Home Assistant's state and
# history; and the CSV of `dustctl indoor import`, in a zone without and one with daylight saving time).
#
# Seeds come from Fuzz/corpus/<target> (small, committed); what libFuzzer discovers goes to
# .build-fuzz/corpus/<target> and stays out of the repository. A crash leaves its input in
# .build-fuzz/ and fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
typecheck=false
seeds=false
if [ "${1:-}" = --typecheck ]; then typecheck=true; shift; fi
if [ "${1:-}" = --seeds ]; then seeds=true; shift; fi
TARGETS=${1:-parser activity health gpx zip indoor}
SECONDS_EACH=${2:-150}
OUT=.build-fuzz
mkdir -p "$OUT/src"

# The fuzzed code compiled as one module: the DustKit sources plus the parser's (or importer's) own.
build() {
    local name=$1; shift
    rm -rf "$OUT/src/$name" && mkdir -p "$OUT/src/$name"
    for file in "$@"; do sed -e '/^import DustKit$/d' -e '/^import ZIPFoundation$/d' "$file" > "$OUT/src/$name/$(basename "$file")"; done
    # Swift 6, as Package.swift builds the same sources (its regex literals, its checks); the zip target
    # compiles ZIPFoundation's sources into the same module, and they are Swift 5.
    local mode=(-swift-version 6)
    [ "$name" = zip ] && mode=(-swift-version 5 -enable-bare-slash-regex)
    if $typecheck; then
        # The harness against today's sources, without libFuzzer: a renamed member fails here, not
        # the next time someone fuzzes.
        if ! swiftc "${mode[@]}" -typecheck -parse-as-library -module-name "Fuzz$name" \
            -I Sources/CLibXML2 -Xcc -I/usr/include/libxml2 -I Sources/CZlibInflate -I "$ZIPFOUNDATION/Sources/CZLib" -Xcc -D_GNU_SOURCE \
            "$OUT/src/$name"/*.swift >"$OUT/$name-build.log" 2>&1; then
            cat "$OUT/$name-build.log"
            echo "fuzz.sh: the $name fuzzer does not compile"
            exit 1
        fi
        echo "fuzz.sh: the $name fuzzer compiles"
        return
    fi
    # The seeds' run is over in a second: built without optimisation, which takes half the time.
    local optimisation=-O
    $seeds && optimisation=-Onone
    if ! swiftc "${mode[@]}" -sanitize=fuzzer,address -parse-as-library "$optimisation" -g -module-name "Fuzz$name" \
        -I Sources/CLibXML2 -Xcc -I/usr/include/libxml2 -lxml2 \
        -I Sources/CZlibInflate -I "$ZIPFOUNDATION/Sources/CZLib" -lz -Xcc -D_GNU_SOURCE \
        "$OUT/src/$name"/*.swift -o "$OUT/$name-fuzzer" >"$OUT/$name-build.log" 2>&1; then
        grep -v "Cannot export local symbol" "$OUT/$name-build.log"
        echo "fuzz.sh: building the $name fuzzer failed"
        exit 1
    fi
}

# ZIPFoundation's sources, as SwiftPM checked them out (Package.swift pins the version).
ZIPFOUNDATION=.build/checkouts/ZIPFoundation
if [[ " $TARGETS " == *" zip "* && ! -d $ZIPFOUNDATION/Sources/ZIPFoundation ]]; then swift package resolve; fi

# DustActivity without the zip reader (the archive, its entries' data, the inflate pipe and the
# budget), which alone needs ZIPFoundation.
ACTIVITY_READERS=()
for file in Sources/DustActivity/*.swift; do
    case $file in
        */HealthExportArchive.swift | */ZipEntryData.swift | */ZipEntryPipe.swift | */ArchiveBudget.swift) ;;
        *) ACTIVITY_READERS+=("$file") ;;
    esac
done

for target in $TARGETS; do
    case "$target" in
        parser) build parser Sources/DustKit/*.swift Sources/AirKorea/*.swift Fuzz/ParserFuzzer.swift ;;
        activity) build activity Sources/DustKit/*.swift Sources/DustServices/ActivityCSVParser.swift Sources/DustServices/CSVLines.swift \
            Sources/DustServices/Indoor/*.swift Fuzz/ActivityFuzzer.swift ;;  # the CSV's ISO times are read by HomeAssistantTime
        health) build health Sources/DustKit/*.swift "${ACTIVITY_READERS[@]}" Fuzz/ActivityReaderChecks.swift Fuzz/HealthFuzzer.swift ;;
        gpx) build gpx Sources/DustKit/*.swift "${ACTIVITY_READERS[@]}" Fuzz/ActivityReaderChecks.swift Fuzz/GPXFuzzer.swift ;;
        zip) build zip Sources/DustKit/*.swift Sources/DustActivity/*.swift "$ZIPFOUNDATION"/Sources/ZIPFoundation/*.swift \
            Fuzz/ActivityReaderChecks.swift Fuzz/ZipFuzzer.swift ;;
        indoor) build indoor Sources/DustKit/*.swift Sources/DustServices/Indoor/*.swift Sources/DustServices/ActivityCSVParser.swift Sources/DustServices/CSVLines.swift \
            Fuzz/IndoorFuzzer.swift ;;
        *) echo "fuzz.sh: unknown target $target (parser, activity, health, gpx, zip, indoor)"; exit 64 ;;
    esac
    $typecheck && continue
    # ZIPFoundation 0.9.20 never frees the C path it opens an archive by (48 bytes an archive,
    # FileManager.fileSystemRepresentation in Archive+BackingConfiguration.swift): leak checks would
    # stop the zip target at its first input, so it runs without them.
    leaks=1
    [ "$target" = zip ] && leaks=0
    if $seeds; then
        # Each seed run once (libFuzzer runs the files it is given and stops): a check that no longer
        # holds for the code stops here, on the inputs the repository keeps.
        if ! (cd "$OUT" && ASAN_OPTIONS=detect_leaks=$leaks SWIFT_BACKTRACE=enable=no "./$target-fuzzer" \
            -rss_limit_mb=2048 -timeout=10 -detect_leaks=$leaks ../Fuzz/corpus/"$target"/* >"$target-seeds.log" 2>&1); then
            grep -E "Fatal error|ERROR|SUMMARY|Running" "$OUT/$target-seeds.log" | tail -5
            echo "fuzz.sh: the $target fuzzer stopped on a seed, see $OUT/$target-seeds.log"
            exit 1
        fi
        echo "fuzz.sh: the $target fuzzer passes its $(find Fuzz/corpus/"$target" -type f | wc -l) seeds"
        continue
    fi
    mkdir -p "$OUT/corpus/$target"
    echo "fuzz.sh: $target for $SECONDS_EACH s"
    # Without Swift's backtracer a failed check (fatalError) is libFuzzer's "deadly signal", its
    # input kept; the backtracer, run under AddressSanitizer, adds a false memory error report.
    (cd "$OUT" && ASAN_OPTIONS=detect_leaks=$leaks SWIFT_BACKTRACE=enable=no "./$target-fuzzer" "corpus/$target" "../Fuzz/corpus/$target" \
        -max_total_time="$SECONDS_EACH" -max_len=65536 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -detect_leaks=$leaks \
        2>&1 | tee "$target.log" | grep -E "^#[0-9]+ *(DONE|INITED)|stat::|ERROR|SUMMARY" || true)
    rm -f "$OUT"/zip-fuzz-input-*.zip
    if grep -q "ERROR: libFuzzer\|ERROR: AddressSanitizer\|SUMMARY: AddressSanitizer" "$OUT/$target.log"; then
        echo "fuzz.sh: $target FAILED, see $OUT/$target.log and the crash-* file in $OUT"
        exit 1
    fi
done
