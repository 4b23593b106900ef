#!/usr/bin/env python3
"""Reads the compiled kernels (objdump -d) and fails when a register block's step loop divides,
or, on the x86-64-v3 and v4 paths, stores vector registers to the stack (spills the block's state).

The register blocking (lib/methods/kernel_loops.h) is what a compiler upgrade or a block size in
lib/meson.build's tuning table can silently break: a block that no longer fits its registers
keeps its state in stack copies, stored and reloaded every step or two, and a lane constant
whose division is no longer hoisted divides every step. Both are visible in the assembly without
timing anything.

usage: check_kernels.py [--emit HEADER] OBJDUMP SOURCE_DIR
                       METHOD:V3_LANES:V4_LANES:COMP_V3_LANES:COMP_V4_LANES:STACK_V3:STACK_V4:LIBRARY...
                       [tableau:LIBRARY]
  (one argument per method: its file name, its double block sizes from lib/meson.build's
  tuning table (advance()'s, then the composed blocks'), the state vectors its v3 and v4 blocks
  may keep on the stack (the table's stack_v3/v4; -1: the rule below), and its static library;
  SOURCE_DIR/lib/methods/METHOD.c gives OSC_NSTATE; tableau:LIBRARY checks the SIMD kernels of the
  methods made from coefficients, the rk (tableau) and rkn families, in LIBRARY, see check_tableau)

Which code is checked, per function:
  advance_<isa>_blk_<p>    advance()'s whole register blocks: no division; on v3/v4 fewer
                           than half the block's state vectors (nstate x lanes / lanes per
                           vector) carried on the stack from one step-loop iteration to the
                           next (a stack slot the loop reads before it stores a vector register
                           to it). At or above half, the block's state lives in stack copies
                           (as when GCC unroll-and-jams a rolled lane loop: 21 of 32 vectors at
                           64 double lanes on x86-64-v3). Fewer are printed, not failed: on 16
                           ymm a block large enough to cover the FMA latency (8 vectors per
                           array for 2-state methods) keeps 5 of its 16 state vectors on the
                           stack, and that is still the fastest measured. A method whose
                           block measured faster keeping more on the stack declares how many
                           (stack_v3/v4 in the tuning table); more than that fails. Loads
                           from the stack are allowed: the per-lane coefficients live in L1 as
                           memory operands by design.
  audited_<isa>_d<D>_<p>   the fused audited blocks: no division (their exact state and maxima
                           partly live in L1 by design, see kernel_loops.h).
  composed_<isa>_blk|blkN|palN|rem_<p> (N = 3, 5, 7, 9, 15, 17), caudited_<isa>_d<D>_<p>
                           the composed blocks (compositions' kernels): see check_composed;
                           and a palN block must exist wherever it holds more lanes than blkN
                           (missing_palindrome_blocks).
  both, on v3/v4           vectorized as blocks: no scalar arithmetic, no shuffles, permutes,
                           inserts or gathers in the step loop (a per-lane coefficient array laid
                           out lane-major, [lanes][coefficients], made GCC gather or scalarize the
                           fused loop: rk4 ran 1.6x slower), and the back edge is the step
                           counter's, not a lane loop's (a step loop unroll-and-jammed by 2 with
                           its lanes left rolled keeps one vector in flight: the counter then
                           advances by a vector's bytes, 0x20 or 0x40, and the audited sweep of
                           euler ran 1.4x slower).
  On the baseline path fma() is a libm call, and calls clobber every vector register, so only
  the division check applies there.
The step loop is the backward branch whose body holds the most floating-point arithmetic.
Prints, per function, the arithmetic instructions of the step loop by class.

Operation counts. Per oscillator-step, the v3 and v4 step loops of advance() execute (arithmetic
instructions of the loop) / (vectors per state array x steps per iteration), by class: fma, mul,
add (add and sub), div. Printed beside them, not checked: the vector loads per oscillator-step
(instructions reading memory: the per-lane coefficients held as memory operands, reloaded
temporaries), to set against the load ports (two vector loads per cycle on Zen 3 and on Intel's
AVX-512 cores, as many as the FMA pipes). Steps per iteration is the loop counter's increment (GCC
unrolls some step loops by 2). The method's declared fma_per_step (its source, "as written") must
agree: at least the count and less than one more (the compiler may share one operation between two
unrolled steps, e.g. verlet's force at the drift's end and at the next start, or a broadcast among
the lanes of a block). A wrong declaration fails. With --emit HEADER the counts are also written as
a C table for oscbench-bench (its ceiling per operation class).
"""
import re
import subprocess
import sys

