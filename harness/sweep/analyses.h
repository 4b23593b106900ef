/* The analyses a run adds to its sweep (convergence, stability, work-precision): each table's
 * rows, as the results file holds them. */
#ifndef OSCBENCH_ANALYSES_H
#define OSCBENCH_ANALYSES_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"
#include "config.h"
#include "sweep.h"

/* /convergence_local: one row per pair of successive valid dt of a convergence group. */
typedef struct convergence_local_rows {
    size_t rows;
    const char **method;
    double *stiffness, *drag, *mass, *dt_low, *dt_high, *local_order;
    bool *usable, *fitted;
} convergence_local_rows;

/* /convergence: one row per (method, stiffness, drag, mass) with at least two dt values. */
typedef struct convergence_rows {
    size_t rows;
    const char **method;
    double *stiffness, *drag, *mass, *measured_order, *order_low, *order_high, *std_error;
    double *zeta; /* the lanes' c / (2 sqrt(k m)), as /points has it; NULL: fits without one */
    double *dt_fit_min, *dt_fit_max; /* NaN without a fit */
    int64_t *declared_order, *fit_points, *dt_points;
    osc_verdict *verdict; /* the library's (osc_order_verdict) */
    osc_verdict_reason *reason;
    bool *pass; /* verdict == pass */
    /* orders from a method's coefficients (config_user_method; -1 for a method not defined by
     * coefficients), and a note when the linear order exceeds the coefficient order ("" else) */
    int64_t *coefficient_order, *linear_order;
    const char **order_note;
    convergence_local_rows local;
} convergence_rows;

/* /stability: one row per (method, zeta). limit_*: the first edge (the largest h with the
 * method stable on all of (0, h]); limit_measured_low..high: the limits the measurement allows;
 * intervals_*: how many stable intervals each found (rows in /stability_intervals). */
typedef struct stability_rows {
    size_t rows;
    const char **method;
    double *zeta, *limit_theory, *limit_measured;
    int64_t *lanes, *steps;
    double *limit_measured_low, *limit_measured_high, *measured_resolution;
    int64_t *intervals_theory, *intervals_measured;
    double *rho_excess_power, *rho_excess_coef; /* theory: rho - 1 ~ coef h^power, h -> 0 */
} stability_rows;

/* /stability_intervals: every stable interval [lower, upper] of omega0*dt, per (method, zeta)
 * and source ("theory" or "measured"); *_resolution: the measured edge's relative uncertainty
 * (NaN for theory, whose edges are bisected to 1e-14). */
typedef struct stability_interval_rows {
    size_t rows;
    const char **method, **source;
    double *zeta, *lower, *upper, *lower_resolution, *upper_resolution;
} stability_interval_rows;

/* /stability_theory: the theory's first edge on a dense zeta grid, for plotting. */
typedef struct stability_theory_rows {
    size_t rows;
    const char **method;
    double *zeta, *limit;
    int64_t *intervals;
} stability_theory_rows;

/* /work_precision: one row per (method, dt): cost against the error reached. median_error,
 * worst_error: over the (method, dt)'s own stable lanes (stable_points of them); *_common: over
 * the common set, the lanes of that dt stable for every method of the run (common_points of
 * them, the same lanes for every method), NaN when it is empty. */
typedef struct work_rows {
    size_t rows;
    const char **method;
    double *dt, *ns_per_osc_step, *ns_per_lane, *median_error, *worst_error;
    int64_t *steps, *force_evals, *stable_points; /* force_evals: per lane over the whole run */
    int64_t *common_points;
    double *median_error_common, *worst_error_common;
} work_rows;

typedef struct analysis_result {
    convergence_rows conv;
    stability_rows stab;
    stability_interval_rows stab_intervals;
    stability_theory_rows stab_theory;
    work_rows work;
    double seconds; /* wall clock of the analyses */
} analysis_result;

/* OSCBENCH_COST_PROBE_LANES, the work-precision cost probe's lanes for test and memcheck runs:
 * 0 when unset, -1 when not a whole number from 128 to 2^20 (README). */
#define COST_PROBE_LANES_ENV "OSCBENCH_COST_PROBE_LANES"
long cost_probe_lanes_env(void);

/* Runs the analyses the config asks for on a finished sweep. Returns 0, or -1 with err set. */
int analyses_run(const osc_config *cfg, const sweep_result *res, bool show_progress,
                 analysis_result *out, char *err, size_t errlen);
void analyses_free(analysis_result *a);

#endif
