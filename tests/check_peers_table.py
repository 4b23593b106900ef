#!/usr/bin/env python3
"""check_peers_table.py PYTHON TABLE_PY: harness/bench/peers/table.py's verdict against the aims,
on made-up Google Benchmark JSON whose every figure is chosen here: which rows meet the aim of
their ISA path, which miss it (shown to 3 decimals where 2 would read as the aim), which are
inconclusive (the peak sampled beside them dipped), and float / double against 1.8x."""
import json
import os
import subprocess
import sys
import tempfile

LANES = 1048576
PEAK = 5e10


def step(method, precision, roof, osc_steps, peak_beside=PEAK, threads1=False):
    name = f'step/{method}/{precision}/{LANES}' + ('/threads:1' if threads1 else '')
    return {'run_name': name, 'aggregate_name': 'median', 'ops_fma': 3, 'ops_add': 1,
            'osc_steps_per_s': osc_steps, 'roof_fraction': roof, 'peak_fraction': roof,
            'cpu_roof_fraction': roof, 'peak_beside_fma_per_s': peak_beside, 'peak_spread': 0.1}


def method(name, roof, float_ratio, peak_beside=PEAK):
    d = 1e10
    return [step(name, 'double', roof, d, peak_beside), step(name, 'float', roof, d * float_ratio),
            step(name, 'double', roof, d / 2, threads1=True)]


def table(isa, benchmarks):
    run = {'context': {'kernel_isa': isa, 'omp_threads': '2'}, 'benchmarks': benchmarks}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'bench.json')
        with open(path, 'w') as f:
            json.dump(run, f)
        out = subprocess.run([sys.argv[1], sys.argv[2], path], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f'table.py failed ({out.returncode}): {out.stderr}')
    return out.stdout


def verdicts(text):
    lines = {}
    for line in text.splitlines():
        for label in ('met', 'missed', 'inconclusive'):
            if line.startswith(f'  {label}'):
                lines[label] = line.split(': ', 1)[1]
    return lines


failures = []
checks = 0


def expect(what, got, want):
    global checks
    checks += 1
    if got != want:
        failures.append(f'{what}: got {got!r}, want {want!r}')


v3 = verdicts(table('x86-64-v3', method('euler', 0.85, 2.0) + method('semi-implicit', 0.799, 1.9)
                    + method('verlet', 0.66, 1.5) + method('stormer', 0.30, 2.0, PEAK / 2)
                    + method('rk4', 0.649, 1.8)))
expect('v3 met', v3.get('met'), 'euler 0.85, verlet 0.66')
expect('v3 missed', v3.get('missed'),
       'semi-implicit 0.799 (aim 0.80), verlet float / double 1.50 (aim 1.8), rk4 0.649 (aim 0.65)')
expect('v3 inconclusive', v3.get('inconclusive'), 'stormer 0.30')

v4 = verdicts(table('x86-64-v4', method('semi-implicit', 0.84, 2.0) + method('verlet', 0.80, 2.0)))
expect('v4 met', v4.get('met'), 'verlet 0.80')
expect('v4 missed', v4.get('missed'), 'semi-implicit 0.84 (aim 0.85)')
expect('v4 inconclusive', v4.get('inconclusive'), 'none')

base = table('x86-64 (baseline)', method('euler', 0.1, 2.0))
expect('baseline', 'aims: none for the kernels\' path x86-64 (baseline)' in base, True)
expect('baseline has no verdict', verdicts(base), {})

if failures:
    sys.exit('\n'.join(failures))
print(f'table.py verdicts: {checks} checks passed')
