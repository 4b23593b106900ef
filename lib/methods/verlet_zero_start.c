/* Velocity Verlet with a stored acceleration that starts at zero: a known bug, shipped as a method
 * so that the convergence analysis can show it catches the order loss. */
#ifndef OSC_PASS
#define OSC_SELF "verlet_zero_start.c"
#define OSC_NSTATE 3
#include "method_template.h"

const osc_method osc_method_verlet_zero_start = {
    .name = "verlet-zero-start",
    .summary = "velocity Verlet reusing a stored a, started at a = 0 (bug: 1st order)",
    .order = 2, /* what it was meant to have; it measures 1 */
    .order_damped = 1,
    .force_evals = 1,
    .fma_per_step = 5,
    .symplectic = true,
    .symmetric = false, /* a step of -dt restores a = a(x), not the 0 it started with */
    .symmetric_damped = false,
    OSC_KERNELS,
};
#else

/* State: x, v, and s2 = -a, the NEGATED acceleration of the previous step's end (stored negated
 * so the kernel needs no sign flip). The default init sets it to 0 instead of -a(x0, v0): the
 * first half kick is missing, an O(dt) velocity error that makes the whole run first order. */
static inline void F(fast_step)(real *restrict x, real *restrict v, real *restrict minus_a,
                                real w2, real gam, real g, real unused_k3,
                                real dt)
{
    (void)unused_k3;
    const real half_dt = (real)0.5 * dt;
    real h = fma(-half_dt, *minus_a, *v);
    *x = fma(dt, h, *x);
    *minus_a = fma(w2, *x, fma(gam, h, g));
    *v = fma(-half_dt, *minus_a, h);
}

static void F(ref_step)(real s[OSC_MAX_STATE], coef c, real dt)
{
    real x = s[0], v = s[1], a = -s[2];
    real h = v + a * dt / 2;
    real x2 = x + h * dt;
    real a2 = -c.w2 * x2 - c.gam * h - c.g;
    s[0] = x2;
    s[1] = v + (a + a2) * dt / 2;
    s[2] = -a2;
}
#endif
