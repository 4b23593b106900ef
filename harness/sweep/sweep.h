/* Running a config's sweep: expand it into batches of lanes (one batch per method and dt, the
 * mass x stiffness x drag grid side by side in SIMD lanes), step and audit them, gather the
 * /points table, traces and timings in memory. No file I/O here. */
#ifndef OSCBENCH_SWEEP_H
#define OSCBENCH_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "audit.h"
#include "config.h"
#include "oscbench.h"

/* One row per lane: row = (((method * ndt + dt) * nmass + mass) * nstiffness + stiffness) *
 * ndrag + drag (layout.h).
 * The final_* and max_* columns describe the whole run: +inf for a lane that turned unstable
 * (its run has no finite worst error), NaN only where a value is undefined (the relative error
 * of a lane with no distance from rest). What an unstable lane did while it was stable is in the
 * last_stable_* and *_while_stable columns (equal to final_* and max_* for a stable lane). */
typedef struct sweep_points {
    size_t rows;
    const char **method;
    double *dt, *stiffness, *drag, *mass, *omega_dt, *zeta, *t_end; /* k, c, m of the lane */
    int64_t *steps, *unstable_step, *last_stable_step;
    double *final_energy, *final_drift, *max_abs_drift;
    double *final_error, *max_error, *final_rel_error, *max_rel_error;
    double *last_stable_energy, *last_stable_drift, *last_stable_error, *last_stable_rel_error;
    double *max_abs_drift_while_stable, *max_error_while_stable, *max_rel_error_while_stable;
    bool *stable;
} sweep_points;

/* The columns of /points after `method` (which the config gives for every row), in the file's
 * order: one list for the results writer, checkpoints and the parallel writer. */
typedef enum sweep_column_type { SWEEP_F64, SWEEP_I64, SWEEP_BOOL } sweep_column_type;

typedef struct sweep_column {
    const char *name;
    sweep_column_type type;
    size_t offset; /* of the column's pointer in sweep_points */
} sweep_column;

extern const sweep_column sweep_points_columns[];
extern const size_t sweep_points_ncolumns;

static inline size_t sweep_column_size(const sweep_column *c)
{
    return c->type == SWEEP_BOOL ? sizeof(bool) : c->type == SWEEP_I64 ? sizeof(int64_t)
                                                                       : sizeof(double);
}

/* The column's array in p. */
static inline void *sweep_column_data(const sweep_points *p, const sweep_column *c)
{
    return *(void *const *)((const char *)p + c->offset);
}

/* The time series of one traced point. */
typedef struct sweep_trace {
    const char *method;
    size_t row;
    size_t samples;
    int dim;
    double *t, *x, *v, *x_exact, *energy, *drift, *error; /* x, v, x_exact: samples x dim */
} sweep_trace;

/* The time one (method, dt) batch took, summed over its work items (each item runs on one
 * thread, so this is thread-seconds, not wall time, when several threads share the sweep). */
typedef struct sweep_batch_time {
    const char *method;
    double dt;
    double seconds;    /* stepping and auditing, thread-seconds */
    double osc_steps;  /* lanes x steps x axes */
} sweep_batch_time;

/* A work item: lanes [lane0, lane0 + lanes) of the (method, dt) batch, rows [row0, row0 +
 * lanes) of /points. Items are cut from the config alone (SWEEP_ITEM_LANES lanes each, the
 * last of a batch shorter), never from the thread or rank count, so that they can be shared
 * out over threads and ranks and checkpointed, and a resumed job may use other counts. Lanes
 * are independent and every lane steps through the same operations whatever batch holds it, so
 * a row's bits do not depend on how lanes were cut into items. */
enum { SWEEP_ITEM_LANES = 512 };

typedef struct sweep_item {
    size_t index;             /* 0 .. sweep_item_count - 1, in row order */
    size_t method, dt;        /* indices into the config's lists */
    size_t lane0, lanes, row0;
    double cost;              /* estimated: lanes x steps x axes x the method's operations */
} sweep_item;

size_t sweep_item_count(const osc_config *cfg);
sweep_item sweep_item_at(const osc_config *cfg, size_t index);

