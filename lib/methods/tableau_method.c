/* Explicit Runge-Kutta methods from a Butcher tableau, run by the batch like any method
 * (osc_method_from_tableau in tableau.h).
 *
 * osc_kernels' functions carry no context, so the coefficients live in a fixed set of slots and
 * each slot has its own small entry points (method_slots.h) that pass the slot to the generic
 * kernels of tableau_kernel.h: on x86-64-v4 and v3 the SIMD kernels of tableau_simd.h (one per
 * stage count, coefficients broadcast, zero coefficients skipped), on the baseline path the plain
 * kernels (scalar loops over a stage count known at run time), which the SIMD ones reproduce bit
 * for bit (fma, the same operations in the same order on every ISA and thread count). */
#include <stdbool.h>
#include <stddef.h>
#include <tgmath.h> /* fma on float is fmaf in the float kernel */

#include "lane_kernels.h"
#include "method_slots.h"
#include "tableau.h"
#include "tableau_internal.h"

_Static_assert(OSC_TABLEAU_METHOD_SLOTS == OSC_COEF_SLOTS && OSC_TABLEAU_NAME_MAX == OSC_COEF_NAME_MAX,
               "tableau methods take the shared slots");

typedef struct tab_slot {
    int stages;
    /* long double so that the long double reference reads the coefficients as given (in double:
     * the tableau's own type); the kernels round them to their precision once per call */
    long double a[OSC_TABLEAU_MAX_STAGES][OSC_TABLEAU_MAX_STAGES], b[OSC_TABLEAU_MAX_STAGES];
} tab_slot;

static tab_slot tab_slots[OSC_TABLEAU_METHOD_SLOTS];
static osc_slot_pool tab_pool;

/* Bit of a_ij in the kernels' nonzero mask (8 x 8 = 64 bits). */
#define TAB_NZ_BIT(i, j) ((i) * OSC_TABLEAU_MAX_STAGES + (j))
_Static_assert(OSC_TABLEAU_MAX_STAGES * OSC_TABLEAU_MAX_STAGES <= 64, "the mask is 64 bits");

/* Vectors per register block of the SIMD kernels (tableau_simd.h) for s stages on x86-64-v3
 * (16 ymm) and v4 (32 zmm); a power of two, so that blocks divide every lane range. One vector's
 * step holds about 2 s + 4 vectors (its stage vectors V_i and M_i, the state, the partial sums):
 * the more stages, the fewer vectors' steps fit the registers beside it. The v3 sizes were
 * measured on Zen 3 (AVX2, one thread, 65536 lanes, best CPU-time FMA rate of 3 runs on a shared
 * machine, a subdiagonal and a dense tableau per stage count; differences under ~15% are noise):
 *     s = 1: 8 vectors (4: 0.8x);  s = 2-4: 4 (2: 0.55-0.75x, 8: 0.5-0.9x; rk4's tableau 0.71 of
 *     its ceiling at 4, 0.44 at 2, 0.38 at 8);  s = 5-8: 2 (4: 0.55-0.9x).
 * 3 or 6 vectors were sometimes faster by up to 20% but do not divide the lane ranges. The v4
 * sizes (8 vectors up to 4 stages, 4 beyond: twice v3's for the twice as many registers, at most
 * 128 float lanes) were measured on Zen 5 (AVX-512, one thread, 65536 lanes): for s = 4, rk4's
 * tableau, 5 interleaved rounds, best and median of the rounds' medians of cpu_roof_fraction,
 * double: 8 vectors 0.91 / 0.85, 4 vectors 0.80 / 0.76 (float alike); for s = 1-8 (2026-12-02,
 * osc_batch_run of a subdiagonal and a dense tableau, best of 5 runs, 3 rounds; FMA rate per
 * CPU-second over the core's peak, 5.78e10 FMA/s, from oscbench-bench's probe minutes before,
 * not the same process): as chosen, dense 0.89-0.97, subdiagonal
 * 0.92-0.97 up to 4 stages and 0.81, 0.79, 0.74, 0.61 for 5-8 (one chain of 3 s dependent FMAs);
 * 8 vectors at s = 5-8 within +-0.04 of 4 (noise), 4 vectors at s = 1-3 0.65-0.86, 2 vectors
 * 0.34-0.87 (float alike). On the same machine the v3 path (OSCBENCH_ISA=v3, against half that
 * peak) reads subdiagonal 0.40-0.49 and dense 0.64-0.83 for s = 5-8 at 2 vectors and 0.47-0.69
 * and 0.57-0.88 at 4 (4 better for 5-6 stages, worse for dense 7-8): the opposite of Zen 3's
 * finding for 5-6 stages. Zen 3 re-measured (2026-12-02, the same way, 3 rounds, over the core's
 * peak 2.3e10 FMA/s from the probe, best / median): s = 5-8 at 2 vectors subdiagonal 0.48, 0.48,
 * 0.46, 0.42 / 0.47, 0.47, 0.43, 0.28 and dense 0.65, 0.58, 0.66, 0.50 / 0.64, 0.56, 0.54, 0.50;
 * at 4 vectors 0.54, 0.50, 0.42, 0.32 / 0.34, 0.29, 0.26, 0.22 and 0.60, 0.52, 0.54, 0.44 /
 * 0.43, 0.43, 0.41, 0.37; at 8 0.15-0.26: Zen 3 keeps 2 (the Zen 5's AVX2 path is no proxy
 * here). The same source at s <= 4 read up to 1.4x apart between builds that differ only in
 * the s >= 5 code (subdiagonal s = 4: 0.77 / 0.54): code placement, which no block size fixes. */
