/* Forest-Ruth / Yoshida fourth-order triple jump of velocity Verlet, the drag split off and
 * taken as a positive factor on v either side of each Verlet substep. */
#ifndef OSC_PASS
#define OSC_SELF "forest_ruth.c"
#define OSC_NSTATE 2
#include "method_template.h"

const osc_method osc_method_forest_ruth = {
    .name = "forest-ruth",
    .summary = "Forest-Ruth/Yoshida triple jump of velocity Verlet, drag as Pade (2,2) factors",
    .order = 4,
    .order_damped = 4,
    .force_evals = 4, /* the kicks either side of a drag factor share one evaluation */
    .fma_per_step = 17, /* as written; the step loops execute 16.75 (v4: 134 per 8 vectors, v3:
                         * 201 per 12), as GCC reuses a step's last force evaluation as the next
                         * one's first for most vectors. The drag decrements are lane constants
                         * that the compiler hoists out of the loop (no division per step). */
    .symplectic = true,
    .symmetric = true,
    .symmetric_damped = true,
    OSC_KERNELS,
};
#else

/* The method. Split the motion into drift A (x' = v), kick B (v' = -w2 x - g) and drag
 * D (v' = -gam v). The base step of length h is the symmetric (Strang) composition
 *     S(h) = D(h/2) B(h/2) A(h) B(h/2) D(h/2),
 * and the method is Yoshida's / Forest-Ruth's triple jump S(w1 dt) S(w0 dt) S(w1 dt) with
 * w1 = 1/(2 - 2^(1/3)), w0 = -2^(1/3) w1: 2 w1 + w0 = 1 and 2 w1^3 + w0^3 = 0, so the
 * third-order error terms of the symmetric base step cancel: 4th order with and without drag.
 * A and B are exact flows. D(h/2) multiplies v by e(y), y = gam h/2, the (2,2) Pade
 * approximant of the exact flow exp(-y):
 *     e(y) = R(y) / R(-y),   R(y) = 1 - y/2 + y^2/12.
 * R has no real root (R >= 1/4), so e is positive and finite for every y, either sign: the
 * negative weight w0 (y < 0, a factor > 1) cannot make a substep divide by zero, as the drag
 * solved implicitly inside each substep did (1 + gam w0 dt/2 went through zero at
 * gam dt ~ 1.17, where every lane blew up, free particles too). e(y) e(-y) = 1, so S stays
 * symmetric (S(h)^-1 = S(-h)), which is all the triple jump needs; e = exp(-y) + O(y^5), so
 * the drag's own error is of 5th order per step, below the splitting's.
 * Without drag D is the identity and this is the classic Forest-Ruth integrator (velocity
 * Verlet substeps): symplectic, 4th order, bit for bit what this method computed before the
 * drag was split off.
 * Beyond accuracy: a free particle's velocity shrinks every step for any gam dt > 0, but e
 * is not monotone (least, 0.072, at y = sqrt(12); back towards 1 as y -> infinity), so at
 * gam dt >> 5 the drag per step weakens again: finite and damped, though far from exp(-gam dt)
 * (the exact exp or sqrt-based factors that avoid this are libm calls the step loop could
 * neither vectorize nor hoist).
 * Each factor is applied as a decrement, v - v q with q = 1 - e(y) a lane constant, so that a
 * rounded factor does not bias the damping (see verlet_implicit_drag.c). The factors of
 * consecutive substeps are merged into one, D(w1 dt/2) D(w0 dt/2). */

/* Triple-jump weights, in long double so they are exact to the precision of any `real`. */
#define FR_W1 1.35120719195965763404768780897L
#define FR_W0 -1.70241438391931526809537561794L

/* R(-y) = 1 + y/2 + y^2/12; the decrement of e(y) is q = 1 - e(y) = y / R(-y), as
 * R(-y) - R(y) = y. In the kernel's lane constants 1/12 is a rounded factor (a division
 * less); it moves the y^2 term by u relative. */
static inline real F(pade_den)(real y)
{
    return fma(y, fma(y, (real)(1.0L / 12), (real)0.5), (real)1);
}

