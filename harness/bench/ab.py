#!/usr/bin/env python3
"""Compares two builds' oscbench-bench, interleaved, round by round: is B faster than A?

On a shared machine the host's load moves a benchmark by more than most changes do (one Zen 5
VM, 2026-12-04: the FMA probe 1.04e11-1.16e11 FMA/s over one afternoon), so two builds timed
minutes apart cannot be compared, nor can a roof_fraction taken against another run's peak. Here
each round runs every benchmark in A's bench and in B's back to back (a process each, a few
seconds apart), alternating which goes first (A then B in even rounds, B then A in odd ones), and
divides B's value of the counter by A's within the round, so a load that lasts longer than one
pair of runs cancels. On that Zen 5 (2 threads, 2^20 lanes, 6 rounds) one build against itself
read 0.96-1.05 per round this way; with whole runs of both builds back to back (a benchmark's
two timings 80 s apart) two builds that turned out alike read as far apart as 0.72-1.17. Each
run's value is the median of its --repetitions repetitions.

For each benchmark both builds have, it prints the per-round ratios B/A, their minimum, median
and maximum, how many rounds were above 1, the two-sided sign test's p (how likely so lopsided a
split of the rounds is when neither build is faster) and a verdict: "B faster" or "A faster" when
p <= 0.05 / K, K the number of benchmarks compared (Bonferroni: across all K, a false verdict has
at most a 5% chance; with 15 benchmarks and 6 rounds one of them reads 6 of 6 by chance about
half the time); "inconclusive" when every round agreed but too few ran for that; "no direction"
otherwise. The default number of rounds is the fewest in which a verdict is possible for K (6
for one benchmark, 10 for 15, 11 for 30). The median ratio is the size of the change; the
verdict only says whether it has a sign. A benchmark only one build has is listed, not compared.

A is the baseline: build it from the commit before the change (`git worktree add /tmp/old REV`,
then `meson setup /tmp/old/build --buildtype=release && meson compile -C /tmp/old/build`).

usage: ab.py [--rounds N] [--filter REGEX] [--repetitions R] [--threads T]
             [--counter NAME] [--json FILE [--resume]] [--dry-run] A B [-- BENCH_ARG...]
  A, B           the two meson build directories (or their oscbench-bench executables)
  --rounds N     rounds of (A, B) pairs (default: the fewest in which a verdict is possible)
  --filter RE    the benchmarks compared, as a --benchmark_filter expression (default: the
                 2^20-lane step loops of every method, double and float:
                 'step/[^/]+/(double|float)/1048576$'); each then runs alone
  --repetitions  repetitions per run; its median is the run's value (default 3)
  --threads T    OMP_NUM_THREADS for both (default: as the environment has it)
  --counter      the counter compared (default osc_steps_per_s; roof_fraction, items_per_second,
                 real_time, ...: any the bench's JSON holds; for a time, B faster means below 1)
  --json FILE    also write every run's per-benchmark values and the ratios to FILE (rewritten
                 after each round, so a run that stops keeps the rounds it finished)
  --resume       go on with the comparison --json FILE holds, up to the rounds it planned (or
                 --rounds): the same builds, machine, benchmarks, counter, threads, repetitions
                 and BENCH_ARGs as its rounds had, or a usage error naming what differs
  --dry-run      list the benchmarks each build would run, time nothing
  BENCH_ARG      passed to both benches after the options above (e.g. --benchmark_min_time=0.2);
                 not the flags ab.py sets itself (--benchmark_filter, _repetitions, _format,
                 _out, _out_format, _list_tests, _report/_display_aggregates_only), and checked
                 by the benches' --benchmark_list_tests before any timing
A usage error (an option out of range, a build without oscbench-bench, a --json file in a
directory that is not there or not writable, a filter that matches no benchmark in either build
or none in both, a BENCH_ARG ab.py sets itself or a bench refuses) is one line on stderr and exit
status 2, before any timing; a --counter the bench does not report is one too, after the first run.

A run that stops part way (a bench that exits with an error, or Ctrl-C) prints the table of the
rounds it finished, says after how many and why, and exits 1 (a bench failed) or 130 (interrupted);
a round cut short is left out, since its ratios would not all be taken a few seconds apart.
--resume then runs the rounds still to come, alternating who goes first as before. The sign
test's p assumes the number of rounds was fixed before any was seen: a verdict read after
stopping a run by hand because its ratios looked good claims more than it has, and so does one
from a run resumed past the rounds it planned because its verdict was not yet the one hoped for.
"""
import json
import math
import os
import statistics
import subprocess
import sys

from usage import OneLineParser, at_least_one, bad_input

DEFAULT_FILTER = 'step/[^/]+/(double|float)/1048576$'
# Counters where less is better: a ratio below 1 means B is faster.
TIMES = ('real_time', 'cpu_time')


