/* The per-precision pieces of rkn_method.c: included once per precision with `real`, `coef` and
 * F(name) defined (as method_template.h does); with RKN_REF_ONLY only the reference (the long
 * double pass). The plain kernels take the stage count at run time (scalar loops, one lane at a
 * time: lane_kernels.h runs the step over the batch's lanes): they run the baseline ISA path and
 * are what the SIMD kernels (coef_simd.h with rkn_simd.h's chain, included below for x86-64-v4
 * and v3) are held to, bit for bit.
 *
 * rkn.h's formula with F_j = -M_j, M = w2 X + gam V + g (minus the force):
 *     X_i = x + c_i h v - h^2 sum_j abar_ij M_j,   V_i = v - h sum_j a_ij M_j,
 *     x' = x + h v - h^2 sum_i bbar_i M_i,         v' = v - h sum_i b_i M_i. */

/* The reference: the formula as written, no fma, every coefficient (zeros included). */
static void F(rkn_ref_step)(const rkn_slot *sl, real s[OSC_MAX_STATE], coef c, real dt)
{
    const int ns = sl->stages;
    const real x = s[0], v = s[1];
    real force[OSC_RKN_MAX_STAGES];
    for (int i = 0; i < ns; i++) {
        real xi = x + (real)sl->c[i] * dt * v, vi = v;
        for (int j = 0; j < i; j++) {
            xi += dt * dt * (real)sl->abar[i][j] * force[j];
            vi += dt * (real)sl->a[i][j] * force[j];
        }
        force[i] = -c.w2 * xi - c.gam * vi - c.g;
    }
    real dx = 0, dv = 0;
    for (int i = 0; i < ns; i++) {
        dx += (real)sl->bbar[i] * force[i];
        dv += (real)sl->b[i] * force[i];
    }
    s[0] = x + dt * v + dt * dt * dx;
    s[1] = v + dt * dv;
}

#ifndef RKN_REF_ONLY

/* The coefficients times -dt^2 (abar, bbar), -dt (a, b) and dt (c), in the kernel's precision,
 * once per call, and which of them are nonzero (bit RKN_NZ_BIT(i, j) of nz_abar and nz_a for
 * abar_ij and a_ij, bit i of nz_bbar, nz_b and nz_c). The kernels skip the zero ones, so that
 * fma_per_step counts nonzero coefficients only (fma_count in rkn_method.c, rkn_chain_ops below,
 * and tests/test_rkn.c checks the two agree). The masks are of the coefficients as given, not as
 * scaled: a coefficient that rounds to 0 times dt^2 is still applied (an fma by 0). */
typedef struct F(rkn_scaled) {
    int stages;
    unsigned long long nz_abar, nz_a;
    unsigned nz_bbar, nz_b, nz_c;
    unsigned x_inner; /* bit i: stage i sums its force as gam V_i + (w2 X_i + g), rkn_x_inner */
    real nabar[OSC_RKN_MAX_STAGES][OSC_RKN_MAX_STAGES], na[OSC_RKN_MAX_STAGES][OSC_RKN_MAX_STAGES];
    real nbbar[OSC_RKN_MAX_STAGES], nb[OSC_RKN_MAX_STAGES], hc[OSC_RKN_MAX_STAGES];
    real h;
} F(rkn_scaled);

static F(rkn_scaled) F(rkn_scale)(const rkn_slot *sl, real dt)
{
    F(rkn_scaled) k = {.stages = sl->stages, .h = dt};
    const real dt2 = dt * dt;
    for (int i = 0; i < k.stages; i++) {
        for (int j = 0; j < i; j++) {
            k.nabar[i][j] = -dt2 * (real)sl->abar[i][j];
            k.na[i][j] = -dt * (real)sl->a[i][j];
            k.nz_abar |= (unsigned long long)(sl->abar[i][j] != 0) << RKN_NZ_BIT(i, j);
            k.nz_a |= (unsigned long long)(sl->a[i][j] != 0) << RKN_NZ_BIT(i, j);
        }
        k.nbbar[i] = -dt2 * (real)sl->bbar[i];
        k.nb[i] = -dt * (real)sl->b[i];
        k.hc[i] = dt * (real)sl->c[i];
        k.nz_bbar |= (unsigned)(sl->bbar[i] != 0) << i;
        k.nz_b |= (unsigned)(sl->b[i] != 0) << i;
        k.nz_c |= (unsigned)(sl->c[i] != 0) << i;
    }
    k.x_inner = rkn_x_inner(k.stages, k.nz_abar, k.nz_a, k.nz_bbar, k.nz_b);
    return k;
}

