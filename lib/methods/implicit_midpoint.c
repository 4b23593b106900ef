/* The implicit midpoint rule, its linear solve in closed form. */
#ifndef OSC_PASS
#define OSC_SELF "implicit_midpoint.c"
#define OSC_NSTATE 2
#include "method_template.h"

const osc_method osc_method_implicit_midpoint = {
    .name = "implicit-midpoint",
    .summary = "implicit midpoint rule, closed-form 2x2 solve: symplectic, A-stable",
    .order = 2,
    .order_damped = 2,
    .force_evals = 1,
    .fma_per_step = 5, /* 3 FMAs and 2 adds in the step loop; the gains, with their division
                        * by det, are lane constants prepared once per block */
    .symplectic = true,
    .symmetric = true,
    .symmetric_damped = true,
    OSC_KERNELS,
};
#else

/* y' = y + dt f((y + y')/2). With dv = v' - v, the 2x2 system reduces to
 *     dv det = dt (a(x, v) - w2 v dt/2),   det = 1 + gam dt/2 + w2 dt^2/4,
 * then x' = x + dt (v + v')/2. dv is linear in (x, v) with lane constants:
 *     dv = kv v + (kx x + kg),   kx = -dt w2 / det,  kv = -dt (gam + w2 dt/2) / det,  kg = -dt g / det,
 * prepared once per lane (F(lane_coefs)), so a step is 3 FMAs and 2 adds (it took 5 FMAs, a
 * multiply by 1/det and an add, and its chain through x was 23 cycles deep; now 14), with no
 * division in the step loop. The drag stays a decrement, v + kv v. Each gain is rounded once
 * per lane: a relative u in the step's coefficients, within the tolerance the kernel is held to. */
#define OSC_LANE_COEFS
static inline void F(lane_coefs)(real w2, real gam, real g, real dt, real k[OSC_NCOEF])
{
    const real half_dt = (real)0.5 * dt, quarter_dt2 = (real)0.25 * dt * dt;
    const real det = fma(w2, quarter_dt2, fma(gam, half_dt, (real)1));
    const real gain = -dt / det;
    k[0] = gain * w2, k[1] = gain * fma(w2, half_dt, gam), k[2] = gain * g, k[3] = 0;
}

static inline void F(fast_step)(real *restrict x, real *restrict v, real *restrict unused, real kx,
                                real kv, real kg, real unused_k3, real dt)
{
    (void)unused, (void)unused_k3;
    const real v0 = *v;
    const real v1 = fma(kv, v0, v0) + fma(kx, *x, kg);
    *x = fma((real)0.5 * dt, v0 + v1, *x);
    *v = v1;
}

static void F(ref_step)(real s[OSC_MAX_STATE], coef c, real dt)
{
    real x = s[0], v = s[1];
    real a = -c.w2 * x - c.gam * v - c.g;
    real det = 1 + c.gam * dt / 2 + c.w2 * dt * dt / 4;
    real dv = dt * (a - c.w2 * dt * v / 2) / det;
    s[0] = x + dt * (v + dv / 2);
    s[1] = v + dv;
}
#endif
