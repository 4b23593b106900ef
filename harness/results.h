/* The analyses a run adds to its sweep (convergence, stability, work-precision), and writing
 * everything to the results file as CONTRACT.md lays it out. */
#ifndef OSCBENCH_RESULTS_H
#define OSCBENCH_RESULTS_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"
#include "config.h"
#include "h5out.h"
#include "sweep.h"

/* /convergence_local: one row per pair of successive valid dt of a convergence group. */
typedef struct convergence_local_rows {
    size_t rows;
    const char **method;
    double *stiffness, *drag, *dt_low, *dt_high, *local_order;
    bool *usable, *fitted;
} convergence_local_rows;

/* /convergence: one row per (method, stiffness, drag) with at least two dt values. */
typedef struct convergence_rows {
    size_t rows;
    const char **method;
    double *stiffness, *drag, *measured_order, *order_low, *order_high, *std_error;
    double *dt_fit_min, *dt_fit_max; /* NaN without a fit */
    int64_t *declared_order, *fit_points, *dt_points;
    osc_verdict *verdict; /* the library's (osc_order_verdict) */
    osc_verdict_reason *reason;
    bool *pass; /* verdict == pass */
    convergence_local_rows local;
} convergence_rows;

/* /stability: one row per (method, zeta). */
typedef struct stability_rows {
    size_t rows;
    const char **method;
    double *zeta, *limit_theory, *limit_measured;
    int64_t *lanes, *steps;
} stability_rows;

/* /work_precision: one row per (method, dt): cost against the error reached. */
typedef struct work_rows {
    size_t rows;
    const char **method;
    double *dt, *ns_per_osc_step, *ns_per_lane, *median_error, *worst_error;
    int64_t *steps, *force_evals, *stable_points; /* force_evals: per lane over the whole run */
} work_rows;

typedef struct analysis_result {
    convergence_rows conv;
    stability_rows stab;
    work_rows work;
    double seconds; /* wall clock of the analyses */
} analysis_result;

int analyses_run(const osc_config *cfg, const sweep_result *res, bool show_progress,
                 analysis_result *out, char *err, size_t errlen);
void analyses_free(analysis_result *a);

/* Writes /points, /convergence, /stability, /work_precision, /traces and the root provenance
 * attributes. Returns 0 or EXIT_RUNTIME with err set. */
int results_write(h5_out *out, const osc_config *cfg, const sweep_result *res,
                  const analysis_result *ana, char *err, size_t errlen);

#endif
