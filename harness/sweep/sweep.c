#define _POSIX_C_SOURCE 200809L
/* Expands a config into batches, runs them through the library with auditing, and gathers the
 * results in memory (see sweep.h). */
#include "sweep.h"

#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "diag.h" /* error_line, test_pause, ERROR_LINE_BYTES */
#include "layout.h"
#include "progress.h"

/* The audit schedule. max_error and max_abs_drift are maxima over every step (the fused kernel,
 * audit.h), or over the audits with `maxima: audits`; stability is decided at the audits, and
 * the convergence fit compares the maxima across dt, so every dt of a run that lasts t_end is
 * audited at the same physical times t_end * j / A (every lround(t_end / A / dt) steps: audit j
 * is up to j/2 steps from t_end * j / A when t_end / (A dt) is not whole), plus the last step. A
 * is chosen so that the largest dt still has MIN_AUDIT_INTERVAL steps between audits (an audit
 * costs about as much as a few tens of steps of a lane), and at most MAX_AUDITS. */
enum { MIN_AUDIT_INTERVAL = 64, MAX_AUDITS = 64 };

long sweep_steps_for(const osc_config *cfg, double dt)
{
    if (cfg->steps > 0)
        return cfg->steps;
    double n = nearbyint(cfg->t_end / dt);
    return n < 1 ? 1 : (long)n;
}

/* How many audits a run gets: as many as fit MIN_AUDIT_INTERVAL steps apart at the largest dt
 * (at most MAX_AUDITS); preferably, among the counts down to a quarter of that, one that divides
 * every dt's step count, so that the audits fall exactly on the common times and the last audit
 * is one of them. */
long sweep_audit_count(const osc_config *cfg)
{
    long fewest_steps = LONG_MAX;
    for (size_t d = 0; d < cfg->dt.count; d++) {
        long s = sweep_steps_for(cfg, cfg->dt.values[d]);
        fewest_steps = s < fewest_steps ? s : fewest_steps;
    }
    long most = fewest_steps / MIN_AUDIT_INTERVAL;
    most = most < 1 ? 1 : most > MAX_AUDITS ? MAX_AUDITS : most;
    for (long a = most; a > 1 && 4 * a >= most; a--) {
        bool divides_all = true;
        for (size_t d = 0; d < cfg->dt.count && divides_all; d++)
            divides_all = sweep_steps_for(cfg, cfg->dt.values[d]) % a == 0;
        if (divides_all)
            return a;
    }
    return most;
}

long sweep_audit_interval(const osc_config *cfg, double dt)
{
    long steps = sweep_steps_for(cfg, dt), k;
    if (cfg->audit_every > 0)
        k = cfg->audit_every;
    else if (cfg->steps > 0)
        k = (steps + sweep_audit_count(cfg) - 1) / sweep_audit_count(cfg);
    else
        k = lround(cfg->t_end / (double)sweep_audit_count(cfg) / dt);
    return k < 1 ? 1 : k < steps ? k : steps;
}

#define COLUMN(name, type) {#name, type, offsetof(sweep_points, name)}
const sweep_column sweep_points_columns[] = {
    COLUMN(dt, SWEEP_F64),
    COLUMN(stiffness, SWEEP_F64),
    COLUMN(drag, SWEEP_F64),
    COLUMN(mass, SWEEP_F64),
    COLUMN(omega_dt, SWEEP_F64),
    COLUMN(zeta, SWEEP_F64),
    COLUMN(steps, SWEEP_I64),
    COLUMN(t_end, SWEEP_F64),
    COLUMN(final_energy, SWEEP_F64),
    COLUMN(final_drift, SWEEP_F64),
    COLUMN(max_abs_drift, SWEEP_F64),
    COLUMN(final_error, SWEEP_F64),
    COLUMN(max_error, SWEEP_F64),
    COLUMN(final_rel_error, SWEEP_F64),
    COLUMN(max_rel_error, SWEEP_F64),
    COLUMN(stable, SWEEP_BOOL),
    COLUMN(unstable_step, SWEEP_I64),
    COLUMN(last_stable_step, SWEEP_I64),
    COLUMN(last_stable_energy, SWEEP_F64),
    COLUMN(last_stable_drift, SWEEP_F64),
    COLUMN(last_stable_error, SWEEP_F64),
    COLUMN(last_stable_rel_error, SWEEP_F64),
    COLUMN(max_abs_drift_while_stable, SWEEP_F64),
    COLUMN(max_error_while_stable, SWEEP_F64),
    COLUMN(max_rel_error_while_stable, SWEEP_F64),
};
#undef COLUMN
const size_t sweep_points_ncolumns = sizeof sweep_points_columns / sizeof *sweep_points_columns;