FUNC = re.compile(r'^[0-9a-f]+ <((advance|audited|composed|caudited)_(v4|v3|base|any)_'
                  r'(blk\d*|pal\d+|rem|d[123])_([df]))(\.[a-z]+\.\d+)*>:$')
INSN = re.compile(r'^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$')
RELOC = re.compile(r'^\s*[0-9a-f]+: R_X86_64_\S+\s+(\w+)')
JUMP = re.compile(r'^j[a-z]+$')
CLASSES = {
    'fma': re.compile(r'^v?f(n?)m(add|sub)(132|213|231)?[ps][sd]$'),
    'mul': re.compile(r'^v?mul[ps][sd]$'),
    'add': re.compile(r'^v?(add|sub)[ps][sd]$'),
    'div': re.compile(r'^v?div[ps][sd]$'),
    'sqrt': re.compile(r'^v?sqrt[ps][sd]$'),
}
SCALAR_ARITH = re.compile(r'^v?(f(n?)m(add|sub)(132|213|231)?|mul|add|sub|div|sqrt|min|max)s[sd]$')
SHUFFLE = re.compile(r'^v?(perm|shuf|unpck|blend|gather)')
HALVES = re.compile(r'^v?(insert|extract)')  # a float block widening to double needs these
VSTORE_TO_STACK = re.compile(r'^%[xyz]mm\d+,.*\(%(rsp|rbp)')


def functions(objdump, lib, pattern=FUNC):
    """(the pattern's groups, [(address, mnemonic, operands)]) of each function whose label
    matches pattern."""
    out = subprocess.run([objdump, '-dr', '--no-show-raw-insn', lib], check=True,
                         capture_output=True, text=True).stdout
    name, body = None, []
    for line in out.splitlines():
        m = pattern.match(line)
        if m:
            if name:
                yield name, body
            name, body = m.groups(), []
        elif name and not line.strip():
            yield name, body
            name, body = None, []
        elif name and RELOC.match(line) and body:
            # the relocation of the call before it: fma() in the baseline path is a libm call
            addr, mnem, ops = body[-1]
            body[-1] = (addr, mnem, ops + ' <' + RELOC.match(line).group(1) + '>')
        elif name:
            im = INSN.match(line)
            if im:
                body.append((int(im.group(1), 16), im.group(2), im.group(3)))
    if name:
        yield name, body


def classify(mnemonic, operands):
    for cls, rx in CLASSES.items():
        if rx.match(mnemonic):
            return cls
    if mnemonic.startswith('call') and re.search(r'<fmaf?>', operands):
        return 'fma'
    return None


def backward_loops(body):
    """Every backward branch's loop: (total arithmetic, counts by class, insns)."""
    for addr, mnem, ops in body:
        if not JUMP.match(mnem):
            continue
        m = re.match(r'([0-9a-f]+)\s', ops)
        if not m:
            continue
        target = int(m.group(1), 16)
        if target > addr:
            continue
        insns = [i for i in body if target <= i[0] <= addr]
        counts = {}
        for _, mn, op in insns:
            c = classify(mn, op)
            if c:
                counts[c] = counts.get(c, 0) + 1
        total = sum(counts.values())
        if total:
            yield total, counts, insns


def step_loop(body):
    """The backward branch whose body has the most arithmetic: (counts by class, insns)."""
    best = None
    for total, counts, insns in backward_loops(body):
        if best is None or total > best[0]:
            best = (total, counts, insns)
    return (best[1], best[2]) if best else (None, None)


