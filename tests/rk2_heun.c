/* A test-only method: Heun's two-stage second-order Runge-Kutta. Undamped, its stability
 * polynomial R(z) = 1 + z + z^2/2 at z = +-ih gives |R|^2 = 1 + h^4/4: weakly unstable, rho - 1 =
 * h^4/8 + O(h^8), 1.25e-13 at h = 1e-3 (invisible to a 1e-12 tolerance in double). */
#ifndef OSC_PASS
#define OSC_SELF "rk2_heun.c"
#define OSC_NSTATE 2
#include "method_template.h"

const osc_method osc_test_method_heun = {
    .name = "test-heun",
    .summary = "test only: Heun's RK2, weakly unstable undamped",
    .order = 2,
    .order_damped = 2,
    .force_evals = 2,
    .fma_per_step = 10,
    .symplectic = false,
    OSC_KERNELS,
};
#else

static inline void F(fast_step)(real *restrict x, real *restrict v, real *restrict unused, real w2,
                                real gam, real g, real unused_k3, real dt)
{
    (void)unused, (void)unused_k3;
    real x1 = *x, v1 = *v;
    real m1 = fma(w2, x1, fma(gam, v1, g)); /* -a at stage 1 */
    real x2 = fma(dt, v1, x1), v2 = fma(-dt, m1, v1);
    real m2 = fma(w2, x2, fma(gam, v2, g));
    const real half_dt = (real)0.5 * dt;
    *x = fma(half_dt, v1 + v2, x1);
    *v = fma(-half_dt, m1 + m2, v1);
}

static void F(ref_step)(real s[OSC_MAX_STATE], coef c, real dt)
{
    real x = s[0], v = s[1];
    real a1 = -c.w2 * x - c.gam * v - c.g;
    real x2 = x + dt * v, v2 = v + dt * a1;
    real a2 = -c.w2 * x2 - c.gam * v2 - c.g;
    s[0] = x + dt / 2 * (v + v2);
    s[1] = v + dt / 2 * (a1 + a2);
}
#endif
