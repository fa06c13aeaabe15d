#!/usr/bin/env python3
"""Compiles one source that includes a public header with one compiler, once per language
standard, with -Wall -Wextra -pedantic -Werror, and reports each as a TAP test.

    check_header.py COMPILER c|c++ SOURCE [--dir-of FILE | FLAG]...

--dir-of FILE puts -I<directory of FILE> at that place among the flags: Meson passes generated
headers that way (and so builds them before the test).

C: c11 and c17. C++: c++11, c++14, c++17, c++20 and c++23; a compiler that does not know
-std=c++23 yet (clang 14) gets its older name, c++2b. A failure shows the first errors.
"""
import os
import subprocess
import sys
import tempfile

STANDARDS = {
    'c': [['c11'], ['c17']],
    'c++': [['c++11'], ['c++14'], ['c++17'], ['c++20'], ['c++23', 'c++2b']],
}
WARNINGS = ['-Wall', '-Wextra', '-pedantic', '-Werror']


def accepts(compiler, lang, std):
    """Whether the compiler knows -std=std, from an empty translation unit."""
    probe = subprocess.run([compiler, '-x', lang, '-std=' + std, '-fsyntax-only', '-'],
                           input='', capture_output=True, text=True)
    return probe.returncode == 0


def main():
    if len(sys.argv) < 4 or sys.argv[2] not in STANDARDS:
        sys.exit(__doc__)
    compiler, lang, source, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    flags = []
    while args:
        arg = args.pop(0)
        if arg == '--dir-of':
            header = args.pop(0)
            if not os.path.isfile(header):
                sys.exit('%s was not generated' % header)
            flags.append('-I' + os.path.dirname(os.path.abspath(header)))
        else:
            flags.append(arg)
    name = os.path.basename(compiler)
    print('1..%d' % len(STANDARDS[lang]))
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, spellings in enumerate(STANDARDS[lang], 1):
            std = next((s for s in spellings if accepts(compiler, lang, s)), None)
            label = '%s -std=%s %s' % (name, std or spellings[0], os.path.basename(source))
            if std is None:
                print('not ok %d - %s: the compiler accepts none of -std=%s' %
                      (i, label, ', -std='.join(spellings)))
                failed += 1
                continue
            cmd = ([compiler, '-x', lang, '-std=' + std] + WARNINGS + flags +
                   ['-c', source, '-o', os.path.join(tmp, 'out.o')])
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode == 0:
                print('ok %d - %s' % (i, label))
                continue
            failed += 1
            errors = [l for l in run.stderr.splitlines() if 'error:' in l]
            print('not ok %d - %s: %d errors' % (i, label, len(errors)))
            print('# ' + ' '.join(cmd))
            for line in (errors or run.stderr.splitlines())[:5]:
                print('#   ' + line)
    print('# %s: %d of %d standards compile %s' %
          (name, len(STANDARDS[lang]) - failed, len(STANDARDS[lang]), os.path.basename(source)))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
