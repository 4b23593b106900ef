#!/usr/bin/env python3
"""The README's per-machine performance table from run.sh's Google Benchmark JSON:
    table.py OUT_DIR/bench.json
One row per method that ran step/<method>/double/1048576 (medians of the repetitions): ops per
step from the compiled kernel, osc-steps/s, roof_fraction ("of ceiling") and peak_fraction with 2
threads, the same in float, float / double, 2 threads / 1, and the one-thread cpu_roof_fraction;
then the naive baseline, the probe's peaks and the range of the peaks sampled beside the
benchmarks, so that a row hit by a moment of lost CPU (its own peak sample low) can be told.
Marks: * on a precision's cells whose (median) peak sample beside was below 3/4 of the largest
sample beside that precision's benchmarks (the host took a core around the timing); + on "2
threads / 1" below 0.8 times the threads (a loss during the timing that the peak sample missed, or
a row that does not scale); ~ on a precision's cells whose (median) cpu_share was below 0.9 (the
process got less than 0.9 of its cores over the timing: other work shared them, which the short
peak samples can miss).
Last, the run against the aims README's "Performance" section states for the kernels' ISA path
(kernel_isa): of the ceiling in double, euler and semi-implicit >= 0.80 and every other method
>= 0.65 on x86-64-v3 (AVX2), >= 0.85 and >= 0.80 on x86-64-v4 (AVX-512); float >= 1.8x double.
When the JSON has the repetitions (run.sh writes them), a repetition whose own peak sample beside
dipped likewise is dropped, and so is one whose cpu_share was below 0.9 (the verdict says which);
a figure is met when every kept repetition is at or above the aim, missed when every one is below
it, inconclusive when they fall on both sides or fewer than 2 are kept; the "of ceiling" cells show the median and, in brackets, the kept repetitions' range (and "K
of N kept" when one was dropped). Without repetitions the median is judged, and a row marked * is
inconclusive, and so is one marked ~.
A row without roof_fraction (no operation count for its kernel on the kernels' path: oscbench-bench
then reports no ceiling) shows - in its ops and "of ceiling" cells and is inconclusive.
A file that is not Google Benchmark JSON, or has no median of a step/<method>/double/1048576 row
(one repetition writes no aggregates), is bad input: one line on stderr naming it, exit 2."""
import json
import sys
from typing import NamedTuple, Optional, Tuple

LANES = 1048576
# kernel_isa -> (aim for euler and semi-implicit, aim for every other method), of the ceiling
AIMS = {'x86-64-v3': (0.80, 0.65), 'x86-64-v4': (0.85, 0.80)}
FIRST_AIM_METHODS = ('euler', 'semi-implicit')
FLOAT_AIM = 1.8
# A repetition whose cpu_share (process CPU seconds over wall seconds x threads used) is below
# this shared its cores with other work during its timing: not judged, like one whose peak dipped.
SHARE_MIN = 0.9
# Why a row without roof_fraction (no operation count for its kernel on the path: the bench then
# reports no ceiling) is not judged.
NO_COUNT = 'no operation count for its kernel on this path'


class Judged(NamedTuple):
    """A figure as verdict() takes it."""
    median: float
    reps: Optional[Tuple[float, float]]  # (smallest, largest) kept repetition; None: median only
    marked: bool  # no verdict: the peak sample dipped beside the median (no repetitions), or
    #               beside all but one repetition or more (a verdict needs two that agree)
    kept: int = 0  # repetitions kept, of
    of: int = 0  # the repetitions (0: the JSON has only the aggregates)
    low: int = 0  # repetitions dropped for their cpu_share alone (their peak sample did not dip)
    why: str = ''  # without repetitions, why the median is marked

    def kept_note(self):
        return f'{self.kept} of {self.of} kept' if self.kept < self.of else ''


def bad_input(message):
    """One line on stderr, exit 2."""
    print(f'table.py: {message}'.replace('\n', ' '), file=sys.stderr)
    sys.exit(2)


