#!/usr/bin/env python3
"""Checks that the README shows a source file's marked lines as they are compiled.

Usage: check_readme_lines.py README.md SOURCE

The lines of SOURCE between "/* README: begin */" and "/* README: end */" must appear in the
README, in that order and consecutively, inside one fenced code block, each compared without its
leading and trailing spaces. Exits 1, naming the first line not found, otherwise 0.
"""
import sys


def marked(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    begin = next(i for i, l in enumerate(lines) if l.strip() == "/* README: begin */")
    end = next(i for i, l in enumerate(lines) if l.strip() == "/* README: end */")
    return [l.strip() for l in lines[begin + 1:end]]


def blocks(path):
    """The README's fenced code blocks, as lists of stripped lines."""
    out, cur = [], None
    for line in open(path, encoding="utf-8").read().splitlines():
        if line.startswith("```"):
            if cur is None:
                cur = []
            else:
                out.append(cur)
                cur = None
        elif cur is not None:
            cur.append(line.strip())
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    want = marked(sys.argv[2])
    for block in blocks(sys.argv[1]):
        for i in range(len(block) - len(want) + 1):
            if block[i:i + len(want)] == want:
                print("ok: the README shows the %d lines of %s" % (len(want), sys.argv[2]))
                return
    sys.exit("the README has no code block with these lines, in this order:\n  " +
             "\n  ".join(want))


if __name__ == "__main__":
    main()
