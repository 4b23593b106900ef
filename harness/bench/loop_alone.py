#!/usr/bin/env python3
"""Times each built-in method's compiled step loop alone, against the FMA peak measured beside it.

oscbench-bench's roof_fraction is the whole kernel in the harness (tiles, remainder blocks,
threads) against the largest FMA peak sampled in the run. On a shared machine whose clock moves
(a Zen 3 on 2026-12-03: 2.86-3.04 GHz from one half second to the next) that ceiling can sit
above any clock a long run keeps, and the kernel's own efficiency is then hard to tell apart from
the machine's. This tool takes the step loop of each method's register block (advance()'s
advance_<isa>_blk_<p>, the loop tests/check_kernels.py finds and checks), copies it instruction
for instruction into a function of its own around zeroed registers and a zeroed stack frame, and
times it in one process in turn with three probe loops of the bench's probe's shape
(harness/bench/fma_probe.c: 12 FMA chains, 12 add chains, and 8 FMA beside 6 add chains stepped
3 and 4 times a round, as many adds as FMAs; in zmm 16, 16, and 12 beside 9), each call about as
long as a loop's, best of many rounds, on one pinned core (not pinned with --threads above 1).
The fraction printed is the bench's ceiling rule applied to the loop alone:
    ceiling ticks per vector-step = max((fma + mul + div) / R_fma, add / R_add,
                                        (fma + mul + div + add) / R_mix)
    (R_mix at least R_fma: an add never takes longer than an FMA; R_add at least R_mix / 2)
    loop_fraction = ceiling / measured ticks per vector-step
with R_fma, R_add, R_mix the probes' instructions per tick and the operations those of the loop
itself, so it reads as roof_fraction does, without the harness around the loop and without a
clock change between the peak and the run. In brackets: the same at the loop's median round,
against the probes' best (a median far below the best says the core was shared). fma_slots is
the FMA issue slots a vector-step took (measured ticks x R_fma): 3 FMAs in 3.8 slots lost 0.8
slot to latency, scheduling or loads. With --harness LANES the same process also times each method
in the harness, osc_batch_run on --threads threads over LANES lanes (the bench's lanes: stiffness 1
to 2.2, drag 0.01, dt 0.002), and prints its speed per thread over the loop's: what the tiles, the
remainder blocks and the calls (and, on more threads, sharing the machine) cost beside the loop.

The loop's data are zeros (FMAs take the same time on zeros; no subnormals), so the timing is that
of the instructions, not of a lane's values. A loop is timed only as compiled: one backward branch,
a counter compared with a register, memory operands on %rsp; anything else is reported and
skipped. x86-64 with GCC or Clang (to assemble); the v4 path only where the CPU has AVX-512.

usage: loop_alone.py [--build DIR] [--isa v3|v4] [--precision double|float] [--rounds N]
                     [--harness LANES [--threads T]] [--dry-run] [METHOD...]
  --build DIR   the meson build directory (default: build); its kernels_asm test names the
                methods, their block sizes and libraries
  --isa         the kernel path (default: v4 if the CPU has AVX-512F, else v3)
  --precision   the kernels' arithmetic, double or float (default: double)
  --rounds N    rounds of (probes, every loop); each figure is its best round (default 30)
  --harness N   also time osc_batch_run over N lanes (a multiple of 128; 4096 stays in cache),
                with the kernel path capped at --isa; links BUILD/lib's libraries
  --threads T   the harness's OpenMP threads (default 1); its speed per thread over the loop's
  --dry-run     extract and assemble the loops, print what would be timed, time nothing; exit 1
                if a method's loop cannot be timed (the test suite's loop_alone_v3/v4)
  METHOD        methods by name (semi-implicit) or file name (semi_implicit); default: every
                built-in method
A usage error (an option out of range, a build without the kernels_asm test, a method not built,
--isa v4 to time on a CPU without AVX-512F) is one line on stderr and exit status 2, before any
work; a loop that cannot be copied is exit status 1 with --dry-run.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'tests'))
import check_kernels as ck  # noqa: E402  (the step-loop parser the kernels_asm test uses)
from usage import OneLineParser, at_least_one, bad_input  # noqa: E402  (beside this file)

# Each timed call lasts about 4 million cycles (1.5 ms at 3 GHz) at the FMA peak, probes and loops
# alike: a short probe would catch a short burst of a higher clock that the loops never see.
CALL_FMAS = 8e6
PROBE_ITERATIONS = 700000  # 12 FMAs an iteration on ymm, 16 on zmm
# A loop cannot beat the probes but by their rounds' noise; past this it is marked inconclusive.
ABOVE_CEILING = 1.02


class Skip(Exception):
    pass


def kernel_methods(build):
    """(name, v3 double lanes, v4 double lanes, library) per method, from the kernels_asm test."""
    info = os.path.join(build, 'meson-info', 'intro-tests.json')
    try:
        with open(info) as f:
            tests = json.load(f)
    except (OSError, ValueError) as e:
        bad_input(f'--build {build}: cannot read {info} ({getattr(e, "strerror", None) or e}); '
                  'configure the build with meson first')
    for t in tests:
        if t['name'] == 'kernels_asm':
            for arg in t['cmd']:
                parts = arg.split(':')
                if len(parts) == 8 and parts[7].endswith('.a'):
                    yield parts[0], int(parts[1]), int(parts[2]), parts[7]
            return
    bad_input(f'--build {build}: no kernels_asm test in {info} (configure the build with meson '
              'first; the test needs objdump)')


def loop_source(insns, label):
    """The step loop as a standalone loop: (assembly lines, counter register, bound register,
    stack offsets it uses, stack alignment it needs). Raises Skip if it is not a simple loop."""
    lines, offsets, aligned = [], [], []
    jumps = [i for i in insns if ck.JUMP.match(i[1])]
    if len(jumps) != 1 or jumps[0] is not insns[-1]:
        raise Skip('the step loop has branches inside it')
    for _, mnem, ops in insns[:-1]:
        ops = re.sub(r'<[^>]*>', '', ops.split('#')[0]).strip()
        for base in re.findall(r'\(%(\w+)', ops):
            if base != 'rsp':
                raise Skip(f'a memory operand on %{base}')
        for off in re.findall(r'(-?0x[0-9a-f]+|-?\d+)?\(%rsp\)', ops):
            value = int(off, 0) if off else 0
            offsets.append(value)
            if mnem.startswith('vmovap'):
                aligned.append(value)
        lines.append(f'{mnem} {ops}')
    lines.append(f'{insns[-1][1]} {label}')
    cmp = [(m, o) for _, m, o in insns if m.startswith('cmp')]
    regs = re.findall(r'^%(r\w+),%(r\w+)$', cmp[-1][1].strip()) if cmp else []
    if not regs:
        raise Skip('the loop counter is not compared with a register')
    a, b = regs[0]
    steps = {r for _, m, o in insns if m == 'add'
             for r in re.findall(r'^\$0x[0-9a-f]+,%(r\w+)$', o.strip())}
    counter = b if b in steps else a if a in steps else None
    if counter is None:
        raise Skip('no loop counter found')
    bound = a if counter == b else b
    return lines, counter, bound, offsets, aligned


def zero_vectors(vec):
    """Zero every vector register: %xmm0 by xor, the others copied from it."""
    nregs = 32 if vec == 'zmm' else 16
    return ['vpxor %xmm0,%xmm0,%xmm0'] + [
        f'vmovdqa64 %zmm0,%zmm{i}' if vec == 'zmm' else f'vmovdqa %ymm0,%ymm{i}'
        for i in range(1, nregs)]


def wrapper(name, lines, counter, bound, offsets, aligned, vec):
    """A function name(long bound) that zeroes the vector registers and a stack frame covering
    the loop's offsets, aligned as its aligned moves need, and runs the loop to the bound."""
    width = 64 if vec == 'zmm' else 32
    residues = {(-o) % width for o in aligned}
    if len(residues) > 1:
        raise Skip('aligned stack moves at different alignments')
    adjust = residues.pop() if residues else 0
    lo = (min(offsets + [0]) - width) // width * width  # a multiple of width: keeps the alignment
    hi = max(offsets + [0]) + 2 * width
    frame = (hi - lo + 4 * width + 4095) // 4096 * 4096
    out = [f'.globl {name}', f'.type {name}, @function', f'{name}:', 'push %rbp', 'mov %rsp,%rbp',
           'push %rbx', 'push %r12', 'push %r13', 'push %r14', 'push %r15',
           'mov %rdi,%r11', f'sub ${frame},%rsp', f'and ${-width},%rsp',
           f'add ${-lo + adjust},%rsp'] + zero_vectors(vec)
    out += [f'lea {lo}(%rsp),%rdi', f'mov ${(hi - lo) // 8},%ecx', 'xor %eax,%eax',
            'cld', 'rep stosq']
    out += [f'mov %r11,%{bound}', f'xor %{counter},%{counter}', f'{name}_top:']
    out += lines
    out += ['vzeroupper', 'lea -40(%rbp),%rsp', 'pop %r15', 'pop %r14', 'pop %r13', 'pop %r12',
            'pop %rbx', 'pop %rbp', 'ret']
    return out


