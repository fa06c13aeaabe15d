#!/usr/bin/env python3
"""Fails when a shared library is marked DF_STATIC_TLS (it uses initial-exec thread-local data),
since dlopen of such a library fails in a process whose static TLS room is used up.

    check-no-static-tls.py LIBRARY
"""
import struct
import sys

PT_DYNAMIC, DT_NULL, DT_FLAGS, DF_STATIC_TLS = 2, 0, 30, 0x10

path = sys.argv[1]
with open(path, "rb") as f:
    data = f.read()
if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
    sys.exit(f"FAIL: {path} is not a 64-bit little-endian ELF file")
phoff, = struct.unpack_from("<Q", data, 0x20)
phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
for i in range(phnum):
    p_type, _, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
    if p_type != PT_DYNAMIC:
        continue
    for at in range(p_offset, p_offset + p_filesz, 16):
        tag, value = struct.unpack_from("<qQ", data, at)
        if tag == DT_NULL:
            break
        if tag == DT_FLAGS and value & DF_STATIC_TLS:
            sys.exit(f"FAIL: {path} has DF_STATIC_TLS: it uses initial-exec TLS, so dlopen may "
                     "fail with 'cannot allocate memory in static TLS block'")
    print(f"PASS: {path} has no DF_STATIC_TLS")
    sys.exit(0)
sys.exit(f"FAIL: {path} has no dynamic section")
