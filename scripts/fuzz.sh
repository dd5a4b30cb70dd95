#!/usr/bin/env bash
# Fuzzes the AirKorea XML parser and the activity CSV importer with libFuzzer and AddressSanitizer.
#
#   scripts/fuzz.sh                 # both targets, 5 minutes each
#   scripts/fuzz.sh parser 600      # one target, 10 minutes
#
# Seeds come from Fuzz/corpus/<target> (small, committed); what libFuzzer discovers goes to
# .build-fuzz/corpus/<target> and stays out of the repository. A crash leaves its input in
# .build-fuzz/ and fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGETS=${1:-parser activity}
SECONDS_EACH=${2:-300}
OUT=.build-fuzz
mkdir -p "$OUT/src"

# The fuzzed code compiled as one module: the DustKit sources plus the parser's (or importer's) own.
build() {
    local name=$1; shift
    rm -rf "$OUT/src/$name" && mkdir -p "$OUT/src/$name"
    for file in "$@"; do sed -e '/^import DustKit$/d' "$file" > "$OUT/src/$name/$(basename "$file")"; done
    if ! swiftc -sanitize=fuzzer,address -parse-as-library -O -g -module-name "Fuzz$name" \
        -I Sources/CLibXML2 -Xcc -I/usr/include/libxml2 -lxml2 \
        "$OUT/src/$name"/*.swift -o "$OUT/$name-fuzzer" >"$OUT/$name-build.log" 2>&1; then
        grep -v "Cannot export local symbol" "$OUT/$name-build.log"
        echo "fuzz.sh: building the $name fuzzer failed"
        exit 1
    fi
}

for target in $TARGETS; do
    case "$target" in
        parser) build parser Sources/DustKit/*.swift Sources/AirKorea/*.swift Fuzz/ParserFuzzer.swift ;;
        activity) build activity Sources/DustKit/*.swift Sources/DustServices/ActivityCSVParser.swift Fuzz/ActivityFuzzer.swift ;;
        *) echo "fuzz.sh: unknown target $target (parser, activity)"; exit 64 ;;
    esac
    mkdir -p "$OUT/corpus/$target"
    echo "fuzz.sh: $target for $SECONDS_EACH s"
    (cd "$OUT" && "./$target-fuzzer" "corpus/$target" "../Fuzz/corpus/$target" \
        -max_total_time="$SECONDS_EACH" -max_len=65536 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        2>&1 | tee "$target.log" | grep -E "^#[0-9]+ *(DONE|INITED)|stat::|ERROR|SUMMARY" || true)
    if grep -q "ERROR: libFuzzer\|ERROR: AddressSanitizer\|SUMMARY: AddressSanitizer" "$OUT/$target.log"; then
        echo "fuzz.sh: $target FAILED, see $OUT/$target.log and the crash-* file in $OUT"
        exit 1
    fi
done