def ops_per_step(counts, vectors, steps):
    """A step loop's arithmetic instructions per vector of one state array and per step (an
    oscillator-step for one lane's worth of a vector), by class."""
    return {c: counts.get(c, 0) / (vectors * steps) for c in ('fma', 'mul', 'add', 'div')}


def steps_per_iteration(insns):
    """The step loop counter's increment: the register compared before the back edge, added to by
    an immediate in the loop. 1 if not found."""
    for k in range(len(insns) - 1, -1, -1):
        _, mnem, ops = insns[k]
        if mnem.startswith('cmp'):
            regs = re.findall(r'%(r\w+)', ops)
            for _, mn, op in insns:
                m = re.match(r'^\$0x([0-9a-f]+),%(r\w+)$', op)
                if mn == 'add' and m and m.group(2) in regs:
                    return int(m.group(1), 16)
            return 1
    return 1


def carried_slots(insns):
    """Stack slots a vector register is stored to in the loop and that the loop reads before it
    writes them: their value crosses the back edge, i.e. part of the block's state lives on
    the stack from one iteration to the next. A temporary spilled and reloaded within one
    iteration is written first and is not counted."""
    first_store, first_load = {}, {}
    for pos, (_, mnem, ops) in enumerate(insns):
        for slot in re.findall(r'-?0x[0-9a-f]+\(%r[sb]p\)|\(%r[sb]p\)', ops):
            stored = mnem.startswith('vmov') and VSTORE_TO_STACK.match(ops) and ops.endswith(slot)
            if stored:
                first_store.setdefault(slot, pos)
            else:
                first_load.setdefault(slot, pos)
    return {slot for slot, st in first_store.items()
            if slot in first_load and first_load[slot] < st}


def dest_register(operands):
    """The destination (last operand, AT&T order) of an instruction, if a register."""
    m = re.search(r'%([xyz]mm\d+)\s*$', operands.split('#')[0].strip())
    return m.group(1) if m else None


MEM_OPERAND = re.compile(r'\(%r\w+(,%r\w+)?(,\d)?\)')


def vector_loads(insns):
    """Instructions of the loop that read memory into a vector register (a memory source
    operand, a load or a broadcast); stores, whose destination is memory, are not counted."""
    return sum(1 for _, _, ops in insns
               if dest_register(ops) and MEM_OPERAND.search(ops.split('#')[0]))


PASS_THROUGH = re.compile(r'^v?(xorp[sd]|movs[sd]|movap[sd])$')  # a sign flip or a copy


def substep_scalars(insns):
    """The scalar arithmetic of a composed step loop that computes the substep's own constants
    from its size (a method's 0.5 h, its weights times h, their negatives): each result reaches
    a broadcast to the block's vectors, through other scalar arithmetic, sign flips (xor) or
    register copies only, never a lane's value. The indices of those instructions."""
    def reaches_broadcast(k, depth=0):
        reg = dest_register(insns[k][2])
        if not reg or depth > 8:
            return False
        for j in range(k + 1, len(insns)):
            _, mn, op = insns[j]
            reads = op.split('#')[0].rsplit(',', 1)[0] if ',' in op else op
            if not re.search(r'%' + reg + r'\b', reads):
                if dest_register(op) == reg:
                    return False  # overwritten before any use
                continue
            if mn.startswith('vbroadcast'):
                return True
            if (SCALAR_ARITH.match(mn) or PASS_THROUGH.match(mn)) and \
                    reaches_broadcast(j, depth + 1):
                return True
            return False
        return False
    return {k for k, (_, mnem, _) in enumerate(insns)
            if SCALAR_ARITH.match(mnem) and reaches_broadcast(k)}


