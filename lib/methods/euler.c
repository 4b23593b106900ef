/* Explicit (forward) Euler. */
#ifndef OSC_PASS
#define OSC_SELF "euler.c"
#define OSC_NSTATE 2
#include "method_template.h"

const osc_method osc_method_euler = {
    .name = "euler",
    .summary = "explicit Euler: x += v dt with the old v, v += a(x,v) dt",
    .order = 1,
    .order_damped = 1,
    .force_evals = 1,
    .fma_per_step = 4, /* 3 FMAs and an add */
    .symplectic = false,
    .symmetric = false,
    .symmetric_damped = false,
    OSC_KERNELS,
};
#else

/* Both updates read the state at the step's start: the drift uses the OLD velocity. With
 * coefficients prepared once per lane (as in semi_implicit.c: d = -gam dt, p = -w2 dt,
 * r = -g dt) the kick v' = (v + d v) + (p x + r) is two independent FMAs and an add, the drift
 * one FMA: 3 FMAs and an add per step instead of 4 FMAs, the drag as a decrement (never a
 * rounded factor on v). */
#define OSC_LANE_COEFS
static inline void F(lane_coefs)(real w2, real gam, real g, real dt, real k[OSC_NCOEF])
{
    k[0] = -gam * dt, k[1] = -w2 * dt, k[2] = -g * dt, k[3] = 0;
}

static inline void F(fast_step)(real *restrict x, real *restrict v, real *restrict unused, real d,
                                real p, real r, real unused_k3, real dt)
{
    (void)unused, (void)unused_k3;
    real x0 = *x;
    *x = fma(dt, *v, x0);
    *v = fma(d, *v, *v) + fma(p, x0, r);
}

static void F(ref_step)(real s[OSC_MAX_STATE], coef c, real dt)
{
    real a = -c.w2 * s[0] - c.gam * s[1] - c.g;
    real x = s[0] + s[1] * dt;
    real v = s[1] + a * dt;
    s[0] = x, s[1] = v;
}
#endif
