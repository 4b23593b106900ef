/* Classical fourth-order Runge-Kutta on (x, v). */
#ifndef OSC_PASS
#define OSC_SELF "rk4.c"
#define OSC_NSTATE 2
#include "method_template.h"

const osc_method osc_method_rk4 = {
    .name = "rk4",
    .summary = "classical Runge-Kutta, four stages on (x, v)",
    .order = 4,
    .order_damped = 4,
    .force_evals = 4,
    .fma_per_step = 22,
    .symplectic = false,
    .symmetric = false,
    .symmetric_damped = false,
    OSC_KERNELS,
};
#else

/* Stage i is (xi, vi) with slope (vi, -mi); stage 1 is the state itself. The force is summed
 * as gam vi + (w2 xi + g): xi needs only the previous stage's velocity, so w2 xi + g is ready
 * while vi still waits for the previous force, and each stage adds two FMAs (vi, then mi) to
 * the step's dependency chain instead of three (8 cycles per stage, not 12; the step 39, not
 * 51). */
/* dt/6 divides: prepared once per lane (kernel_loops.h), not in the step loop. */
#define OSC_LANE_COEFS
static inline void F(lane_coefs)(real w2, real gam, real g, real dt, real k[OSC_NCOEF])
{
    k[0] = w2, k[1] = gam, k[2] = g, k[3] = dt / (real)6;
}

static inline void F(fast_step)(real *restrict x, real *restrict v, real *restrict unused, real w2,
                                real gam, real g, real sixth_dt, real dt)
{
    (void)unused;
    const real half_dt = (real)0.5 * dt;
    real x1 = *x, v1 = *v;
    real m1 = fma(gam, v1, fma(w2, x1, g));
    real x2 = fma(half_dt, v1, x1), v2 = fma(-half_dt, m1, v1);
    real m2 = fma(gam, v2, fma(w2, x2, g));
    real x3 = fma(half_dt, v2, x1), v3 = fma(-half_dt, m2, v1);
    real m3 = fma(gam, v3, fma(w2, x3, g));
    real x4 = fma(dt, v3, x1), v4 = fma(-dt, m3, v1);
    real m4 = fma(gam, v4, fma(w2, x4, g));
    real vsum = fma((real)2, v2 + v3, v1) + v4;
    real msum = fma((real)2, m2 + m3, m1) + m4;
    *x = fma(sixth_dt, vsum, x1);
    *v = fma(-sixth_dt, msum, v1);
}

static inline real F(accel)(coef c, real x, real v) { return -c.w2 * x - c.gam * v - c.g; }

static void F(ref_step)(real s[OSC_MAX_STATE], coef c, real dt)
{
    real x = s[0], v = s[1];
    real kx1 = v, kv1 = F(accel)(c, x, v);
    real kx2 = v + dt / 2 * kv1, kv2 = F(accel)(c, x + dt / 2 * kx1, v + dt / 2 * kv1);
    real kx3 = v + dt / 2 * kv2, kv3 = F(accel)(c, x + dt / 2 * kx2, v + dt / 2 * kv2);
    real kx4 = v + dt * kv3, kv4 = F(accel)(c, x + dt * kx3, v + dt * kv3);
    s[0] = x + dt / 6 * (kx1 + 2 * kx2 + 2 * kx3 + kx4);
    s[1] = v + dt / 6 * (kv1 + 2 * kv2 + 2 * kv3 + kv4);
}
#endif
