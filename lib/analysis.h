/* The analyses: measured order of convergence, and the stability limit in omega0*dt (theory from
 * the one-step amplification matrix, and measured by stepping lanes). Pure computation. */
#ifndef OSC_ANALYSIS_H
#define OSC_ANALYSIS_H

#include <float.h>
#include <stdbool.h>
#include <stddef.h>

#include "oscbench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- convergence -------------------------------------------------------------------------- */

/* One run of a (method, stiffness, drag) group at one dt. */
typedef struct osc_conv_point {
    double dt;
    double error;  /* e.g. final or largest |x_num - x_exact| */
    long steps;    /* steps taken, for the round-off floor */
    bool stable;
    double t_end;  /* the time the error was measured to; 0: unknown (not checked) */
} osc_conv_point;

typedef struct osc_fit_params {
    double eps;         /* unit round-off of the precision run (osc_precision_eps) */
    double scale;       /* size of the motion where the errors are measured: for final errors
                         * the exact energy-norm distance from rest at t_end (a damped motion
                         * has shrunk, and its round-off with it), for largest errors the
                         * initial one; <= 0 turns off the floor and the ceiling */
    double omega_t;     /* omega0 * t_end of the runs, for the floor's phase term (0: unknown) */
    int declared_order; /* what the verdict compares against */
    int coefficient_order; /* for a method defined by coefficients, the order its order
                            * conditions give on the problem; 0: none known */
} osc_fit_params;

typedef enum osc_fit_status {
    OSC_FIT_OK = 0,
    OSC_FIT_INSUFFICIENT = 1, /* fewer than OSC_FIT_RANGE_POINTS usable points in a converging
                               * range */
} osc_fit_status;

/* Constants of the fit and of the verdict (justified in convergence.c, which uses them; the
 * results file's /convergence verdict attribute is formatted from them). */
#define OSC_FIT_RANGE_POINTS 3 /* fewest points of an asymptotic range (n - 2 >= 1 dof) */
#define OSC_FIT_FLOOR_C 10.0   /* round-off floor: C * eps * scale * (sqrt(steps) + omega_t) */
#define OSC_FIT_CEILING 0.1    /* errors above this share of scale are not asymptotic */
#define OSC_FIT_RESID_TOL 0.15 /* largest |residual| of log(error) in the asymptotic range */
#define OSC_FIT_MIN_SLOPE 0.25 /* a flatter range is a floor, not convergence */
#define OSC_FIT_PASS_TOL 0.25  /* pass: declared in [low - tol, high + tol] */
/* of the interval on the slope (osc_student_t975), in percent: a literal so that the results
 * file's texts can name it (stringized in harness/output/results.c); 95 / 100.0 is the double
 * nearest 0.95, as the literal 0.95 is */
#define OSC_FIT_CONFIDENCE_PERCENT 95
#define OSC_FIT_CONFIDENCE (OSC_FIT_CONFIDENCE_PERCENT / 100.0)
#define OSC_FIT_VERDICT_POINTS 4 /* fewer fitted points: inconclusive */
#define OSC_FIT_MAX_HALF_WIDTH 0.5 /* a wider 95% interval (half-width): inconclusive */
#define OSC_FIT_HORIZON_TOL 0.1 /* fitted points whose t_end differ by more: inconclusive */
#define OSC_FIT_BELOW_POINTS 2  /* usable points below the fit that can withhold a pass */
#define OSC_FIT_BELOW_TOL 0.5   /* ... when they converge at least this much below the declared
                                 * order */
#define OSC_FIT_BELOW_MIN 0.75  /* ... and at this order or more (a lower order is >= 1; a
                                 * floor's onset flattens toward 0) */

/* The verdict on a declared order (the rule is in convergence.c). Zero is inconclusive, so a
 * zeroed result never reads as a pass. */
