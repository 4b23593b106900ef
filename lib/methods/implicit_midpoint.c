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
    .fma_per_step = 7, /* in the step loop; 1/det is a lane constant prepared once per block
                        * (no division per step) */
    .symplectic = true,
    .symmetric = true,
    .symmetric_damped = true,
    OSC_KERNELS,
};
#else

/* y' = y + dt f((y + y')/2). With dv = v' - v, the 2x2 system reduces to
 *     dv det = dt (a(x, v) - w2 v dt/2),   det = 1 + gam dt/2 + w2 dt^2/4,
 * then x' = x + dt (v + v')/2. Below numer = -(a(x, v) - w2 v dt/2) = w2 (x + v dt/2) + gam v + g.
 * 1/det depends only on the lane: it is prepared once per lane (F(lane_coefs)), no division
 * per step (a multiply by the reciprocal instead of a divide: at most one more rounding). */
#define OSC_LANE_COEFS
static inline void F(lane_coefs)(real w2, real gam, real g, real dt, real k[OSC_NCOEF])
{
    const real half_dt = (real)0.5 * dt, quarter_dt2 = (real)0.25 * dt * dt;
    real det = fma(w2, quarter_dt2, fma(gam, half_dt, (real)1));
    k[0] = w2, k[1] = gam, k[2] = g, k[3] = (real)1 / det;
}

static inline void F(fast_step)(real *restrict x, real *restrict v, real *restrict unused, real w2,
                                real gam, real g, real inv_det, real dt)
{
    (void)unused;
    const real half_dt = (real)0.5 * dt;
    real v0 = *v;
    real numer = fma(w2, fma(half_dt, v0, *x), fma(gam, v0, g));
    real v1 = fma(-dt, numer * inv_det, v0);
    *x = fma(half_dt, v0 + v1, *x);
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