def probes(vec, suffix):
    """The FMA probe, the add probe and the two mix probes (FMA and add chains side by side), as
    many chains of each as the bench's probe keeps: 12 FMA, 12 add, 8 + 6 in ymm; 16, 16, 12 + 9
    in zmm. The mix steps its FMA chains 3 times and its add chains 4 times an iteration, all
    FMAs of a pass before its adds (F A F A F A A), as fma_probe.c's assembly does: as many adds
    as FMAs, and the latencies (4 and 3 cycles on Zen) covered on both kinds of pipes. The second
    mix (fma_probe.c's kind 3) steps 10 FMA chains twice and 4 add chains 5 times (F A A F A A A),
    slack on the FMAs where 8 chains ran short (Zen 5, ymm); the mix rate is the better of the
    two."""
    zmm = vec == 'zmm'
    nregs, n_fma, (mix_f, mix_a) = (32, 16, (12, 9)) if zmm else (16, 12, (8, 6))
    src = f'%{vec}{nregs - 2},%{vec}{nregs - 1}'
    fma = [f'vfmadd231p{suffix} {src},%{vec}{i}' for i in range(n_fma)]
    add = [f'vaddp{suffix} %{vec}{nregs - 1},%{vec}{i},%{vec}{i}' for i in range(n_fma)]
    mix_fmas = [f'vfmadd231p{suffix} {src},%{vec}{i}' for i in range(mix_f)]
    mix_adds = [f'vaddp{suffix} %{vec}{nregs - 1},%{vec}{i},%{vec}{i}'
                for i in range(mix_f, mix_f + mix_a)]
    mix = (mix_fmas + mix_adds) * 3 + mix_adds
    b_fmas = [f'vfmadd231p{suffix} {src},%{vec}{i}' for i in range(10)]
    b_adds = [f'vaddp{suffix} %{vec}{nregs - 1},%{vec}{i},%{vec}{i}' for i in range(10, 14)]
    mix_b = (b_fmas + b_adds * 2) * 2 + b_adds

    def func(name, body):
        return ([f'.globl {name}', f'{name}:'] + zero_vectors(vec) +
                ['mov %rdi,%rsi', 'xor %eax,%eax', f'{name}_top:'] + body +
                ['add $1,%rax', 'cmp %rsi,%rax', f'jne {name}_top', 'vzeroupper', 'ret'])
    bodies = {'probe_fma': fma, 'probe_add': add, 'probe_mix': mix, 'probe_mix_b': mix_b}
    assert tuple(bodies) == PROBES
    return (sum((func(name, body) for name, body in bodies.items()), []),
            [len(body) for body in bodies.values()])


