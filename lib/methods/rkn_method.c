/* Runge-Kutta-Nystrom methods from their tableau, run by the batch like any method
 * (osc_method_from_rkn in rkn.h). As tableau_method.c: the coefficients in slots with their own
 * entry points (method_slots.h) that pass the slot to the generic kernels of rkn_kernel.h: on
 * x86-64-v4 and v3 the SIMD kernels of coef_simd.h with rkn_simd.h's chain (one per stage count,
 * coefficients broadcast, zero coefficients skipped), on the baseline path the plain kernels
 * (scalar loops over a stage count known at run time), which the SIMD ones reproduce bit for bit
 * (fma, the same operations in the same order on every ISA and thread count). */
#include <stdbool.h>
#include <stddef.h>
#include <tgmath.h> /* fma on float is fmaf in the float kernel */

#include "lane_kernels.h"
#include "method_slots.h"
#include "rkn.h"
#include "rkn_internal.h"

_Static_assert(OSC_RKN_METHOD_SLOTS == OSC_COEF_SLOTS && OSC_RKN_NAME_MAX == OSC_COEF_NAME_MAX,
               "RKN methods take the shared slots");

typedef struct rkn_slot {
    int stages;
    /* long double so that the long double reference reads the coefficients as given */
    long double abar[OSC_RKN_MAX_STAGES][OSC_RKN_MAX_STAGES];
    long double a[OSC_RKN_MAX_STAGES][OSC_RKN_MAX_STAGES];
    long double bbar[OSC_RKN_MAX_STAGES], b[OSC_RKN_MAX_STAGES], c[OSC_RKN_MAX_STAGES];
} rkn_slot;

static rkn_slot rkn_slots[OSC_RKN_METHOD_SLOTS];
static osc_slot_pool rkn_pool;

/* Bit of abar_ij and a_ij in the kernels' nonzero masks (8 x 8 = 64 bits). */
#define RKN_NZ_BIT(i, j) ((i) * OSC_RKN_MAX_STAGES + (j))
_Static_assert(OSC_RKN_MAX_STAGES * OSC_RKN_MAX_STAGES <= 64, "the masks are 64 bits");

/* Vectors per register block of the SIMD kernels (coef_simd.h, rkn_simd.h's chain) for s stages
 * on x86-64-v3 (16 ymm) and v4 (32 zmm); a power of two, so that blocks divide every lane
 * range. The tableau's sizes (TAB_BLOCK_VECTORS in tableau_method.c). On v3 only rk4's Nystrom
 * form (s = 4) was measured here (Zen 3, AVX2, one thread, 65536 lanes, medians of 3 runs'
 * cpu_roof_fraction on a machine loaded 3-7 by other builds, so differences under ~20% are
 * noise): 4 vectors 0.41-0.44, 2 vectors 0.37, 8 vectors 0.28 (double and float alike; one vector
 * per chain call, for the chain's width see RKN_CHAIN_VECTORS). The other stage counts keep the
 * tableau's sizes unmeasured. On v4 only s = 4 was measured (Zen 5, AVX-512, one thread, 65536
 * lanes, 5 interleaved rounds, best and median of the rounds' medians of cpu_roof_fraction,
 * double): 4 vectors in 2-vector chain calls 0.71 / 0.69, 8 in 2-vector calls 0.68 / 0.66,
 * 4 in 1-vector calls 0.47 / 0.36, 8 in 1-vector calls 0.30 / 0.29 (float alike); the other
 * stage counts keep the tableau's v4 sizes unmeasured. */
#define RKN_MAX_BLOCK_VECTORS 8
#define RKN_BLOCK_VECTORS(s, level)                                                                \
    ((level) == 4 ? ((s) < 4 ? 8 : 4) : (s) == 1 ? 8 : (s) <= 4 ? 4 : 2)