static bool alloc_points(sweep_points *p, size_t rows)
{
    p->rows = rows;
    bool ok = (p->method = calloc(rows, sizeof *p->method)) != NULL;
    double **f64[] = {&p->dt, &p->stiffness, &p->drag, &p->mass, &p->omega_dt, &p->zeta,
                      &p->t_end, &p->final_energy, &p->final_drift, &p->max_abs_drift,
                      &p->final_error, &p->max_error, &p->final_rel_error, &p->max_rel_error,
                      &p->last_stable_energy, &p->last_stable_drift, &p->last_stable_error,
                      &p->last_stable_rel_error, &p->max_abs_drift_while_stable,
                      &p->max_error_while_stable, &p->max_rel_error_while_stable};
    for (size_t i = 0; i < sizeof f64 / sizeof *f64; i++)
        ok &= (*f64[i] = calloc(rows, sizeof(double))) != NULL;
    ok &= (p->steps = calloc(rows, sizeof(int64_t))) != NULL;
    ok &= (p->unstable_step = calloc(rows, sizeof(int64_t))) != NULL;
    ok &= (p->last_stable_step = calloc(rows, sizeof(int64_t))) != NULL;
    ok &= (p->stable = calloc(rows, sizeof(bool))) != NULL;
    return ok;
}

static void free_points(sweep_points *p)
{
    free(p->method), free(p->dt), free(p->stiffness), free(p->drag), free(p->mass);
    free(p->omega_dt);
    free(p->zeta), free(p->t_end), free(p->final_energy), free(p->final_drift);
    free(p->max_abs_drift), free(p->final_error), free(p->max_error), free(p->final_rel_error);
    free(p->max_rel_error), free(p->steps), free(p->unstable_step), free(p->stable);
    free(p->last_stable_step), free(p->last_stable_energy), free(p->last_stable_drift);
    free(p->last_stable_error), free(p->last_stable_rel_error);
    free(p->max_abs_drift_while_stable), free(p->max_error_while_stable);
    free(p->max_rel_error_while_stable);
}

void sweep_result_free(sweep_result *r)
{
    free_points(&r->points);
    for (size_t i = 0; i < r->ntraces; i++) {
        sweep_trace *t = &r->traces[i];
        free(t->t), free(t->x), free(t->v), free(t->x_exact), free(t->energy), free(t->drift);
        free(t->error);
    }
    free(r->traces);
    free(r->batches);
    free(r->item_seconds);
    memset(r, 0, sizeof *r);
}

static int run_traces(const osc_config *cfg, sweep_result *out);

/* ---- work items ---- */

static size_t items_per_batch(sweep_layout lay)
{
    return (layout_lanes(lay) + SWEEP_ITEM_LANES - 1) / SWEEP_ITEM_LANES;
}

size_t sweep_item_count(const osc_config *cfg)
{
    const sweep_layout lay = layout_of(cfg);
    return lay.nmethods * lay.ndt * items_per_batch(lay);
}

sweep_item sweep_item_at(const osc_config *cfg, size_t index)
{
    const sweep_layout lay = layout_of(cfg);
    const size_t per_batch = items_per_batch(lay), batch = index / per_batch;
    const size_t lane0 = index % per_batch * SWEEP_ITEM_LANES, lanes = layout_lanes(lay);
    sweep_item it = {.index = index, .method = batch / lay.ndt, .dt = batch % lay.ndt,
                     .lane0 = lane0};
    it.lanes = lanes - lane0 < SWEEP_ITEM_LANES ? lanes - lane0 : SWEEP_ITEM_LANES;
    it.row0 = layout_batch_row0(lay, batch) + lane0;
    const osc_method *m = cfg->methods[it.method];
    it.cost = (double)it.lanes * (double)sweep_steps_for(cfg, cfg->dt.values[it.dt]) * cfg->dim *
              (m->fma_per_step > 0 ? m->fma_per_step : 1);
    return it;
}