/* The decrements of one step: q_outer for D(w1 dt/2) at either end, q_inner for the merged
 * D(w1 dt/2) D(w0 dt/2) between substeps. With y1 = gam w1 dt/2, y0 = gam w0 dt/2 and
 * R(+-y) = E(y) -+ y/2, E(y) = 1 + y^2/12:
 *     q_inner = 1 - e(y1) e(y0) = (R(-y1) R(-y0) - R(y1) R(y0)) / (R(-y1) R(-y0))
 *             = (y1 E(y0) + y0 E(y1)) / (R(-y1) R(-y0))
 *             = (y1 + y0) (1 + y1 y0/12) / (R(-y1) R(-y0)),
 * with y1 + y0 = gam (w1 + w0) dt/2 formed directly: no cancellation, so both decrements are
 * accurate to a few u relative. */
typedef struct F(fr_drag) {
    real outer, inner;
} F(fr_drag);

static inline F(fr_drag) F(fr_drag_decrements)(real gam, real dt)
{
    const real y1 = gam * ((real)(FR_W1 / 2) * dt), y0 = gam * ((real)(FR_W0 / 2) * dt);
    const real y10 = gam * ((real)((FR_W1 + FR_W0) / 2) * dt);
    const real den1 = F(pade_den)(y1), den0 = F(pade_den)(y0);
    const real e_sum = fma(y1 * y0, (real)(1.0L / 12), (real)1);
    return (F(fr_drag)){y1 / den1, y10 * e_sum / (den1 * den0)};
}

/* The drag decrements divide: prepared once per lane (kernel_loops.h), not in the step loop. */
#define OSC_LANE_COEFS
static inline void F(lane_coefs)(real w2, real gam, real g, real dt, real k[OSC_NCOEF])
{
    const F(fr_drag) q = F(fr_drag_decrements)(gam, dt);
    k[0] = w2, k[1] = g, k[2] = q.outer, k[3] = q.inner;
}

static inline void F(fast_step)(real *restrict x, real *restrict v, real *restrict unused, real w2,
                                real g, real q_outer, real q_inner, real dt)
{
    (void)unused;
    const real dt1 = (real)FR_W1 * dt, dt0 = (real)FR_W0 * dt;
    const real half1 = (real)0.5 * dt1, half0 = (real)0.5 * dt0;
    const F(fr_drag) q = {q_outer, q_inner};
    real xs = *x, vs = *v, f;
    vs = fma(-q.outer, vs, vs);
    vs = fma(-half1, fma(w2, xs, g), vs);
    xs = fma(dt1, vs, xs);
    f = fma(w2, xs, g);
    vs = fma(-half1, f, vs);
    vs = fma(-q.inner, vs, vs);
    vs = fma(-half0, f, vs);
    xs = fma(dt0, vs, xs);
    f = fma(w2, xs, g);
    vs = fma(-half0, f, vs);
    vs = fma(-q.inner, vs, vs);
    vs = fma(-half1, f, vs);
    xs = fma(dt1, vs, xs);
    vs = fma(-half1, fma(w2, xs, g), vs);
    vs = fma(-q.outer, vs, vs);
    *x = xs, *v = vs;
}

/* One base step S(h) as defined above, each factor and kick on its own. */
static void F(fr_base_step)(real s[OSC_MAX_STATE], coef c, real h)
{
    real x = s[0], v = s[1];
    real y = c.gam * h / 2;
    real q = y / (1 + y / 2 + y * y / 12);
    v = v - v * q;
    v = v + h / 2 * (-c.w2 * x - c.g);
    x = x + h * v;
    v = v + h / 2 * (-c.w2 * x - c.g);
    v = v - v * q;
    s[0] = x, s[1] = v;
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
    F(fr_base_step)(s, c, FR_REF_W1 * dt);
    F(fr_base_step)(s, c, FR_REF_W0 * dt);
    F(fr_base_step)(s, c, FR_REF_W1 * dt);
}
#endif