#define TAB_MAX_BLOCK_VECTORS 8
#define TAB_BLOCK_VECTORS(s, level)                                                                \
    ((level) == 4 ? ((s) <= 4 ? 8 : 4) : (s) == 1 ? 8 : (s) <= 4 ? 4 : 2)
/* Vectors per chain call (coef_simd.h): one, each vector's whole step in turn. Stepping 2 or 4
 * of a block's vectors coefficient by coefficient (one mask test and broadcast per coefficient
 * for 4-8 FMAs instead of 2) runs fewer instructions (rk4's tableau, double, v3: 2.4 per FMA at
 * 2 and 4 vectors against 2.9) but was slower on Zen 3 (one thread, 65536 lanes, 12 interleaved
 * runs on a loaded machine, best: 1.41 and 2.12 ns per osc-step against 1.15; a dense 6-stage
 * tableau 4.1 against 2.9): the vectors then hold more registers (the block spills its
 * accumulators) and run in lockstep, each step's chain of dependent FMAs less hidden. On v4
 * (Zen 5, as above) two per call were no better: 8 vectors 0.92 / 0.88, 4 vectors 0.83 / 0.82. */
#define TAB_CHAIN_VECTORS(s, level) 1

/* The kernels for double and float, then the long double reference. */
#define OSC_PASS_FILE "tableau_kernel.h"
#include "precision_passes.h"

#define OSC_PASS_LD
#define TAB_REF_ONLY
#define OSC_PASS_FILE "tableau_kernel.h"
#include "precision_passes.h"
#undef TAB_REF_ONLY
#undef OSC_PASS_LD

OSC_SLOT_ENTRIES(tab)

/* ---- the method --------------------------------------------------------------------------- */

/* Operations per step of tab_step: per stage two fma per nonzero a_ij (x and v) and two for the
 * force m = fma(w2, X, fma(gam, V, g)); two per nonzero b_i. dt * a_ij is hoisted (per call). */
static int fma_count(const osc_tableau *t)
{
    int count = 0;
    for (int i = 0; i < t->stages; i++) {
        count += 2;
        for (int j = 0; j < i; j++)
            count += t->a[i][j] != 0 ? 2 : 0;
        count += t->b[i] != 0 ? 2 : 0;
    }
    return count;
}

static void fill_slot(tab_slot *sl, const osc_tableau *t)
{
    sl->stages = t->stages;
    for (int i = 0; i < OSC_TABLEAU_MAX_STAGES; i++) {
        for (int j = 0; j < OSC_TABLEAU_MAX_STAGES; j++)
            sl->a[i][j] = i < t->stages && j < i ? t->a[i][j] : 0;
        sl->b[i] = i < t->stages ? t->b[i] : 0;
    }
}

int osc_method_from_tableau(const osc_tableau *t, const char *name, int declared_order,
                            osc_method *out)
{
    if (!t || !out || declared_order < 1 || osc_tableau_validate(t, NULL) != OSC_TABLEAU_OK)
        return OSC_EINVAL;
    const int k = osc_slot_claim(&tab_pool, name);
    if (k < 0)
        return k;
    fill_slot(&tab_slots[k], t);
    *out = osc_slot_explicit_method(
        &tab_pool, k, &tab_entries[k],
        "explicit Runge-Kutta method given by its Butcher tableau, on (x, v)", declared_order,
        t->stages, fma_count(t));
    return OSC_OK;
}

int osc_tableau_method_release(const osc_method *m)
{
    return osc_slot_release(&tab_pool, tab_entries, m);
}

int osc_tableau_kernel_fma(const osc_method *m, osc_precision p)
{
    for (int k = 0; m && k < OSC_TABLEAU_METHOD_SLOTS; k++)
        if (m->kernels[OSC_DOUBLE].advance == tab_entries[k].advance_d) {
            if (p == OSC_FLOAT) {
                const tab_scaled_f sc = tab_scale_f(&tab_slots[k], 1);
                return tab_chain_ops_f(&sc);
            }
            const tab_scaled_d sc = tab_scale_d(&tab_slots[k], 1);
            return tab_chain_ops_d(&sc);
        }
    return -1;
}