def block_shape_failures(where, insns, prec, body, composed=False):
    """A v3/v4 step loop must step whole vectors of lanes, fully unrolled over the block. A
    composed block's step loop also holds the substep loop, whose scalar arithmetic on the
    substep's size is allowed (substep_scalars) and whose counter is the substeps' pointer, not
    a lane loop's: its unrolling is checked by its operation count (check_composed)."""
    failures = []
    fmas = sum(1 for _, m, o in insns if classify(m, o) == 'fma')
    allowed = substep_scalars(insns) if composed else set()
    scalar = [f'{a:x}: {m} {o}' for k, (a, m, o) in enumerate(insns)
              if SCALAR_ARITH.match(m) and k not in allowed]
    shuffles = [f'{a:x}: {m} {o}' for a, m, o in insns
                if SHUFFLE.match(m) or (prec == 'd' and HALVES.match(m))]
    if scalar:
        failures.append(f'{where}: {len(scalar)} scalar arithmetic instructions in the step '
                        f'loop (not vectorized), e.g. {scalar[0]}')
    if shuffles:
        failures.append(f'{where}: {len(shuffles)} shuffles, permutes or gathers in the step '
                        f'loop (lane data not laid out one array per quantity), e.g. {shuffles[0]}')
    # any loop doing a step's worth of FMAs must be a step loop (GCC may also keep a remainder
    # loop, fully unrolled, beside a jammed one: the check looks at every loop, not the largest)
    for _, counts, loop in ([] if composed else backward_loops(body)):
        stride = steps_per_iteration(loop)
        if counts.get('fma', 0) * 2 >= fmas and stride > 2:
            failures.append(f'{where}: a loop of {counts.get("fma", 0)} FMAs advances its '
                            f'counter by {stride} (a lane loop over vectors inside the step '
                            f'loop: the block is not unrolled, one vector in flight)')
            break
    return failures


def composed_lanes(lanes_d, prec):
    """kernel_loops.h's OSC_CBL: a composed block's lanes, the tuning table's double lanes
    (twice that in float) capped at 128."""
    return min(int(lanes_d) * (2 if prec == 'f' else 1), 128)


def specialized_lanes(lanes, nsub, palindrome, prec, l1_rule):
    """kernel_loops.h's OSC_CBL_N: the lanes of the block specialized to nsub substeps, the
    composed lanes halved (where they stay a multiple of 8) when its coefficient sets (nsub, or
    (nsub + 1) / 2 for a palindrome's block) would pass the L1 budget."""
    ncoef, budget = l1_rule
    sets = (nsub + 1) // 2 if palindrome else nsub
    if sets * ncoef * lanes * (4 if prec == 'f' else 8) > budget and lanes % 16 == 0:
        return lanes // 2
    return lanes


def missing_palindrome_blocks(method, names, v3, v4, l1_rule):
    """A composable method's palindrome blocks (composed_<isa>_palN_<p>) must exist beside each
    full N-substep block (composed_<isa>_blkN_<p>) wherever they hold more lanes than it
    (kernel_loops.h calls them only there): a dispatch that stopped choosing them would halve a
    symmetric composition's block without a wrong bit."""
    failures = []
    for name in sorted(names):
        m = re.match(r'composed_(v3|v4)_blk(\d+)_([df])$', name)
        if not m:
            continue
        isa, n, prec = m.group(1), int(m.group(2)), m.group(3)
        lanes = composed_lanes(v3 if isa == 'v3' else v4, prec)
        full = specialized_lanes(lanes, n, False, prec, l1_rule)
        pal = specialized_lanes(lanes, n, True, prec, l1_rule)
        if pal > full and f'composed_{isa}_pal{n}_{prec}' not in names:
            failures.append(f'{method}: no composed_{isa}_pal{n}_{prec} ({pal} lanes for a '
                            f'palindrome of {n} substeps; the full block has {full})')
    return failures


