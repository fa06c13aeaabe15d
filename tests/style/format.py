#!/usr/bin/env python3
"""Formats the C sources with clang-format and the root .clang-format, or checks that they are.

Usage: format.py --clang-format PATH --root DIR [--check]

Without --check every file is rewritten in place (the Meson run target `format`). With --check
nothing is written: each file that clang-format would change is named, and the exit status is 1
(the Meson test `format`). The check is made with clang-format 14, the version CI installs
(Debian 12); another major version may lay out a few constructs differently, so there the check
is skipped (exit 77) rather than fail on a difference of versions.
"""
import argparse
import pathlib
import re
import subprocess
import sys

# What is formatted: every .c and .h below these folders of the source tree.
ROOTS = ["include", "src", "runtime", "mock", "tools", "tests", "examples"]
# Left out for now, each for a reason. Generated files are never in the tree (they are written
# into the build directory), so they need no entry here.
EXCLUDED = [
]
CHECKED_MAJOR = 14


def files(root):
    out = []
    for top in ROOTS:
        for path in sorted((root / top).rglob("*")):
            rel = path.relative_to(root).as_posix()
            if path.suffix not in (".c", ".h") or not path.is_file():
                continue
            if any(rel == e or (e.endswith("/") and rel.startswith(e)) for e in EXCLUDED):
                continue
            out.append(path)
    return out


def major_version(clang_format):
    text = subprocess.run([clang_format, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"version (\d+)\.", text)
    return int(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clang-format", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    root = pathlib.Path(args.root)
    paths = files(root)
    if not paths:
        print(f"format: no C sources found below {root}", file=sys.stderr)
        return 1
    style = "--style=file"  # the .clang-format at the root, found from each file's folder
    if not args.check:
        subprocess.run([args.clang_format, style, "-i", *map(str, paths)], check=True)
        print(f"format: {len(paths)} files formatted")
        return 0
    major = major_version(args.clang_format)
    if major != CHECKED_MAJOR:
        print(f"format: the check is made with clang-format {CHECKED_MAJOR} (as in CI); "
              f"{args.clang_format} is version {major}, so it is skipped")
        return 77
    bad = []
    for path in paths:
        original = path.read_bytes()
        formatted = subprocess.run([args.clang_format, style, str(path)], capture_output=True,
                                   check=True).stdout
        if formatted != original:
            bad.append(path.relative_to(root).as_posix())
    for rel in bad:
        print(f"format: {rel} is not formatted")
    if bad:
        print(f"format: {len(bad)} of {len(paths)} files need `ninja -C <build> format`")
        return 1
    print(f"format: all {len(paths)} files are formatted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