# The probes' functions, in the order of the driver's first columns (ticks per iteration).
PROBES = ('probe_fma', 'probe_add', 'probe_mix', 'probe_mix_b')


DRIVER = r'''
#include <stdio.h>
#include <x86intrin.h>
%(harness_decl)s
typedef void fn(long);
extern fn %(probes)s%(externs)s;
static fn *probes[] = {%(probes)s}, *loops[] = {%(loops)s};
static const long bounds[] = {%(bounds)s};
static double ticks(fn *f, long n)
{
    unsigned long long t = __rdtsc();
    f(n);
    return (double)(__rdtsc() - t);
}
int main(void)
{
    enum { N = %(n)d, P = sizeof probes / sizeof *probes };
    double round[P + 2 * N] = {0}; /* each probe's ticks per iteration, then per loop: its ticks,
                                      the harness's */
    %(harness_setup)s
    for (int r = 0; r < %(rounds)d; r++) {
        for (int p = 0; p < P; p++)
            round[p] = ticks(probes[p], %(probe_it)d) / %(probe_it)d;
        for (int i = 0; i < N; i++) {
            round[P + 2 * i] = ticks(loops[i], bounds[i]);
            %(harness_round)s
        }
        for (int i = 0; i < P + 2 * N; i++) printf("%%.6g ", round[i]);
        printf("\n");
    }
    return 0;
}
'''