def check_composed(where, kind, isa, blk, prec, body, nstate, declared, v3, v4, l1_rule):
    """The composed blocks (kernel_loops.h): composed_<isa>_blk/blkN/palN/rem_<p>,
    advance_composed's register blocks (the tuning table's composed lane count capped at 128,
    the same specialized to N = 3, 5, 7, 9, 15 and 17 substeps, with all N coefficient sets or,
    for a palindrome, (N + 1) / 2 of them, and the 128 mod that lanes left of each 128), and
    caudited_<isa>_d<D>_<p>, the audited form. Their step loop holds the substep
    loop (run-time trip count) and, in the audited form, the co-step. Both: no division; on v3/v4
    vectorized as blocks (no scalar arithmetic but the substep size's, no shuffles). The
    advance blocks, on v3/v4: the substep loop (the loop with the most FMAs) executes per
    vector of the block and substep the method's fma_per_step operations (as advance(): at
    least the count and less than one more; its scalar substep constants not counted), which
    also says that it is unrolled over the whole block (a rolled lane loop has one vector's
    worth), and at most half the block's state vectors carried on the stack.
    Returns (failures, (ops per oscillator-substep) or None)."""
    failures = []
    counts, insns = step_loop(body)
    if counts is None:
        return [f'{where}: no step loop found'], None
    print(f'{where}: step loop ' + ' '.join(f'{k} {v}' for k, v in sorted(counts.items())))
    if counts.get('div') or counts.get('sqrt'):
        failures.append(f'{where}: {counts.get("div", 0)} divisions, '
                        f'{counts.get("sqrt", 0)} square roots in the step loop')
    if isa not in ('v3', 'v4'):
        return failures, None
    failures += block_shape_failures(where, insns, prec, body, composed=True)
    if kind == 'caudited':
        return failures, None
    lanes = composed_lanes(v3 if isa == 'v3' else v4, prec)
    if blk == 'rem':
        lanes = 128 % lanes
    elif blk != 'blk':
        lanes = specialized_lanes(lanes, int(blk[3:]), blk.startswith('pal'), prec, l1_rule)
    per_vector = {('v3', 'd'): 4, ('v3', 'f'): 8, ('v4', 'd'): 8, ('v4', 'f'): 16}[(isa, prec)]
    vectors = lanes // per_vector
    sub = max(((t, c, l) for t, c, l in backward_loops(body)), key=lambda x: x[1].get('fma', 0))
    allowed = substep_scalars(sub[2])
    ops = {c: 0 for c in ('fma', 'mul', 'add', 'div')}
    for k, (_, mn, op) in enumerate(sub[2]):
        c = classify(mn, op)
        if c in ops and k not in allowed:
            ops[c] += 1
    per_vec = sum(ops.values()) / vectors
    substeps = max(1, round(per_vec / declared))
    ops = ops_per_step(ops, vectors, substeps)
    total = sum(ops.values())
    print(f'{where}: per oscillator-substep ' + ' '.join(f'{c} {v:g}' for c, v in ops.items()) +
          f' ({vectors} vectors, {substeps} substeps per iteration), declared fma_per_step '
          f'{declared}')
    if not (declared - 1 < total <= declared + 1e-9):
        failures.append(f'{where}: {total:g} operations per oscillator-substep in the substep '
                        f'loop over {vectors} vectors, declared fma_per_step {declared} (the '
                        f'block is not unrolled, or the step is not the method\'s)')
    carried = carried_slots(insns)
    state_vectors = nstate * vectors
    if carried:
        print(f'{where}: {len(carried)} of {state_vectors} state vectors carried on the stack')
    # more than half, not half: rk4's 16-lane block (4 of its 8 state vectors on the stack in
    # the generic substep loop, none in the 3-substep one) ran yoshida-rk4 at rk4's own fraction
    # of its ceiling, 8 lanes (no spill) at half that
    if len(carried) > state_vectors / 2:
        failures.append(f'{where}: {len(carried)} of the block\'s {state_vectors} state vectors '
                        f'live on the stack from one step to the next (the block spills)')
    return failures, ops


TABFUNC = re.compile(r'^[0-9a-f]+ <((tabv|rknv)_(blk|aud|pat\d+)_(v3|v4)_s(\d)_([df]))'
                     r'(\.[a-z]+\.\d+)*>:$')

# Per family: the FMAs of one vector's step with every coefficient of s stages applied (the code
# holds each once, behind its branch), and what they are.
COEF_FAMILIES = {
    'tabv': ('tableau', lambda s: s * s + 3 * s, '2 s forces + s (s - 1) entries of a + 2 s weights'),
    'rknv': ('rkn', lambda s: s * s + 6 * s + 1,
             '2 s forces in each of their 2 orders + s nodes c + s (s - 1) entries of abar and a '
             '+ 1 (x + h v) + 2 s weights'),
}


