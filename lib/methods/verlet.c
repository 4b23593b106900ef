/* Velocity Verlet, with the drag of the second force evaluation taken at the half-step velocity. */
#ifndef OSC_PASS
#define OSC_SELF "verlet.c"
#define OSC_NSTATE 2
#include "method_template.h"

const osc_method osc_method_verlet = {
    .name = "verlet",
    .summary = "velocity Verlet: half kick, drift, a2 = a(x',h), half kick (drag at h)",
    .order = 2,
    .order_damped = 1, /* a(x', h) lags the drag by half a step: first order with c > 0 */
    .force_evals = 2,
    .fma_per_step = 5,
    .symplectic = true,
    OSC_KERNELS,
};
#else

/* v' = v + (a + a2) dt/2 is written as h + a2 dt/2 (h = v + a dt/2): the same map, one add less.
 * Both half kicks are u + (dt/2) a(y, u) = q u + p y + r with the half-step coefficients
 * q = 1 - gam dt/2, p = -w2 dt/2, r = -g dt/2, prepared once per lane: two FMAs each, plus the
 * drift's one, 5 FMAs per step instead of 7. */
#define OSC_LANE_COEFS
static inline void F(lane_coefs)(real w2, real gam, real g, real dt, real k[OSC_NCOEF])
{
    const real half_dt = (real)0.5 * dt;
    k[0] = 1 - gam * half_dt, k[1] = -w2 * half_dt, k[2] = -g * half_dt, k[3] = 0;
}

static inline void F(fast_step)(real *restrict x, real *restrict v, real *restrict unused, real q,
                                real p, real r, real unused_k3, real dt)
{
    (void)unused, (void)unused_k3;
    real h = fma(q, *v, fma(p, *x, r));
    *x = fma(dt, h, *x);
    *v = fma(q, h, fma(p, *x, r));
}

static void F(ref_step)(real s[OSC_MAX_STATE], coef c, real dt)
{
    real x = s[0], v = s[1];
    real a = -c.w2 * x - c.gam * v - c.g;
    real h = v + a * dt / 2;
    real x2 = x + h * dt;
    real a2 = -c.w2 * x2 - c.gam * h - c.g;
    s[0] = x2;
    s[1] = v + (a + a2) * dt / 2;
}
#endif
