/* Semi-implicit (symplectic) Euler, a.k.a. Euler-Cromer. */
#ifndef OSC_PASS
#define OSC_SELF "semi_implicit.c"
#define OSC_NSTATE 2
#include "method_template.h"

const osc_method osc_method_semi_implicit = {
    .name = "semi-implicit",
    .summary = "symplectic Euler: v += a(x,v) dt, then x += v' dt",
    .order = 1,
    .order_damped = 1,
    .force_evals = 1,
    .fma_per_step = 4, /* 3 FMAs and an add */
    .symplectic = true,
    .symmetric = false,
    .symmetric_damped = false,
    OSC_KERNELS,
};
#else

/* The kick comes first and the drift uses the new velocity: that order is what makes the map
 * symplectic (and what distinguishes it from explicit Euler). The kick
 *     v' = v + dt (-w2 x - gam v - g) = (v + d v) + (p x + r),   d = -gam dt, p = -w2 dt, r = -g dt,
 * with the coefficients prepared once per lane (kernel_loops.h): two independent FMAs and an
 * add, then the drift x' = x + dt v', one FMA. 3 FMAs and an add per step instead of 4 FMAs (the
 * add runs on the FP-add pipes where a CPU has them), 11 cycles deep instead of 16. The drag
 * enters as the decrement d v inside fma(d, v, v), rounded once at the size of v: a product
 * with a rounded factor 1 - gam dt would bias the damping rate by u/(gam dt) (README).
 * Without gravity r is -0 and fma(p, x, -0) is p x to the bit, so a second block kernel could
 * drop r's load (2 loads a vector-step instead of 3): 1.026x double, 1.022x float on a Zen 3
 * (harness/bench/ab.py, 2 threads, 2^20 lanes, 7 rounds, 2026-12-06), not worth a second kernel. */
#define OSC_LANE_COEFS
static inline void F(lane_coefs)(real w2, real gam, real g, real dt, real k[OSC_NCOEF])
{
    k[0] = -gam * dt, k[1] = -w2 * dt, k[2] = -g * dt, k[3] = 0;
}

static inline void F(fast_step)(real *restrict x, real *restrict v, real *restrict unused, real d,
                                real p, real r, real unused_k3, real dt)
{
    (void)unused, (void)unused_k3;
    *v = fma(d, *v, *v) + fma(p, *x, r);
    *x = fma(dt, *v, *x);
}

static void F(ref_step)(real s[OSC_MAX_STATE], coef c, real dt)
{
    real a = -c.w2 * s[0] - c.gam * s[1] - c.g;
    s[1] = s[1] + a * dt;
    s[0] = s[0] + s[1] * dt;
}
#endif
