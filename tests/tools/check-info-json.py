#!/usr/bin/env python3
"""Run cushim-info (or any program) and check its exit code and, by default, its JSON output.

Usage: check-info-json.py PROGRAM [ARGS...] [--expect-exit N] [--expect-status WORD]
                          [--expect-in-message TEXT] [--expect-stdout TEXT]
                          [--expect-stderr TEXT] [--expect-mock LIST_MD]
                          [--expect-once TEXT] [--expect-devices-listed N]
                          [--expect-devices NAME,NAME...] [--no-json]

The options above are taken by this script wherever they appear; every other argument goes to
PROGRAM, in order. Without --no-json, stdout must be exactly one JSON object with the fields
cushim-info documents. --expect-mock takes the mock's generated list of entries
(mock-entries.md): the driver must be that mock, and cushim-info must give the list's "N of M"
figures, in "mock" of the JSON or on the "mock driver" line of the text. --expect-once: TEXT
occurs exactly once in stdout and stderr together (a reason said once).
--expect-devices-listed N: the JSON lists N devices and its "devices_cut" says the list was cut
there.
--expect-devices
takes the devices' names in ordinal order: "devices" must list exactly those, with ordinals
0, 1, ... in the JSON; in the text, "devices: N" and a "device i:" section with each name.
Exits 0 when every
check passes, 1 (with the reason) otherwise.
"""

import json
import re
import subprocess
import sys

REQUIRED = {
    "status": str, "result": str, "message": str, "driver_version": int, "header_version": int,
    "entries": dict, "devices": list,
}


