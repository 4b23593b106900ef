/* Auditing a batch against the exact solution while it steps: energy, drift, error, stability,
 * gathered per lane at each audit point (osc_batch_run's callback). Pure computation. */
#ifndef OSC_AUDIT_H
#define OSC_AUDIT_H

#include "exact.h"
#include "oscbench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Definitions (the choices the audit makes):
 * - Time. An audit at batch step n compares with the exact motion at t = n * dt, dt as given to
 *   osc_batch_start, with the lane's inputs as given (a float batch carries them rounded; that
 *   rounding is part of its error).
 * - Gravity acts on the last axis; a pinned lane (m = 0) feels none and never moves.
 * - drift = (E_num - E_exact) / energy_scale, with E_num - E_exact formed as a difference of
 *   squares (osc_energy_error), not as the difference of two energies that cancel. energy_scale = |E(0)|, unless E(0) is zero up to
 *   its own rounding (|E(0)| <= 16 eps x the sum of its terms' magnitudes); then the energy of the
 *   initial state relative to rest (1/2 m |v0|^2 + 1/2 k |x0 - x_rest|^2, or 1/2 m |v0|^2 for
 *   k = 0); if that is 0 too, 1 (drift is then the absolute energy error, 0 for a lane at rest).
 *   A finite lane never yields NaN.
 * - rest_distance = |x0 - x_rest| with x_rest = (0, ..., -g m/k); for k = 0 (no rest point) the
 *   distance from the spring's anchor, |x0|; for a pinned lane 0 (it rests where it is).
 * - Stability. With the energy norm ||(dx, dv)|| = sqrt(w2e |dx|^2 + |dv|^2), w2e = max(k/m, 1/t^2)
 *   (1/t^2 gives position errors a weight where the spring is absent or too soft to matter
 *   yet; below t ~ 1e-154, where 1/t^2 overflows, the test is evaluated divided through by
 *   sqrt(w2e)), a lane is unstable once its state or energy is non-finite or
 *       ||(x - x_ex, v - v_ex)|| > OSC_UNSTABLE_FACTOR (||(x0 - x_rest, v0)|| + ||(x_ex, v_ex)||),
 *   the motion's own scale: its initial distance from rest plus the exact state's size (which
 *   holds the gravity offset, so that a lane at rest is not held to a zero bound). A stable
 *   method's state stays within a bounded multiple of the exact one (semi-implicit's orbit is
 *   stretched by 1/sqrt(1 - (omega dt/2)^2), which passes ~2e3 only within ~3e-7 of
 *   omega dt = 2), whereas growth by a factor r per step trips after ~log(2e3)/log(r) steps,
 *   and explicit Euler undamped (energy x (1 + omega^2 dt^2) per step) after ~15/(omega dt)^2.
 * - Maxima (max_error, max_abs_drift). In the default every-step mode they are the largest error
 *   and |drift| over EVERY step up to the last stable audit: the batch is stepped by the fused
 *   kernel (osc_audit_run), which co-steps the exact motion beside the method (kernel_loops.h:
 *   the one-step map of the closed form, re-anchored from the audit's exact state at every audit,
 *   accurate to ~10 N eps of the motion's scale over an interval of N steps) and hands each
 *   interval's maxima to the audit. In the sampled mode (osc_audit_set_maxima) they are the
 *   largest over the audit points only: cheaper, and an underestimate where the error peaks
 *   between audits (a stiff damped lane's largest error falls in its first periods).
 *   Stability is decided at the audit points, except that in the every-step mode the drift limit
 *   applies to the interval's largest |drift|, and NaN maxima (the lane went non-finite inside the
 *   interval) make a lane unstable; an interval's maxima count only if the lane is stable at the
 *   audit that ends it.
 * - Once unstable, a lane's metrics stay frozen at its last stable audit (finite values that
 *   describe the run while it was stable) and unstable_step is the first unstable audit step;
 *   later audits skip it. A lane unstable at its first audit keeps its t = 0 values. */
#define OSC_UNSTABLE_FACTOR 1e3 /* the default; osc_audit_set_instability changes it */

