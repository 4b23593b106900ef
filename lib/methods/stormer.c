/* Stormer / position Verlet: carries x and the previous position, no velocity. */
#ifndef OSC_PASS
#define OSC_SELF "stormer.c"
#define OSC_NSTATE 2
#define OSC_CUSTOM_INIT
#define OSC_FUSED_LANES_V3_D 8 /* the fused kernel's blocks (kernel_loops.h): AVX2, measured, */
#define OSC_FUSED_LANES_V4_D 16 /* and AVX-512, the largest fully unrolled */
#include "method_template.h"

const osc_method osc_method_stormer = {
    .name = "stormer",
    .summary = "position Verlet: x' = 2x - x_prev + a dt^2, drag at the centred velocity",
    .order = 2,
    .order_damped = 2,
    .force_evals = 1,
    .fma_per_step = 5, /* in the step loop; 1/(1 + gam dt/2) and 1 - gam dt/2 are lane
                        * constants that the compiler hoists out of it (no division per step) */
    .symplectic = true,
    OSC_KERNELS,
};
#else

/* State: s0 = x_n, s1 = x_{n-1}. The drag uses the centred velocity (x' - x_prev)/(2 dt), which
 * keeps the method second order with drag; the resulting linear equation for x' is solved here:
 *     x' (1 + gam dt/2) = 2x - x_prev (1 - gam dt/2) - dt^2 (w2 x + g).
 * 1/(1 + gam dt/2) depends only on the lane, so the compiler lifts it out of the step loop. */
static inline void F(fast_step)(real *restrict x, real *restrict x_prev, real *restrict unused,
                                real w2, real gam, real g, real dt)
{
    (void)unused;
    const real dt2 = dt * dt;
    real half_drag = (real)0.5 * dt * gam;
    real rhs = fma(-dt2, fma(w2, *x, g), *x + *x);
    rhs = fma(half_drag - (real)1, *x_prev, rhs);
    real x_next = rhs * ((real)1 / ((real)1 + half_drag));
    *x_prev = *x;
    *x = x_next;
}

static void F(ref_step)(real s[OSC_MAX_STATE], coef c, real dt)
{
    real x = s[0], x_prev = s[1];
    real half_drag = c.gam * dt / 2;
    real x_next = (2 * x - x_prev * (1 - half_drag) - dt * dt * (c.w2 * x + c.g)) / (1 + half_drag);
    s[0] = x_next, s[1] = x;
}

/* Start from x_prev = x0 - v0 dt + a0 dt^2/2 (Taylor to second order, a0 = a(x0, v0)), so the
 * method keeps its order for any v0. */
static inline void F(lane_init)(real s[OSC_MAX_STATE], real x0, real v0, coef c, real dt)
{
    real a0 = -c.w2 * x0 - c.gam * v0 - c.g;
    s[0] = x0;
    s[1] = x0 - v0 * dt + a0 * dt * dt / 2;
    s[2] = 0;
}

/* v_n to second order from (x_n, x_{n-1}): v (1 + gam dt/2) = (x - x_prev)/dt + dt/2 (-w2 x - g).
 * At step 0 this gives back v0 exactly (in exact arithmetic). */
static inline void F(lane_readout)(const real s[OSC_MAX_STATE], coef c, real dt, real *x, real *v)
{
    real xn = s[0], x_prev = s[1];
    *x = xn;
    *v = ((xn - x_prev) / dt + dt / 2 * (-c.w2 * xn - c.g)) / (1 + c.gam * dt / 2);
}

/* The same readout with its two divisions as multiplications by lane constants, for the fused
 * audited kernel's every-step readout (kernel_loops.h): within a few roundings of lane_readout. */
#define OSC_FUSED_READOUT
static inline void F(readout_consts)(coef c, real dt, real k[2])
{
    k[0] = (real)1 / dt;
    k[1] = (real)1 / (1 + c.gam * dt / 2);
}
static inline void F(fused_readout)(const real s[OSC_MAX_STATE], coef c, real dt, const real k[2],
                                    real *x, real *v)
{
    real xn = s[0], x_prev = s[1];
    *x = xn;
    *v = ((xn - x_prev) * k[0] + dt / 2 * (-c.w2 * xn - c.g)) * k[1];
}
#endif