def parse(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    opts = {"exit": 0, "status": None, "in_message": None, "stdout": None, "stderr": None,
            "mock": None, "once": None, "listed": None, "devices": None, "json": True, "libs": []}
    takes_value = {"--expect-exit": "exit", "--expect-status": "status",
                   "--expect-in-message": "in_message", "--expect-stdout": "stdout",
                   "--expect-stderr": "stderr", "--expect-mock": "mock",
                   "--expect-once": "once",
                   "--expect-devices-listed": "listed",
                   "--expect-devices": "devices"}
    program, rest, args = argv[1], argv[2:], []
    i = 0
    while i < len(rest):
        a = rest[i]
        if a in takes_value:
            if i + 1 >= len(rest):
                sys.exit("check-info-json: %s needs a value" % a)
            opts[takes_value[a]] = rest[i + 1]
            i += 2
            continue
        if a == "--expect-lib":
            # KEY=STATUS[:TEXT]: libraries.KEY has that status, and TEXT in its message
            if i + 1 >= len(rest):
                sys.exit("check-info-json: --expect-lib needs a value")
            opts["libs"].append(rest[i + 1])
            i += 2
            continue
        if a == "--no-json":
            opts["json"] = False
        else:
            args.append(a)
        i += 1
    opts["exit"] = int(opts["exit"])
    return program, args, opts


def check_json(out, opts, fail):
    try:
        doc = json.loads(out.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        fail("stdout is not valid JSON (%s)" % e)
    if not isinstance(doc, dict):
        fail("stdout is JSON but not an object")
    for key, kind in REQUIRED.items():
        if not isinstance(doc.get(key), kind):
            fail("field %r is missing or not a %s" % (key, kind.__name__))
    if "path" not in doc or not (doc["path"] is None or isinstance(doc["path"], str)):
        fail("field 'path' is missing or neither a string nor null")
    if doc["status"] != "loaded" and doc["devices"] != []:
        fail("status is %r but devices is not []" % doc["status"])
    if opts["status"] is not None and doc["status"] != opts["status"]:
        fail("status is %r, expected %r" % (doc["status"], opts["status"]))
    if opts["in_message"] is not None and opts["in_message"] not in doc["message"]:
        fail("message %r does not contain %r" % (doc["message"], opts["in_message"]))
    check_libs(doc, opts, fail)
    if "mock" not in doc or not (doc["mock"] is None or isinstance(doc["mock"], dict)):
        fail("field 'mock' is missing or neither an object nor null")
    if opts["listed"] is not None:
        n = int(opts["listed"])
        if len(doc["devices"]) != n:
            fail("%d devices listed, expected %d" % (len(doc["devices"]), n))
        if not isinstance(doc.get("devices_cut"), str) or "first %d" % n not in doc["devices_cut"]:
            fail("devices_cut %r does not say the list was cut at %d" % (doc.get("devices_cut"), n))
    if opts["devices"] is not None:
        want = opts["devices"].split(",")
        got = [(d.get("ordinal"), d.get("name")) for d in doc["devices"]]
        if got != list(enumerate(want)):
            fail("devices are %r, expected %r" % (got, list(enumerate(want))))
    if opts["mock"] is not None:
        done, total = list_figures(opts["mock"], fail)
        if doc["mock"] != {"implemented": done, "total": total}:
            fail("mock is %r, the list says %d of %d" % (doc["mock"], done, total))
        if doc["entries"].get("total") != total:
            fail("entries.total is %r, the mock's list has %d entries"
                 % (doc["entries"].get("total"), total))
    elif doc["mock"] is not None:
        fail("mock is %r for a driver that is not the mock" % doc["mock"])


LIB_FIELDS = {"name": str, "status": str, "result": str, "message": str, "header_version": str,
              "env": str, "entries": dict}


def check_libs(doc, opts, fail):
    """NVRTC and nvJitLink, each with its status, and the ones asked for as asked."""
    libs = doc.get("libraries")
    if not isinstance(libs, dict) or set(libs) != {"nvrtc", "nvjitlink"}:
        fail("field 'libraries' is missing or does not hold nvrtc and nvjitlink: %r" % (libs,))
    for key, lib in libs.items():
        for field, kind in LIB_FIELDS.items():
            if not isinstance(lib.get(field), kind):
                fail("libraries.%s.%s is missing or not a %s" % (key, field, kind.__name__))
        if (lib["status"] == "loaded") != isinstance(lib.get("path"), str):
            fail("libraries.%s: status %r with path %r" % (key, lib["status"], lib.get("path")))
    for want in opts["libs"]:
        key, _, rest = want.partition("=")
        status, _, text = rest.partition(":")
        if libs.get(key, {}).get("status") != status:
            fail("libraries.%s.status is %r, expected %r" % (key, libs.get(key, {}).get("status"),
                                                            status))
        if text and text not in libs[key]["message"]:
            fail("libraries.%s.message %r does not contain %r" % (key, libs[key]["message"], text))


def list_figures(path, fail):
    """The "**N of M entries implemented**" of the mock's generated list."""
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        fail("cannot read the mock's list: %s" % e)
    m = re.search(r"\*\*(\d+) of (\d+) entries implemented\*\*", text)
    if not m:
        fail("%s has no 'N of M entries implemented' line" % path)
    return int(m.group(1)), int(m.group(2))


def main():
    program, args, opts = parse(sys.argv)
    try:
        p = subprocess.run([program] + args, capture_output=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        sys.exit("check-info-json: could not run %s: %s" % (program, e))

    def fail(why):
        sys.stderr.write("check-info-json: %s %s: %s\n--- stdout ---\n%s\n--- stderr ---\n%s\n"
                         % (program, " ".join(args), why, p.stdout.decode("utf-8", "replace"),
                            p.stderr.decode("utf-8", "replace")))
        sys.exit(1)

    if p.returncode != opts["exit"]:
        fail("exit code %d, expected %d" % (p.returncode, opts["exit"]))
    if opts["stdout"] is not None and opts["stdout"].encode() not in p.stdout:
        fail("stdout does not contain %r" % opts["stdout"])
    if opts["stderr"] is not None and opts["stderr"].encode() not in p.stderr:
        fail("stderr does not contain %r" % opts["stderr"])
    if opts["once"] is not None:
        seen = (p.stdout + p.stderr).count(opts["once"].encode())
        if seen != 1:
            fail("%r occurs %d times in stdout and stderr, expected once" % (opts["once"], seen))
    if opts["json"]:
        check_json(p.stdout, opts, fail)
    elif opts["devices"] is not None:
        text = p.stdout.decode("utf-8", "replace")
        want = opts["devices"].split(",")
        if not re.search(r"^devices:\s+%d$" % len(want), text, re.M):
            fail("stdout does not say devices: %d" % len(want))
        sections = re.split(r"^device (\d+):$", text, flags=re.M)
        names = {int(sections[i]): sections[i + 1] for i in range(1, len(sections) - 1, 2)}
        for i, name in enumerate(want):
            if i not in names or name not in names[i]:
                fail("no 'device %d:' section naming %r" % (i, name))
    elif opts["mock"] is not None:
        done, total = list_figures(opts["mock"], fail)
        want = re.compile(r"^mock driver: +%d of %d entries implemented \(the rest answer "
                          r"CUDA_ERROR_NOT_SUPPORTED\)$" % (done, total), re.M)
        if not want.search(p.stdout.decode("utf-8", "replace")):
            fail("no line 'mock driver: %d of %d entries implemented (...)'" % (done, total))


if __name__ == "__main__":
    main()
