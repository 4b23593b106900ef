/* The human-readable summary at the end of a run. */
#ifndef OSCBENCH_REPORT_H
#define OSCBENCH_REPORT_H

#include <stdio.h>

#include "config.h"
#include "analyses.h"
#include "sweep.h"

/* The columns of /points the per-dt comparison reads (from a sweep or from a results file). */
typedef struct points_view {
    size_t rows;
    const char *const *method;
    const double *dt, *stiffness, *drag, *max_error, *max_abs_drift;
    const bool *stable;
    const double *mass; /* NULL: a file written before mass was a column (one mass) */
} points_view;

typedef enum { SUMMARY_TEXT, SUMMARY_CSV, SUMMARY_JSON } summary_format;

points_view report_points_view(const sweep_points *p);

/* "Which method at this dt": per dt, per method, the share of lanes stable, and the worst
 * max_error and max_abs_drift over the common set, the lanes (stiffness, drag, mass) stable for
 * every method at that dt, so that methods are compared on the same springs. Rows are grouped by
 * dt (in the order they first appear) and method; lane j of a (method, dt) is its j-th row, which
 * must have the same stiffness, drag and mass for every method (the /points layout guarantees it;
 * a file where it does not gets an empty common set and a note). Returns 0, or -1 out of
 * memory. */
int report_per_dt(FILE *out, const points_view *v, summary_format format);

void report_print(FILE *out, const osc_config *cfg, const sweep_result *res,
                  const analysis_result *ana, const char *path);

#endif