typedef enum osc_verdict {
    OSC_VERDICT_INCONCLUSIVE = 0,
    OSC_VERDICT_PASS = 1,
    OSC_VERDICT_FAIL = 2,
} osc_verdict;

/* Why the verdict is what it is, in the order the rule checks. */
typedef enum osc_verdict_reason {
    OSC_REASON_NO_RANGE = 0,    /* inconclusive: no 3 usable points on one converging line */
    OSC_REASON_FEW_POINTS = 1,  /* inconclusive: fewer than OSC_FIT_VERDICT_POINTS fitted */
    OSC_REASON_WIDE = 2,        /* inconclusive: half-width above OSC_FIT_MAX_HALF_WIDTH */
    OSC_REASON_EXCLUDED = 3,    /* fail: declared above [low - tol, high + tol] */
    OSC_REASON_NEIGHBOUR = 4,   /* inconclusive: declared +- 1 inside it too */
    OSC_REASON_CONFIRMED = 5,   /* pass: declared inside, both neighbours outside, and the
                                 * measured order within tol of it */
    OSC_REASON_ABOVE = 6,       /* inconclusive: declared below [low - tol, high + tol] */
    OSC_REASON_BETWEEN = 7,     /* inconclusive: declared inside, measured more than tol off */
    OSC_REASON_HORIZONS = 8,    /* inconclusive: the fitted points end at different times */
    OSC_REASON_BENDS_BELOW = 9, /* inconclusive: would pass, but the usable points at smaller dt
                                 * than the fit converge more slowly than the declared order */
    OSC_REASON_COEFFICIENTS = 10, /* inconclusive: would pass, but the method's coefficients
                                   * satisfy the order conditions only below the declared order
                                   * (osc_fit_params.coefficient_order) */
} osc_verdict_reason;

typedef struct osc_order_fit {
    osc_fit_status status;
    double order;      /* fitted slope of log(error) against log(dt); NaN if insufficient */
    double order_se;   /* its standard error */
    double order_low;  /* order -/+ t(0.975, n - 2) * order_se: a 95% interval */
    double order_high;
    double intercept;  /* log(error) at dt = 1 */
    double dt_min, dt_max; /* the range of dt fitted */
    double t_end_min, t_end_max; /* the times the fitted points end at; 0 where unknown */
    size_t fit_points; /* points in the fit */
    /* the slope over the usable points just below the fit's dt (none unusable between them),
     * with its first point (NaN with none, or when they do not lie on one line), and how many
     * there are */
    double order_below;
    size_t points_below;
    osc_verdict verdict;
    osc_verdict_reason reason;
    bool pass;         /* verdict == OSC_VERDICT_PASS */
} osc_order_fit;

/* The slope between two successive points (sorted by dt) of a group: pre-asymptotic bias and
 * round-off floors show as local orders that drift away from the fitted one. */
typedef struct osc_local_order {
    double dt_low, dt_high;   /* dt_low < dt_high */
    double order;             /* log(e_high / e_low) / log(dt_high / dt_low) */
    bool usable;              /* both points inside the floor and the ceiling */
    bool fitted;              /* both points in the fitted range */
} osc_local_order;

/* Fit the order over the automatically chosen asymptotic range of the n points (any order, any
 * dt spacing; points of equal dt count once, the one of smallest error). used (n entries, may be
 * NULL) marks the points in the fit. Returns OSC_OK,
 * OSC_EINVAL (NULL pts with n > 0, NULL par/out) or OSC_ENOMEM. */
int osc_fit_order(const osc_conv_point *pts, size_t n, const osc_fit_params *par,
                  osc_order_fit *out, bool *used);

/* The verdict rule alone, on a fit's status, order, fit_points, order_low, order_high and
 * t_end_min/max; *why (may be NULL) gets the reason. osc_fit_order sets verdict, reason and pass
 * with it, and then turns a pass of a declared order above par->coefficient_order (when known)
 * into inconclusive, OSC_REASON_COEFFICIENTS. */
