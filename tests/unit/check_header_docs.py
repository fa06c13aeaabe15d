#!/usr/bin/env python3
"""Fails when a public function of cushim.h has no comment of its own (issue 12, item 5).

Usage: check_header_docs.py PATH/TO/cushim.h

The rule, exactly:

- A public declaration is a line that starts, in column 0, with `CUSHIM_API`, together with
  the lines that follow it up to the first `;`. Its name is the identifier just before the first
  `(`. (The fault sweep's coverage test finds the public functions the same way.)
- Its comment of its own is a `/* ... */` block that ends, with `*/`, at the end of the line
  directly above the declaration's first line, and whose `/*` is the first thing on its line.
  So a blank line between comment and declaration, a trailing comment of the line above
  (`int x; /* ... */`), or a second declaration under the first one's comment all fail. The
  comment must hold some words, not just punctuation.
- A declaration that returns CUresult must name at least one code in its comment
  (CUDA_SUCCESS or a CUDA_ERROR_* code), so that "which codes" cannot be dropped silently.
  That is a floor, not proof of a complete list: the section notes state the shared codes
  (NULL, wrong kind, the driver's codes) once, and each function adds its own.

Prints one TAP line per public function, and "N of M public functions have a comment of their
own". Exits 1 when any lacks one, 2 when the header holds no public function at all.
"""
import re
import sys

CODE = re.compile(r"\bCUDA_(SUCCESS|ERROR_[A-Z0-9_]+)\b")
WORD = re.compile(r"[A-Za-z]{2,}")


def comment_above(lines, i):
    """The text of the comment block ending on line i-1, or None."""
    j = i - 1
    if j < 0 or not lines[j].rstrip().endswith("*/"):
        return None
    # Walk up to the line that opens the block.
    k = j
    while k >= 0 and "/*" not in lines[k]:
        k -= 1
    if k < 0 or not lines[k].lstrip().startswith("/*"):
        return None  # no opening, or the comment trails code on its first line
    # A block is one comment: no `*/` may close an earlier comment inside it.
    block = "\n".join(lines[k:j + 1])
    if block.count("*/") != 1 or block.count("/*") != 1:
        return None
    return block


def declarations(lines):
    """(first line index, name, returns CUresult, text) for each public declaration."""
    out = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("CUSHIM_API"):
            i += 1
            continue
        start = i
        text = lines[i]
        while ";" not in text and i + 1 < len(lines):
            i += 1
            text += "\n" + lines[i]
        m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", text)
        if m is None:
            sys.exit("check_header_docs: line %d: a CUSHIM_API line that declares no function"
                     % (start + 1))
        ret = text[len("CUSHIM_API"):m.start()]
        out.append((start, m.group(1), re.search(r"\bCUresult\b", ret) is not None, text))
        i += 1
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_header_docs.py PATH/TO/cushim.h")
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = f.read().split("\n")
    decls = declarations(lines)
    if not decls:
        print("Bail out! no CUSHIM_API declaration found in %s" % sys.argv[1])
        return 2
    print("TAP version 13")
    print("1..%d" % len(decls))
    documented = 0
    for n, (line, name, returns_code, _) in enumerate(decls, 1):
        comment = comment_above(lines, line)
        why = None
        if comment is None:
            why = "line %d: no /* ... */ comment ends on the line above it" % (line + 1)
        elif not WORD.search(comment.replace("/*", " ").replace("*/", " ")):
            why = "its comment holds no words"
        else:
            documented += 1
            if returns_code and not CODE.search(comment):
                why = "returns CUresult, but its comment names no CUDA_SUCCESS or CUDA_ERROR_* code"
        if why is None:
            print("ok %d - %s" % (n, name))
        else:
            print("not ok %d - %s: %s" % (n, name, why))
    total = len(decls)
    coded = sum(1 for line, _, rc, _ in decls
                if rc and (c := comment_above(lines, line)) is not None and CODE.search(c))
    with_code = sum(1 for _, _, rc, _ in decls if rc)
    print("# %d of %d public functions have a comment of their own" % (documented, total))
    print("# %d of %d functions returning CUresult name a code in it" % (coded, with_code))
    failed = documented != total or coded != with_code
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