/* Lanes [lane0, lane0 + lanes) of a (method, dt) batch's mass x stiffness x drag grid. */
static int set_lanes(osc_batch *b, const osc_config *cfg, size_t lane0, size_t lanes)
{
    const sweep_layout lay = layout_of(cfg);
    for (size_t lane = 0; lane < lanes; lane++) {
        const sweep_spring s = layout_spring(cfg, layout_index_in(lay, 0, 0, lane0 + lane));
        int rc = osc_batch_set_lane(b, lane, s.k, s.c, s.m, cfg->x0, cfg->v0);
        if (rc)
            return rc;
    }
    return OSC_OK;
}

typedef struct audit_ctx {
    osc_audit *audit;
    progress *progress;
    long interval;
    int dim;
} audit_ctx;

static int audit_with_progress(void *ctx, const osc_batch *b, size_t i0, size_t i1, long step)
{
    audit_ctx *a = ctx;
    int rc = osc_audit_tile(a->audit, b, i0, i1, step);
    long previous = (step - 1) / a->interval * a->interval;
    progress_add(a->progress, (double)(i1 - i0) * (double)(step - previous) * a->dim);
    return rc;
}

/* A lane's metrics in row r. The audit's metrics of an unstable lane are those of its last stable
 * audit; the run's own final and worst values are then +inf (a lane that blew up has no finite
 * worst error: a frozen value, often 0, would make it look better than a stable one). */
static void record_metrics(sweep_points *p, size_t r, const osc_lane_metrics *lm)
{
    const bool stable = lm->unstable_step < 0;
    const double scale = lm->rest_distance > 0 ? lm->rest_distance : NAN; /* NaN: undefined */
    p->last_stable_step[r] = lm->last_step;
    p->last_stable_energy[r] = lm->final_energy;
    p->last_stable_drift[r] = lm->final_drift;
    p->last_stable_error[r] = lm->final_error;
    p->last_stable_rel_error[r] = lm->final_error / scale;
    p->max_abs_drift_while_stable[r] = lm->max_abs_drift;
    p->max_error_while_stable[r] = lm->max_error;
    p->max_rel_error_while_stable[r] = lm->max_error / scale;
    const double inf_or_nan = scale > 0 ? INFINITY : NAN;
    p->final_energy[r] = stable ? lm->final_energy : INFINITY;
    p->final_drift[r] = stable ? lm->final_drift : INFINITY;
    p->max_abs_drift[r] = stable ? lm->max_abs_drift : INFINITY;
    p->final_error[r] = stable ? lm->final_error : INFINITY;
    p->max_error[r] = stable ? lm->max_error : INFINITY;
    p->final_rel_error[r] = stable ? p->last_stable_rel_error[r] : inf_or_nan;
    p->max_rel_error[r] = stable ? p->max_rel_error_while_stable[r] : inf_or_nan;
    p->unstable_step[r] = lm->unstable_step;
    p->stable[r] = stable;
}

static void record_rows(sweep_points *p, const osc_config *cfg, const sweep_item *it, long steps,
                        const osc_audit *audit)
{
    const sweep_layout lay = layout_of(cfg);
    const osc_method *m = cfg->methods[it->method];
    const double dt = cfg->dt.values[it->dt];
    for (size_t lane = 0; lane < it->lanes; lane++) {
        size_t r = it->row0 + lane;
        const sweep_spring s =
            layout_spring(cfg, layout_index_in(lay, it->method, it->dt, it->lane0 + lane));
        osc_lane_metrics lm;
        osc_audit_lane_metrics(audit, lane, &lm); /* lane < the batch's lanes: cannot fail */
        p->method[r] = m->name;
        p->dt[r] = dt, p->stiffness[r] = s.k, p->drag[r] = s.c, p->mass[r] = s.m;
        p->omega_dt[r] = osc_omega0(s.k, s.m) * dt;
        p->zeta[r] = osc_zeta(s.k, s.c, s.m);
        p->steps[r] = steps, p->t_end[r] = (double)steps * dt;
        record_metrics(p, r, &lm);
    }
}

/* A batch of lanes [lane0, lane0 + lanes) of the (method, dt) grid, filled and started. */
static int open_lanes(const osc_config *cfg, const osc_method *m, double dt, size_t lane0,
                      size_t lanes, osc_batch **out)
{
    int rc = osc_batch_create(out, m, cfg->precision, cfg->dim, lanes, cfg->gravity);
    if (!rc)
        rc = set_lanes(*out, cfg, lane0, lanes);
    if (!rc)
        rc = osc_batch_start(*out, dt);
    if (rc) {
        osc_batch_free(*out);
        *out = NULL;
    }
    return rc;
}

