#!/usr/bin/env python3
"""harness/bench/ab.py against stand-in benches whose values are known: the rounds alternate
which build runs first, each run's value is the median of its repetitions, the ratios are B's over
A's within a round, the verdict follows the two-sided sign test at 0.05 over the number of
benchmarks compared (and is reversed for times), the default rounds are as many as a verdict
needs, a benchmark one
build lacks is listed and not compared, --threads and the arguments after -- reach both benches,
--json holds what was printed; and usage errors are one line on stderr with exit status 2.
Nothing is timed: each stand-in prints the values its directory's values.json gives it.

usage: check_ab.py PYTHON AB_PY
"""
import json
import os
import subprocess
import sys
import tempfile

# A stand-in oscbench-bench: lists its benchmarks matching --benchmark_filter, or prints Google
# Benchmark's JSON with one 'iteration' entry per repetition. values.json beside it maps a
# benchmark to a list of runs, each a list of per-repetition values of every counter named (and
# aggregates after them, as Google Benchmark prints); a benchmark's n-th run (counted in
# calls-NAME) takes run n modulo the list. Each call appends its label, its OMP_NUM_THREADS and
# its arguments to ../log.txt.
FAKE = r'''#!PYTHON
import json, os, re, sys
here = os.path.dirname(os.path.abspath(__file__))
args = sys.argv[1:]
bogus = [a for a in args if a.startswith('--bogus')]
if bogus:  # as the real bench refuses a flag it does not know
    sys.exit('oscbench-bench: unrecognized flag ' + bogus[0])
pattern = next(a.split('=', 1)[1] for a in args if a.startswith('--benchmark_filter='))
spec = json.load(open(os.path.join(here, 'values.json')))
names = [n for n in spec['benchmarks'] if re.search(pattern, n)]
if '--benchmark_list_tests=true' in args:
    print('\n'.join(names))
    sys.exit(0)
with open(os.path.join(here, '..', 'log.txt'), 'a') as log:
    log.write(json.dumps([spec['label'], os.environ.get('OMP_NUM_THREADS'), args]) + '\n')
out = []
for n in names:
    calls_file = os.path.join(here, 'calls-' + n.replace('/', '_'))
    calls = int(open(calls_file).read()) if os.path.exists(calls_file) else 0
    open(calls_file, 'w').write(str(calls + 1))
    # A call listed in 'fail' exits with an error; one listed in 'interrupt' interrupts ab.py
    # (SIGINT, as Ctrl-C does), in 'kill' kills it, and then prints its values as usual.
    if calls in spec.get('fail', {}).get(n, []):
        sys.exit('stand-in failure of ' + n)
    for kind, sig in (('interrupt', 'SIGINT'), ('kill', 'SIGKILL')):
        if calls in spec.get(kind, {}).get(n, []):
            import signal
            os.kill(os.getppid(), getattr(signal, sig))
    runs = spec['benchmarks'][n]
    run = runs[calls % len(runs)]
    for counter_values in run:
        out.append(dict(name=n, run_name=n, run_type='iteration', **counter_values))
    # Google Benchmark's aggregates follow the repetitions; ab.py takes its own median of the
    # repetitions, so these (deliberately wrong) values must not reach it.
    for aggregate in ('mean', 'median', 'stddev', 'cv'):
        out.append(dict(name=n + '_' + aggregate, run_name=n, run_type='aggregate',
                        aggregate_name=aggregate, **{k: 1e9 for k in run[0]}))
print(json.dumps({'context': {'kernel_isa': 'isa-' + spec['label'], 'block_overrides': 'none',
                              'host_name': 'not printed'}, 'benchmarks': out}))
'''


def make_bench(root, label, benchmarks, **calls):
    d = os.path.join(root, label)
    os.makedirs(d)
    exe = os.path.join(d, 'oscbench-bench')
    with open(exe, 'w') as f:
        f.write(FAKE.replace('PYTHON', sys.executable))
    os.chmod(exe, 0o755)
    with open(os.path.join(d, 'values.json'), 'w') as f:
        json.dump({'label': label, 'benchmarks': benchmarks, **calls}, f)
    return d


def reps(*values, counter='osc_steps_per_s'):
    """One run: one repetition per value."""
    return [{counter: v, 'real_time': 1.0 / v} for v in values]


class Checks:
    def __init__(self):
        self.failures = 0
        self.count = 0

    def __call__(self, ok, what, detail=''):
        self.count += 1
        self.failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {what}{': ' + detail[:600] if not ok else ''}")


# How each way of stopping a run is named in the checks.
WHAT = {'fail': 'a failed bench', 'interrupt': 'an interrupt', 'kill': 'a kill'}