/* Vectors per chain call (coef_simd.h). Its step runs one FMA per coefficient, so stepping one
 * vector at a time pays a mask test and a broadcast per FMA; for s = 4 on v3 two vectors per call
 * (the 4-vector block in two calls) halve that: rk4's Nystrom form, double, 4.1 -> 3.0 instructions
 * per FMA in the block (callgrind), best of 10-12 interleaved runs 1.87 -> 1.56 ns per osc-step
 * (Zen 3, one thread, 65536 lanes, a loaded machine). Four per call (the block in lockstep: 2.6 per
 * FMA, 2.2 ns) and an 8-vector block of two-vector calls (2.4 ns) were slower. At other stage
 * counts two per call (a 2-vector block's lockstep for s >= 5) was no better or slower: s = 1 and 2
 * within the noise, s = 3 dense, 6 subdiagonal and 8 dense tableaus 6-30% slower, a dense 6-stage
 * one 15% faster (best and median of 6 runs), so they keep one. On v4 two per call for s = 4
 * likewise: rk4's Nystrom form 0.29 -> 0.69 of its ceiling (medians; see RKN_BLOCK_VECTORS); the
 * other v4 widths are not measured (kept at one). Re-measured after rkn_x_inner shortened the chain
 * (Zen 3, one thread, 65536 lanes, double, 6 interleaved rounds on an idle machine, best and median
 * of the rounds' medians of cpu_roof_fraction): 4 vectors in 2 calls 0.62 / 0.55, one vector per
 * call 0.35 / 0.29, 8 vectors in 2-vector calls 0.34 / 0.31; the coefficients as pre-broadcast
 * vectors read by the FMAs from memory instead of broadcast ones: 0.48 / 0.46 against 0.62 / 0.60
 * (5 rounds). */
#define RKN_CHAIN_VECTORS(s, level) ((s) == 4 ? 2 : 1)

/* Nonzero patterns with branch-free blocks of their own (coef_simd.h's pattern blocks). The
 * kernels skip a zero coefficient by a test of the masks (rkn_simd.h); on AVX2's 16 registers
 * those tests cost more than the FMAs they skip: at each join of a test GCC must find every live
 * vector where the other way left it, and keeps the block's accumulators in stack slots, a store
 * and a reload on the step's chain (rk4's Nystrom form, v3, 2 threads, 2^20 lanes: all 41
 * coefficients applied without tests ran 1.18x the osc-steps/s of the 24 nonzero ones behind their
 * tests). A tableau whose masks are one of these runs a block compiled with them as constants: the
 * same operations in the same order, so the same bits (tests/test_maxima.c holds rk4's Nystrom
 * form to the plain kernel at every ISA level), with no test left in its step loop
 * (tests/check_kernels.py checks). Measured on a Zen 4 (2026-12-03, 2 threads, 2^20 lanes, 3
 * interleaved rounds of medians of 3, roof_fraction double/float, against the masked block): v3
 * 0.56/0.60 -> 0.84/0.85 and 0.58/0.59 -> 0.83/0.86 (1.43x-1.51x), v4 0.95-0.98 either way
 * (1.00x-1.02x). The same for the rk family (rk4's, the 3/8 rule's, Kutta's and Heun's shapes)
 * gained 1.02x-1.04x and its 4-vector AVX2 blocks then kept half their state on the stack: not
 * taken. The shapes most tableaus have got blocks next: the Nystrom form of a dense RK tableau
 * (every RK method written for x'' = f(x, v): abar = A^2 has no subdiagonal, bbar = b^T A no
 * last entry) and the dense RKN tableau, 2 to 6 stages each. On a Zen 3 (2026-12-03, AVX2,
 * 2 threads, 2^20 lanes, 3 interleaved rounds of medians of 3, roof_fraction double/float,
 * masked -> pattern): Heun's Nystrom form 0.42/0.41 -> 0.82/0.80, Kutta's third order's
 * 0.48/0.46 -> 0.90/0.93, the 3/8 rule's 0.67/0.65 -> 0.91/0.89, a dense 3-stage RKN tableau
 * 0.47/0.47 -> 0.83/0.86 (1.35x-2.04x); rk4's own 0.80/0.78 -> 0.81/0.80 (its pattern was
 * already there). The blocks add ~7 s to this file's compile. A shape with no block of its own
 * keeps the masked kernel (0.4-0.7 on AVX2). RKN_PATTERNS lists them by number (1 = the
 * table's first) and stage count.
 */
