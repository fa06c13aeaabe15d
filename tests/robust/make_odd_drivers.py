#!/usr/bin/env python3
"""Writes files that are not driver libraries, for the loader's CUSHIM_DRIVER tests.

    make_odd_drivers.py OUTDIR ELF

text.so is text long enough to have an ELF header's size; empty.so is empty; the two ELF files
are the start of a real shared object (ELF): its first 40 bytes, shorter than an ELF header, and
its first 64, the header alone with the program headers it points to missing; elf-cut.so is its
first 20000 bytes, headers whole and segments missing (dlopen maps such a file and dies of SIGBUS,
so cushim must refuse it first); fifo.so is a named pipe (dlopen would block on it forever).
"""
import os
import sys

outdir, elf = sys.argv[1], sys.argv[2]
with open(elf, 'rb') as f:
    whole = f.read()
head = whole[:64]
if head[:4] != b'\x7fELF' or len(head) < 64:
    sys.exit(f'{elf} is not an ELF file')
files = {
    'text.so': b'This is a text file with a .so name; it is not a shared library.\n' * 4,
    'empty.so': b'',
    'elf-40-bytes.so': head[:40],
    'elf-header-only.so': head,
    'elf-cut.so': whole[:20000],
}
if len(whole) <= 20000:
    sys.exit(f'{elf} is too small to be cut at 20000 bytes')
fifo = os.path.join(outdir, 'fifo.so')
if os.path.lexists(fifo):
    os.unlink(fifo)
os.mkfifo(fifo)
for name, data in files.items():
    with open(os.path.join(outdir, name), 'wb') as f:
        f.write(data)