def load_json(path):
    """The JSON in path, or {} when there is none."""
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return json.load(f)


def row(stdout, name):
    for line in stdout.splitlines():
        if line.startswith(name + ' '):
            return line
    return ''


def main():
    python, tool = sys.argv[1:3]
    check = Checks()
    with tempfile.TemporaryDirectory() as root:
        # x: medians 100 (A) and 110 (B) from repetitions in a shuffled order; y: B 0.8x A in
        # calls 0, 2, ... and 1.25x in calls 1, 3, ... (no direction); z: only B has it.
        # other/w: B 1.1x A in nine runs of ten, 0.9x in the tenth.
        a = make_bench(root, 'A', {'step/x/double/8': [reps(300, 100, 90)],
                                   'step/y/double/8': [reps(50)],
                                   'other/w/double/8': [reps(100)]})
        b = make_bench(root, 'B', {'step/x/double/8': [reps(110, 500, 20)],
                                   'step/y/double/8': [reps(40), reps(62.5)],
                                   'step/z/double/8': [reps(7)],
                                   'other/w/double/8': [reps(110)] * 9 + [reps(90)]})
        jpath = os.path.join(root, 'out.json')
        # Two benchmarks compared (x, y): a verdict needs p <= 0.025, 7 rounds.
        r = subprocess.run([python, tool, '--rounds', '7', '--repetitions', '3', '--threads', '3',
                            '--filter', 'step/', '--json', jpath, a, b, '--',
                            '--benchmark_min_time=0.01'],
                           capture_output=True, text=True, timeout=120)
        out = r.stdout
        check(r.returncode == 0, 'a comparison exits 0', r.stderr)
        x = row(out, 'step/x/double/8')
        check(x.count('1.100') == 7 + 3 and 'B faster (7 of 7 above 1, p = 0.016)' in x,
              'x: seven ratios of the medians 110/100 and B faster', x)
        check('2 benchmarks compared: a verdict needs p <= 0.05 / 2 = 0.025, so 7 rounds' in out,
              'the header gives the verdict\'s threshold and the rounds it needs', out)
        y = row(out, 'step/y/double/8')
        # y's runs in B alternate 0.8x and 1.25x A's; its n-th run is in round n.
        check('0.800 1.250 0.800 1.250 0.800 1.250 0.800' in y and 'no direction (3 of 7' in y,
              'y: rounds that disagree give no direction', y)
        check('only in B: step/z/double/8 (not compared)' in out and not row(out, 'step/z/double/8'),
              'z: only in B, listed and not compared', out)
        check('first: A, B, A, B, A, B, A)' in out, 'the header gives who ran first', out)
        check(f'A: {a}/oscbench-bench (oscbench_version ?, kernel_isa isa-A, block_overrides none, '
              'omp_threads ?)' in out and 'kernel_isa isa-B' in out and 'host_name' not in out,
              'each build\'s context (ISA path, block overrides) beside its path', out)
        with open(os.path.join(root, 'log.txt')) as f:
            log = [json.loads(line) for line in f]
        # A process per benchmark: x then y in each round, A first in even rounds.
        order = ' '.join(f"{label}:{args[0].split('=')[1]}" for label, _, args in log)
        pairs = ['A:^step/x/double/8$ B:^step/x/double/8$ A:^step/y/double/8$ B:^step/y/double/8$',
                 'B:^step/x/double/8$ A:^step/x/double/8$ B:^step/y/double/8$ A:^step/y/double/8$']
        check(order == ' '.join(pairs * 3 + pairs[:1]),
              'each benchmark run alone, A, B in even rounds and B, A in odd ones', order)
        check(all(threads == '3' for _, threads, _ in log), '--threads sets OMP_NUM_THREADS',
              str(log[:1]))
        check(all('--benchmark_min_time=0.01' in args and '--benchmark_repetitions=3' in args
                  for _, _, args in log), 'the arguments after -- and the repetitions reach both',
              str(log[:1]))
        saved = load_json(jpath)
        xs = saved.get('compared', {}).get('step/x/double/8', {}).get('ratios', [])
        check(len(xs) == 7 and all(abs(q - 1.1) < 1e-12 for q in xs),
              '--json holds the ratios', json.dumps(saved)[:300])
        first = saved.get('rounds', [{}] * 2)
        check(first[1].get('first') == 'B' and first[0].get('A', {}).get('step/x/double/8') == 100,
              '--json holds each run\'s medians and who ran first', json.dumps(first[:2]))

        # One benchmark: five rounds all one way, p = 1/16 > 0.05: inconclusive; six, p = 1/32: B
        # faster; six with two benchmarks compared, p = 1/32 > 0.05 / 2: inconclusive. Nine of
        # ten rounds: p = 2 x 11/1024.
        for args, name, word in (
                (['--rounds', '5', '--filter', 'x/'], 'step/x/double/8', 'inconclusive (5 of 5'),
                (['--rounds', '6', '--filter', 'x/'], 'step/x/double/8', 'B faster (6 of 6'),
                (['--rounds', '6', '--filter', '(x|w)/'], 'step/x/double/8', 'inconclusive (6 of 6'),
                (['--rounds', '10', '--filter', 'w/'], 'other/w/double/8',
                 'B faster (9 of 10 above 1, p = 0.021)')):
            r = subprocess.run([python, tool] + args + [a, b], capture_output=True, text=True,
                               timeout=120)
            x = row(r.stdout, name)
            check(r.returncode == 0 and word in x, f"{' '.join(args)}: {word}", x)
        # The default: the fewest rounds that can give a verdict, 6 for one benchmark.
        r = subprocess.run([python, tool, '--filter', 'x/', a, b], capture_output=True, text=True,
                           timeout=120)
        check(' 6 rounds x 3 repetitions' in r.stdout and
              'B faster (6 of 6' in row(r.stdout, 'step/x/double/8'),
              'by default as many rounds as a verdict needs', r.stdout)
        # A time: B's real_time is 1/1.1 of A's, below 1 is B faster.
        r = subprocess.run([python, tool, '--counter', 'real_time', '--filter', 'x/', a, b],
                           capture_output=True, text=True, timeout=120)
        x = row(r.stdout, 'step/x/double/8')
        check(r.returncode == 0 and '0.909' in x and 'B faster (0 of 6 above 1' in x,
              'a time counter: below 1 is B faster', x)

        # A run that stops part way: B fails in its third run of x (round 3 of 5), interrupts
        # ab.py in its fourth (round 4, as Ctrl-C does), or kills it there: the table of the
        # rounds finished, why it stopped, exit 1 or 130, and --json holding those rounds (after
        # a kill, as written at the end of the last round finished).
        for kind, call, status, done in (('fail', 2, 1, 2), ('interrupt', 3, 130, 3),
                                         ('kill', 3, -9, 3)):
            c = make_bench(root, kind, {'step/x/double/8': [reps(110)]},
                           **{kind: {'step/x/double/8': [call]}})
            jpath = os.path.join(root, kind + '.json')
            r = subprocess.run([python, tool, '--rounds', '5', '--filter', 'x/', '--json', jpath,
                                a, c], capture_output=True, text=True, timeout=120)
            saved = load_json(jpath)
            check(len(saved.get('rounds', [])) == done and saved['rounds_planned'] == 5
                  and bool(saved['stopped']) == (kind != 'kill')
                  and len(saved['compared']['step/x/double/8']['ratios']) == done
                  and not os.path.exists(jpath + '.partial'),
                  f'--json of a run stopped by {WHAT[kind]} holds its {done} rounds',
                  json.dumps(saved)[:400])
            if kind == 'kill':
                continue
            x = row(r.stdout, 'step/x/double/8')
            said = [line for line in r.stderr.splitlines() if not line.startswith('round ')]
            check(r.returncode == status and f'stopped after {done} of 5 rounds' in r.stdout
                  and x.count('1.100') == done + 3 and f'({done} of {done} above 1' in x,
                  f'a run stopped by {WHAT[kind]}: exit {status}, the table of its {done} rounds',
                  f'exit {r.returncode}\n{r.stdout}\n{r.stderr}')
            why = 'stand-in failure' if kind == 'fail' else 'interrupted'
            check(len(said) == 1 and why in said[0]
                  and said[0].startswith(f'ab.py: stopped after {done} of 5 rounds: '),
                  f'a run stopped by {WHAT[kind]} says why in one line', r.stderr)
        # --resume: a run of 7 rounds whose B fails in round 4 goes on from round 4 (B first, as
        # the alternation has it) to its seventh (not the 6 a default run would plan), and then
        # has its verdict; a resume whose counter,
        # rounds or file differ is a usage error, as is one given no file.
        c = make_bench(root, 'flaky', {'step/x/double/8': [reps(110)]},
                       fail={'step/x/double/8': [3]})
        jpath = os.path.join(root, 'resume.json')
        first = [python, tool, '--filter', 'x/', '--json', jpath, a, c]
        r = subprocess.run(first[:2] + ['--rounds', '7'] + first[2:], capture_output=True,
                           text=True, timeout=120)
        check(r.returncode == 1 and len(load_json(jpath).get('rounds', [])) == 3,
              '--resume: the run to resume stops after 3 rounds', r.stdout + r.stderr)
        with open(os.path.join(root, 'log.txt')) as f:
            logged = len(f.readlines())
        for args, word in ((['--counter', 'real_time'], 'its counter was osc_steps_per_s, '
                             "this run's is real_time"),
                           (['--rounds', '2'], 'already holds 3 rounds')):
            r = subprocess.run(first[:2] + args + ['--resume'] + first[2:], capture_output=True,
                               text=True, timeout=60)
            check(r.returncode == 2 and r.stderr.strip().endswith(word)
                  and len(r.stderr.splitlines()) == 1,
                  f"--resume {' '.join(args)}: a usage error", r.stderr)
        for args, word in (([python, tool, '--resume', a, c], 'give the --json FILE'),
                           ([python, tool, '--resume', '--filter', 'x/', '--json',
                             os.path.join(root, 'none.json'), a, c],
                            'not a comparison ab.py wrote')):
            r = subprocess.run(args, capture_output=True, text=True, timeout=60)
            check(r.returncode == 2 and word in r.stderr and len(r.stderr.splitlines()) == 1,
                  f'--resume: {word}', r.stderr)
        r = subprocess.run(first[:2] + ['--resume'] + first[2:], capture_output=True, text=True,
                           timeout=120)
        with open(os.path.join(root, 'log.txt')) as f:
            calls = [json.loads(line)[0] for line in f.readlines()[logged:]]
        x = row(r.stdout, 'step/x/double/8')
        saved = load_json(jpath)
        check(r.returncode == 0 and 'resuming ' + jpath + ': 3 of 7 rounds already run' in r.stdout
              and 'B faster (7 of 7 above 1' in x and x.count('1.100') == 7 + 3
              and 'first: A, B, A, B, A, B, A)' in r.stdout and len(saved['rounds']) == 7
              and not saved['stopped'],
              '--resume: rounds 4 to 7 run and the verdict is over all seven',
              f'exit {r.returncode}\n{r.stdout}\n{r.stderr}')
        check(calls == ['flaky', 'A', 'A', 'flaky', 'flaky', 'A', 'A', 'flaky'],
              '--resume: the resumed rounds alternate who goes first as before', str(calls))

        # Progress: each pair's ratio as it comes.
        r = subprocess.run([python, tool, '--rounds', '2', '--filter', 'x/', a, b],
                           capture_output=True, text=True, timeout=120)
        check('round 2/2, 1/1 step/x/double/8, B first: B/A 1.100' in r.stderr,
              'progress on stderr: each pair\'s ratio', r.stderr)

        # A bench that fails (here: its values.json is missing) is named with its last word.
        broken = make_bench(root, 'C', {})
        os.remove(os.path.join(broken, 'values.json'))
        errors = [
            ([a, broken], 'values.json'),
            (['--rounds', '0', a, b], '--rounds'),
            (['--repetitions', 'x', a, b], '--repetitions'),
            (['--threads', '-1', a, b], '--threads'),
            ([a], 'B'),
            ([a, os.path.join(root, 'nowhere')], 'nowhere'),
            (['--filter', 'no-such-benchmark', a, b], 'no-such-benchmark'),
            (['--json', os.path.join(root, 'no-such-dir', 'out.json'), a, b], 'no-such-dir'),
            (['--filter', 'z/', a, b], 'no benchmark in common'),
            (['--counter', 'no_such_counter', '--rounds', '1', '--filter', 'x/', a, b],
             'no_such_counter'),
            # BENCH_ARGs ab.py sets itself (a console format was a JSON traceback, repetitions 0
            # nan ratios and exit 0), and one the benches refuse (before: exit 1 after timing)
            (['--filter', 'x/', a, b, '--', '--benchmark_format=console'], '--benchmark_format'),
            (['--filter', 'x/', a, b, '--', '--benchmark_repetitions=0'],
             '--benchmark_repetitions'),
            (['--filter', 'x/', a, b, '--', '--bogus'], '--bogus'),
        ]
        for args, word in errors:
            r = subprocess.run([python, tool] + args, capture_output=True, text=True, timeout=60)
            # (progress lines, "round 1/1: A ...", may come before an error found by a run)
            lines = [line for line in r.stderr.splitlines() if not line.startswith('round ')]
            ok = (r.returncode == 2 and len(lines) == 1 and lines[0].startswith('ab.py: ')
                  and word in lines[0])
            check(ok, f"usage error {' '.join(args[:-2] if len(args) > 2 else args)}",
                  f'exit {r.returncode}, stderr {r.stderr.strip()}')
    print(f'{check.count} checks, {check.failures} failures')
    return 1 if check.failures else 0


if __name__ == '__main__':
    sys.exit(main())
