#!/usr/bin/env python3
"""harness/bench/loop_alone.py's usage errors: each is one line on stderr naming the option,
exit status 2, nothing on stdout, and no time spent (no loop extracted or timed); and a method
named either way (semi-implicit, semi_implicit) is found.

usage: check_loop_alone_cli.py PYTHON LOOP_ALONE BUILD_DIR
"""
import subprocess
import sys


def cpu_has_avx512():
    with open('/proc/cpuinfo') as f:
        return ' avx512f' in f.read()


def main():
    python, tool, build = sys.argv[1:4]
    # (arguments, a word the one-line message must contain)
    cases = [
        (['--harness', '100'], '--harness 100'),
        (['--harness', '-128'], '--harness -128'),
        (['--harness', 'x'], '--harness'),
        (['--rounds', '0'], '--rounds'),
        (['--threads', '0'], '--threads'),
        (['--precision', 'half'], '--precision'),
        (['--no-such-option'], '--no-such-option'),
        (['--build', build + '/no-such-dir'], 'no-such-dir'),
        (['--build', build, 'no_such_method'], 'no_such_method'),
    ]
    if not cpu_has_avx512():
        cases.append((['--build', build, '--isa', 'v4'], 'AVX-512F'))
    failures = 0
    for args, word in cases:
        r = subprocess.run([python, tool] + args, capture_output=True, text=True, timeout=60)
        lines = r.stderr.splitlines()
        ok = (r.returncode == 2 and r.stdout == '' and len(lines) == 1
              and lines[0].startswith('loop_alone.py: ') and word in lines[0])
        print(f"{'ok  ' if ok else 'FAIL'} {' '.join(args)}: exit {r.returncode}, "
              f"{len(lines)} stderr line(s): {r.stderr.strip()[:200]}")
        failures += not ok
    # A method by the name the library gives it (semi-implicit) or by its file (semi_implicit).
    names = ('semi-implicit', 'semi_implicit')
    for name in names:
        r = subprocess.run([python, tool, '--build', build, '--dry-run', name], capture_output=True,
                           text=True, timeout=120)
        lines = r.stdout.splitlines()
        ok = r.returncode == 0 and len(lines) == 1 and lines[0].startswith('semi_implicit: ')
        print(f"{'ok  ' if ok else 'FAIL'} --dry-run {name}: exit {r.returncode}, {r.stdout.strip()}"
              f"{r.stderr.strip()[:200]}")
        failures += not ok
    print(f'{len(cases) + len(names)} cases, {failures} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
