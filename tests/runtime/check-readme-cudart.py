#!/usr/bin/env python3
"""Check that the README's figures of cushim's runtime are those of the generated list.

Usage: check-readme-cudart.py README.md CUDART_ENTRIES_MD

The README's section "The CUDA runtime" says "N of M functions implemented" and copies the
table by area of cudart-entries.md (rows "| area | n of m |"). Exits 1, naming the difference,
when a figure differs from the list's or an area is missing.
"""

import re
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    readme, listing = (open(p, encoding="utf-8").read() for p in sys.argv[1:3])
    m = re.search(r"\*\*(\d+) of (\d+) functions implemented\*\*", listing)
    done, total = int(m.group(1)), int(m.group(2))
    areas = {a: (int(n), int(t)) for a, n, t in
             re.findall(r"^\| (.+?) \| (\d+) of (\d+) \|$", listing, re.M)}
    section = readme.split("## The CUDA runtime", 1)
    errors = []
    if len(section) != 2:
        errors.append("the README has no section \"## The CUDA runtime\"")
        section = ["", ""]
    section = section[1].split("\n## ", 1)[0]
    text = "%d of %d functions" % (done, total)
    if text not in " ".join(section.split()):
        errors.append("the README does not say %r" % text)
    rows = {a: (int(n), int(t)) for a, n, t in
            re.findall(r"^\| (.+?) \| (\d+) of (\d+) \|$", section, re.M)}
    for area, want in areas.items():
        if area not in rows:
            errors.append("the README's table has no row %r (%d of %d)" % ((area,) + want))
        elif rows[area] != want:
            errors.append("row %r says %d of %d, the list %d of %d"
                          % ((area,) + rows[area] + want))
    for area in rows:
        if area not in areas:
            errors.append("the README's row %r is no area of the list" % area)
    for e in errors:
        print("check-readme-cudart: " + e, file=sys.stderr)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