# The harness beside the loops: one batch per method, stepped on one thread, restarted (untimed)
# before each timing so that its lanes never decay far.
HARNESS_DECL = r'''
#include <omp.h>
#include "oscbench.h"
static osc_batch *batches[%(n)d];
static const char *names[] = {%(names)s};
'''
HARNESS_SETUP = r'''
    omp_set_num_threads(%(threads)d);
    if (osc_isa_set_cap(%(cap)d) != %(cap)d) return 3; /* the level now in force */
    for (int i = 0; i < N; i++) {
        const osc_method *m = osc_method_find(names[i]);
        if (!m || osc_batch_create(&batches[i], m, %(prec)s, 1, %(lanes)d, 0) != OSC_OK) return 3;
        for (int j = 0; j < %(lanes)d; j++) {
            double x0 = 1, v0 = 0;
            if (osc_batch_set_lane(batches[i], j, 1 + (j %% 13) * 0.1, 0.01, 1, &x0, &v0)) return 3;
        }
    }
'''
HARNESS_ROUND = r'''
            if (osc_batch_start(batches[i], 0.002) != OSC_OK) return 3;
            unsigned long long h = __rdtsc();
            if (osc_batch_run(batches[i], %(steps)d, %(steps)d, NULL, NULL) != OSC_OK) return 3;
            round[P + 1 + 2 * i] = (double)(__rdtsc() - h);
'''
HARNESS_STEPS = 2000


def cpu_has_avx512():
    try:
        with open('/proc/cpuinfo') as f:
            return ' avx512f' in f.read()
    except OSError:
        return False


