/* Running a config's sweep: expand it into batches of lanes (one batch per method and dt, the
 * stiffness x drag grid side by side in SIMD lanes), step and audit them, gather the /points
 * table, traces and timings in memory. No file I/O here. */
#ifndef OSCBENCH_SWEEP_H
#define OSCBENCH_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "audit.h"
#include "config.h"
#include "oscbench.h"

/* One row per lane: row = ((method * ndt + dt) * nstiffness + stiffness) * ndrag + drag.
 * The final_* and max_* columns describe the whole run: +inf for a lane that turned unstable
 * (its run has no finite worst error), NaN only where a value is undefined (the relative error
 * of a lane with no distance from rest). What an unstable lane did while it was stable is in the
 * last_stable_* and *_while_stable columns (equal to final_* and max_* for a stable lane). */
typedef struct sweep_points {
    size_t rows;
    const char **method;
    double *dt, *stiffness, *drag, *omega_dt, *zeta, *t_end;
    int64_t *steps, *unstable_step, *last_stable_step;
    double *final_energy, *final_drift, *max_abs_drift;
    double *final_error, *max_error, *final_rel_error, *max_rel_error;
    double *last_stable_energy, *last_stable_drift, *last_stable_error, *last_stable_rel_error;
    double *max_abs_drift_while_stable, *max_error_while_stable, *max_rel_error_while_stable;
    bool *stable;
} sweep_points;

/* The time series of one traced point. */
typedef struct sweep_trace {
    const char *method;
    size_t row;
    size_t samples;
    int dim;
    double *t, *x, *v, *x_exact, *energy, *drift, *error; /* x, v, x_exact: samples x dim */
} sweep_trace;

/* Wall time of one (method, dt) batch, for throughput and work-precision. */
typedef struct sweep_batch_time {
    const char *method;
    double dt;
    double seconds;    /* stepping and auditing */
    double osc_steps;  /* lanes x steps x axes */
} sweep_batch_time;

typedef struct sweep_result {
    sweep_points points;
    sweep_trace *traces;
    size_t ntraces;
    sweep_batch_time *batches;
    size_t nbatches;
    bool t_end_rounded;   /* some dt does not divide t_end: the run lasts steps * dt */
    double seconds;       /* whole sweep, wall clock */
} sweep_result;

int sweep_run(const osc_config *cfg, bool show_progress, sweep_result *out, char *err,
              size_t errlen);
void sweep_result_free(sweep_result *r);

/* Steps a dt gets: `steps` as given, or t_end / dt rounded to the nearest whole step (>= 1). */
long sweep_steps_for(const osc_config *cfg, double dt);

/* Fill a (method, dt) batch's lanes: the stiffness x drag grid, stiffness-major. */
int sweep_set_lanes(osc_batch *b, const osc_config *cfg);

/* The (method, dt) batch of the config, created, filled and started (*out NULL on failure). */
int sweep_open_batch(const osc_config *cfg, const osc_method *m, double dt, osc_batch **out);

/* The audit of a started batch with the config's instability criterion and maxima mode (*out
 * NULL on failure). */
int sweep_open_audit(const osc_config *cfg, const osc_batch *b, osc_audit **out);

/* Steps between audits for a dt: `audit_every` as given, or so that every dt is audited at the
 * same physical times (see sweep.c). */
long sweep_audit_interval(const osc_config *cfg, double dt);

#endif