int sweep_open_batch(const osc_config *cfg, const osc_method *m, double dt, osc_batch **out)
{
    return open_lanes(cfg, m, dt, 0, layout_lanes(layout_of(cfg)), out);
}

int sweep_open_audit(const osc_config *cfg, const osc_batch *b, osc_audit **out)
{
    int rc = osc_audit_create(out, b);
    if (!rc)
        rc = osc_audit_set_instability(*out, cfg->unstable_factor, cfg->unstable_drift);
    if (!rc)
        rc = osc_audit_set_maxima(*out, cfg->maxima_sampled ? OSC_MAXIMA_AUDITS
                                                            : OSC_MAXIMA_EVERY_STEP);
    if (rc) {
        osc_audit_free(*out);
        *out = NULL;
    }
    return rc;
}

/* Steps and audits one item on the calling thread, and records its rows and time. */
static int run_item(const osc_config *cfg, const sweep_item *it, progress *prog,
                    sweep_result *out, char *err, size_t errlen)
{
    const osc_method *m = cfg->methods[it->method];
    const double dt = cfg->dt.values[it->dt];
    long steps = sweep_steps_for(cfg, dt);
    osc_batch *b = NULL;
    osc_audit *audit = NULL;
    int rc = open_lanes(cfg, m, dt, it->lane0, it->lanes, &b);
    if (!rc)
        rc = sweep_open_audit(cfg, b, &audit);
    if (rc) {
        error_line(err, errlen, "%s: %s, dt=%g: %s", cfg->path, m->name, dt, osc_strerror(rc));
        osc_batch_free(b);
        return rc;
    }
    audit_ctx ctx = {audit, prog, sweep_audit_interval(cfg, dt), cfg->dim};
    double t0 = omp_get_wtime();
    rc = osc_audit_run(audit, b, steps, ctx.interval, audit_with_progress, &ctx);
    double seconds = omp_get_wtime() - t0;
    if (rc) /* a stopped run has no metrics to record */
        error_line(err, errlen, "%s: %s, dt=%g: stepping stopped at step %ld of %ld: %s",
                   cfg->path, m->name, dt, osc_batch_step(b), steps, osc_strerror(rc));
    else
        record_rows(&out->points, cfg, it, steps, audit), out->item_seconds[it->index] = seconds;
    osc_audit_free(audit);
    osc_batch_free(b);
    return rc;
}

int sweep_alloc(const osc_config *cfg, sweep_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    const sweep_layout lay = layout_of(cfg);
    out->nitems = sweep_item_count(cfg);
    out->item_seconds = malloc(out->nitems * sizeof *out->item_seconds);
    if (!alloc_points(&out->points, layout_rows(lay)) || !out->item_seconds ||
        !(out->batches = calloc(lay.nmethods * lay.ndt, sizeof *out->batches))) {
        error_line(err, errlen, "%s: out of memory for the results table", cfg->path);
        sweep_result_free(out);
        return OSC_ENOMEM;
    }
    for (size_t i = 0; i < out->nitems; i++)
        out->item_seconds[i] = NAN;
    for (size_t d = 0; d < cfg->dt.count; d++) {
        double dt = cfg->dt.values[d];
        if (cfg->steps <= 0 && fabs((double)sweep_steps_for(cfg, dt) * dt - cfg->t_end) >
                                   1e-9 * cfg->t_end)
            out->t_end_rounded = true;
    }
    return OSC_OK;
}