def check_pattern_block(where, fam, isa, stages, prec, s, body, insns, masked_vectors, full):
    """A pattern block's checks (check_tableau's docstring)."""
    vectors = masked_vectors.get((fam, isa, stages, prec))
    if not vectors:
        return [f'{where}: no masked block {fam}_blk_{isa}_s{s}_{prec} to compare with']
    fmas = sum(1 for _, m, o in body if classify(m, o) == 'fma')
    per_vector = fmas / vectors
    print(f'{where}: {fmas} FMAs in the block = {vectors:g} vectors x {per_vector:g} (the '
          f'pattern\'s nonzero coefficients; every coefficient: {full})')
    if fmas % vectors or not 2 * s <= per_vector <= full:
        return [f'{where}: {fmas} FMAs, not {vectors:g} vectors of 2 s to {full} FMAs each']
    branches = [i for i in insns[:-1] if JUMP.match(i[1])]
    if branches:
        return [f'{where}: {len(branches)} branches in the step loop besides its back edge (the '
                f'pattern\'s tests did not fold away)']
    failures = block_shape_failures(where, insns, prec, body)
    carried = carried_slots(insns)
    if len(carried) >= vectors:
        failures.append(f'{where}: {len(carried)} of the block\'s {2 * int(vectors)} state '
                        f'vectors live on the stack from one step to the next (it spills)')
    return failures