typedef struct osc_lane_metrics {
    double e0;            /* energy at t = 0 */
    double final_energy;  /* numeric energy at the last audit */
    double final_drift;   /* (E_num - E_exact) / energy_scale at the last audit */
    double max_abs_drift; /* largest |drift| over every step (or the audits: see Maxima) */
    double final_error;   /* |x_num - x_exact| (Euclidean over axes) at the last audit */
    double max_error;     /* largest error over every step (or the audits: see Maxima) */
    double rest_distance; /* |x0 - rest point|, the scale of the relative errors */
    long unstable_step;   /* first audit step at which the lane counted as unstable, or -1 */
    long audits;          /* audit points seen (including those after it became unstable) */
    double energy_scale;  /* the drift's denominator (see above) */
    double final_exact_energy; /* exact energy at the last (stable) audit */
    long last_step;       /* step of the last audit that updated the metrics (0 before any) */
} osc_lane_metrics;

typedef struct osc_audit osc_audit;

/* Prepare the exact solution of every lane of a started batch (osc_batch_start done).
 * OSC_ESTATE before the start, or for a batch an audit stopped (osc_batch_stopped). */
int osc_audit_create(osc_audit **out, const osc_batch *b);
void osc_audit_free(osc_audit *a);

/* The bytes osc_audit_create allocates for a batch of n lanes of dim axes (for estimates). */
size_t osc_audit_bytes(int dim, size_t n);

/* The osc_audit_fn that osc_audit_run calls (or, for maxima at the audits only, to pass to
 * osc_batch_run with ctx = the osc_audit). Returns 0 (a non-finite
 * or runaway lane is data, recorded as unstable, never an error); it allocates nothing. Safe to
 * call concurrently on disjoint ranges; each lane's audits must come in order of step (as
 * osc_batch_run makes them).
 *
 * The exact state at an audit. The closed form (osc_exact_eval at t = step dt) is evaluated
 * whenever the number of steps T since a lane's previous audit differs from the one before, and
 * every R^2-th audit of a chain (R = OSC_AUDIT_ANCHOR_EVERY). Otherwise (audits a
 * fixed T steps apart, as osc_batch_run makes them, and the first audit, from the exact initial
 * state) the previous audit's exact state is advanced by the closed form's one-interval map
 * (x, v) -> P(T dt) (x, v) + q(T dt) (osc_exact_map: its fundamental solutions and forced
 * response at T dt); every R-th
 * audit of a chain it is instead the map over R intervals, P(R T dt), applied to the state R
 * audits before. So at most 2 (R - 1) maps separate any audit from a closed-form anchor.
 * Error bound: each map is non-expansive in the energy norm ||(dx, dv)|| = sqrt(w2 dx^2 + dv^2)
 * about the rest point (the motion's energy never grows), so a chain of j maps adds at most j
 * times one map's error: its entries' error (the closed form's few ulps) times the state, plus
 * the rounding of its four fmas, ~8 eps of the motion's scale S = ||(x0 - x_rest, v0)|| +
 * ||(x_ex, v_ex)|| (the stability bound's scale) per map; the times differ too (step dt against
 * the sum of the intervals' T dt, each rounded), which shifts the phase by <= eps omega t. Hence,
 * against osc_exact_eval at t = step dt, the exact state the audit uses is within
 * (16 R + 8 + omega t) eps S in the energy norm (w2 -> max(w2, 1/t^2) where the spring is weak),
 * comparable with the closed form's own error at long times (its phase omega t carries
 * ~eps omega t); test_audit.c checks it per regime. error, drift and energies move by no more
 * than that error implies; stability verdicts can differ only for a lane within that distance of
 * the bound. With R = 1 every audit uses the closed form. */
#define OSC_AUDIT_ANCHOR_EVERY 16 /* a power of 2 */
int osc_audit_tile(void *ctx, const osc_batch *b, size_t i0, size_t i1, long step);

/* What makes a lane unstable, besides a non-finite state: its energy-norm distance from the
 * exact state beyond `factor` (>= 1; default OSC_UNSTABLE_FACTOR) times the motion's scale, as
 * defined above, or |drift| above drift_limit (> 0; INFINITY, the default, for no such limit:
 * e.g. 0.1 marks a lane unstable once its energy is off by 10% of the energy scale). Set it
 * before the first audit. OSC_EINVAL for values out of range. */
