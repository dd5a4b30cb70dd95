#!/usr/bin/env bash
# Checks that what the repository's comments and docs cite exists inside the repository:
#   - every `docs/REFERENCE.md §n` (also `§n, §m`, `§n/§m`, `§n and §m`, `§n–§m`) names a section
#     docs/REFERENCE.md has as a heading `## §n. Title`, and every `§n` inside docs/REFERENCE.md
#     itself does too (up to its "Not yet built" section, which lists numbers kept for later);
#   - every `docs/NAME.md`, and every relative link `](NAME.md)` in docs/, names a file in docs/;
#   - nothing points outside the repository: no "SPEC §", "../shared", "shared/SPEC" or
#     "shared/fixtures" (the specification the project was built against is not in it).
#
#   scripts/check-doc-references.sh [ROOT]     check ROOT (default: this repository); exit 1 on a problem
#   scripts/check-doc-references.sh --self-test   prove it fails on each kind of bad citation
set -euo pipefail
export LC_ALL=C.UTF-8

# What is scanned: the code, tests, scripts, docs and packaging, and the fixtures' own notes (not
# the fixtures themselves, nor fuzzing corpora: they are data).
scan_paths=(Sources Tests scripts docs README.md Config packaging systemd Benchmarks Fuzz Package.swift
    Fixtures/README.md Fixtures/real/PROVENANCE.md)