/* Costliest first, so that the last items to start are the short ones (ties: row order). */
static int by_cost_descending(const void *a, const void *b)
{
    const sweep_item *x = a, *y = b;
    if (x->cost != y->cost)
        return x->cost < y->cost ? 1 : -1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The items the plan runs here, costliest first (NULL with *n = 0 on no memory). */
static sweep_item *planned_items(const osc_config *cfg, const sweep_plan *plan, size_t *n)
{
    const size_t count = sweep_item_count(cfg);
    sweep_item *items = malloc((count ? count : 1) * sizeof *items);
    *n = 0;
    for (size_t i = 0; items && i < count; i++)
        if (!plan || !plan->skip || !plan->skip[i])
            items[(*n)++] = sweep_item_at(cfg, i);
    if (items)
        qsort(items, *n, sizeof *items, by_cost_descending);
    return items;
}

int sweep_run_items(const osc_config *cfg, const sweep_plan *plan, bool show_progress,
                    sweep_result *out, char *err, size_t errlen)
{
    size_t n;
    sweep_item *items = planned_items(cfg, plan, &n);
    if (!items) {
        error_line(err, errlen, "%s: out of memory for the work items", cfg->path);
        return OSC_ENOMEM;
    }
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += items[i].cost / (cfg->methods[items[i].method]->fma_per_step > 0
                                      ? cfg->methods[items[i].method]->fma_per_step
                                      : 1);
    progress prog;
    progress_init(&prog, total, "osc-steps", show_progress);
    progress_label(&prog, "");
    double t0 = omp_get_wtime();
    atomic_int failed = 0;
    atomic_size_t finished = 0;
    /* One thread per item; an item's own tile loop then runs on that thread alone (nested
     * regions made inactive), which is what keeps every thread busy whatever a batch's size. */
    const int levels = omp_get_max_active_levels();
    omp_set_max_active_levels(1);
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t i = 0; i < n; i++) {
        if (atomic_load(&failed))
            continue;
        if (plan && plan->stop && omp_get_thread_num() == 0 && plan->stop(plan->ctx)) {
            int expected = 0;
            if (atomic_compare_exchange_strong(&failed, &expected, SWEEP_STOPPED) && errlen)
                err[0] = '\0';
            continue;
        }
        char item_err[ERROR_LINE_BYTES];
        int rc = run_item(cfg, &items[i], &prog, out, item_err, sizeof item_err);
        if (!rc && plan && plan->item_done)
            rc = plan->item_done(plan->ctx, &items[i], out, item_err, sizeof item_err);
        if (rc) {
            int expected = 0;
            if (atomic_compare_exchange_strong(&failed, &expected, rc))
                snprintf(err, errlen, "%s", item_err);
        } else if (atomic_fetch_add(&finished, 1) == 0) {
            test_pause("stepping");
        }
    }
    omp_set_max_active_levels(levels);
    progress_finish(&prog);
    out->seconds += omp_get_wtime() - t0;
    free(items);
    return atomic_load(&failed);
}

int sweep_finish(const osc_config *cfg, sweep_result *out, char *err, size_t errlen)
{
    const sweep_layout lay = layout_of(cfg);
    const size_t lanes = layout_lanes(lay);
    out->nbatches = lay.nmethods * lay.ndt;
    for (size_t b = 0; b < out->nbatches; b++) {
        const osc_method *m = cfg->methods[b / lay.ndt];
        const double dt = cfg->dt.values[b % lay.ndt];
        out->batches[b] = (sweep_batch_time){
            m->name, dt, 0, (double)lanes * (double)sweep_steps_for(cfg, dt) * cfg->dim};
    }
    for (size_t i = 0; i < out->nitems; i++) {
        sweep_item it = sweep_item_at(cfg, i);
        out->batches[layout_batch(lay, it.method, it.dt)].seconds += out->item_seconds[i];
    }
    int rc = OSC_OK;
    double t0 = omp_get_wtime();
    if (cfg->trace && (rc = run_traces(cfg, out)))
        error_line(err, errlen, "%s: tracing failed: %s", cfg->path, osc_strerror(rc));
    out->seconds += omp_get_wtime() - t0;
    return rc;
}

/* ---- traces: a traced point is re-run alone (lanes are independent, so it follows the same
 * bits as in the sweep), audited at every trace sample. */

/* Each sample is evaluated by the audit's own definitions, but unlike the sweep's audit it keeps
 * following a lane that blows up, so the trace shows the growth. */
typedef struct trace_ctx {
    const osc_audit *audit;
    sweep_trace *trace;
} trace_ctx;

static int trace_sample(void *ctx, const osc_batch *b, size_t i0, size_t i1, long step)
{
    (void)i0, (void)i1;
    const osc_audit *audit = ((trace_ctx *)ctx)->audit;
    sweep_trace *t = ((trace_ctx *)ctx)->trace;
    int dim = t->dim;
    size_t s = t->samples++;
    double x[OSC_MAX_DIM], v[OSC_MAX_DIM], time = (double)step * osc_batch_dt(b);
    osc_audit_point pt;
    osc_batch_readout(b, 0, 1, x, v);
    osc_audit_evaluate(audit, 0, time, x, v, &pt);
    for (int a = 0; a < dim; a++) {
        t->x[s * dim + a] = x[a], t->v[s * dim + a] = v[a];
        t->x_exact[s * dim + a] = pt.x_exact[a];
    }
    t->t[s] = time, t->energy[s] = pt.energy, t->drift[s] = pt.drift, t->error[s] = pt.error;
    return 0;
}