int osc_audit_set_instability(osc_audit *a, double factor, double drift_limit);

/* Where the maxima are taken (see Maxima above): OSC_MAXIMA_EVERY_STEP (the default) needs the
 * batch run by osc_audit_run; OSC_MAXIMA_AUDITS samples them at the audits (osc_audit_run then
 * runs plain osc_batch_run). Set it before the first audit. OSC_EINVAL for another value. */
typedef enum osc_maxima { OSC_MAXIMA_EVERY_STEP = 0, OSC_MAXIMA_AUDITS = 1 } osc_maxima;
int osc_audit_set_maxima(osc_audit *a, osc_maxima mode);
osc_maxima osc_audit_maxima(const osc_audit *a);

/* Run batch b (the one the audit was created for) by nsteps, auditing every audit_every steps:
 * osc_batch_run_costep with the audit's co-step in the every-step mode, osc_batch_run in the
 * sampled one. Steps the batch took outside the audit (before osc_audit_create, or by a plain
 * osc_batch_run between audited runs) are in neither mode's maxima; in the every-step mode the
 * co-stepped exact motion first catches up with the batch's step (the closed form there). fn is called at each audit with ctx (it must call osc_audit_tile for its range:
 * a wrapper, e.g. for progress); NULL means osc_audit_tile itself. Returns osc_batch_run's
 * result. */
int osc_audit_run(osc_audit *a, osc_batch *b, long nsteps, long audit_every, osc_audit_fn fn,
                  void *ctx);

/* The metrics of lane i as of its last audit, assembled into *out (the caller's storage; the
 * audit is not written). OSC_EINVAL, *out untouched, for i >= osc_audit_lanes(a). Safe to call
 * from any number of threads, but not concurrently with an audit of the same lane. */
int osc_audit_lane_metrics(const osc_audit *a, size_t i, osc_lane_metrics *out);

/* Energy of one lane given its state: 1/2 m |v|^2 + 1/2 k |x|^2 + m g x_last. */
double osc_energy(int dim, double k, double m, double g, const double *x, const double *v);
/* E(x, v) - E(xe, ve) as 1/2 m sum (v - ve)(v + ve) + 1/2 k sum (x - xe)(x + xe) +
 * m g (x_last - xe_last): accurate to a few ulps of the terms |m dv (v + ve)|, |k dx (x + xe)|
 * where subtracting two energies would lose the digits the energies share. The same operations
 * as the fused kernel's. */
double osc_energy_error(int dim, double k, double m, double g, const double *x, const double *v,
                        const double *xe, const double *ve);

/* Lanes audited, and the prepared closed form of lane i, axis a (osc_exact_eval gives the exact
 * motion at any time); NULL for i or a out of range. */
size_t osc_audit_lanes(const osc_audit *a);
const osc_exact *osc_audit_exact(const osc_audit *a, size_t i, int axis);

/* Everything one audit computes for lane i at time t from its numeric state x, v (dim values
 * each), by the definitions above: for traces, and what osc_audit_tile records. */
typedef struct osc_audit_point {
    double x_exact[OSC_MAX_DIM], v_exact[OSC_MAX_DIM];
    double energy, exact_energy, drift, error;
    bool stable; /* finite and within the bound at this point */
} osc_audit_point;
void osc_audit_evaluate(const osc_audit *a, size_t i, double t, const double *x, const double *v,
                        osc_audit_point *p);

/* Aggregate over lanes [i0, i1): maxima over the lanes that stayed stable, so that one blown-up
 * lane does not hide the others' numbers; NaN when no lane stayed stable (or the range is empty):
 * there is no error to report, and 0 would read as a perfect one. */
typedef struct osc_audit_summary {
    size_t lanes, unstable;
    long first_unstable_step; /* earliest unstable_step, or -1 */
    double max_abs_drift, max_error;
} osc_audit_summary;
osc_audit_summary osc_audit_summarize(const osc_audit *a, size_t i0, size_t i1);

#ifdef __cplusplus
}
#endif
#endif