check() {
    local root=$1 problems=0 paths=() path
    cd "$root"
    for path in "${scan_paths[@]}"; do [ -e "$path" ] && paths+=("$path"); done
    [ ${#paths[@]} -gt 0 ] || { echo "check-doc-references: nothing to scan in $root" >&2; return 1; }
    local reference=docs/REFERENCE.md
    [ -f "$reference" ] || { echo "check-doc-references: $reference does not exist" >&2; return 1; }

    # The sections that exist: headings `## §n. Title`.
    local sections
    sections=" $(grep -oE '^## §[0-9]+\.' "$reference" | tr -dc '0-9\n' | tr '\n' ' ') "
    # Every file that is not text (grep -I) or is a corpus is left alone, and so is this script,
    # whose comments and self-test name what it looks for.
    local grep_files=(grep -rIHn --exclude-dir=corpus --exclude-dir=.build --exclude=check-doc-references.sh)

    # 1. `docs/REFERENCE.md §n…` wherever it is cited.
    local separator='([[:space:]]*(,|/|–|-|and)[[:space:]]*)'
    local line location numbers number
    while IFS= read -r line; do
        location=${line%%:REFERENCE.md*}
        numbers=$(printf '%s\n' "${line#"$location":}" | grep -oE '§[0-9]+' | tr -dc '0-9\n')
        for number in $numbers; do
            if [[ $sections != *" $number "* ]]; then
                echo "$location: cites docs/REFERENCE.md §$number, which has no heading \"## §$number.\"" >&2
                problems=$((problems + 1))
            fi
        done
    done < <("${grep_files[@]}" -oE "REFERENCE\.md[[:space:]]*§[0-9]+($separator§[0-9]+)*" "${paths[@]}" || true)

    # 2. `§n` inside the reference itself, up to the section of numbers kept for later.
    while IFS= read -r line; do
        number=${line##*§}
        if [[ $sections != *" $number "* ]]; then
            echo "$reference:${line%%:*}: refers to §$number, which has no heading \"## §$number.\"" >&2
            problems=$((problems + 1))
        fi
    done < <(awk '/^## Not yet built/ { exit } { print }' "$reference" | grep -noE '§[0-9]+' || true)

    # 3. docs/NAME.md cited anywhere, and relative links between the pages of docs/.
    local target
    while IFS= read -r line; do
        target=${line##*:}
        if [ ! -f "$target" ]; then
            echo "${line%:*}: cites $target, which does not exist" >&2
            problems=$((problems + 1))
        fi
    done < <("${grep_files[@]}" -oE 'docs/[A-Za-z0-9._-]+\.md' "${paths[@]}" || true)
    while IFS= read -r line; do
        target=${line##*](}
        target=${target%)}
        if [ ! -f "docs/$target" ]; then
            echo "${line%%:](*}: links to $target, which is not in docs/" >&2
            problems=$((problems + 1))
        fi
    done < <(grep -HnoE '\]\([A-Za-z0-9._-]+\.md\)' docs/*.md || true)

    # 4. Nothing outside the repository.
    local outside
    for outside in "SPEC §" "../shared" "shared/SPEC" "shared/fixtures"; do
        while IFS= read -r line; do
            echo "$line" >&2
            echo "  ^ cites \"$outside\", which is outside the repository: cite docs/REFERENCE.md or the repository's own files" >&2
            problems=$((problems + 1))
        done < <("${grep_files[@]}" -F "$outside" "${paths[@]}" || true)
    done

    if [ "$problems" -gt 0 ]; then
        echo "check-doc-references: $problems problem(s)" >&2
        return 1
    fi
    echo "check-doc-references: every cited section and page exists ($(wc -w <<<"$sections") sections)"
}

# Builds a tiny repository in a temporary directory, good, then spoiled one way at a time; each
# spoiled copy must fail and the good one must pass.
self_test() {
    local scratch failures=0
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' RETURN
    make_good() {
        rm -rf "$scratch/repo"
        mkdir -p "$scratch/repo/docs" "$scratch/repo/Sources/A"
        printf '# Reference\n\n## §1. One\n\nSee §2.\n\n## §2. Two\n\n## Not yet built\n\n§17 later.\n' >"$scratch/repo/docs/REFERENCE.md"
        printf '# Other\n\n[the reference](REFERENCE.md)\n' >"$scratch/repo/docs/OTHER.md"
        printf '/// A rule (docs/REFERENCE.md §1, §2) and docs/OTHER.md.\nlet a = 1\n' >"$scratch/repo/Sources/A/A.swift"
    }
    expect() {
        local want=$1 what=$2 status=0
        (check "$scratch/repo") >/dev/null 2>&1 || status=$?
        if { [ "$want" = pass ] && [ "$status" -ne 0 ]; } || { [ "$want" = fail ] && [ "$status" -eq 0 ]; }; then
            echo "self-test: expected $want for $what, got exit $status" >&2
            failures=$((failures + 1))
        fi
    }
    make_good
    expect pass "a good tree"
    make_good
    printf '/// docs/REFERENCE.md §3.\n' >>"$scratch/repo/Sources/A/A.swift"
    expect fail "a missing section"
    make_good
    printf '/// (docs/REFERENCE.md §1/§9).\n' >>"$scratch/repo/Sources/A/A.swift"
    expect fail "a missing section after a slash"
    make_good
    printf 'Also §5.\n' | sed -i '4r /dev/stdin' "$scratch/repo/docs/REFERENCE.md"
    expect fail "a missing section inside the reference"
    make_good
    printf '/// docs/GONE.md says why.\n' >>"$scratch/repo/Sources/A/A.swift"
    expect fail "a missing page"
    make_good
    printf '[gone](GONE.md)\n' >>"$scratch/repo/docs/OTHER.md"
    expect fail "a broken link between pages"
    make_good
    printf '/// As SP''EC §4 says.\n' >>"$scratch/repo/Sources/A/A.swift"
    expect fail "a citation of the old specification"
    make_good
    printf '# see ..''/shared/STYLE.md\n' >>"$scratch/repo/Sources/A/A.swift"
    expect fail "a path outside the repository"
    if [ "$failures" -gt 0 ]; then
        echo "check-doc-references: self-test FAILED ($failures)" >&2
        return 1
    fi
    echo "check-doc-references: self-test passed (1 good tree, 7 bad ones caught)"
}

if [ "${1:-}" = --self-test ]; then
    self_test
else
    check "${1:-$(cd "$(dirname "$0")/.." && pwd)}"
fi
