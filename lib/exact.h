/* The closed-form motion of one axis of one lane: m u'' = -k u - c u' - m g.
 * Every regime: underdamped, critical, overdamped, and stiffness 0 (ballistic, with or without
 * drag), with gravity's rest point; accurate near zeta = 1, as k -> 0 and for long times.
 * A pinned lane (m = 0) stays at x0 with velocity 0. */
#ifndef OSC_EXACT_H
#define OSC_EXACT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Coefficients prepared once per lane and axis; evaluation at any t is then cheap and
 * branch-light, so auditing millions of lanes costs little. Treat the fields as private.
 * Accuracy: a few ulps of the motion's own scale (|x0|, |v0|/rate, |g|/rate^2) in every regime,
 * with no overflow at any t; exact.c explains the formulation. */
typedef struct osc_exact {
    double c[8];
    int regime;
} osc_exact;

/* g is the gravity acting on this axis (0 on all but the last axis). Parameters are assumed
 * valid (k, c, m >= 0 and finite), as osc_batch_set_lane enforces. */
void osc_exact_prepare(osc_exact *e, double k, double c, double m, double g, double x0, double v0);

/* Position and velocity at time t >= 0. */
void osc_exact_eval(const osc_exact *e, double t, double *x, double *v);

/* The motion's map over a time T >= 0 (x0, v0 of e play no part):
 *     (x, v)(t + T) = [[p11, p12], [-w2 p12, p22]] (x, v)(t) + (q1, q2),
 * from the same closed form: p11, p12 and p22 are osc_exact_eval's fundamental solutions at T
 * and (q1, q2) its forced response from rest, the same values osc_exact_eval gives for the unit
 * states (1, 0), (0, 1) and for x0 = v0 = 0 (up to the sign of a zero). Pinned: (1, 0, 0, 0, 0). */
void osc_exact_map(const osc_exact *e, double T, double *p11, double *p12, double *p22, double *q1,
                   double *q2);

/* The same map as increments, for stepping it many times:
 *     (x, v)(t + T) = (x, v)(t) + [[d11, p12], [-w2 p12, d22]] (x, v)(t) + (q1, q2),
 * d11 = p11 - 1 and d22 = p22 - 1 each to a few ulps of its own size. p11 and p22 of a short step
 * are within (omega T)^2 of 1, and their roundings (up to half an ulp of 1) are a fixed relative
 * error of the map: stepped N times over a slowly varying state it adds up to ~N u |x|, where the
 * increments' own roundings are that much smaller. Pinned: (0, 0, -1, 0, 0). */
void osc_exact_step_map(const osc_exact *e, double T, double *d11, double *p12, double *d22,
                        double *q1, double *q2);

/* The model's dimensionless parameters: omega0 = sqrt(k/m) (0 for a pinned lane, m = 0) and
 * zeta = c / (2 sqrt(k m)) (0 without drag; +inf with drag but no spring or no mass). */
double osc_omega0(double k, double m);
double osc_zeta(double k, double c, double m);

/* sqrt(k m) for k, m >= 0, finite and accurate wherever the result is: one rounding less while
 * k m is a normal double, the roots taken apart where k m has lost bits, flushed to 0 (tiny
 * masses) or overflowed (k 1e300, m 1e10). c = 2 zeta sqrt(k m) and zeta read it. */
double osc_sqrt_km(double k, double m);

/* The size of a lane's motion over [0, t_end] in position units, the scale of its errors' round-
 * off: for a free particle (k = 0) how far it travels, |x0| + |v0| t_end + |g| t_end
 * min(t_end/2, 1/gam), gam = c/m; with a spring its amplitude A = |x0 - rest| + |v0| / omega0,
 * or, where smaller (a soft spring whose rest point the lane is far from reaching in t_end), the
 * same travel with the spring's force per mass, at most omega0^2 A, in place of |g|. x0, v0: dim
 * values; gravity g on the last axis. */
double osc_motion_scale(int dim, double k, double c, double m, double g, const double *x0,
                        const double *v0, double t_end);

#ifdef __cplusplus
}
#endif
#endif
