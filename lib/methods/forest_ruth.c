/* Forest-Ruth / Yoshida fourth-order composition of the verlet-implicit-drag step. */
#ifndef OSC_PASS
#define OSC_SELF "forest_ruth.c"
#define OSC_NSTATE 2
#define OSC_BLOCK_LANES_V3_D 48 /* AVX2 register blocks, measured (kernel_loops.h) */
#define OSC_BLOCK_LANES_V3_F 96
#include "method_template.h"

const osc_method osc_method_forest_ruth = {
    .name = "forest-ruth",
    .summary = "Forest-Ruth/Yoshida triple jump of verlet-implicit-drag: symplectic, 4th order",
    .order = 4,
    .order_damped = 4,
    .force_evals = 6,
    .fma_per_step = 21, /* in the step loop; the two 1/(1 + gam w dt/2) are lane constants
                         * that the compiler hoists out of it (no division per step) */
    .symplectic = true,
    OSC_KERNELS,
};
#else

/* Triple-jump weights: w1 = 1/(2 - 2^(1/3)), w0 = -2^(1/3) w1, so 2 w1 + w0 = 1 and the third-order
 * error terms of the symmetric base step cancel. The base step is symmetric with drag too
 * (explicit, then implicit drag half kick), so the composition is 4th order with drag as well. */
#define FR_W1 1.35120719195965763404768780897
#define FR_W0 -1.70241438391931526809537561794

/* One verlet-implicit-drag substep of length h_dt; half_h = h_dt/2, inv_den = 1/(1 + gam h_dt/2)
 * (a lane constant, lifted out of the step loop by the compiler). */
static inline void F(fr_substep)(real *x, real *v, real w2, real gam, real g, real h_dt,
                                 real half_h, real inv_den)
{
    real h = fma(-half_h, fma(w2, *x, fma(gam, *v, g)), *v);
    *x = fma(h_dt, h, *x);
    *v = fma(-half_h, fma(w2, *x, g), h) * inv_den;
}

static inline void F(fast_step)(real *restrict x, real *restrict v, real *restrict unused, real w2,
                                real gam, real g, real dt)
{
    (void)unused;
    const real dt1 = (real)FR_W1 * dt, dt0 = (real)FR_W0 * dt;
    const real half1 = (real)0.5 * dt1, half0 = (real)0.5 * dt0;
    real inv_den1 = (real)1 / fma(half1, gam, (real)1);
    real inv_den0 = (real)1 / fma(half0, gam, (real)1);
    real xs = *x, vs = *v;
    F(fr_substep)(&xs, &vs, w2, gam, g, dt1, half1, inv_den1);
    F(fr_substep)(&xs, &vs, w2, gam, g, dt0, half0, inv_den0);
    F(fr_substep)(&xs, &vs, w2, gam, g, dt1, half1, inv_den1);
    *x = xs, *v = vs;
}

static void F(vid_ref_step)(real s[OSC_MAX_STATE], coef c, real dt)
{
    real x = s[0], v = s[1];
    real h = v + dt / 2 * (-c.w2 * x - c.gam * v - c.g);
    real x2 = x + dt * h;
    s[0] = x2;
    s[1] = (h + dt / 2 * (-c.w2 * x2 - c.g)) / (1 + c.gam * dt / 2);
}

/* The reference's weights: the literals in float and double; in long double computed to its
 * precision. Rounded to double, the weights meet 2 w1 + w0 = 1 and 2 w1^3 + w0^3 = 0 only to
 * ~1e-16, which leaves O(1e-16 dt) and O(1e-16 dt^3) error terms in the extended-precision map:
 * it would not be 4th order there. */
#undef FR_REF_W1
#undef FR_REF_W0
#ifdef OSC_PASS_LD
#define FR_REF_W1 (1 / (2 - cbrtl(2)))
#define FR_REF_W0 (1 - 2 * FR_REF_W1)
#else
#define FR_REF_W1 ((real)FR_W1)
#define FR_REF_W0 ((real)FR_W0)
#endif

static void F(ref_step)(real s[OSC_MAX_STATE], coef c, real dt)
{
    F(vid_ref_step)(s, c, FR_REF_W1 * dt);
    F(vid_ref_step)(s, c, FR_REF_W0 * dt);
    F(vid_ref_step)(s, c, FR_REF_W1 * dt);
}
#endif