typedef struct sweep_result {
    sweep_points points;
    sweep_trace *traces;
    size_t ntraces;
    sweep_batch_time *batches;
    size_t nbatches;
    double *item_seconds; /* per work item, thread-seconds (NaN: not run here) */
    size_t nitems;
    bool t_end_rounded;   /* some dt does not divide t_end: the run lasts steps * dt */
    double seconds;       /* whole sweep, wall clock */
} sweep_result;

/* The whole sweep: sweep_alloc, sweep_run_items over every item, sweep_finish. */
int sweep_run(const osc_config *cfg, bool show_progress, sweep_result *out, char *err,
              size_t errlen);
void sweep_result_free(sweep_result *r);

/* The steps of sweep_run, for callers that share items out (ranks) or keep some from an
 * earlier run (checkpoints). sweep_alloc sizes the result for the config. */
int sweep_alloc(const osc_config *cfg, sweep_result *out, char *err, size_t errlen);

/* What sweep_run_items runs and tells. `skip` (sweep_item_count entries, or NULL): items not to
 * run here (another rank's, or restored from a checkpoint: their rows and item_seconds are the
 * caller's). `item_done`, if set, is called by the thread that finished an item, as soon as its
 * rows and item_seconds are final; calls may come from several threads at once. A nonzero
 * return stops the sweep (no new item starts) with err set. `stop`, if set, is asked by the
 * team's primary thread (the one that called sweep_run_items) before each item it takes: true
 * stops the sweep as a failure, SWEEP_STOPPED, with err empty (a rank told that another failed). */
typedef struct sweep_plan {
    const bool *skip;
    int (*item_done)(void *ctx, const sweep_item *it, const sweep_result *res, char *err,
                     size_t errlen);
    bool (*stop)(void *ctx);
    void *ctx;
} sweep_plan;
enum { SWEEP_STOPPED = -100 };

/* Runs the plan's items over the OpenMP threads, costliest first (dynamic schedule). Returns
 * the first failure (err set); rows of items that did not finish are undefined. */
int sweep_run_items(const osc_config *cfg, const sweep_plan *plan, bool show_progress,
                    sweep_result *out, char *err, size_t errlen);

/* After every item's rows and item_seconds are in: the per-batch times and the traces. */
int sweep_finish(const osc_config *cfg, sweep_result *out, char *err, size_t errlen);

/* Steps a dt gets: `steps` as given, or t_end / dt rounded to the nearest whole step (>= 1). */
long sweep_steps_for(const osc_config *cfg, double dt);

/* The (method, dt) batch of the config, created, filled and started (*out NULL on failure). */
int sweep_open_batch(const osc_config *cfg, const osc_method *m, double dt, osc_batch **out);

/* The audit of a started batch with the config's instability criterion and maxima mode (*out
 * NULL on failure). */
int sweep_open_audit(const osc_config *cfg, const osc_batch *b, osc_audit **out);

/* Steps between audits for a dt: `audit_every` as given, or so that every dt is audited at the
 * same physical times (see sweep.c). */
long sweep_audit_interval(const osc_config *cfg, double dt);
/* A, the audits the interval aims at when `audit_every` is not given (see sweep.c). */
long sweep_audit_count(const osc_config *cfg);

/* The bytes a run of this config holds at its peak: the /points table (every column, the
 * method pointer and the row scale written with it), the convergence tables built from it (when
 * there are two or more dt), one work item's batch and audit per thread (the library's own
 * counts) and the traces (when dt is expanded), plus a fixed allowance for the program and its
 * libraries. ndt and batch_lanes (mass x stiffness x drag) are passed so that the config loader
 * can ask before it expands any range. */
double sweep_estimate_bytes(const osc_config *cfg, double ndt, double batch_lanes, int threads);

/* The memory this process may use: physical memory, or its cgroups' memory limit (v2
 * memory.max or v1 memory.limit_in_bytes, over the cgroup and its ancestors) when that is
 * lower (*source says which; 0 if neither is known). */
double sweep_memory_limit(const char **source);

#endif
