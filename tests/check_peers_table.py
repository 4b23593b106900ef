#!/usr/bin/env python3
"""check_peers_table.py PYTHON TABLE_PY: harness/bench/peers/table.py's verdict against the aims,
on made-up Google Benchmark JSON whose every figure is chosen here: which rows meet the aim of
their ISA path, which miss it (shown to more decimals where 2 would read as the aim), which are
inconclusive (the peak sampled beside them dipped, or their repetitions fall on both sides of the
aim), and float / double against 1.8x, over every pairing of the two precisions' repetitions."""
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


def repetitions(median, roofs, osc_steps):
    """The repetitions of median's benchmark, each with its own roof_fraction (and osc-steps/s in
    proportion), after its aggregates as Google Benchmark writes them without
    --benchmark_report_aggregates_only."""
    reps = []
    for i, r in enumerate(roofs):
        r, peak, *share = r if isinstance(r, tuple) else (r, median['peak_beside_fma_per_s'])
        rep = dict(median, run_type='iteration', aggregate_name=None, roof_fraction=r,
                   osc_steps_per_s=osc_steps * r / median['roof_fraction'],
                   peak_beside_fma_per_s=peak, repetition_index=i)
        if share:
            rep['cpu_share'] = share[0]
        reps.append(rep)
    return reps


def method(name, roof, float_ratio, peak_beside=PEAK, roofs=(), float_roofs=(), share=None):
    """A method's double, float and one-thread double medians; roofs and float_roofs are the double
    and float repetitions' roof_fraction, or (roof_fraction, peak sampled beside[, cpu_share])
    (none: the JSON has only the aggregates); share: the double median's cpu_share (None: the
    counter absent, as in JSON from before it)."""
    d = 1e10
    double = step(name, 'double', roof, d, peak_beside)
    if share is not None:
        double['cpu_share'] = share
    single = step(name, 'float', roof, d * float_ratio)
    return ([double, single, step(name, 'double', roof, d / 2, threads1=True)]
            + repetitions(double, roofs, d) + repetitions(single, float_roofs, d * float_ratio))


