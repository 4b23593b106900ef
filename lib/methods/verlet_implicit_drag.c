/* Velocity Verlet with the second half kick's drag solved implicitly: trapezoidal in the drag. */
#ifndef OSC_PASS
#define OSC_SELF "verlet_implicit_drag.c"
#define OSC_NSTATE 2
#include "method_template.h"

const osc_method osc_method_verlet_implicit_drag = {
    .name = "verlet-implicit-drag",
    .summary = "velocity Verlet, explicit then implicit drag half kicks: 2nd order with drag",
    .order = 2,
    .order_damped = 2,
    .force_evals = 2,
    .fma_per_step = 7, /* in the step loop; q = (gam dt/2)/(1 + gam dt/2) is a lane constant
                        * prepared once per block (no division per step) */
    .symplectic = true,
    .symmetric = true,
    .symmetric_damped = true,
    OSC_KERNELS,
};
#else

/* The first half kick is explicit in the drag, the second implicit: each is the other's adjoint,
 * so the step is symmetric (hence second order) even with drag. The implicit kick is linear in
 * v', solved in closed form: v' (1 + gam dt/2) = h + dt/2 (-w2 x' - g) =: k, i.e.
 *     v' = k / (1 + gam dt/2) = k - k q,   q = (gam dt/2) / (1 + gam dt/2).
 * It is written as that decrement: multiplying the state by a rounded 1/(1 + gam dt/2) would
 * change the damping per step (gam dt, 1e-4 at gam dt = 1e-4) by up to a unit roundoff of v,
 * a relative bias u / (gam dt) in the damping rate (1e-3 in float there), whereas a rounded q
 * is off by u relative, and so is the damping. q depends only on the lane: it (and its
 * division) is prepared once per lane (F(lane_coefs)), not in the step loop. */
static inline real F(implicit_drag_decrement)(real gam, real dt)
{
    real half_drag = gam * dt / 2;
    return half_drag / (1 + half_drag);
}

#define OSC_LANE_COEFS
static inline void F(lane_coefs)(real w2, real gam, real g, real dt, real k[OSC_NCOEF])
{
    k[0] = w2, k[1] = gam, k[2] = g, k[3] = F(implicit_drag_decrement)(gam, dt);
}

static inline void F(fast_step)(real *restrict x, real *restrict v, real *restrict unused, real w2,
                                real gam, real g, real q, real dt)
{
    (void)unused;
    const real half_dt = (real)0.5 * dt;
    real h = fma(-half_dt, fma(w2, *x, fma(gam, *v, g)), *v);
    *x = fma(dt, h, *x);
    real kicked = fma(-half_dt, fma(w2, *x, g), h);
    *v = fma(-q, kicked, kicked);
}

static void F(ref_step)(real s[OSC_MAX_STATE], coef c, real dt)
{
    real x = s[0], v = s[1];
    real h = v + dt / 2 * (-c.w2 * x - c.gam * v - c.g);
    real x2 = x + dt * h;
    real kicked = h + dt / 2 * (-c.w2 * x2 - c.g);
    s[0] = x2;
    s[1] = kicked - kicked * F(implicit_drag_decrement)(c.gam, dt);
}
#endif
