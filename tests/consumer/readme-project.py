#!/usr/bin/env python3
"""Writes out the project that a README section shows, file by file.

Usage: readme-project.py README.md "SECTION TITLE" OUTDIR

In the section (from its "## " heading to the next one), each fenced code block whose first line
is a comment naming a file, "/* file: NAME */" or "# file: NAME", is written to OUTDIR/NAME as it
stands, that line included. Prints the names written; exits 1 when the section is missing, holds
no such block, or names a file twice.
"""
import os
import re
import sys

NAME = re.compile(r"^(?:/\* file: (\S+) \*/|# file: (\S+))$")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    readme, title, outdir = sys.argv[1:]
    text = open(readme, encoding="utf-8").read()
    heading = "\n## " + title + "\n"
    if heading not in text:
        sys.exit("readme-project: %s has no section %r" % (readme, title))
    section = text.split(heading, 1)[1].split("\n## ", 1)[0]
    files = {}
    for block in re.findall(r"^```[a-z]*\n(.*?)^```$", section, re.M | re.S):
        m = NAME.match(block.split("\n", 1)[0])
        if not m:
            continue
        name = m.group(1) or m.group(2)
        if name in files:
            sys.exit("readme-project: the section shows %s twice" % name)
        files[name] = block
    if not files:
        sys.exit("readme-project: the section %r shows no file" % title)
    os.makedirs(outdir, exist_ok=True)
    for name, body in files.items():
        with open(os.path.join(outdir, name), "w", encoding="utf-8") as f:
            f.write(body)
    print("readme-project: " + " ".join(sorted(files)))


if __name__ == "__main__":
    main()