def load(path):
    """The run's JSON, with its benchmarks: a file that cannot be read, is not JSON or is not
    Google Benchmark's is bad input."""
    try:
        with open(path) as f:
            run = json.load(f)
    except OSError as e:
        bad_input(f'{path}: {e.strerror or e}')
    except (ValueError, UnicodeDecodeError) as e:
        bad_input(f'{path}: not JSON ({e})')
    if not (isinstance(run, dict) and isinstance(run.get('benchmarks'), list)
            and all(isinstance(b, dict) for b in run['benchmarks'])
            and isinstance(run.get('context', {}), dict)):
        bad_input(f'{path}: not Google Benchmark JSON (no list of benchmarks)')
    run.setdefault('context', {})
    return run


def main():
    if len(sys.argv) != 2:
        print('usage: table.py BENCH_JSON', file=sys.stderr)
        sys.exit(2)
    path = sys.argv[1]
    run = load(path)
    medians = {b.get('run_name'): b for b in run['benchmarks']
               if b.get('aggregate_name') == 'median'}
    repetitions = {}
    for b in run['benchmarks']:
        if b.get('run_type') == 'iteration':
            repetitions.setdefault(b.get('run_name'), []).append(b)
    methods = []
    for name in medians:
        parts = str(name).split('/')
        if parts[0] == 'step' and parts[2:] == ['double', str(LANES)] and parts[1] not in methods:
            methods.append(parts[1])
    if not methods:
        bad_input(f'{path}: no median of a step/<method>/double/{LANES} benchmark (the table '
                  'needs the aggregates of 2 or more repetitions: --benchmark_repetitions=3)')

    beside = {p: [b['peak_beside_fma_per_s'] for n, b in medians.items()
                  if n.startswith('step/') and f'/{p}/' in n and 'peak_beside_fma_per_s' in b]
              for p in ('double', 'float')}
    samples = {p: beside[p] + [r['peak_beside_fma_per_s'] for n, rs in repetitions.items()
                               if n.startswith('step/') and f'/{p}/' in n
                               for r in rs if 'peak_beside_fma_per_s' in r]
               for p in beside}
    top = {p: max(samples[p], default=0) for p in samples}
    threads = int(run['context'].get('omp_threads', 1))

    def dipped(b, precision):
        return '*' if b.get('peak_beside_fma_per_s', top[precision]) < 0.75 * top[precision] else ''

    def shared(b):
        """'~' when b's cpu_share says other work took part of its cores (JSON without the
        counter: never)."""
        return '~' if b.get('cpu_share', 1) < SHARE_MIN else ''

    def mark(b, precision):
        return dipped(b, precision) or shared(b)

    def why(m):
        return {'*': 'peak dipped beside it', '~': f'CPU share under {SHARE_MIN}'}.get(m, '')

    def low(reps, precision):
        """How many of reps are dropped for their cpu_share alone."""
        return sum(1 for r in reps if shared(r) and not dipped(r, precision))

    def bench(method, precision, one_thread=False):
        suffix = '/threads:1' if one_thread else ''
        return medians.get(f'step/{method}/{precision}/{LANES}{suffix}')

    def kept(b, precision):
        """b's repetitions whose own peak sample beside did not dip and whose cpu_share is at
        least SHARE_MIN, or None when the JSON has fewer than 2 repetitions of b (then its median
        is judged, by the median's peak sample and cpu_share)."""
        reps = repetitions.get(b['run_name'], [])
        return [r for r in reps if not mark(r, precision)] if len(reps) > 1 else None

    def span(reps, counter):
        return min(r[counter] for r in reps), max(r[counter] for r in reps)

    def roof(b, precision, mark):
        """roof_fraction as Judged, and its cell: the median, then the range of the repetitions
        kept (and how many of how many, when one's peak sample dipped)."""
        if 'roof_fraction' not in b:  # no operation count for its kernel on this path
            return Judged(float('nan'), None, True, why=NO_COUNT), '-'
        reps, cell = kept(b, precision), f"{b['roof_fraction']:.2f}{mark}"
        if reps is None:
            return Judged(b['roof_fraction'], None, bool(mark), why=why(mark)), cell
        all_reps = repetitions[b['run_name']]
        of, dropped_low = len(all_reps), low(all_reps, precision)
        if not reps:
            return (Judged(b['roof_fraction'], None, True, 0, of, dropped_low),
                    cell + f' (0 of {of} kept)')
        low_, high = span(reps, 'roof_fraction')
        judged = Judged(b['roof_fraction'], (low_, high), len(reps) < 2, len(reps), of,
                        dropped_low)
        note = judged.kept_note()
        return judged, cell + f" ({low_:.2f}-{high:.2f}{', ' + note if note else ''})"

    def float_ratio(d, f, marks):
        """float / double osc-steps/s as Judged: with repetitions, its widest range over every
        pairing of the two precisions' kept repetitions."""
        median = f['osc_steps_per_s'] / d['osc_steps_per_s']
        kd, kf = kept(d, 'double'), kept(f, 'float')
        if kd is None or kf is None:
            return Judged(median, None, bool(marks), why=why(marks[:1]))
        count = len(kd) + len(kf)
        rd, rf = repetitions[d['run_name']], repetitions[f['run_name']]
        of, dropped_low = len(rd) + len(rf), low(rd, 'double') + low(rf, 'float')
        if len(kd) < 2 or len(kf) < 2:
            return Judged(median, None, True, count, of, dropped_low)
        (dlow, dhigh), (flow, fhigh) = span(kd, 'osc_steps_per_s'), span(kf, 'osc_steps_per_s')
        return Judged(median, (flow / dhigh, fhigh / dlow), False, count, of, dropped_low)

    print('| method | ops/step (FMA + add) | double osc-steps/s | of ceiling | peak fraction '
          '| float osc-steps/s | float of ceiling | float / double | 2 threads / 1 '
          '| 1 thread, of ceiling per CPU-s | peak beside, double / float |')
    print('|---' * 11 + '|')
    judged = []
    for m in methods:
        d, f, d1 = bench(m, 'double'), bench(m, 'float'), bench(m, 'double', True)
        dm, fm = mark(d, 'double'), (mark(f, 'float') if f else '')
        droof, dcell = roof(d, 'double', dm)
        judged.append((m, droof, float_ratio(d, f, fm + dm) if f else None))
        ops = f"{d['ops_fma']:.4g} + {d['ops_add']:.4g}" if 'ops_fma' in d else '-'
        cells = [m, ops, f"{d['osc_steps_per_s']:.3g}{dm}",
                 dcell, f"{d['peak_fraction']:.2f}{dm}"]
        cells += ([f"{f['osc_steps_per_s']:.3g}{fm}", roof(f, 'float', fm)[1],
                   f"{f['osc_steps_per_s'] / d['osc_steps_per_s']:.2f}{fm or dm}"]
                  if f else ['', '', ''])
        if d1:
            scaling = d['osc_steps_per_s'] / d1['osc_steps_per_s']
            slow = '+' if threads > 1 and scaling < 0.8 * threads else ''
            cells += [f"{scaling:.2f}{slow}",
                      f"{d1['cpu_roof_fraction']:.2f}" if 'cpu_roof_fraction' in d1 else '-']
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
    for p, medians_beside in beside.items():
        if medians_beside:
            print(f'peak beside the {p} benchmarks (medians): {min(medians_beside):.3g} to '
                  f'{max(medians_beside):.3g}')
    spreads = [b['peak_spread'] for b in medians.values() if 'peak_spread' in b]
    if spreads:
        print('peak_spread (largest - smallest sample over largest, whole run): '
              f'{max(spreads):.2f}')
    print_aims(judged, run['context'].get('kernel_isa', ''), bool(repetitions))