static int trace_alloc(sweep_trace *t, size_t samples)
{
    double **cols[] = {&t->t, &t->energy, &t->drift, &t->error};
    double **vec_cols[] = {&t->x, &t->v, &t->x_exact};
    for (size_t i = 0; i < 4; i++)
        if (!(*cols[i] = calloc(samples, sizeof(double))))
            return OSC_ENOMEM;
    for (size_t i = 0; i < 3; i++)
        if (!(*vec_cols[i] = calloc(samples * t->dim, sizeof(double))))
            return OSC_ENOMEM;
    return OSC_OK;
}

static int run_trace(const osc_config *cfg, const osc_method *m, double dt, sweep_spring s,
                     size_t row, sweep_trace *t)
{
    long steps = sweep_steps_for(cfg, dt), every = cfg->trace_every;
    *t = (sweep_trace){.method = m->name, .row = row, .dim = cfg->dim};
    osc_batch *b = NULL;
    osc_audit *audit = NULL;
    int rc = trace_alloc(t, (size_t)(steps / every) + 2);
    if (!rc)
        rc = osc_batch_create(&b, m, cfg->precision, cfg->dim, 1, cfg->gravity);
    if (!rc)
        rc = osc_batch_set_lane(b, 0, s.k, s.c, s.m, cfg->x0, cfg->v0);
    if (!rc)
        rc = osc_batch_start(b, dt);
    if (!rc)
        rc = sweep_open_audit(cfg, b, &audit);
    if (!rc) {
        trace_ctx ctx = {audit, t};
        trace_sample(&ctx, b, 0, 1, 0);
        rc = osc_batch_run(b, steps, every, trace_sample, &ctx);
    }
    osc_audit_free(audit);
    osc_batch_free(b);
    return rc;
}

/* The traced rows: those listed, or the first point of each method. */
static int run_traces(const osc_config *cfg, sweep_result *out)
{
    const sweep_layout lay = layout_of(cfg);
    size_t n = cfg->ntrace_points ? cfg->ntrace_points : cfg->nmethods;
    if (!(out->traces = calloc(n, sizeof *out->traces)))
        return OSC_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        size_t row = cfg->ntrace_points ? cfg->trace_points[i]
                                        : layout_row(lay, (sweep_index){.method = i});
        sweep_index at = layout_index(lay, row);
        const osc_method *m = cfg->methods[at.method];
        double dt = cfg->dt.values[at.dt];
        out->ntraces = i + 1;
        int rc = run_trace(cfg, m, dt, layout_spring(cfg, at), row, &out->traces[i]);
        if (rc)
            return rc;
    }
    return OSC_OK;
}

int sweep_run(const osc_config *cfg, bool show_progress, sweep_result *out, char *err,
              size_t errlen)
{
    int rc = sweep_alloc(cfg, out, err, errlen);
    if (!rc)
        rc = sweep_run_items(cfg, NULL, show_progress, out, err, errlen);
    if (!rc)
        rc = sweep_finish(cfg, out, err, errlen);
    return rc;
}

/* ---- memory ---- */

/* The program, its libraries, HDF5's caches: 18.5 MB measured for a one-lane config. */
#define BASE_BYTES (20.0 * 1024 * 1024)
/* Per convergence group (method, stiffness, drag, mass): its /convergence row (~118 bytes) and per
 * successive dt its /convergence_local row (~50 bytes), each held twice while written. */
#define CONVERGENCE_ROW_BYTES 236.0
#define CONVERGENCE_LOCAL_ROW_BYTES 100.0

static double points_row_bytes(void)
{
    double bytes = sizeof(const char *) + sizeof(int64_t); /* method, the row scale */
    for (size_t i = 0; i < sweep_points_ncolumns; i++)
        bytes += (double)sweep_column_size(&sweep_points_columns[i]);
    return bytes;
}