/* The FMAs one step of rkn_step (and of the SIMD kernels' rknv chain) executes per lane, counted
 * from the kernels' own masks: per stage 2 (the force) + [c_i != 0] + one per nonzero abar_ij
 * and a_ij; then 1 (x + h v) + one per nonzero bbar_i and b_i. */
static int F(rkn_chain_ops)(const F(rkn_scaled) *k)
{
    int ops = 1;
    for (int i = 0; i < k->stages; i++) {
        ops += 2 + (int)(k->nz_c >> i & 1) + (int)(k->nz_bbar >> i & 1) + (int)(k->nz_b >> i & 1);
        for (int j = 0; j < i; j++)
            ops += (int)(k->nz_abar >> RKN_NZ_BIT(i, j) & 1) + (int)(k->nz_a >> RKN_NZ_BIT(i, j) & 1);
    }
    return ops;
}

/* One step of one lane with fma: the same bits on every ISA (fma is exact-then-rounded). */
static inline __attribute__((always_inline)) void F(rkn_step)(const F(rkn_scaled) *k,
                                                              real *restrict x, real *restrict v,
                                                              real w2, real gam, real g)
{
    real ms[OSC_RKN_MAX_STAGES];
    const real x0 = *x, v0 = *v;
    for (int i = 0; i < k->stages; i++) {
        real xi = k->nz_c >> i & 1 ? fma(k->hc[i], v0, x0) : x0, vi = v0;
        for (int j = 0; j < i; j++) {
            if (k->nz_abar >> RKN_NZ_BIT(i, j) & 1)
                xi = fma(k->nabar[i][j], ms[j], xi);
            if (k->nz_a >> RKN_NZ_BIT(i, j) & 1)
                vi = fma(k->na[i][j], ms[j], vi);
        }
        ms[i] = k->x_inner >> i & 1 ? fma(gam, vi, fma(w2, xi, g)) : fma(w2, xi, fma(gam, vi, g));
    }
    real xn = fma(k->h, v0, x0), vn = v0;
    for (int i = 0; i < k->stages; i++) {
        if (k->nz_bbar >> i & 1)
            xn = fma(k->nbbar[i], ms[i], xn);
        if (k->nz_b >> i & 1)
            vn = fma(k->nb[i], ms[i], vn);
    }
    *x = xn, *v = vn;
}

OSC_LANE_ADVANCE_BODY(rkn, rkn_slot)
OSC_LANE_AUDITED_BODY(rkn, rkn_slot)

#if OSC_ISA_RUNTIME
/* Which of rkn_patterns (rkn_method.c) the scaled tableau's masks are: its number from 1, or 0. */
static int F(rkn_pattern_of)(const F(rkn_scaled) *k)
{
    for (int p = 0; p < (int)(sizeof rkn_patterns / sizeof rkn_patterns[0]); p++) {
        const rkn_pattern *q = &rkn_patterns[p];
        if (k->stages == q->stages && k->nz_abar == q->nz_abar && k->nz_a == q->nz_a &&
            k->nz_c == q->nz_c && k->nz_bbar == q->nz_bbar && k->nz_b == q->nz_b)
            return p + 1;
    }
    return 0;
}

/* Pattern p's masks into k: p a constant, they are constants to the chain inlined after it. */
static inline __attribute__((always_inline)) void F(rkn_pattern_set)(F(rkn_scaled) *k, int p)
{
    const rkn_pattern *q = &rkn_patterns[p - 1];
    k->nz_abar = q->nz_abar, k->nz_a = q->nz_a, k->nz_c = q->nz_c;
    k->nz_bbar = q->nz_bbar, k->nz_b = q->nz_b;
    k->x_inner = rkn_x_inner(q->stages, q->nz_abar, q->nz_a, q->nz_bbar, q->nz_b);
}

/* The SIMD kernels (coef_simd.h with rkn_simd.h's chain), per stage count, for x86-64-v4 and v3;
 * the baseline path runs the plain kernels above (fma is a libm call there: the same bits,
 * slowly). */
#define CS_PFX rknv
#define CS_SCALED F(rkn_scaled)
#define CS_CHAIN_HEADER "rkn_simd.h"
#define CS_BLOCK_VECTORS RKN_BLOCK_VECTORS
#define CS_MAX_BLOCK_VECTORS RKN_MAX_BLOCK_VECTORS
#define CS_CHAIN_VECTORS RKN_CHAIN_VECTORS
#define CS_MAX_STAGES OSC_RKN_MAX_STAGES
#define CS_PATTERNS RKN_PATTERNS
#define CS_PATTERN_OF F(rkn_pattern_of)
#define CS_PATTERN_SET F(rkn_pattern_set)
#include "coef_simd_paths.h"
#endif

OSC_COEF_SIMD_DISPATCH(rkn, rknv, rkn_slot)

#endif
