#!/usr/bin/env python3
"""Check that the README's figures of the mock's coverage are those of the generated list.

Usage: check-readme-coverage.py README.md MOCK_ENTRIES_MD

The README's section "Testing your own code with the mock driver" copies the totals and a table
by area from mock-entries.md. A row names areas of cuda.h separated by ", ", "X (and its
deprecated part)" adds "X [DEPRECATED]", and a last row "the K other areas ..." takes every area
not named. Exits 1, naming the row, when a figure differs from the list's.
"""

import re
import sys


def main():
    readme, listing = (open(p, encoding="utf-8").read() for p in sys.argv[1:3])
    m = re.search(r"\*\*(\d+) of (\d+) entries implemented\*\*", listing)
    done, total = int(m.group(1)), int(m.group(2))
    areas = {a: (int(n), int(t)) for a, n, t in
             re.findall(r"^\| (.+?) \| (\d+) of (\d+) \|$", listing, re.M)}
    errors = []
    section = readme.split("## Testing your own code with the mock driver", 1)[-1].split("\n## ", 1)[0]
    for text in ("implements %d of the %d" % (done, total),
                 "mock driver: %d of %d entries implemented" % (done, total)):
        if text not in " ".join(section.split()):
            errors.append("the README does not say %r" % text)
    named, other = set(), None
    rows = re.findall(r"^\| (.+?) \| (\d+) of (\d+) \|$", section, re.M)
    for cell, n, t in rows:
        want = (int(n), int(t))
        k = re.match(r"the (\d+) other areas", cell)
        if k:
            other = (cell, int(k.group(1)), want)
            continue
        names = []
        for part in cell.split(", "):
            base = part.replace(" (and its deprecated part)", "")
            names += [base] + ([base + " [DEPRECATED]"] if base != part else [])
        missing = [a for a in names if a not in areas]
        if missing:
            errors.append("row %r: no area %s in the list" % (cell, ", ".join(missing)))
            continue
        named.update(names)
        got = tuple(sum(areas[a][i] for a in names) for i in (0, 1))
        if got != want:
            errors.append("row %r says %d of %d, the list %d of %d" % ((cell,) + want + got))
    rest = [a for a in areas if a not in named]
    if rest and other is None:
        errors.append("areas missing from the README's table: " + ", ".join(rest))
    if other is not None:
        cell, count, want = other
        got = tuple(sum(areas[a][i] for a in rest) for i in (0, 1))
        if count != len(rest) or got != want:
            errors.append("row %r: the list has %d other areas, %d of %d"
                          % ((cell, len(rest)) + got))
    if not rows:
        errors.append("no table by area in the README's mock section")
    for e in errors:
        print("check-readme-coverage: " + e, file=sys.stderr)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