def table_run(text):
    """table.py on a file holding text: its exit status, stdout, stderr and the file's path."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'bench.json')
        with open(path, 'w') as f:
            f.write(text)
        out = subprocess.run([sys.argv[1], sys.argv[2], path], capture_output=True, text=True)
    return out.returncode, out.stdout, out.stderr, path


def table(isa, benchmarks):
    run = {'context': {'kernel_isa': isa, 'omp_threads': '2'}, 'benchmarks': benchmarks}
    status, stdout, stderr, _ = table_run(json.dumps(run))
    if status != 0:
        sys.exit(f'table.py failed ({status}): {stderr}')
    return stdout


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
                    + method('rk4', 0.649, 1.8) + method('forest-ruth', 0.6497, 1.8)))
expect('v3 met', v3.get('met'), 'euler 0.85, verlet 0.66')
expect('v3 missed', v3.get('missed'),
       'semi-implicit 0.799 (aim 0.80), verlet float / double 1.50 (aim 1.8), '
       'rk4 0.649 (aim 0.65), forest-ruth 0.6497 (aim 0.65)')
expect('v3 inconclusive', v3.get('inconclusive'), 'stormer 0.30 (peak dipped beside it)')

# With repetitions every one must be on the aim's side: a median above the aim with one repetition
# below is inconclusive, not met; the float / double ratio spans min float / max double to max
# float / min double (here 1.9 * [0.9, 1.1] / [0.95, 1.05]: 1.63-2.20, on both sides of 1.8).
reps = verdicts(table('x86-64-v3',
                      method('euler', 0.85, 2.0, roofs=(0.82, 0.85, 0.90), float_roofs=(0.85, 0.86))
                      + method('semi-implicit', 0.82, 2.0, roofs=(0.79, 0.82, 0.84))
                      + method('verlet', 0.60, 2.0, roofs=(0.58, 0.60, 0.649))
                      + method('stormer', 0.70, 1.9, roofs=(0.7 * 0.95, 0.7 * 1.05),
                               float_roofs=(0.7 * 0.9, 0.7 * 1.1))))
expect('repetitions met', reps.get('met'), 'euler 0.85, stormer 0.70')
expect('repetitions missed', reps.get('missed'), 'verlet 0.60 (aim 0.65)')
expect('repetitions inconclusive', reps.get('inconclusive'),
       'semi-implicit 0.82 (repetitions 0.79-0.84 on both sides of 0.80), '
       'stormer float / double 1.90 (repetitions 1.63-2.20 on both sides of 1.8)')

v4 = verdicts(table('x86-64-v4', method('semi-implicit', 0.84, 2.0) + method('verlet', 0.80, 2.0)))
expect('v4 met', v4.get('met'), 'verlet 0.80')
expect('v4 missed', v4.get('missed'), 'semi-implicit 0.84 (aim 0.85)')
expect('v4 inconclusive', v4.get('inconclusive'), 'none')

base = table('x86-64 (baseline)', method('euler', 0.1, 2.0))
expect('baseline', 'aims: none for the kernels\' path x86-64 (baseline)' in base, True)
expect('baseline has no verdict', verdicts(base), {})

# A repetition whose own peak sample beside dipped (below 3/4 of the run's largest sample) is
# dropped before judging; a figure with fewer than 2 left is inconclusive, whatever its median.
low = PEAK / 2
dips = verdicts(table('x86-64-v3',
                      method('verlet', 0.66, 2.0, roofs=((0.30, low), 0.70, 0.72))
                      + method('stormer', 0.66, 2.0, peak_beside=low,
                               roofs=((0.66, low), (0.60, PEAK), (0.62, PEAK)),
                               float_roofs=(0.66, 0.66))
                      + method('rk4', 0.70, 2.0, roofs=((0.50, low), (0.70, low), (0.72, low)),
                               float_roofs=(0.70, 0.70))
                      + method('implicit-midpoint', 0.90, 2.0,
                               roofs=((0.90, low), (0.95, low), (0.70, PEAK)),
                               float_roofs=(0.90, 0.90))
                      + method('forest-ruth', 0.70, 2.0, roofs=(0.70, 0.71, 0.72),
                               float_roofs=((0.2, low), 0.70, 0.71))
                      + method('suzuki-verlet', 0.70, 2.0, roofs=(0.70, 0.71, 0.72),
                               float_roofs=((0.2, low), (0.2, low), 0.70))))
expect('dipped repetitions met', dips.get('met'),
       'verlet 0.70-0.72 (2 of 3 kept), forest-ruth 0.70, suzuki-verlet 0.70')
expect('dipped repetitions missed', dips.get('missed'),
       'stormer 0.60-0.62 (2 of 3 kept; aim 0.65)')
expect('dipped repetitions inconclusive', dips.get('inconclusive'),
       'rk4 0.70 (peak dipped beside 3 of 3 repetitions), '
       'implicit-midpoint 0.90 (peak dipped beside 2 of 3 repetitions), '
       'suzuki-verlet float / double 2.00 (peak dipped beside 2 of 6 repetitions)')


# A repetition whose cpu_share is under 0.9 shared its cores during its timing (its real_time
# inflated, while the ~1 ms peak samples beside it read the full peak): dropped like a dipped one,
# and the verdict says why. Under load euler read roof_fraction 0.23 (cpu_roof_fraction 0.86) and
# was printed 'missed: euler 0.23'.
shared = verdicts(table('x86-64-v3',
                        method('euler', 0.24, 2.0, roofs=((0.23, PEAK, 0.5), (0.24, PEAK, 0.6),
                                                          (0.85, PEAK, 0.98)),
                               float_roofs=(0.85, 0.86))
                        + method('verlet', 0.70, 2.0, roofs=((0.30, PEAK, 0.5), (0.70, PEAK, 0.95),
                                                             0.72), float_roofs=(0.70, 0.70))
                        + method('stormer', 0.70, 2.0,
                                 roofs=((0.30, low), (0.30, PEAK, 0.5), (0.70, PEAK, 0.9)),
                                 float_roofs=(0.70, 0.70))
                        + method('rk4', 0.70, 2.0, roofs=(0.70, 0.71, 0.72),
                                 float_roofs=((0.2, PEAK, 0.4), (0.2, PEAK, 0.4), 0.70))))
expect('low cpu_share met', shared.get('met'), 'verlet 0.70-0.72 (2 of 3 kept), rk4 0.70')
expect('low cpu_share missed', shared.get('missed'), 'none')
expect('low cpu_share inconclusive', shared.get('inconclusive'),
       'euler 0.24 (CPU share under 0.9 in 2 of 3 repetitions), '
       'stormer 0.70 (peak dipped beside 1, CPU share under 0.9 in 1 of 3 repetitions), '
       'rk4 float / double 2.00 (CPU share under 0.9 in 2 of 6 repetitions)')
# Without repetitions the median's cpu_share decides; JSON without the counter is judged as before.
medians_only = verdicts(table('x86-64-v3', method('euler', 0.23, 2.0, share=0.5)
                              + method('verlet', 0.70, 2.0, share=0.95)
                              + method('rk4', 0.60, 2.0)))
expect('low cpu_share median', (medians_only.get('inconclusive'), medians_only.get('met'),
                                medians_only.get('missed')),
       ('euler 0.23 (CPU share under 0.9)', 'verlet 0.70', 'rk4 0.60 (aim 0.65)'))

# A step/ row without an operation count for its kernel has no ops_* and no ceiling counters (the
# base path): its cells read -, and on a path with aims it is inconclusive, never judged.
uncounted = [{k: v for k, v in b.items() if not k.startswith(('ops_', 'roof', 'cpu_roof'))}
             for b in method('verlet', 0.70, 2.0, roofs=(0.70, 0.71))]
out = table('x86-64 (baseline)', uncounted)
expect('no op count: cells', '| verlet | - | 1e+10 | - |' in out and '| 2.00 | 2.00 | - |' in out,
       True)
expect('no op count: inconclusive',
       verdicts(table('x86-64-v3', uncounted + method('euler', 0.85, 2.0))),
       {'met': 'euler 0.85', 'missed': 'none',
        'inconclusive': 'verlet (no operation count for its kernel on this path)'})

# Input it cannot make a table of is bad input: one line naming the file, exit 2, no table. A
# single repetition's JSON (no aggregates) printed an empty table and 'met: none' with exit 0.
single = [dict(b, run_type='iteration', aggregate_name=None)
          for b in method('euler', 0.85, 2.0) if b['aggregate_name'] == 'median']
for what, text in (('single repetition', json.dumps({'context': {}, 'benchmarks': single})),
                   ('not JSON', 'Running build/oscbench-bench\n'),
                   ('JSON, not Google Benchmark\'s', '[1, 2]'),
                   ('no benchmarks', json.dumps({'context': {}, 'benchmarks': []}))):
    status, stdout, stderr, path = table_run(text)
    expect(f'table.py on {what}', (status, stdout, stderr.count('\n'), path in stderr),
           (2, '', 1, True))


def run_sh(bench_script):
    """run.sh (beside table.py) with a stand-in BUILD_DIR/oscbench-bench, a shell script: its
    exit status and stderr. The peers are kept from running (a g++ that fails, numpy and numba that
    do not import), so that a run.sh going on past a failure ends in seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        def script(path, text):
            with open(path, 'w') as f:
                f.write(text)
            os.chmod(path, 0o755)
        for d in ('build', 'bin', 'py'):
            os.mkdir(os.path.join(tmp, d))
        script(os.path.join(tmp, 'build', 'oscbench-bench'), '#!/bin/sh\n' + bench_script)
        script(os.path.join(tmp, 'bin', 'g++'), '#!/bin/sh\nexit 1\n')
        for module in ('numpy', 'numba'):
            script(os.path.join(tmp, 'py', module + '.py'), 'raise ImportError("stand-in")\n')
        env = dict(os.environ, PYTHON=sys.argv[1], PYTHONPATH=os.path.join(tmp, 'py'),
                   PATH=os.path.join(tmp, 'bin') + os.pathsep + os.environ.get('PATH', ''))
        try:
            out = subprocess.run(['bash', os.path.join(os.path.dirname(sys.argv[2]), 'run.sh'),
                                  os.path.join(tmp, 'build'), os.path.join(tmp, 'out')],
                                 capture_output=True, text=True, env=env, timeout=20)
        except subprocess.TimeoutExpired:
            return 'timeout', ''
    return out.returncode, out.stderr


# run.sh pipes the bench and table.py into tee: their failure is the script's (pipefail), not
# hidden behind tee's 0.
status, err = run_sh('echo "oscbench-bench: refused" >&2; exit 2\n')
expect('run.sh when the bench exits 2', (status, 'refused' in err), (2, True))
status, err = run_sh('for a; do case $a in --benchmark_out=*) echo not json > "${a#*=}";; esac; done\n')
expect('run.sh when table.py fails', status != 0, True)

if failures:
    sys.exit('\n'.join(failures))
print(f'table.py verdicts: {checks} checks passed')
