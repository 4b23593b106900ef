#!/usr/bin/env python3
"""The FMA probe's assembly rounds do the operations its rates are computed from.

harness/bench/fma_probe.c computes each rate as operations counted by ops_per_thread() over the
time its rounds took; on x86-64-v3 and v4 the add and mix rounds are inline assembly. A round
edited without its count (or a count without its round) would make every ceiling in the bench
wrong without failing anything else. This reads the counts from fma_probe.c's macros and the
rounds from oscbench-bench's run_chains_v3 and run_chains_v4 (objdump), and fails unless each
kind's round appears, in double and in float, with the counted FMAs and adds (the compiler may
place a round more than once).

    check_probe.py OBJDUMP FMA_PROBE_C OSCBENCH_BENCH
"""
import re
import subprocess
import sys


def macros(source):
    """The probe's chain counts (vectors and passes per round) from its #defines."""
    text = open(source).read()

    def define(name):
        m = re.search(r'^#define %s(\([A-Z]+\))?\s+(.+)$' % name, text, re.M)
        if not m:
            raise SystemExit(f'check_probe.py: {source}: no #define {name}')
        return m.group(2).strip()

    def number(name):
        return int(define(name))

    def wide_narrow(name):  # ((BYTES) == WIDE_BYTES ? W : N)
        m = re.match(r'\(\(BYTES\) == WIDE_BYTES \? (\d+) : (\d+)\)$', define(name))
        if not m:
            raise SystemExit(f'check_probe.py: {name}: expected ((BYTES) == WIDE_BYTES ? W : N)')
        return int(m.group(1)), int(m.group(2))

    def bytes_of(name):  # (K * V)
        m = re.match(r'\((\d+) \* (\d+)\)$', define(name))
        if not m:
            raise SystemExit(f'check_probe.py: {name}: expected (K * V)')
        return int(m.group(1)) * int(m.group(2))

    fma_v, add_v = wide_narrow('MIX_FMA_VECTORS'), wide_narrow('MIX_ADD_VECTORS')
    fp, ap = number('MIX_FMA_PASSES'), number('MIX_ADD_PASSES')
    bf, ba = number('MIX_B_FMA_VECTORS'), number('MIX_B_ADD_VECTORS')
    bfp, bap = number('MIX_B_FMA_PASSES'), number('MIX_B_ADD_PASSES')
    want = {}
    for isa, width, vector, i in (('v4', 'zmm', 64, 0), ('v3', 'ymm', 32, 1)):
        chains = bytes_of('WIDE_BYTES' if i == 0 else 'NARROW_BYTES') // vector
        want[isa] = (width, {'add': (0, chains),
                             'mix': (fma_v[i] * fp, add_v[i] * ap),
                             'mix, second shape': (bf * bfp, ba * bap)})
    return want


def loops(objdump, exe, function):
    """(fma, add, register width, precision) of each loop in `function` made only of FMAs and
    adds of one precision."""
    out = subprocess.run([objdump, '-d', '--no-show-raw-insn', exe], check=True,
                         capture_output=True, text=True).stdout
    m = re.search(r'^[0-9a-f]+ <%s>:\n(.*?)(?:\n\n|\Z)' % function, out, re.M | re.S)
    if not m:
        raise SystemExit(f'check_probe.py: {exe}: no function {function}')
    body = []
    for line in m.group(1).split('\n'):
        parts = line.split('\t')
        if len(parts) >= 2 and ':' in parts[0]:
            body.append((int(parts[0].strip().rstrip(':'), 16), '\t'.join(parts[1:]).strip()))
    found = []
    for at, insn in body:
        jump = re.match(r'j(ne|nz)\s+([0-9a-f]+)', insn)
        if not jump or int(jump.group(2), 16) >= at:
            continue
        loop = [i for a, i in body if int(jump.group(2), 16) <= a < at]
        ops = [i for i in loop if i.startswith('v')]  # the rest is the loop's counter
        if ops and all(re.match(r'v(fmadd|add)', i) for i in ops):
            widths = {w for i in ops for w in re.findall(r'%([xyz]mm)\d+', i)}
            precs = {re.match(r'v\w+?p([sd])\s', i).group(1) if re.match(r'v\w+?p([sd])\s', i)
                     else '?' for i in ops}
            found.append((sum(i.startswith('vfmadd') for i in ops),
                          sum(i.startswith('vadd') for i in ops),
                          ','.join(sorted(widths)), ','.join(sorted(precs))))
    return found


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    objdump, source, exe = sys.argv[1:]
    failures = 0
    for isa, (width, kinds) in macros(source).items():
        found = loops(objdump, exe, f'run_chains_{isa}')
        for kind, (fmas, adds) in kinds.items():
            missing = [name for prec, name in (('d', 'double'), ('s', 'float'))
                       if (fmas, adds, width, prec) not in found]
            failures += bool(missing)
            print(f'{"FAIL" if missing else "ok"} {isa} {kind}: {fmas} FMAs and {adds} adds a '
                  f'round in {width}' + (f': no such round in {" or ".join(missing)}'
                                          if missing else ', double and float'))
        if failures:
            print(f'  loops of run_chains_{isa} (FMAs, adds, registers, precision): {found}')
    if failures:
        raise SystemExit(f'{failures} of the probe\'s rounds do not do what ops_per_thread counts')


if __name__ == '__main__':
    main()