def figure(value, aim):
    """value to 2 decimals, or as many more (up to 6) as it takes not to read as the aim it misses
    (0.649 and 0.6497 against 0.65)."""
    digits = 2
    while value < aim <= round(value, digits) and digits < 6:
        digits += 1
    return f'{value:.{digits}f}'


def verdict(judged, aim, aim_text):
    """'met' or 'missed' when every kept repetition (the median alone without them) is on that
    side of the aim, else why neither."""
    if judged.marked:
        if judged.of:
            dips = judged.of - judged.kept - judged.low
            said = [f'peak dipped beside {dips}' if dips else '',
                    f'CPU share under {SHARE_MIN} in {judged.low}' if judged.low else '']
            return ', '.join(x for x in said if x) + f' of {judged.of} repetitions'
        return judged.why or 'peak dipped beside it'
    low, high = judged.reps or (judged.median, judged.median)
    if low >= aim:
        return 'met'
    if high < aim:
        return 'missed'
    return f'repetitions {figure(low, aim)}-{figure(high, aim)} on both sides of {aim_text}'


def shown(judged, aim, *notes):
    """The figure a verdict names, then notes in brackets: the median, or the kept repetitions'
    range when some were dropped (the median may be one of those), with how many were kept."""
    notes = [n for n in notes if n]
    if not (judged.kept_note() and judged.reps):
        text = figure(judged.median, aim)
    else:
        low, high = (figure(x, aim) for x in judged.reps)
        text, notes = (low if low == high else f'{low}-{high}'), [judged.kept_note()] + notes
    return text + (f' ({"; ".join(notes)})' if notes else '')


