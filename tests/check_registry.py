#!/usr/bin/env python3
"""Fails when a method file and the registry disagree.

lib/meson.build builds exactly the methods lib/registry.c lists (its X(name) lines), so a method
file without its registry line would be silently left out of the build, and a registry line
without its file fails only at configure time with a terse message. This test names both.

usage: check_registry.py SOURCE_DIR
"""
import pathlib
import re
import sys


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    lib = pathlib.Path(sys.argv[1]) / 'lib'
    listed = re.findall(r'^\s*X\((\w+)\)', (lib / 'registry.c').read_text(), re.M)
    files = {p.stem for p in (lib / 'methods').glob('*.c')
             if '#include "method_template.h"' in p.read_text()}
    failures = [f'lib/methods/{m}.c is a method (it includes method_template.h) but '
                f'lib/registry.c has no X({m}) line: it is not built' for m in sorted(files - set(listed))]
    failures += [f'lib/registry.c lists X({m}) but lib/methods/{m}.c does not exist or does not '
                 f'include method_template.h' for m in listed if m not in files]
    failures += [f'lib/registry.c lists X({m}) twice' for m in sorted(set(listed))
                 if listed.count(m) > 1]
    for f in failures:
        print('FAIL ' + f)
    print(f'{len(listed)} registry entries, {len(files)} method files, {len(failures)} failures')
    return 1 if failures or not listed else 0


if __name__ == '__main__':
    sys.exit(main())
