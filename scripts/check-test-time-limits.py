#!/usr/bin/env python3
"""Every test suite runs under a time limit (docs/RELIABILITY.md): a test that hangs fails with its
name instead of holding the run. Prints each `@Suite(...)` without `.timeLimit` and exits 1."""
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent.parent / "Tests"
missing = []
for path in sorted(root.rglob("*.swift")):
    text = path.read_text(encoding="utf-8")
    start = 0
    while (at := text.find("@Suite", start)) >= 0:
        start = at + 1
        # The attribute's arguments, to its closing parenthesis (strings hold no parentheses that matter
        # here: a suite's name with one unbalanced would only make this check stricter).
        if text[at + 6 : at + 7] != "(":
            missing.append(f"{path.relative_to(root.parent)}:{text.count(chr(10), 0, at) + 1}: @Suite without arguments")
            continue
        depth, end = 0, at + 6
        for end in range(at + 6, len(text)):
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            if depth == 0:
                break
        if ".timeLimit(" not in text[at:end]:
            missing.append(f"{path.relative_to(root.parent)}:{text.count(chr(10), 0, at) + 1}: @Suite without .timeLimit")
for line in missing:
    print(line)
sys.exit(1 if missing else 0)