osc_verdict osc_order_verdict(const osc_order_fit *fit, int declared, osc_verdict_reason *why);

/* "pass", "fail", "inconclusive" (NULL for a value outside the enum). */
const char *osc_verdict_name(osc_verdict v);
/* A few words on a reason, e.g. "fewer than 4 fitted points". */
const char *osc_verdict_reason_text(osc_verdict_reason r);

/* The local orders between successive points of the n points, sorted by (dt, error), counting
 * the points that are stable with finite dt > 0 and finite error > 0 (floor and ceiling only set
 * .usable), each dt once (its smallest error, as the fit takes it). used: the mask
 * osc_fit_order filled (NULL: no pair is .fitted). local has room for n entries (n - 1 suffice for
 * n >= 1); *nlocal gets the count. Returns OSC_OK, OSC_EINVAL or OSC_ENOMEM. */
int osc_local_orders(const osc_conv_point *pts, size_t n, const osc_fit_params *par,
                     const bool *used, osc_local_order *local, size_t *nlocal);

/* Unit round-off of a precision (DBL_EPSILON or FLT_EPSILON). */
double osc_precision_eps(osc_precision p);
/* The two-sided OSC_FIT_CONFIDENCE (95%) quantile of Student's t with dof degrees of freedom,
 * t(0.975, dof) (GSL's gsl_cdf_tdist_Pinv); NaN for dof < 1. */
double osc_student_t975(int dof);

/* ---- stability ---------------------------------------------------------------------------- */

typedef enum osc_stab_kind {
    OSC_STAB_BOUNDED = 0, /* stable for omega0*dt in (0, limit], unstable just above */
    OSC_STAB_ALWAYS = 1,  /* stable at every omega0*dt examined: limit = INFINITY */
    OSC_STAB_NEVER = 2,   /* unstable on every (0, h]: limit = 0. The method may still be stable
                           * on an interval further up: see the intervals */
} osc_stab_kind;

/* One-step amplification matrix A (state' = A state, A[row][col]) of method m at h = omega0*dt
 * and damping ratio zeta, from its reference step on the unit states (w2 = 1, gam = 2 zeta,
 * g = 0, dt = h). Components beyond m->nstate are zero. The _ld form steps the long double
 * reference (m->ref_ld), the other the double one. */
void osc_amplification(const osc_method *m, double zeta, double h,
                       double A[OSC_MAX_STATE][OSC_MAX_STATE]);
void osc_amplification_ld(const osc_method *m, long double zeta, long double h,
                          long double A[OSC_MAX_STATE][OSC_MAX_STATE]);
/* Spectral radius of the leading n x n block (n = 1, 2 or 3) of A (computed in long double). */
double osc_spectral_radius(int n, const double A[OSC_MAX_STATE][OSC_MAX_STATE]);
long double osc_spectral_radius_ld(int n, const long double A[OSC_MAX_STATE][OSC_MAX_STATE]);

/* The theory decides in long double (x87 extended on x86-64, eps 1.08e-19; where long double is
 * double the same code works with double's resolution). rho - 1 is "resolved" at h when
 * |rho - 1| exceeds OSC_STAB_ROUNDOFF * max(1, max|A_ij|)^2 / max(1, rho) (~7e-18 for the O(1)
 * matrices of small h). Below the smallest h where it is resolved, the verdict comes from the
 * trend of rho - 1 as h -> 0 (see stability.c), never from a threshold; with no trend down to
 * OSC_STAB_H_MIN (rho = 1 to round-off), every h above it is judged by the round-off test. */
#define OSC_STAB_ROUNDOFF (64 * LDBL_EPSILON)
#define OSC_STAB_H_MIN 1e-8 /* scan range of the theory */
#define OSC_STAB_H_MAX 1e3
#define OSC_STAB_MAX_INTERVALS 8 /* stable intervals kept per (method, zeta) */

