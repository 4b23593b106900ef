/* Explicit Runge-Kutta methods from a Butcher tableau, run by the batch like any method
 * (osc_method_from_tableau in tableau.h).
 *
 * osc_kernels' functions carry no context, so the coefficients live in a fixed set of slots and
 * each slot has its own small entry points (generated below) that pass the slot to the generic
 * kernels of tableau_kernel.h: on x86-64-v4 and v3 the SIMD kernels of tableau_simd.h (one per
 * stage count, coefficients broadcast, zero coefficients skipped), on the baseline path the plain
 * kernels (scalar loops over a stage count known at run time), which the SIMD ones reproduce bit
 * for bit (fma, the same operations in the same order on every ISA and thread count). */
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <tgmath.h> /* fma on float is fmaf in the float kernel */

#include "isa_dispatch.h"
#include "tableau.h"
#include "tableau_internal.h"

typedef struct tab_slot {
    atomic_bool taken;
    int stages;
    /* long double so that the long double reference reads the coefficients as given (in double:
     * the tableau's own type); the kernels round them to their precision once per call */
    long double a[OSC_TABLEAU_MAX_STAGES][OSC_TABLEAU_MAX_STAGES], b[OSC_TABLEAU_MAX_STAGES];
    char name[OSC_TABLEAU_NAME_MAX];
} tab_slot;

static tab_slot slots[OSC_TABLEAU_METHOD_SLOTS];

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
 * 128 float lanes) are not measured (no AVX-512 machine at hand). */
#define TAB_MAX_BLOCK_VECTORS 8
#define TAB_BLOCK_VECTORS(s, level)                                                                \
    ((level) == 4 ? ((s) <= 4 ? 8 : 4) : (s) == 1 ? 8 : (s) <= 4 ? 4 : 2)

#define TAB_PD 1
#define TAB_SUF d
#define real double
#define coef osc_coef_d
#define F(name) name##_d
#include "tableau_kernel.h"
#undef real
#undef coef
#undef F
#undef TAB_PD
#undef TAB_SUF

#define TAB_PD 0
#define TAB_SUF f
#define real float
#define coef osc_coef_f
#define F(name) name##_f
#include "tableau_kernel.h"
#undef real
#undef coef
#undef F
#undef TAB_PD
#undef TAB_SUF

#define TAB_REF_ONLY
#define real long double
#define coef osc_coef_ld
#define F(name) name##_ld
#include "tableau_kernel.h"
#undef real
#undef coef
#undef F
#undef TAB_REF_ONLY

/* ---- one set of entry points per slot --------------------------------------------------------- */

#define TAB_SLOTS(X)                                                                               \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
_Static_assert(OSC_TABLEAU_METHOD_SLOTS == 16, "TAB_SLOTS lists every slot");

#define TAB_PREC_ENTRIES(K, S)                                                                     \
    static void tab_advance_##S##_##K(const osc_soa *a, size_t i0, size_t i1, long n, double dt)   \
    {                                                                                              \
        tab_advance_##S(&slots[K], a, i0, i1, n, dt);                                              \
    }                                                                                              \
    static void tab_audited_##S##_##K(const osc_soa *ax, int dim, size_t i0, size_t i1, long n,    \
                                      double dt, const osc_costep *cs)                             \
    {                                                                                              \
        tab_advance_audited_##S(&slots[K], ax, dim, i0, i1, n, dt, cs);                            \
    }

#define TAB_REF_ENTRY(K, S, REAL, COEF)                                                            \
    static void tab_ref_step_##S##_##K(REAL s[OSC_MAX_STATE], COEF c, REAL dt)                     \
    {                                                                                              \
        tab_ref_step_##S(&slots[K], s, c, dt);                                                     \
    }

#define TAB_ENTRIES(K)                                                                             \
    TAB_PREC_ENTRIES(K, d)                                                                         \
    TAB_PREC_ENTRIES(K, f)                                                                         \
    TAB_REF_ENTRY(K, d, double, osc_coef_d)                                                        \
    TAB_REF_ENTRY(K, f, float, osc_coef_f)                                                         \
    TAB_REF_ENTRY(K, ld, long double, osc_coef_ld)
TAB_SLOTS(TAB_ENTRIES)