def print_aims(judged, isa, by_repetitions):
    """judged: (method, double roof_fraction, float / double or None), each a Judged."""
    level = next((k for k in AIMS if isa.startswith(k)), None)
    if level is None:
        print(f'\naims: none for the kernels\' path {isa or "(not reported)"}')
        return
    first, other = AIMS[level]
    print(f'\nagainst the aims for {level} (of the ceiling in double: '
          f'{" and ".join(FIRST_AIM_METHODS)} >= {first:.2f}, every other method >= {other:.2f}; '
          f'float >= {FLOAT_AIM}x double; '
          + ('met or missed by all, and at least two, of the repetitions whose peak sample beside '
             f'did not dip and whose cpu_share was at least {SHARE_MIN}):' if by_repetitions
             else 'the medians, no repetitions in the JSON):'))
    met, missed, unjudged = [], [], []
    for m, roof, ratio in judged:
        aim = first if m in FIRST_AIM_METHODS else other
        said = verdict(roof, aim, f'{aim:.2f}')
        if said == 'met':
            met.append(f'{m} {shown(roof, aim)}')
        elif said == 'missed':
            missed.append(f'{m} {shown(roof, aim, f"aim {aim:.2f}")}')
        elif roof.median != roof.median:  # nan: no roof_fraction
            unjudged.append(f'{m} ({said})')
        else:
            unjudged.append(f'{m} {figure(roof.median, aim)} ({said})')
        if ratio is None or (ratio.marked and roof.marked):
            continue  # no float row, or the whole row is already inconclusive
        said = verdict(ratio, FLOAT_AIM, str(FLOAT_AIM))
        if said == 'missed':
            missed.append(f'{m} float / double {shown(ratio, FLOAT_AIM, f"aim {FLOAT_AIM}")}')
        elif said != 'met':
            unjudged.append(f'{m} float / double {figure(ratio.median, FLOAT_AIM)} ({said})')
    for label, cells in (('met', met), ('missed', missed), ('inconclusive', unjudged)):
        print(f'  {label}: ' + (', '.join(cells) if cells else 'none'))


if __name__ == '__main__':
    main()
