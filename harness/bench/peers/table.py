#!/usr/bin/env python3
"""The README's per-machine performance table from run.sh's Google Benchmark JSON:
    table.py OUT_DIR/bench.json
One row per method that ran step/<method>/double/1048576 (medians of the repetitions): ops per
step from the compiled kernel, osc-steps/s, roof_fraction ("of ceiling") and peak_fraction with 2
threads, the same in float, float / double, 2 threads / 1, and the one-thread cpu_roof_fraction;
then the naive baseline, the probe's peaks and the range of the peaks sampled beside the
benchmarks, so that a row hit by a moment of lost CPU (its own peak sample low) can be told.
Marks: * on a precision's cells whose peak sample beside was below 3/4 of the largest beside that
precision's benchmarks (the host took a core around the timing); + on "2 threads / 1" below 0.8
times the threads (a loss during the timing that the peak sample missed, or a row that does not
scale).
Last, the run against the aims README's "Performance" section states for the kernels' ISA path
(kernel_isa): of the ceiling in double, euler and semi-implicit >= 0.80 and every other method
>= 0.65 on x86-64-v3 (AVX2), >= 0.85 and >= 0.80 on x86-64-v4 (AVX-512); float >= 1.8x double.
A figure is judged by all its repetitions when the JSON has them (run.sh writes them): met when
every repetition is at or above the aim, missed when every one is below it, inconclusive when they
fall on both sides; the "of ceiling" cells show the median and, in brackets, the repetitions'
range. A row marked * is not judged (the host took a core around it): it is inconclusive too."""
import json
import sys

LANES = 1048576
# kernel_isa -> (aim for euler and semi-implicit, aim for every other method), of the ceiling
AIMS = {'x86-64-v3': (0.80, 0.65), 'x86-64-v4': (0.85, 0.80)}
FIRST_AIM_METHODS = ('euler', 'semi-implicit')
FLOAT_AIM = 1.8


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: table.py BENCH_JSON')
    with open(sys.argv[1]) as f:
        run = json.load(f)
    medians = {b['run_name']: b for b in run['benchmarks'] if b.get('aggregate_name') == 'median'}
    repetitions = {}
    for b in run['benchmarks']:
        if b.get('run_type') == 'iteration':
            repetitions.setdefault(b['run_name'], []).append(b)
    methods = []
    for name in medians:
        parts = name.split('/')
        if parts[0] == 'step' and parts[2:] == ['double', str(LANES)] and parts[1] not in methods:
            methods.append(parts[1])

    beside = {p: [b['peak_beside_fma_per_s'] for n, b in medians.items()
                  if n.startswith('step/') and f'/{p}/' in n and 'peak_beside_fma_per_s' in b]
              for p in ('double', 'float')}
    top = {p: max(beside[p], default=0) for p in beside}
    threads = int(run['context'].get('omp_threads', 1))

    def dipped(b, precision):
        return '*' if b.get('peak_beside_fma_per_s', top[precision]) < 0.75 * top[precision] else ''

    def bench(method, precision, one_thread=False):
        suffix = '/threads:1' if one_thread else ''
        return medians.get(f'step/{method}/{precision}/{LANES}{suffix}')

    def span(b, counter):
        """(smallest, largest) of a counter over b's repetitions, or None without 2 of them."""
        values = [r[counter] for r in repetitions.get(b['run_name'], []) if counter in r]
        return (min(values), max(values)) if len(values) > 1 else None

    def roof_cell(b, mark):
        s = span(b, 'roof_fraction')
        return f"{b['roof_fraction']:.2f}{mark}" + (f' ({s[0]:.2f}-{s[1]:.2f})' if s else '')

    print('| method | ops/step (FMA + add) | double osc-steps/s | of ceiling | peak fraction '
          '| float osc-steps/s | float of ceiling | float / double | 2 threads / 1 '
          '| 1 thread, of ceiling per CPU-s | peak beside, double / float |')
    print('|---' * 11 + '|')
    judged = []
    for m in methods:
        d, f, d1 = bench(m, 'double'), bench(m, 'float'), bench(m, 'double', True)
        dm, fm = dipped(d, 'double'), (dipped(f, 'float') if f else '')
        ratio = None
        if f:
            sd, sf = span(d, 'osc_steps_per_s'), span(f, 'osc_steps_per_s')
            # the widest the ratio can read over any pairing of the two precisions' repetitions
            ratio_span = (sf[0] / sd[1], sf[1] / sd[0]) if sd and sf else None
            ratio = (f['osc_steps_per_s'] / d['osc_steps_per_s'], ratio_span, bool(fm or dm))
        judged.append((m, (d['roof_fraction'], span(d, 'roof_fraction'), bool(dm)), ratio))
        cells = [m, f"{d['ops_fma']:.4g} + {d['ops_add']:.4g}", f"{d['osc_steps_per_s']:.3g}{dm}",
                 roof_cell(d, dm), f"{d['peak_fraction']:.2f}{dm}"]
        cells += ([f"{f['osc_steps_per_s']:.3g}{fm}", roof_cell(f, fm),
                   f"{f['osc_steps_per_s'] / d['osc_steps_per_s']:.2f}{fm or dm}"]
                  if f else ['', '', ''])
        if d1:
            scaling = d['osc_steps_per_s'] / d1['osc_steps_per_s']
            slow = '+' if threads > 1 and scaling < 0.8 * threads else ''
            cells += [f"{scaling:.2f}{slow}", f"{d1['cpu_roof_fraction']:.2f}"]
        else:
            cells += ['', '']
        cells.append(f"{d['peak_beside_fma_per_s']:.3g} / "
                     + (f"{f['peak_beside_fma_per_s']:.3g}" if f else '-'))
        print('| ' + ' | '.join(cells) + ' |')
    for p in ('double', 'float'):
        b = medians.get(f'baseline/naive/{p}/{LANES}')
        if b:
            print(f"\nnaive baseline {p}: {b['osc_steps_per_s']:.3g} osc-steps/s, "
                  f"peak_fraction {b['peak_fraction']:.3f}", end='')
    print()
    ctx = run['context']
    print('\nprobe: ' + ', '.join(f'{k} {ctx[k]}' for k in sorted(ctx)
                                  if 'peak' in k or 'mix' in k or k.endswith('isa')))
    for p, samples in beside.items():
        if samples:
            print(f'peak beside the {p} benchmarks (medians): {min(samples):.3g} to {top[p]:.3g}')
    spreads = [b['peak_spread'] for b in medians.values() if 'peak_spread' in b]
    if spreads:
        print(f'peak_spread (largest - smallest sample over largest, whole run): {max(spreads):.2f}')
    print_aims(judged, run['context'].get('kernel_isa', ''))