typedef struct tab_entries {
    void (*advance_d)(const osc_soa *, size_t, size_t, long, double);
    void (*advance_f)(const osc_soa *, size_t, size_t, long, double);
    void (*audited_d)(const osc_soa *, int, size_t, size_t, long, double, const osc_costep *);
    void (*audited_f)(const osc_soa *, int, size_t, size_t, long, double, const osc_costep *);
    void (*ref_d)(double[OSC_MAX_STATE], osc_coef_d, double);
    void (*ref_f)(float[OSC_MAX_STATE], osc_coef_f, float);
    void (*ref_ld)(long double[OSC_MAX_STATE], osc_coef_ld, long double);
} tab_entries;

#define TAB_ENTRY_ROW(K)                                                                           \
    {tab_advance_d_##K, tab_advance_f_##K, tab_audited_d_##K,     tab_audited_f_##K,               \
     tab_ref_step_d_##K, tab_ref_step_f_##K, tab_ref_step_ld_##K},
static const tab_entries entries[OSC_TABLEAU_METHOD_SLOTS] = {TAB_SLOTS(TAB_ENTRY_ROW)};

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

static int claim_slot(void)
{
    for (int k = 0; k < OSC_TABLEAU_METHOD_SLOTS; k++) {
        bool expected = false;
        if (atomic_compare_exchange_strong(&slots[k].taken, &expected, true))
            return k;
    }
    return -1;
}

static void fill_slot(tab_slot *sl, const osc_tableau *t, const char *name)
{
    sl->stages = t->stages;
    for (int i = 0; i < OSC_TABLEAU_MAX_STAGES; i++) {
        for (int j = 0; j < OSC_TABLEAU_MAX_STAGES; j++)
            sl->a[i][j] = i < t->stages && j < i ? t->a[i][j] : 0;
        sl->b[i] = i < t->stages ? t->b[i] : 0;
    }
    strcpy(sl->name, name);
}

int osc_method_from_tableau(const osc_tableau *t, const char *name, int declared_order,
                            osc_method *out)
{
    if (!t || !name || !out || declared_order < 1 || osc_tableau_validate(t, NULL) != OSC_TABLEAU_OK)
        return OSC_EINVAL;
    size_t len = strlen(name);
    if (len == 0 || len >= OSC_TABLEAU_NAME_MAX)
        return OSC_EINVAL;
    int k = claim_slot();
    if (k < 0)
        return OSC_ENOMEM;
    fill_slot(&slots[k], t, name);
    const tab_entries *e = &entries[k];
    *out = (osc_method){
        .name = slots[k].name,
        .summary = "explicit Runge-Kutta method given by its Butcher tableau, on (x, v)",
        .order = declared_order,
        .order_damped = declared_order,
        .force_evals = t->stages,
        .fma_per_step = fma_count(t),
        .symplectic = false,
        .nstate = 2,
        .kernels = {[OSC_DOUBLE] = {e->advance_d, tab_init_d, tab_readout_d, e->audited_d},
                    [OSC_FLOAT] = {e->advance_f, tab_init_f, tab_readout_f, e->audited_f}},
        .ref_d = {tab_ref_init_d, e->ref_d, tab_ref_readout_d},
        .ref_f = {tab_ref_init_f, e->ref_f, tab_ref_readout_f},
        .ref_ld = {tab_ref_init_ld, e->ref_ld, tab_ref_readout_ld},
    };
    return OSC_OK;
}

int osc_tableau_method_release(const osc_method *m)
{
    for (int k = 0; m && k < OSC_TABLEAU_METHOD_SLOTS; k++)
        if (m->kernels[OSC_DOUBLE].advance == entries[k].advance_d &&
            atomic_load(&slots[k].taken)) {
            atomic_store(&slots[k].taken, false);
            return OSC_OK;
        }
    return OSC_EINVAL;
}

int osc_tableau_kernel_fma(const osc_method *m, osc_precision p)
{
    for (int k = 0; m && k < OSC_TABLEAU_METHOD_SLOTS; k++)
        if (m->kernels[OSC_DOUBLE].advance == entries[k].advance_d) {
            if (p == OSC_FLOAT) {
                const tab_scaled_f sc = tab_scale_f(&slots[k], 1);
                return tab_chain_ops_f(&sc);
            }
            const tab_scaled_d sc = tab_scale_d(&slots[k], 1);
            return tab_chain_ops_d(&sc);
        }
    return -1;
}
