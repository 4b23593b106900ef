/* The per-precision pieces of tableau_method.c: included once per precision with `real`, `coef`
 * and F(name) defined (as method_template.h does); with TAB_REF_ONLY only the reference (the
 * long double pass). The plain kernels here take the stage count at run time (scalar loops, one
 * lane at a time): they run the baseline ISA path and are what the SIMD kernels (coef_simd.h with
 * tableau_simd.h's chain, included at the end for x86-64-v4 and v3) are held to, bit for bit.
 *
 * For the system (x, v)' = (v, -m(x, v)), m = w2 x + gam v + g (minus the acceleration),
 * stage i is
 *     X_i = x + dt sum_{j<i} a_ij V_j,   V_i = v - dt sum_{j<i} a_ij M_j,   M_i = m(X_i, V_i),
 * (the slope of x at stage j is V_j) and the step x += dt sum b_i V_i, v -= dt sum b_i M_i. */

/* The reference: the formula as written, no fma, every coefficient (zeros included). */
static void F(tab_ref_step)(const tab_slot *sl, real s[OSC_MAX_STATE], coef c, real dt)
{
    const int ns = sl->stages;
    real vs[OSC_TABLEAU_MAX_STAGES], acc[OSC_TABLEAU_MAX_STAGES];
    for (int i = 0; i < ns; i++) {
        real x = s[0], v = s[1];
        for (int j = 0; j < i; j++) {
            x += dt * (real)sl->a[i][j] * vs[j];
            v += dt * (real)sl->a[i][j] * acc[j];
        }
        vs[i] = v;
        acc[i] = -c.w2 * x - c.gam * v - c.g;
    }
    real dx = 0, dv = 0;
    for (int i = 0; i < ns; i++) {
        dx += (real)sl->b[i] * vs[i];
        dv += (real)sl->b[i] * acc[i];
    }
    s[0] = s[0] + dt * dx;
    s[1] = s[1] + dt * dv;
}

#ifndef TAB_REF_ONLY

/* The coefficients times dt, in the kernel's precision, once per call (not per step), and which
 * of them are nonzero (bit TAB_NZ_BIT(i, j) of nz_a for a_ij, bit i of nz_b for b_i). The kernels
 * skip the zero ones, so that fma_per_step counts nonzero coefficients only (fma_count in
 * tableau_method.c, tab_chain_ops below). */
typedef struct F(tab_scaled) {
    int stages;
    unsigned long long nz_a;
    unsigned nz_b;
    real ha[OSC_TABLEAU_MAX_STAGES][OSC_TABLEAU_MAX_STAGES], hb[OSC_TABLEAU_MAX_STAGES];
} F(tab_scaled);

static F(tab_scaled) F(tab_scale)(const tab_slot *sl, real dt)
{
    F(tab_scaled) k = {.stages = sl->stages};
    for (int i = 0; i < k.stages; i++) {
        for (int j = 0; j < i; j++) {
            k.ha[i][j] = dt * (real)sl->a[i][j];
            k.nz_a |= (unsigned long long)(sl->a[i][j] != 0) << TAB_NZ_BIT(i, j);
        }
        k.hb[i] = dt * (real)sl->b[i];
        k.nz_b |= (unsigned)(sl->b[i] != 0) << i;
    }
    return k;
}

/* The FMAs one step of tab_step (and of the SIMD kernels' tabv_chain) executes per lane: 2 per
 * stage (the force), 2 per nonzero a_ij, 2 per nonzero b_i, counted from the kernels' own masks. */
static int F(tab_chain_ops)(const F(tab_scaled) *k)
{
    int ops = 0;
    for (int i = 0; i < k->stages; i++) {
        ops += 2 + 2 * (int)((k->nz_b >> i) & 1);
        for (int j = 0; j < i; j++)
            ops += 2 * (int)((k->nz_a >> TAB_NZ_BIT(i, j)) & 1);
    }
    return ops;
}

/* One step of one lane with fma: the same bits on every ISA (fma is exact-then-rounded). With
 * euler's tableau it is the built-in euler's step operation for operation. */
static inline __attribute__((always_inline)) void F(tab_step)(const F(tab_scaled) *k, real *restrict x, real *restrict v,
                               real w2, real gam, real g)
{
    real vs[OSC_TABLEAU_MAX_STAGES], ms[OSC_TABLEAU_MAX_STAGES];
    const real x0 = *x, v0 = *v;
    for (int i = 0; i < k->stages; i++) {
        real xi = x0, vi = v0;
        for (int j = 0; j < i; j++)
            if (k->nz_a >> TAB_NZ_BIT(i, j) & 1)
                xi = fma(k->ha[i][j], vs[j], xi), vi = fma(-k->ha[i][j], ms[j], vi);
        vs[i] = vi;
        ms[i] = fma(w2, xi, fma(gam, vi, g));
    }
    real xn = x0, vn = v0;
    for (int i = 0; i < k->stages; i++)
        if (k->nz_b >> i & 1)
            xn = fma(k->hb[i], vs[i], xn), vn = fma(-k->hb[i], ms[i], vn);
    *x = xn, *v = vn;
}

OSC_LANE_ADVANCE_BODY(tab, tab_slot)
OSC_LANE_AUDITED_BODY(tab, tab_slot)

/* The SIMD kernels (coef_simd.h with tableau_simd.h's chain), per stage count, for x86-64-v4
 * and v3; the baseline path runs the plain kernels above (fma is a libm call there: the same
 * bits, slowly). */
#if OSC_ISA_RUNTIME
#define CS_PFX tabv
#define CS_SCALED F(tab_scaled)
#define CS_CHAIN_HEADER "tableau_simd.h"
#define CS_BLOCK_VECTORS TAB_BLOCK_VECTORS
#define CS_MAX_BLOCK_VECTORS TAB_MAX_BLOCK_VECTORS
#define CS_CHAIN_VECTORS TAB_CHAIN_VECTORS
#define CS_MAX_STAGES OSC_TABLEAU_MAX_STAGES
#include "coef_simd_paths.h"
#endif

OSC_COEF_SIMD_DISPATCH(tab, tabv, tab_slot)

#endif