def figure(value, aim):
    """value to 2 decimals, or 3 where 2 would read as the aim it misses (0.649 against 0.65)."""
    return f'{value:.3f}' if value < aim <= round(value, 2) else f'{value:.2f}'


def verdict(figure_, aim, aim_text):
    """figure_: (median, (smallest, largest) repetition or None, marked). 'met' or 'missed' when
    every repetition (the median alone without them) is on one side of the aim, else why not."""
    median, reps, marked = figure_
    if marked:
        return 'peak dipped beside it'
    low, high = reps if reps else (median, median)
    if low >= aim:
        return 'met'
    if high < aim:
        return 'missed'
    return f'repetitions {figure(low, aim)}-{figure(high, aim)} on both sides of {aim_text}'


def print_aims(judged, isa):
    """judged: (method, double roof_fraction, float / double or None), each figure as verdict()
    takes it."""
    level = next((k for k in AIMS if isa.startswith(k)), None)
    if level is None:
        print(f'\naims: none for the kernels\' path {isa or "(not reported)"}')
        return
    first, other = AIMS[level]
    print(f'\nagainst the aims for {level} (of the ceiling in double: '
          f'{" and ".join(FIRST_AIM_METHODS)} >= {first:.2f}, every other method >= {other:.2f}; '
          f'float >= {FLOAT_AIM}x double; met or missed by every repetition):')
    met, missed, unjudged = [], [], []
    for m, roof, ratio in judged:
        aim = first if m in FIRST_AIM_METHODS else other
        said = verdict(roof, aim, f'{aim:.2f}')
        cell = f'{m} {figure(roof[0], aim)}'
        if said == 'met':
            met.append(cell)
        elif said == 'missed':
            missed.append(f'{cell} (aim {aim:.2f})')
        else:
            unjudged.append(f'{cell} ({said})')
        if ratio is None or (ratio[2] and roof[2]):
            continue  # no float row, or the whole row is already inconclusive
        said = verdict(ratio, FLOAT_AIM, str(FLOAT_AIM))
        cell = f'{m} float / double {figure(ratio[0], FLOAT_AIM)}'
        if said == 'missed':
            missed.append(f'{cell} (aim {FLOAT_AIM})')
        elif said != 'met':
            unjudged.append(f'{cell} ({said})')
    for label, cells in (('met', met), ('missed', missed), ('inconclusive', unjudged)):
        print(f'  {label}: ' + (', '.join(cells) if cells else 'none'))


if __name__ == '__main__':
    main()