def main():
    ap = OneLineParser(description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--build', default='build')
    ap.add_argument('--isa', choices=['v3', 'v4'])
    ap.add_argument('--precision', choices=['double', 'float'], default='double')
    ap.add_argument('--rounds', type=at_least_one, default=30)
    ap.add_argument('--harness', type=int, metavar='LANES')
    ap.add_argument('--threads', type=at_least_one, default=1)
    ap.add_argument('--dry-run', action='store_true')
    ap.add_argument('methods', nargs='*')
    args = ap.parse_args()
    if args.harness is not None and (args.harness <= 0 or args.harness % 128):
        bad_input(f'--harness {args.harness}: LANES must be a positive multiple of 128')
    isa = args.isa or ('v4' if cpu_has_avx512() else 'v3')
    if isa == 'v4' and not cpu_has_avx512() and not args.dry_run:
        bad_input('--isa v4 needs a CPU with AVX-512F (without it, --dry-run only)')
    vec = 'zmm' if isa == 'v4' else 'ymm'
    p = args.precision[0]
    suffix = 'd' if p == 'd' else 's'
    per_vector = (8 if vec == 'zmm' else 4) * (1 if p == 'd' else 2)
    objdump = shutil.which('objdump') or 'objdump'
    cc = os.environ.get('CC', shutil.which('cc') or 'gcc')

    methods = list(kernel_methods(args.build))
    args.methods = [m.replace('-', '_') for m in args.methods]  # the tables name their files
    unknown = sorted(set(args.methods) - {m[0] for m in methods})
    if unknown:
        bad_input(f'no method {", ".join(unknown)} in {args.build} (built: '
                  f'{" ".join(m[0] for m in methods)})')
    timed, asm, skipped, method_libs = [], ['.text'], [], []
    for name, v3, v4, lib in methods:
        method_libs.append(lib)
        if args.methods and name not in args.methods:
            continue
        lanes = (v4 if isa == 'v4' else v3) * (1 if p == 'd' else 2)
        want = f'advance_{isa}_blk_{p}'
        found = [body for n, body in ck.functions(objdump, lib) if n[0] == want]
        try:
            if not found:
                raise Skip(f'no {want} in {lib}')
            counts, insns = ck.step_loop(found[0])
            if not insns:
                raise Skip('no step loop')
            spi = ck.steps_per_iteration(insns)
            fn = f'loop_{len(timed)}'
            lines, counter, bound, offsets, aligned = loop_source(insns, f'{fn}_top')
            asm += wrapper(fn, lines, counter, bound, offsets, aligned, vec)
        except Skip as why:
            print(f'{name}: skipped: {why}', file=sys.stderr)
            skipped.append(name)
            continue
        vectors = lanes // per_vector
        ops = ck.ops_per_step(counts, vectors, spi)
        loop_fmas = counts.get('fma', 0) + counts.get('mul', 0) + counts.get('div', 0)
        iterations = max(1000, int(CALL_FMAS / max(loop_fmas, 1)))
        timed.append({'method': name, 'lanes': lanes, 'vectors': vectors, 'spi': spi,
                      'ops': ops, 'function': fn, 'iterations': iterations,
                      'bound': iterations * spi})
    if not timed:
        raise SystemExit('loop_alone.py: no loop to time')
    probe_asm, probe_ops = probes(vec, suffix)
    asm += probe_asm

    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, 'loops.S'), 'w') as f:
            f.write('\n'.join(asm) + '\n.section .note.GNU-stack,"",@progbits\n')
        with open(os.path.join(tmp, 'driver.c'), 'w') as f:
            harness = {'n': len(timed), 'lanes': args.harness or 0, 'steps': HARNESS_STEPS,
                       'names': ', '.join('"%s"' % t['method'].replace('_', '-') for t in timed),
                       'cap': 4 if isa == 'v4' else 3, 'threads': args.threads,
                       'prec': 'OSC_DOUBLE' if p == 'd' else 'OSC_FLOAT'}
            f.write(DRIVER % {
                'harness_decl': HARNESS_DECL % harness if args.harness else '',
                'harness_setup': HARNESS_SETUP % harness if args.harness else '',
                'harness_round': HARNESS_ROUND % harness if args.harness else '',
                'probes': ', '.join(PROBES),
                'externs': ''.join(', ' + t['function'] for t in timed),
                'loops': ', '.join(t['function'] for t in timed),
                'bounds': ', '.join(str(t['bound']) for t in timed),
                'n': len(timed), 'rounds': args.rounds, 'probe_it': PROBE_ITERATIONS})
        exe = os.path.join(tmp, 'loops')
        command = [cc, '-O2', '-o', exe, os.path.join(tmp, 'driver.c'),
                   os.path.join(tmp, 'loops.S')]
        if args.harness:
            core = os.path.join(args.build, 'lib', 'liboscbench.a')
            command += ['-I', os.path.join(HERE, '..', '..', 'lib'), core] + method_libs + \
                       [core, '-fopenmp', '-lm']
        subprocess.run(command, check=True)
        if args.dry_run:
            for t in timed:
                o = t['ops']
                print(f"{t['method']}: {isa} {args.precision}, {t['lanes']} lanes, {t['spi']} "
                      f"step(s) per iteration, per vector-step {o['fma'] + o['mul']:.2f} fma+mul "
                      f"{o['add']:.2f} add: assembled")
            if skipped:
                raise SystemExit(f"loop_alone.py: cannot time {', '.join(skipped)}")
            return
        cpus = sorted(os.sched_getaffinity(0))
        out = subprocess.run([exe], check=True, capture_output=True, text=True,
                             preexec_fn=lambda: os.sched_setaffinity(0, {cpus[-1]})
                             if args.threads == 1 else None).stdout
    rounds = [[float(x) for x in line.split()] for line in out.splitlines()]
    columns = list(zip(*rounds))
    best = [min(c) for c in columns]
    median = [statistics.median(c) for c in columns]
    r_fma, r_add, r_mix, r_mix_b = (n / ticks for n, ticks in zip(probe_ops, best))
    r_mix = max(r_mix, r_mix_b, r_fma)
    r_add = max(r_add, r_mix / 2)
    print(f'ISA path {isa}, {args.precision}; probes: {r_fma:.3f} FMA instructions per tick, '
          f'add {r_add / r_fma:.2f}x and mix {r_mix / r_fma:.2f}x that; '
          f'best of {args.rounds} rounds, '
          f'{"one pinned core" if args.threads == 1 else "one thread, not pinned"}; the FMA '
          f'probe\'s median round {median[0] / best[0] - 1:.1%} slower than its best')
    harness_col = (f' harness/loop ({args.harness} lanes, {args.threads} thread'
                   f'{"s" if args.threads > 1 else ""}) |' if args.harness else '')
    print('| method | lanes (vectors) | per vector-step: fma+mul, add | fma_slots | '
          'loop_fraction (median round) |'
          + harness_col)
    print('|---|---|---|---|---|' + ('---|' if args.harness else ''))
    above = False
    loops_at = len(PROBES)
    for t, ticks, mticks, hticks in zip(timed, best[loops_at::2], median[loops_at::2],
                                        best[loops_at + 1::2]):
        per_vs = ticks / (t['iterations'] * t['spi'] * t['vectors'])
        median_per_vs = mticks / (t['iterations'] * t['spi'] * t['vectors'])
        o = t['ops']
        f_ops = o['fma'] + o['mul'] + o['div']
        ceiling = max(f_ops / r_fma, o['add'] / r_add, (f_ops + o['add']) / r_mix)
        fraction = ceiling / per_vs
        mark = '*' if fraction > ABOVE_CEILING else ''
        above = above or bool(mark)
        print(f"| {t['method']} | {t['lanes']} ({t['vectors']}) | {f_ops:.2f}, {o['add']:.2f} | "
              f"{per_vs * r_fma:.2f} | {fraction:.2f}{mark} ({ceiling / median_per_vs:.2f}) |",
              end='')
        if args.harness:
            h_per_vs = hticks * args.threads / (HARNESS_STEPS * args.harness / per_vector)
            print(f' {per_vs / h_per_vs:.2f} |', end='')
        print()
    if above:
        print('* above the ceiling: the probes\' best round was slower than this loop\'s (the core '
              'was shared while they ran): inconclusive, run again')


if __name__ == '__main__':
    main()
