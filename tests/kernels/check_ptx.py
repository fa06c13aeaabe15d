#!/usr/bin/env python3
"""Fails when a committed PTX file of the kernel suite is not what nvcc makes of its source today.

Usage: check_ptx.py COMMITTED_DIR GENERATED.ptx...

The committed files let a machine without nvcc run the suite; this check keeps them current where
nvcc exists. Another nvcc release writes other (equally valid) PTX, so a file written by another
release is not compared: the test skips (77) and says which releases differ.
"""
import os
import sys


def release(text):
    """The 'Cuda compilation tools, release X, VY' line nvcc writes at the top, or None."""
    for line in text.splitlines()[:10]:
        if line.startswith('// Cuda compilation tools'):
            return line[3:].strip()
    return None


def main():
    committed_dir, generated = sys.argv[1], sys.argv[2:]
    stale, other = [], set()
    for path in generated:
        name = os.path.basename(path)
        with open(path, encoding='utf-8') as f:
            new = f.read()
        try:
            with open(os.path.join(committed_dir, name), encoding='utf-8') as f:
                old = f.read()
        except FileNotFoundError:
            stale.append(name + ' (not committed)')
            continue
        if release(old) != release(new):
            other.add('%s: committed by %s, this nvcc is %s' % (name, release(old), release(new)))
        elif old != new:
            stale.append(name)
    if stale:
        print('committed PTX is stale: ' + ', '.join(stale))
        print('regenerate with: ninja -C build kernels-ptx-update')
        return 1
    if other:
        print('skip: another nvcc release; not compared:\n' + '\n'.join(sorted(other)))
        return 77
    print('%d committed PTX files are current' % len(generated))
    return 0


if __name__ == '__main__':
    sys.exit(main())