def bench_executable(label, path):
    exe = os.path.join(path, 'oscbench-bench') if os.path.isdir(path) else path
    if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        bad_input(f'{label} {path}: no oscbench-bench executable there (build it with meson '
                  'compile first)')
    return exe


def machine():
    """The CPU as /proc/cpuinfo names it, with family, model and whether it has AVX-512F."""
    fields = {}
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                key, _, value = line.partition(':')
                fields.setdefault(key.strip(), value.strip())
    except OSError:
        return 'unknown CPU'
    isa = 'AVX-512' if 'avx512f' in fields.get('flags', '').split() else 'no AVX-512'
    return (f"{fields.get('model name', '?')} (family {fields.get('cpu family', '?')}, model "
            f"{fields.get('model', '?')}, {isa}, {os.cpu_count()} CPUs)")


# Google Benchmark flags ab.py sets itself, or whose output it could not read (it takes every
# repetition from the JSON on stdout): given after --, one line naming the option to use instead.
OWN_FLAGS = {'--benchmark_filter': 'use --filter', '--benchmark_repetitions': 'use --repetitions',
             '--benchmark_format': 'each run must print JSON', '--benchmark_list_tests': '',
             '--benchmark_out': 'use --json FILE', '--benchmark_out_format': 'use --json FILE',
             '--benchmark_report_aggregates_only': 'ab.py takes its own median of the repetitions',
             '--benchmark_display_aggregates_only': 'ab.py takes its own median of the repetitions'}


def check_bench_args(args):
    for a in args:
        name = a.split('=', 1)[0]
        if name in OWN_FLAGS:
            why = OWN_FLAGS[name]
            bad_input(f'{a}: ab.py sets {name} itself' + (f' ({why})' if why else ''))