def check_tableau(objdump, lib):
    """The SIMD kernels of the methods made from coefficients (lib/methods/coef_simd.h with a
    family's chain: tableau_simd.h's for tabv_, rkn_simd.h's for rknv_), one per stage count s,
    ISA path and precision: <fam>_blk_<isa>_s<s>_<p>, advance()'s register blocks, and
    <fam>_aud_..., the audited chunks. Their coefficients are known at run time only, and each is
    guarded by a branch on the method's nonzero masks, so the code holds every coefficient's
    FMAs once per vector of the block, whether it is zero or not: a block's FMAs must be
    (vectors) x (the family's per-vector count, COEF_FAMILIES: for the rk family 2 s forces +
    s (s - 1) entries of a + 2 s weights; for the rkn family 2 s forces in each of the two
    orders a stage may sum its force in (one runs) + s nodes + s (s - 1) entries of abar and a
    + 1 + 2 s weights), a whole number of vectors, each a power of two
    (the block divides the lane ranges); fewer mean a coefficient the kernel never applies, more
    a duplicated or unrolled-and-jammed step. (What runs per step counts only the nonzero
    coefficients: the declared fma_per_step, which tests/test_tableau_method.c and
    tests/test_rkn.c check against the kernels' masks.) Their step loops: no division, no scalar
    arithmetic or shuffles, and fewer than half the block's state vectors carried on the stack
    from one step to the next (as for the methods' blocks); the audited chunks: no division, no
    scalar arithmetic in the method's step. Both families must be found.

    <fam>_pat<P>_<isa>_s<s>_<p> are the pattern blocks (coef_simd.h: the block of s stages with
    a nonzero pattern's masks as constants): they hold each of the pattern's coefficients' FMAs
    once per vector, so their FMAs must be as many vectors as the same stage count's masked block
    has, of a whole number of FMAs each, at least the 2 s of the forces and at most the masked
    block's per-vector count; their step loop must have no branch but its back edge (what the
    pattern is for: its tests folded away), and the block's checks above. The rkn family has
    them (rkn_method.c's rkn_patterns: rk4's Nystrom form's first), so its pattern blocks must
    be found."""
    failures, checked = [], 0
    found = set()
    items = list(functions(objdump, lib, TABFUNC))
    masked_vectors = {}
    for (fname, fam, kind, isa, stages, prec, _), body in items:
        if kind == 'blk':
            fmas = sum(1 for _, m, o in body if classify(m, o) == 'fma')
            masked_vectors[(fam, isa, stages, prec)] = fmas / COEF_FAMILIES[fam][1](int(stages))
    for (fname, fam, kind, isa, stages, prec, _), body in items:
        s = int(stages)
        family, per_vector_of, what = COEF_FAMILIES[fam]
        found.add(fam)
        where = f'{family} {fname}'
        counts, insns = step_loop(body)
        if counts is None:
            failures.append(f'{where}: no step loop found')
            continue
        checked += 1
        print(f'{where}: step loop ' + ' '.join(f'{k} {v}' for k, v in sorted(counts.items())))
        if counts.get('div') or counts.get('sqrt'):
            failures.append(f'{where}: {counts.get("div", 0)} divisions, '
                            f'{counts.get("sqrt", 0)} square roots in the step loop')
        if kind == 'aud':
            continue
        if kind.startswith('pat'):
            found.add(fam + '_pat')
            failures += check_pattern_block(where, fam, isa, stages, prec, s, body, insns,
                                            masked_vectors, per_vector_of(s))
            continue
        per_vector = per_vector_of(s)
        fmas = sum(1 for _, m, o in body if classify(m, o) == 'fma')
        vectors = fmas / per_vector
        print(f'{where}: {fmas} FMAs in the block = {vectors:g} vectors x {per_vector} '
              f'({what} for s = {s})')
        if fmas % per_vector or int(vectors) & (int(vectors) - 1) or vectors < 1:
            failures.append(f'{where}: {fmas} FMAs, not a power-of-two number of vectors of '
                            f'{per_vector} (every coefficient of {s} stages once per vector)')
            continue
        failures += block_shape_failures(where, insns, prec, body)
        carried = carried_slots(insns)
        state_vectors = 2 * int(vectors)
        if carried:
            print(f'{where}: {len(carried)} of {state_vectors} state vectors carried on the stack')
        if len(carried) >= state_vectors / 2:
            failures.append(f'{where}: {len(carried)} of the block\'s {state_vectors} state '
                            f'vectors live on the stack from one step to the next (it spills)')
    for fam, (family, _, _) in COEF_FAMILIES.items():
        if fam not in found:
            failures.append(f'{family}: no {fam}_ kernel found in ' + lib)
    if 'rknv' in found and 'rknv_pat' not in found:  # rkn_method.c's rkn_patterns has one
        failures.append('rkn: no rknv_pat<P>_ block (rk4\'s Nystrom pattern) found in ' + lib)
    return failures, checked


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    emit = None
    args = sys.argv[1:]
    if args[0] == '--emit':
        emit, args = args[1], args[2:]
    objdump, srcdir, specs = args[0], args[1], args[2:]
    failures, checked = [], 0
    libs, table = [], []
    # the specialized composed blocks' L1 rule (OSC_CBL_N), read from the sources it lives in
    with open(f'{srcdir}/lib/methods/method_template.h') as f:
        ncoef = int(re.search(r'#define OSC_NCOEF (\d+)', f.read()).group(1))
    with open(f'{srcdir}/lib/methods/kernel_loops.h') as f:
        budget = int(re.search(r'#define OSC_COMP_L1_BUDGET (\d+)', f.read()).group(1))
    for spec in specs:
        if spec.startswith('tableau:'):
            tab_failures, tab_checked = check_tableau(objdump, spec.split(':', 1)[1])
            failures += tab_failures
            checked += tab_checked
            continue
        method, v3, v4, cv3, cv4, stack_v3, stack_v4, lib = spec.split(':', 7)
        stack_allowed = {'v3': int(stack_v3), 'v4': int(stack_v4)} # -1: the default rule
        libs.append(lib)
        with open(f'{srcdir}/lib/methods/{method}.c') as f:
            source = f.read()
        nstate = int(re.search(r'#define OSC_NSTATE (\d)', source).group(1))
        declared = int(re.search(r'\.fma_per_step = (\d+)', source).group(1))
        # state vectors of a block: double lanes / (4 per ymm, 8 per zmm); float blocks have
        # twice the lanes in the same registers
        state_vectors = {'v3': nstate * int(v3) // 4, 'v4': nstate * int(v4) // 8}
        names = set()
        for (fname, kind, isa, blk, prec, _), body in functions(objdump, lib):
            names.add(fname)
            if kind in ('composed', 'caudited'):
                comp_failures, ops = check_composed(f'{method} {fname}', kind, isa, blk, prec,
                                                    body, nstate, declared, cv3, cv4,
                                                    (ncoef, budget))
                failures += comp_failures
                checked += 1
                if ops and blk == 'blk':
                    table.append((method.replace('_', '-') + '/composed', isa, prec, ops))
                continue
            counts, insns = step_loop(body)
            if counts is None:
                failures.append(f'{method} {fname}: no step loop found')
                continue
            checked += 1
            where = f'{method} {fname}'
            print(f'{where}: step loop ' + ' '.join(f'{k} {v}' for k, v in sorted(counts.items())))
            if counts.get('div') or counts.get('sqrt'):
                failures.append(f'{where}: {counts.get("div", 0)} divisions, '
                                f'{counts.get("sqrt", 0)} square roots in the step loop')
            if isa in ('v3', 'v4'):
                failures += block_shape_failures(where, insns, prec, body)
            if kind == 'advance' and isa in ('v3', 'v4'):
                per_array = state_vectors[isa] // nstate
                unroll = steps_per_iteration(insns)
                ops = ops_per_step(counts, per_array, unroll)
                total = sum(ops.values())
                loads = vector_loads(insns) / (per_array * unroll)
                print(f'{where}: per oscillator-step ' +
                      ' '.join(f'{c} {v:g}' for c, v in ops.items()) +
                      f', vector loads {loads:g}'
                      f' ({unroll} steps per iteration), declared fma_per_step {declared}')
                if not (declared - 1 < total <= declared + 1e-9):
                    failures.append(f'{where}: {total:g} operations per oscillator-step in the '
                                    f'compiled step loop, declared fma_per_step {declared}')
                table.append((method.replace('_', '-'), isa, prec, ops))
                spills = [f'{a:x}: {m} {o}' for a, m, o in insns
                          if m.startswith('vmov') and VSTORE_TO_STACK.match(o)]
                carried = carried_slots(insns)
                if spills:
                    print(f'{where}: {len(spills)} vector stores to the stack in the step loop, '
                          f'{len(carried)} of them carried to the next iteration '
                          f'(block state: {state_vectors[isa]} vectors)')
                stack_declared = stack_allowed[isa] >= 0
                # by default fewer than half the state vectors: at most ceil(half) - 1
                limit = stack_allowed[isa] if stack_declared else (state_vectors[isa] + 1) // 2 - 1
                if len(carried) > limit:
                    failures.append(f'{where}: {len(carried)} of the block\'s '
                                    f'{state_vectors[isa]} state vectors live on the stack from '
                                    f'one step-loop iteration to the next (the block spills'
                                    + (f'; the tuning table allows {limit}' if stack_declared else '')
                                    + '): ' + ', '.join(sorted(carried)[:4]))
        failures += missing_palindrome_blocks(method, names, cv3, cv4, (ncoef, budget))
    if emit:
        with open(emit, 'w') as out:
            out.write('/* Generated by tests/check_kernels.py from the compiled kernels: arithmetic\n'
                      ' * instructions per oscillator-step in advance()\'s step loop, by class. */\n'
                      'static const struct kernel_ops {\n'
                      '    const char *method;\n    int isa; /* 4 or 3: x86-64-v4, v3 */\n'
                      '    int prec; /* 0 double, 1 float */\n'
                      '    double fma, mul, add, div;\n} kernel_ops[] = {\n')
            for method, isa, prec, ops in sorted(table):
                out.write(f'    {{"{method}", {isa[1]}, {0 if prec == "d" else 1}, '
                          f'{ops["fma"]!r}, {ops["mul"]!r}, {ops["add"]!r}, {ops["div"]!r}}},\n')
            out.write('    {0, 0, 0, 0, 0, 0, 0},\n};\n')
    for f in failures:
        print('FAIL ' + f)
    if checked == 0:
        print('FAIL no kernel block found in ' + ' '.join(libs))
        return 1
    print(f'{checked} blocks checked, {len(failures)} failures')
    if emit:
        return 0  # the table is written either way; the test (without --emit) is what fails
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
