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
    .fma_per_step = 6, /* 4 FMAs and 2 adds */
    .symplectic = true,
    .symmetric = true,
    .symmetric_damped = false,
    OSC_KERNELS,
};
#else

/* v' = v + (a + a2) dt/2 is written as h + a2 dt/2 (h = v + a dt/2): the same map, one add less.
 * The half kicks are u + (dt/2) a(y, u) = (u + d u) + (p y + r) with the half-step coefficients
 * d = -gam dt/2, p = -w2 dt/2, r = -g dt/2, prepared once per lane. The second one needs
 * p x' + r = p (x + dt h) + r = q + (p dt) h with q = p x + r, the first one's: so
 *     h = (v + d v) + q,   x' = x + dt h,   v' = (h + D h) + q,   D = d + p dt (per lane),
 * 4 FMAs and 2 adds per step (q, d v, the drift, D h; the adds), where forming p x' + r after
 * the drift took 5 FMAs. It also shortens the step's chain: v' no longer waits for the drift
 * and a force at x', only for h (14 cycles per step on the v -> h -> v' path with 4-cycle FMAs
 * and 3-cycle adds, against 18). The rounding differs from the reference's (the force at x'
 * comes from q and h, not from x' as rounded), within the tolerance the kernel is held to. The
 * drag is a decrement, never a rounded factor on the state. */
#define OSC_LANE_COEFS
static inline void F(lane_coefs)(real w2, real gam, real g, real dt, real k[OSC_NCOEF])
{
    const real half_dt = (real)0.5 * dt;
    k[0] = -gam * half_dt, k[1] = -w2 * half_dt, k[2] = -g * half_dt;
    k[3] = k[0] + k[1] * dt;
}

static inline void F(fast_step)(real *restrict x, real *restrict v, real *restrict unused, real d,
                                real p, real r, real dd, real dt)
{
    (void)unused;
    const real q = fma(p, *x, r);
    const real h = fma(d, *v, *v) + q;
    *x = fma(dt, h, *x);
    *v = fma(dd, h, h) + q;
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