def listed(exe, pattern, env, bench_args):
    """The benchmarks exe would run under pattern, asked with the BENCH_ARGs too: a flag the
    bench refuses is a usage error here, before any timing."""
    r = subprocess.run([exe, f'--benchmark_filter={pattern}', '--benchmark_list_tests=true'] +
                       bench_args, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        last = (r.stderr.strip().splitlines() or [''])[-1]
        bad_input(f'{exe} --benchmark_list_tests: exit {r.returncode}: {last}')
    return [line.strip() for line in r.stdout.splitlines() if line.strip()]


def regex_literal(name):
    """name as a regular expression matching only itself, in the POSIX and ECMAScript syntaxes
    Google Benchmark's --benchmark_filter may use (Python's re.escape escapes '-', which POSIX
    leaves undefined)."""
    return ''.join('\\' + c if c in '.[]{}()\\*+?|^$' else c for c in name)


# What each build says of itself in the bench's context, printed beside its path.
BUILD_CONTEXT = ('oscbench_version', 'kernel_isa', 'block_overrides', 'omp_threads')


class BenchFailed(Exception):
    """A bench run that exited with an error: the comparison stops after the rounds it finished."""


def run_once(exe, args, counter, env, context):
    """{benchmark: the median over its repetitions of counter} from one run of exe; the run's
    BUILD_CONTEXT entries are added to context."""
    r = subprocess.run([exe] + args, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise BenchFailed(f'{exe} exited {r.returncode}: {r.stderr.strip()[-500:]}')
    values = {}
    report = json.loads(r.stdout)
    context.update({k: report['context'][k] for k in BUILD_CONTEXT if k in report['context']})
    for b in report['benchmarks']:
        if b.get('error_occurred'):  # a build older than its exit status 1 for a failed run
            raise BenchFailed(f"{exe}: {b['run_name']}: {b.get('error_message', 'failed')}")
        if b.get('run_type') != 'iteration':
            continue
        if counter not in b:
            bad_input(f"--counter {counter}: {exe} reports no such counter for {b['run_name']}")
        values.setdefault(b['run_name'], []).append(float(b[counter]))
    return {name: statistics.median(v) for name, v in values.items()}


# The chance of any false verdict among the benchmarks compared (family-wise, Bonferroni).
FAMILY_P = 0.05


def sign_test_p(wins, losses):
    """Two-sided sign test: the probability of a split at least this lopsided between two
    equally likely outcomes (ties left out)."""
    n, k = wins + losses, max(wins, losses)
    if n == 0:
        return 1.0
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n)


def rounds_for_verdict(compared):
    """The fewest rounds in which all agreeing gives p <= FAMILY_P / compared."""
    return math.ceil(math.log2(2 * compared / FAMILY_P))


def verdict(ratios, lower_is_better, compared):
    """(verdict, p): 'B faster', 'A faster', 'inconclusive' (every round agreed, too few of them)
    or 'no direction'. A ratio that is not a number (a zero or missing value) favours neither."""
    above = sum(r > 1 for r in ratios)
    below = sum(r < 1 for r in ratios)
    b_wins, a_wins = (below, above) if lower_is_better else (above, below)
    p = sign_test_p(b_wins, a_wins)
    if p <= FAMILY_P / compared:
        return ('B faster' if b_wins > a_wins else 'A faster'), p
    if (b_wins == len(ratios) or a_wins == len(ratios)) and ratios:
        return 'inconclusive', p
    return 'no direction', p


def main():
    p = OneLineParser(description=__doc__.split('\n')[0])
    p.add_argument('a', metavar='A')
    p.add_argument('b', metavar='B')
    p.add_argument('--rounds', type=at_least_one)
    p.add_argument('--filter', default=DEFAULT_FILTER)
    p.add_argument('--repetitions', type=at_least_one, default=3)
    p.add_argument('--threads', type=at_least_one)
    p.add_argument('--counter', default='osc_steps_per_s')
    p.add_argument('--json')
    p.add_argument('--resume', action='store_true')
    p.add_argument('--dry-run', action='store_true')
    argv = sys.argv[1:]
    bench_args = []
    if '--' in argv:
        cut = argv.index('--')
        argv, bench_args = argv[:cut], argv[cut + 1:]
    opts = p.parse_args(argv)
    opts.bench_args = bench_args
    check_bench_args(bench_args)
    if opts.resume and not opts.json:
        bad_input('--resume: give the --json FILE of the comparison to go on with')

    exes = {'A': bench_executable('A', opts.a), 'B': bench_executable('B', opts.b)}
    if opts.json:
        # checked now: the file is written after every round has run
        where = os.path.dirname(os.path.abspath(opts.json))
        if not os.path.isdir(where) or not os.access(where, os.W_OK):
            bad_input(f'--json {opts.json}: cannot write in {where}')
    env = dict(os.environ)
    if opts.threads:
        env['OMP_NUM_THREADS'] = str(opts.threads)
    names = {k: listed(exe, opts.filter, env, opts.bench_args) for k, exe in exes.items()}
    common = [n for n in names['A'] if n in names['B']]
    only = {k: [n for n in names[k] if n not in common] for k in names}
    if not names['A'] and not names['B']:
        bad_input(f"--filter '{opts.filter}' matches no benchmark in A or B")

    need = rounds_for_verdict(max(len(common), 1))
    done = resumed(opts, exes, env, common) if opts.resume else None
    if opts.rounds is None:
        opts.rounds = done['rounds_planned'] if done else need
    if done and opts.rounds < len(done['rounds']):
        bad_input(f"--rounds {opts.rounds}: {opts.json} already holds {len(done['rounds'])} rounds")
    print(f'machine: {machine()}')
    print(f"A: {exes['A']}\nB: {exes['B']}")
    print(f"threads: {env.get('OMP_NUM_THREADS', 'as OpenMP chooses')}, filter '{opts.filter}', "
          f'{opts.rounds} rounds x {opts.repetitions} repetitions, counter {opts.counter}')
    plural = '' if len(common) == 1 else 's'
    print(f'{len(common)} benchmark{plural} compared: a verdict needs p <= {FAMILY_P} / '
          f'{len(common)} = {FAMILY_P / max(len(common), 1):.2g}, so {need} rounds or more')
    if done:
        print(f"resuming {opts.json}: {len(done['rounds'])} of {opts.rounds} rounds already run")
    for k in only:
        for n in only[k]:
            print(f'only in {k}: {n} (not compared)')
    if opts.dry_run:
        for n in common:
            print(f'would compare: {n}')
        return 0
    if not common:
        bad_input(f"--filter '{opts.filter}': A and B have no benchmark in common")

    rounds = done['rounds'] if done else []
    context = done['context'] if done else {'A': {}, 'B': {}}

    def save(stopped):
        if opts.json:
            write_json(opts, exes, env, context, rounds, common, stopped)

    stopped, status = None, 0
    try:
        for r in range(len(rounds), opts.rounds):
            rounds.append(run_round(r, opts, common, exes, env, context))
            save(None)
    except BenchFailed as e:
        stopped, status = f'a bench failed: {e}', 1
    except KeyboardInterrupt:
        stopped, status = 'interrupted', 130
    if stopped:
        print(f'ab.py: stopped after {len(rounds)} of {opts.rounds} rounds: {stopped}',
              file=sys.stderr)
        save(stopped)
    if rounds:
        summarize(opts, exes, context, rounds, common, stopped)
    return status


def resumed(opts, exes, env, common):
    """The report --json FILE holds, checked to be this comparison's (a usage error otherwise)."""
    try:
        with open(opts.json) as f:
            report = json.load(f)
        same = [('machine', report['machine'], machine()),
                ('A', report['A'], os.path.abspath(exes['A'])),
                ('B', report['B'], os.path.abspath(exes['B'])),
                ('counter', report['counter'], opts.counter),
                ('filter', report['filter'], opts.filter),
                ('threads', report['threads'], env.get('OMP_NUM_THREADS')),
                ('repetitions', report['repetitions'], opts.repetitions),
                ('bench arguments', report['bench_args'], opts.bench_args),
                ('benchmarks', list(report['compared']), common)]
        report['rounds'], report['context'], report['rounds_planned']  # what a resume reads
    except (OSError, ValueError, KeyError, TypeError) as e:
        bad_input(f'--resume {opts.json}: not a comparison ab.py wrote ({type(e).__name__}: {e})')
    for what, then, now in same:
        if then != now:
            bad_input(f'--resume {opts.json}: its {what} was {shown(then)}, '
                      f"this run's is {shown(now)}")
    return report


def shown(value):
    """A value of a report, in a line: a list as its items, cut short."""
    text = ' '.join(map(str, value)) or '(none)' if isinstance(value, list) else str(value)
    return text if len(text) <= 120 else text[:117] + '...'


def run_round(r, opts, common, exes, env, context):
    """Round r: each benchmark in A's bench and B's back to back, A first in even rounds."""
    order = ('A', 'B') if r % 2 == 0 else ('B', 'A')
    got = {'A': {}, 'B': {}}
    for i, n in enumerate(common):
        args = ([f'--benchmark_filter=^{regex_literal(n)}$',
                 f'--benchmark_repetitions={opts.repetitions}', '--benchmark_format=json'] +
                opts.bench_args)
        for k in order:
            got[k].update(run_once(exes[k], args, opts.counter, env, context[k]))
        print(f'round {r + 1}/{opts.rounds}, {i + 1}/{len(common)} {n}, {order[0]} first: '
              f'B/A {ratio(got, n):.3f}', file=sys.stderr, flush=True)
    return {'first': order[0], 'A': got['A'], 'B': got['B']}


def ratio(got, n):
    """B's value over A's in one round; not a number when either is missing or A's is zero."""
    return got['B'][n] / got['A'][n] if got['A'].get(n) and n in got['B'] else float('nan')


def compare(rounds, common, lower_is_better):
    """{benchmark: ratios per round, verdict, rounds above 1, p}."""
    summary = {}
    for n in common:
        ratios = [ratio(x, n) for x in rounds]
        v, pval = verdict(ratios, lower_is_better, len(common))
        summary[n] = {'ratios': ratios, 'verdict': v, 'rounds_above_1': sum(q > 1 for q in ratios),
                      'p': pval}
    return summary


def summarize(opts, exes, context, rounds, common, stopped):
    summary = compare(rounds, common, opts.counter in TIMES)
    width = max(len(n) for n in common)
    print()
    for k in exes:
        said = ', '.join(f"{c} {context[k].get(c, '?')}" for c in BUILD_CONTEXT)
        print(f'{k}: {exes[k]} ({said})')
    if stopped:
        over = 'that round' if len(rounds) == 1 else f'those {len(rounds)}'
        print(f'stopped after {len(rounds)} of {opts.rounds} rounds ({stopped}): the verdicts are '
              f'over {over}')
    print(f"\n{'benchmark':<{width}}  B/A per round (first: {', '.join(x['first'] for x in rounds)})"
          '   min / median / max   verdict (rounds above 1, sign test p)')
    for n, c in summary.items():
        finite = sorted(q for q in c['ratios'] if q == q) or [float('nan')]
        print(f"{n:<{width}}  {' '.join(f'{q:.3f}' for q in c['ratios'])}   "
              f'{finite[0]:.3f} / {statistics.median(finite):.3f} / {finite[-1]:.3f}   '
              f"{c['verdict']} ({c['rounds_above_1']} of {len(c['ratios'])} above 1, "
              f"p = {c['p']:.2g})")


def write_json(opts, exes, env, context, rounds, common, stopped):
    """FILE with every finished round, replaced whole (a reader never sees half a file)."""
    report = {'machine': machine(), 'A': os.path.abspath(exes['A']),
              'B': os.path.abspath(exes['B']), 'context': context,
              'counter': opts.counter, 'filter': opts.filter,
              'threads': env.get('OMP_NUM_THREADS'), 'repetitions': opts.repetitions,
              'bench_args': opts.bench_args, 'rounds_planned': opts.rounds,
              'stopped': stopped, 'rounds': rounds,
              'compared': compare(rounds, common, opts.counter in TIMES)}
    partial = opts.json + '.partial'
    with open(partial, 'w') as f:
        json.dump(report, f, indent=1)
    os.replace(partial, opts.json)


if __name__ == '__main__':
    sys.exit(main())