#if OSC_ISA_RUNTIME /* only the SIMD kernels have pattern blocks */
typedef struct rkn_pattern {
    int stages;
    unsigned long long nz_abar, nz_a;
    unsigned nz_c, nz_bbar, nz_b; /* x_inner follows from them (rkn_x_inner) */
} rkn_pattern;

#define RKN_BIT(i, j) (1ull << RKN_NZ_BIT(i, j))
/* Rows 1..s-1 of a strictly lower triangle, row i's first i - d entries (d = 0: all of them;
 * d = 1: all but the subdiagonal); RKN_FIRST(n): entries 0..n-1 of a vector. */
#define RKN_ROW(i, n) (((1ull << (n)) - 1) << RKN_NZ_BIT(i, 0))
#define RKN_LOWER(s, d)                                                                            \
    (((s) > 1 ? RKN_ROW(1, 1 - (d)) : 0) | ((s) > 2 ? RKN_ROW(2, 2 - (d)) : 0) |                  \
     ((s) > 3 ? RKN_ROW(3, 3 - (d)) : 0) | ((s) > 4 ? RKN_ROW(4, 4 - (d)) : 0) |                  \
     ((s) > 5 ? RKN_ROW(5, 5 - (d)) : 0) | ((s) > 6 ? RKN_ROW(6, 6 - (d)) : 0) |                  \
     ((s) > 7 ? RKN_ROW(7, 7 - (d)) : 0))
#define RKN_FIRST(n) ((1u << (n)) - 1)
/* The Nystrom form (abar = A^2, bbar = b^T A, a = A) of a dense s-stage RK tableau, such as
 * Kutta's third order or the 3/8 rule: abar_ij for j < i - 1, every a_ij, c_2..c_s,
 * bbar_1..bbar_{s-1}, every b_i. */
#define RKN_NYSTROM_OF_DENSE(s)                                                                    \
    {s, RKN_LOWER(s, 1), RKN_LOWER(s, 0), RKN_FIRST(s) & ~1u, RKN_FIRST((s) - 1), RKN_FIRST(s)}
/* A dense s-stage RKN tableau: every abar_ij, a_ij, c_2..c_s, bbar_i and b_i. */
#define RKN_DENSE(s)                                                                               \
    {s, RKN_LOWER(s, 0), RKN_LOWER(s, 0), RKN_FIRST(s) & ~1u, RKN_FIRST(s), RKN_FIRST(s)}
static const rkn_pattern rkn_patterns[] = {
    /* rk4's Nystrom form: abar_31, abar_42; a_21, a_32, a_43; c_2..c_4; bbar_1..3; b_1..4 */
    {4, RKN_BIT(2, 0) | RKN_BIT(3, 1), RKN_BIT(1, 0) | RKN_BIT(2, 1) | RKN_BIT(3, 2), 0xe, 0x7,
     0xf},
    RKN_NYSTROM_OF_DENSE(2), RKN_NYSTROM_OF_DENSE(3), RKN_NYSTROM_OF_DENSE(4),
    RKN_NYSTROM_OF_DENSE(5), RKN_NYSTROM_OF_DENSE(6),
    RKN_DENSE(2), RKN_DENSE(3), RKN_DENSE(4), RKN_DENSE(5), RKN_DENSE(6),
};
#undef RKN_DENSE
#undef RKN_NYSTROM_OF_DENSE
#undef RKN_FIRST
#undef RKN_LOWER
#undef RKN_ROW
#undef RKN_BIT
#define RKN_PATTERNS(X)                                                                            \
    X(1, 4) X(2, 2) X(3, 3) X(4, 4) X(5, 5) X(6, 6) X(7, 2) X(8, 3) X(9, 4) X(10, 5) X(11, 6)
#endif

/* Which of stage i's X_i and V_i its force M_i = w2 X_i + gam V_i + g adds first. Each is a chain
 * of FMAs whose last term is the newest force (M_{i-1}; for stage 0, the previous step's M_s via
 * x' and v'), so the one that does not read it is ready early: that one goes inside,
 * fma(w2, X_i, g) or fma(gam, V_i, g), and the other outside, one FMA after its own update. For
 * rk4's Nystrom form X_2..X_4 do not read the newest force (abar_{i,i-1} = 0) nor does x'
 * (bbar_4 = 0): X inside makes each stage 2 FMAs deep after M_{i-1} instead of 3 (the step's
 * chain 32 cycles instead of 48 on a 4-cycle FMA). X goes inside unless only X reads the newest
 * force. */
