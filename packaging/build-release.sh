#!/usr/bin/env bash
# The release build scripts/package-deb.sh and scripts/install.sh share: dustd and dustctl with
# the Swift runtime linked in statically, their man pages from the argument parser's
# generate-manual plugin, and the shell completions the executables generate.
#
#   packaging/build-release.sh [--binaries-only] SCRATCH_PATH      (from the repository's top directory)
#
# FINEDUST_ORDER_FILE=none builds without the code layout of packaging/finedust.order.
#
# --binaries-only (the benchmarks): build the two executables the way they ship, nothing else.
# Prints the directory holding dustd and dustctl. Leaves in SCRATCH_PATH/finedust-extras/:
#   man/man1/dustctl.1.gz  man/man8/dustd.8.gz
#   bash/{dustctl,dustd}  zsh/{_dustctl,_dustd}  fish/{dustctl,dustd}.fish
set -euo pipefail
binaries_only=false
if [ "${1:-}" = --binaries-only ]; then binaries_only=true; shift; fi
scratch=${1:?usage: build-release.sh [--binaries-only] SCRATCH_PATH}
extras="$scratch/finedust-extras"
say() { printf 'build-release: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

say "building dustd and dustctl (release, static Swift runtime)…"
# -z now: all relocations at start-up, so the whole GOT is read-only (full RELRO, "bindnow").
build=(swift build -c release --static-swift-stdlib --scratch-path "$scratch" -Xlinker -z -Xlinker now)
# Start-up and idle memory (docs/PERFORMANCE.md, "Linking"): with the toolchain's lld, relative
# relocations are packed (DT_RELR: 3 MB of .rela.dyn become 25 KB, read and applied at every
# start) and the executables export no dynamic symbols (nothing loads them; glibc's dladdr and the
# loader's lookups walked 45,000 of them). DT_RELR needs glibc 2.36 (Debian 12, Ubuntu 23.04); on
# an older glibc the build keeps the default linker. Position independence, and so address-space
# randomisation, is unchanged.
if [ "${FINEDUST_LINKER:-lld}" = lld ] && [ -x "$(dirname "$(command -v swiftc)")/lld" ] \
    && printf '%s\n' 2.36 "$(getconf GNU_LIBC_VERSION | cut -d' ' -f2)" | sort -V -C; then
    build+=(-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic)
    # The functions the executables run every day placed together (packaging/make-order-file.sh
    # writes the list): fewer pages of code resident and fewer page faults at start-up.
    order=${FINEDUST_ORDER_FILE:-$PWD/packaging/finedust.order}
    if [ "$order" != none ] && [ -s "$order" ]; then
        build+=(-Xlinker "--symbol-ordering-file=$order" -Xlinker --no-warn-symbol-ordering)
    fi
fi
for product in dustd dustctl; do
    "${build[@]}" --product "$product" >&2
done
bin=$("${build[@]}" --show-bin-path)
for tool in dustd dustctl; do
    if ldd "$bin/$tool" | grep -q 'libswiftCore'; then
        die "$bin/$tool links the Swift runtime dynamically; remove it and run again."
    fi
done
# The layout list ages as functions are renamed; say so when much of it no longer matches.
if [ -n "${order:-}" ] && [ "$order" != none ] && [ -s "$order" ] && command -v nm >/dev/null; then
    listed=$(wc -l < "$order")
    found=$( (nm --defined-only "$bin/dustd"; nm --defined-only "$bin/dustctl") 2>/dev/null | awk '{print $3}' | LC_ALL=C sort -u \
        | LC_ALL=C comm -12 - <(LC_ALL=C sort -u "$order") | wc -l)
    say "code layout: $found of $listed listed functions are in the executables"
    if [ $((found * 100)) -lt $((listed * 75)) ]; then
        say "warning: packaging/finedust.order is out of date; run packaging/make-order-file.sh and commit the result"
    fi
fi
if $binaries_only; then
    echo "$bin"
    exit 0
fi

# Man pages with the argument parser's generate-manual plugin's own tool, run on the executables
# built above. Run whole, the plugin would first build every product again in release mode
# without --static-swift-stdlib (a different compiler flag: a full rebuild, and another one for
# the next static build), and would give all executables one --section. "plugin generate-manual
# --help" builds just its tool; it is then run once per page: dustctl(1), a user command, and
# dustd(8), a daemon.
say "generating man pages with the generate-manual plugin's tool…"
swift package --scratch-path "$scratch" plugin generate-manual --help > /dev/null
generator=$(find "$scratch" -type f \( -name generate-manual-tool -o -name generate-manual \) -perm -u+x \
    -printf '%T@ %p\n' | sort -rn | sed -n '1s/^[^ ]* //p')
[ -n "$generator" ] || die "the generate-manual plugin built no generate-manual tool under $scratch."
date_option=()
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
    date_option=(--date "$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)")
fi
rm -rf "$extras"
mkdir -p "$extras/man/man1" "$extras/man/man8" "$extras/bash" "$extras/zsh" "$extras/fish"
pages="$extras/pages"
mkdir -p "$pages"
for page in dustctl.1 dustd.8; do
    tool=${page%.*} section=${page##*.}
    "$generator" "$bin/$tool" --section "$section" "${date_option[@]}" --output-directory "$pages" >&2
    [ -s "$pages/$page" ] || die "generate-manual wrote no $page."
    gzip -9n < "$pages/$page" > "$extras/man/man$section/$page.gz"
done
rm -rf "$pages"

for tool in dustd dustctl; do
    # bash-completion sources the file: no #! line (lintian: bash-completion-with-hashbang).
    "$bin/$tool" --generate-completion-script bash | sed '1{/^#!/d}' > "$extras/bash/$tool"
    "$bin/$tool" --generate-completion-script zsh > "$extras/zsh/_$tool"
    "$bin/$tool" --generate-completion-script fish > "$extras/fish/$tool.fish"
done
echo "$bin"
