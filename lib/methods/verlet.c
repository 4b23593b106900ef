/* Velocity Verlet, with the drag of the second force evaluation taken at the half-step velocity. */
#ifndef OSC_PASS
#define OSC_SELF "verlet.c"
#define OSC_NSTATE 2
#define OSC_BLOCK_LANES_V3_D 64 /* AVX2 register blocks, measured (kernel_loops.h) */
#define OSC_BLOCK_LANES_V3_F 128
#include "method_template.h"

const osc_method osc_method_verlet = {
    .name = "verlet",
    .summary = "velocity Verlet: half kick, drift, a2 = a(x',h), half kick (drag at h)",
    .order = 2,
    .order_damped = 1, /* a(x', h) lags the drag by half a step: first order with c > 0 */
    .force_evals = 2,
    .fma_per_step = 7,
    .symplectic = true,
    OSC_KERNELS,
};
#else

/* v' = v + (a + a2) dt/2 is written as h + a2 dt/2 (h = v + a dt/2): the same map, one add less. */
static inline void F(fast_step)(real *restrict x, real *restrict v, real *restrict unused, real w2,
                                real gam, real g, real dt)
{
    (void)unused;
    const real half_dt = (real)0.5 * dt;
    real minus_a = fma(w2, *x, fma(gam, *v, g));
    real h = fma(-half_dt, minus_a, *v);
    *x = fma(dt, h, *x);
    real minus_a2 = fma(w2, *x, fma(gam, h, g));
    *v = fma(-half_dt, minus_a2, h);
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
