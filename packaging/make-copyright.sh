#!/usr/bin/env bash
# Prints /usr/share/doc/finedust/copyright (DEP-5): packaging/copyright, then one paragraph per
# SwiftPM dependency pinned in Package.resolved, from its checkout's LICENSE and NOTICE files,
# then packaging/copyright-vendored (C libraries vendored inside those dependencies).
#   packaging/make-copyright.sh SCRATCH_PATH      (run from the repository's top directory)
set -euo pipefail
checkouts="${1:?usage: make-copyright.sh SCRATCH_PATH}/checkouts"
[ -d "$checkouts" ] || { echo "make-copyright: no SwiftPM checkouts in $checkouts; build first." >&2; exit 1; }

# DEP-5 continuation lines: one leading space, "." for an empty line.
indent() { sed -e 's/[[:space:]]*$//' -e 's/^$/./' -e 's/^/ /'; }

licence_of() {
    if grep -q 'Apache License' "$1" && grep -q 'Version 2.0' "$1"; then
        echo Apache-2.0
    elif grep -q 'Permission is hereby granted, free of charge' "$1"; then
        echo MIT
    else
        echo other
    fi
}

# Copyright statements of a licence or notice (without the Apache appendix's template line and
# without the word "Copyright" itself).
holders() {
    grep -h -E '^[[:space:]]*Copyright[[:space:]]+(\([Cc]\)[[:space:]]*)?[0-9A-Z]' "$@" 2>/dev/null |
        grep -v '\[yyyy\]' | sed -E -e 's/^[[:space:]]*[Cc]opyright[[:space:]]+(\([Cc]\)[[:space:]]*)?//' | sort -u || true
}

# Where LICENSE and NOTICE name no one: the holder most source headers name, without years.
source_holder() {
    grep -r -h -o -i -E 'copyright \(c\) [0-9][0-9, -]*[[:alpha:]].*' "$1/Sources" 2>/dev/null |
        sed -E 's/^[^0-9]*[0-9][0-9, -]*//' | sort | uniq -c | sort -rn | sed -n '1s/^ *[0-9]* //p' || true
}

cat packaging/copyright
while IFS=$'\t' read -r identity version location; do
    dir=""
    for candidate in "$checkouts"/*; do
        [ -d "$candidate" ] || continue
        name=$(basename "$candidate")
        if [ "${name,,}" = "$identity" ] || [ "${name,,}.git" = "${location##*/}" ] || [ "${name,,}" = "$(basename "${location,,}" .git)" ]; then
            dir=$candidate
            break
        fi
    done
    [ -n "$dir" ] || { echo "make-copyright: no checkout of $identity in $checkouts." >&2; exit 1; }
    name=$(basename "$dir")
    licence_file=$(find "$dir" -maxdepth 1 -type f \( -iname 'LICENSE*' -o -iname 'COPYING*' \) | sort | head -1)
    notice_file=$(find "$dir" -maxdepth 1 -type f -iname 'NOTICE*' | sort | head -1)
    [ -n "$licence_file" ] || { echo "make-copyright: $name has no LICENSE file." >&2; exit 1; }
    licence=$(licence_of "$licence_file")
    copyright=$(holders "$licence_file" ${notice_file:+"$notice_file"})
    [ -n "$copyright" ] || copyright=$(source_holder "$dir")
    [ -n "$copyright" ] || copyright="the $name authors"
    printf '\nFiles: .build/checkouts/%s/*\n' "$name"
    printf 'Copyright: %s\n' "$(printf '%s\n' "$copyright" | sed '2,$s/^/ /')"
    case $licence in
        Apache-2.0)
            # Its text is the standalone paragraph of packaging/copyright (FineDust's own licence).
            echo "License: Apache-2.0" ;;
        MIT)
            echo "License: MIT"
            indent < "$licence_file" ;;
        *)
            echo "License: $name"
            indent < "$licence_file" ;;
    esac
    printf 'Comment: %s %s (%s).\n' "$name" "$version" "$location"
    if [ -n "$notice_file" ]; then
        echo " Its $(basename "$notice_file"):"
        indent < "$notice_file"
    fi
    # Licences of vendored code inside the dependency's sources (e.g. llhttp in swift-nio).
    while IFS= read -r -d '' vendored; do
        vendored_dir=${vendored%/*}
        printf '\nFiles: .build/checkouts/%s/*\n' "${vendored_dir#"$checkouts"/}"
        vendored_copyright=$(holders "$vendored")
        printf 'Copyright: %s\n' "$(printf '%s\n' "${vendored_copyright:-the authors of ${vendored_dir##*/}}" | sed '2,$s/^/ /')"
        echo "License: $(licence_of "$vendored" | sed "s/^other$/${vendored_dir##*/}/")"
        indent < "$vendored"
    done < <(find "$dir/Sources" -type f \( -iname 'LICENSE*' -o -iname 'COPYING*' \) -print0 2>/dev/null | sort -z)
done < <(python3 -c '
import json, sys
for pin in json.load(open("Package.resolved"))["pins"]:
    state = pin["state"]
    print(pin["identity"], state.get("version") or state.get("revision", "")[:12], pin["location"], sep="\t")
')

# C libraries the dependencies vendor without a LICENSE file of their own (lintian: embedded-library).
cat packaging/copyright-vendored
