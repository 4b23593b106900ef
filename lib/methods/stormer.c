/* Stormer / position Verlet, in its summed form: carries x and the last step's displacement. */
#ifndef OSC_PASS
#define OSC_SELF "stormer.c"
#define OSC_NSTATE 2
#define OSC_CUSTOM_INIT
#include "method_template.h"

const osc_method osc_method_stormer = {
    .name = "stormer",
    .summary = "position Verlet x' = 2x - x_prev + a dt^2 (summed form), drag at the centred velocity",
    .order = 2,
    .order_damped = 2,
    .force_evals = 1,
    .fma_per_step = 4, /* in the step loop; dt^2/(1 + gam dt/2) and gam dt/(1 + gam dt/2) are
                        * lane constants prepared once per block (no division per step) */
    .symplectic = true,
    .symmetric = false, /* a step of -dt does not give back its state (x, x_n - x_{n-1}) */
    .symmetric_damped = false,
    OSC_KERNELS,
};
#else

/* The method is x_{n+1} = 2 x_n - x_{n-1} + dt^2 a_n, with the drag at the centred velocity
 * (x_{n+1} - x_{n-1})/(2 dt), which keeps it second order with drag:
 *     x_{n+1} (1 + gam dt/2) = 2 x_n - x_{n-1} (1 - gam dt/2) - dt^2 (w2 x_n + g).
 * It is carried in the summed form, state s0 = x_n, s1 = d_n = x_n - x_{n-1}: subtracting
 * x_n (1 + gam dt/2) from both sides gives the same recurrence as
 *     d_{n+1} = d_n - (gam dt d_n + dt^2 (w2 x_n + g)) / (1 + gam dt/2),
 *     x_{n+1} = x_n + d_{n+1}.
 * The two-step form rounds 2x - x_prev at the spacing of x, and dt^2 a is only a few of those
 * spacings at small omega dt: each step's rounding is a velocity error u |x| / dt that the
 * method keeps, so the error grows as u steps^(3/2) (0.4 in float at omega dt = 1e-3 over
 * 5e4 steps). d is of the size of v dt and is rounded at its own spacing, u |d| per step, so
 * the summed form stays at the round-off floor of the one-step methods. The drag enters as
 * the decrement gam dt d / (1 + gam dt/2), not as a rounded factor on the state (see
 * verlet_implicit_drag.c for why a rounded factor biases the damping). */
typedef struct F(stormer_consts) {
    real force_gain, drag_gain; /* dt^2 / (1 + gam dt/2), gam dt / (1 + gam dt/2) */
} F(stormer_consts);

static inline F(stormer_consts) F(stormer_lane_consts)(real gam, real dt)
{
    real den = 1 + gam * dt / 2;
    return (F(stormer_consts)){dt * dt / den, gam * dt / den};
}

/* The gains are lane constants, with a division: prepared once per lane (kernel_loops.h),
 * never in the step loop, and folded into the force's coefficients there, so that a step is
 *     d' = (d + kd d) + (kx x + kg),   x' = x + d',
 *     kd = -gam dt / (1 + gam dt/2),  kx = -w2 dt^2 / (1 + gam dt/2),  kg = -g dt^2 / (...),
 * 2 FMAs and 2 adds (the adds on their own pipes where a CPU has them) instead of 3 FMAs and
 * an add; kx and kg are each rounded once per lane (a relative u in the force, as any rounding
 * of w2 would be). The drag stays a decrement of d. */
#define OSC_LANE_COEFS
static inline void F(lane_coefs)(real w2, real gam, real g, real dt, real k[OSC_NCOEF])
{
    const F(stormer_consts) c = F(stormer_lane_consts)(gam, dt);
    k[0] = -c.force_gain * w2, k[1] = -c.force_gain * g, k[2] = -c.drag_gain, k[3] = 0;
}

static inline void F(fast_step)(real *restrict x, real *restrict d, real *restrict unused,
                                real kx, real kg, real kd, real unused_k3, real dt)
{
    (void)unused, (void)unused_k3, (void)dt;
    *d = fma(kd, *d, *d) + fma(kx, *x, kg);
    *x = *x + *d;
}

static void F(ref_step)(real s[OSC_MAX_STATE], coef c, real dt)
{
    real x = s[0], d = s[1];
    real d_next = d - (c.gam * dt * d + dt * dt * (c.w2 * x + c.g)) / (1 + c.gam * dt / 2);
    s[0] = x + d_next, s[1] = d_next;
}

/* Start from x_{-1} = x0 - v0 dt + a0 dt^2/2 (Taylor to second order, a0 = a(x0, v0)), so the
 * method keeps its order for any v0: d_0 = v0 dt - a0 dt^2/2. */
static inline void F(lane_init)(real s[OSC_MAX_STATE], real x0, real v0, coef c, real dt)
{
    real a0 = -c.w2 * x0 - c.gam * v0 - c.g;
    s[0] = x0;
    s[1] = v0 * dt - a0 * dt * dt / 2;
    s[2] = 0;
}

/* v_n to second order from (x_n, d_n): v (1 + gam dt/2) = d/dt + dt/2 (-w2 x - g).
 * At step 0 this gives back v0 exactly (in exact arithmetic). */
static inline void F(lane_readout)(const real s[OSC_MAX_STATE], coef c, real dt, real *x, real *v)
{
    real xn = s[0], d = s[1];
    *x = xn;
    *v = (d / dt + dt / 2 * (-c.w2 * xn - c.g)) / (1 + c.gam * dt / 2);
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
    real xn = s[0], d = s[1];
    *x = xn;
    *v = (d * k[0] + dt / 2 * (-c.w2 * xn - c.g)) * k[1];
}
#endif