static double trace_bytes(const osc_config *cfg)
{
    if (!cfg->trace || !cfg->dt.values || cfg->trace_every < 1)
        return 0;
    double most_samples = 0;
    for (size_t d = 0; d < cfg->dt.count; d++) {
        double s = (double)sweep_steps_for(cfg, cfg->dt.values[d]) / cfg->trace_every + 2;
        most_samples = s > most_samples ? s : most_samples;
    }
    double traces = cfg->ntrace_points ? (double)cfg->ntrace_points : (double)cfg->nmethods;
    return traces * most_samples * (4.0 + 3.0 * cfg->dim) * sizeof(double);
}

double sweep_estimate_bytes(const osc_config *cfg, double ndt, double batch_lanes, int threads)
{
    const double rows = (double)cfg->nmethods * ndt * batch_lanes;
    const double groups = (double)cfg->nmethods * batch_lanes;
    double bytes = BASE_BYTES + rows * points_row_bytes() + trace_bytes(cfg);
    if (ndt >= 2)
        bytes += groups * (CONVERGENCE_ROW_BYTES + (ndt - 1) * CONVERGENCE_LOCAL_ROW_BYTES);
    const size_t item_lanes = batch_lanes < SWEEP_ITEM_LANES ? (size_t)batch_lanes
                                                             : SWEEP_ITEM_LANES;
    double item = 0;
    for (size_t m = 0; m < cfg->nmethods; m++) {
        double b = (double)(osc_batch_bytes(cfg->methods[m], cfg->precision, cfg->dim,
                                            item_lanes) +
                            osc_audit_bytes(cfg->dim, item_lanes));
        item = b > item ? b : item;
    }
    return bytes + (threads > 0 ? threads : 1) * item;
}

/* A limit file's value in bytes, or 0 ("max", missing, unreadable). */
static double read_limit(const char *path)
{
    FILE *f = fopen(path, "r");
    char value[64] = "";
    double limit = 0;
    if (f && fgets(value, sizeof value, f) && strncmp(value, "max", 3))
        limit = strtod(value, NULL);
    if (f)
        fclose(f);
    return limit > 0 ? limit : 0;
}

/* The lowest limit on the cgroup `path` or any of its ancestors, in the hierarchy mounted at
 * `mount` whose limit file is `file`; 0 if none. */
static double lowest_limit(const char *mount, const char *path, const char *file)
{
    char dir[4096], where[4400];
    snprintf(dir, sizeof dir, "%s", path);
    double lowest = 0;
    for (;;) {
        snprintf(where, sizeof where, "%s%s/%s", mount, strcmp(dir, "/") ? dir : "", file);
        double limit = read_limit(where);
        if (limit > 0 && (lowest == 0 || limit < lowest))
            lowest = limit;
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir) {
            if (!strcmp(dir, "/") || !slash)
                break;
            dir[1] = '\0';
        } else {
            *slash = '\0';
        }
    }
    return lowest;
}

/* The memory limit of this process's cgroups: v2 memory.max (at /sys/fs/cgroup or, on hybrid
 * systems, /sys/fs/cgroup/unified) or v1 memory.limit_in_bytes, over the cgroup and its
 * ancestors; 0 if none. */
static double cgroup_memory_max(void)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[4096];
    double lowest = 0;
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *controllers = strchr(line, ':'), *path = controllers ? strchr(controllers + 1, ':')
                                                                  : NULL;
        if (!path)
            continue;
        *path++ = '\0';
        controllers++;
        double limit = 0;
        if (!strcmp(line, "0") && !*controllers) {
            limit = lowest_limit("/sys/fs/cgroup", path, "memory.max");
            double unified = lowest_limit("/sys/fs/cgroup/unified", path, "memory.max");
            limit = unified > 0 && (limit == 0 || unified < limit) ? unified : limit;
        } else if (strstr(controllers, "memory")) {
            limit = lowest_limit("/sys/fs/cgroup/memory", path, "memory.limit_in_bytes");
        }
        if (limit > 0 && (lowest == 0 || limit < lowest))
            lowest = limit;
    }
    if (f)
        fclose(f);
    return lowest;
}

double sweep_memory_limit(const char **source)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double physical = pages > 0 && page > 0 ? (double)pages * (double)page : 0;
    double cgroup = cgroup_memory_max();
    if (cgroup > 0 && (physical <= 0 || cgroup < physical)) {
        *source = "the cgroup's memory limit";
        return cgroup;
    }
    *source = "physical memory";
    return physical;
}