/* A stable interval of omega0*dt: [lower, upper] (lower = 0: (0, upper]; upper = INFINITY:
 * stable up to the end of the scan). */
typedef struct osc_stab_interval { double lower, upper; } osc_stab_interval;

typedef struct osc_stab_theory {
    osc_stab_kind kind;
    double limit;   /* the first edge, omega0*dt: finite, INFINITY (always) or 0 (never) */
    double h_low;   /* smallest omega0*dt examined */
    double h_high;  /* largest omega0*dt examined: ALWAYS means stable up to here */
    /* rho - 1 ~ small_h_coef * h^small_h_power as h -> 0, fitted over the smallest decades of h
     * where rho - 1 is resolved; NaN when it is below round-off down to h_low (rho = 1). */
    double small_h_power, small_h_coef;
    size_t nintervals; /* every stable interval in [h_low, h_high], ascending */
    bool intervals_truncated; /* more than OSC_STAB_MAX_INTERVALS */
    osc_stab_interval intervals[OSC_STAB_MAX_INTERVALS];
} osc_stab_theory;

/* The stability limit of m at damping ratio zeta >= 0 from the spectral radius. */
int osc_stability_theory(const osc_method *m, double zeta, osc_stab_theory *out);

typedef struct osc_stab_options {
    size_t coarse_lanes; /* lanes of the first, log-spaced scan (default 1024) */
    size_t fine_lanes;   /* lanes of each refining batch (default 256) */
    double growth;       /* a lane is unstable once its energy norm grows beyond this (1e6) */
    double h_low, h_high; /* range of the first scan (1e-6, 1e3) */
    double rel_tol;      /* target relative resolution (2e-4) */
    long max_steps;      /* cap on the steps of one batch refining the first edge (2e6);
                          * batches refining the other edges get a fifth of it */
    long coarse_steps;   /* steps of the first scan (50000; at least 512) */
} osc_stab_options;

typedef struct osc_stab_measured {
    osc_stab_kind kind;
    double limit;       /* the first edge, omega0*dt: finite, INFINITY or 0 */
    double resolution;  /* relative uncertainty of limit (half the bracket plus the bias of a
                         * finite step count); NaN for ALWAYS / NEVER */
    /* The limits consistent with the measurement: [limit (1 - res), limit (1 + res)] when
     * bounded; ALWAYS: [h_high, inf] (stable as far as it looked); NEVER: [0, h_unstable], where
     * h_unstable is the smallest omega0*dt seen to grow (below it growth was too slow to see in
     * the steps taken, and the trend of the growth rates says it continues to 0). */
    double limit_low, limit_high;
    double h_low, h_high; /* range of the first scan */
    double rate_floor;  /* smallest |log growth per step| the first scan resolves */
    size_t lanes;       /* lanes stepped, over all batches */
    long max_steps;     /* the most steps of one batch */
    double lane_steps;  /* total lane-steps */
    int batches;
    size_t nintervals;  /* stable intervals, ascending; edges refined like limit */
    bool intervals_truncated;
    osc_stab_interval intervals[OSC_STAB_MAX_INTERVALS];
    /* relative uncertainty of each interval's lower and upper edge (0 for 0 or INFINITY) */
    double lower_resolution[OSC_STAB_MAX_INTERVALS], upper_resolution[OSC_STAB_MAX_INTERVALS];
} osc_stab_measured;

/* Measure the limit by stepping lanes (w2 = omega0^2 per lane, dt = 1, drag c = 2 zeta omega0,
 * each omega0 from x0 = 1, v0 = 0 and from x0 = 0, v0 = omega0: stability.c's step_lanes) in
 * precision p. opt may be NULL (defaults); zero fields take defaults. */
int osc_stability_measured(const osc_method *m, osc_precision p, double zeta,
                           const osc_stab_options *opt, osc_stab_measured *out);

#ifdef __cplusplus
}
#endif
#endif