/* From the nonzero masks (RKN_NZ_BIT), as bits: bit i set = stage i puts X inside. A function of
 * the masks alone, so that a pattern block (rkn_patterns) derives it from its masks too. */
static inline __attribute__((always_inline)) unsigned rkn_x_inner(int s, unsigned long long nz_abar,
                                                                  unsigned long long nz_a,
                                                                  unsigned nz_bbar, unsigned nz_b)
{
    unsigned inner = 0;
    for (int i = 0; i < s; i++) {
        const unsigned x_late =
            i == 0 ? nz_bbar >> (s - 1) & 1 : nz_abar >> RKN_NZ_BIT(i, i - 1) & 1;
        const unsigned v_late = i == 0 ? nz_b >> (s - 1) & 1 : nz_a >> RKN_NZ_BIT(i, i - 1) & 1;
        inner |= (unsigned)!(x_late && !v_late) << i;
    }
    return inner;
}

/* The kernels for double and float, then the long double reference. */
#define OSC_PASS_FILE "rkn_kernel.h"
#include "precision_passes.h"

#define OSC_PASS_LD
#define RKN_REF_ONLY
#define OSC_PASS_FILE "rkn_kernel.h"
#include "precision_passes.h"
#undef RKN_REF_ONLY
#undef OSC_PASS_LD

OSC_SLOT_ENTRIES(rkn)

/* Operations per step of rkn_step (rkn.h): per stage the force's two fma, one for c_i h v when
 * c_i != 0 and one per nonzero abar_ij and a_ij; then x + h v and one per nonzero bbar_i, b_i. */
static int fma_count(const osc_rkn_tableau *t)
{
    int count = 1;
    for (int i = 0; i < t->stages; i++) {
        count += 2 + (t->c[i] != 0) + (t->bbar[i] != 0) + (t->b[i] != 0);
        for (int j = 0; j < i; j++)
            count += (t->abar[i][j] != 0) + (t->a[i][j] != 0);
    }
    return count;
}

static void fill_slot(rkn_slot *sl, const osc_rkn_tableau *t)
{
    *sl = (rkn_slot){.stages = t->stages};
    for (int i = 0; i < t->stages; i++) {
        for (int j = 0; j < i; j++)
            sl->abar[i][j] = t->abar[i][j], sl->a[i][j] = t->a[i][j];
        sl->bbar[i] = t->bbar[i], sl->b[i] = t->b[i], sl->c[i] = t->c[i];
    }
}

int osc_method_from_rkn(const osc_rkn_tableau *t, const char *name, int declared_order,
                        osc_method *out)
{
    if (!t || !out || declared_order < 1 || osc_rkn_validate(t, NULL) != OSC_RKN_OK)
        return OSC_EINVAL;
    const int k = osc_slot_claim(&rkn_pool, name);
    if (k < 0)
        return k;
    fill_slot(&rkn_slots[k], t);
    *out = osc_slot_explicit_method(
        &rkn_pool, k, &rkn_entries[k],
        "explicit Runge-Kutta-Nystrom method given by its tableau, on x'' = f(x, v)",
        declared_order, t->stages, fma_count(t));
    return OSC_OK;
}

int osc_rkn_method_release(const osc_method *m)
{
    return osc_slot_release(&rkn_pool, rkn_entries, m);
}

int osc_rkn_kernel_fma(const osc_method *m, osc_precision p)
{
    for (int k = 0; m && k < OSC_RKN_METHOD_SLOTS; k++)
        if (m->kernels[OSC_DOUBLE].advance == rkn_entries[k].advance_d) {
            if (p == OSC_FLOAT) {
                const rkn_scaled_f sc = rkn_scale_f(&rkn_slots[k], 1);
                return rkn_chain_ops_f(&sc);
            }
            const rkn_scaled_d sc = rkn_scale_d(&rkn_slots[k], 1);
            return rkn_chain_ops_d(&sc);
        }
    return -1;
}
