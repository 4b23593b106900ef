/* Expands a config into batches, runs them through the library with auditing, and gathers the
 * results in memory (see sweep.h). */
#include "sweep.h"

#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "commit.h"
#include "layout.h"
#include "progress.h"

/* The audit schedule. max_error and max_abs_drift are maxima over every step (the fused kernel,
 * audit.h), or over the audits with `maxima: audits`; stability is decided at the audits, and
 * the convergence fit compares the maxima across dt, so every dt of a run that lasts t_end is
 * audited at the same physical times t_end * j / A (to the nearest step), plus the last step. A
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
static long audit_count(const osc_config *cfg)
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
        k = (steps + audit_count(cfg) - 1) / audit_count(cfg);
    else
        k = lround(cfg->t_end / (double)audit_count(cfg) / dt);
    return k < 1 ? 1 : k < steps ? k : steps;
}

static bool alloc_points(sweep_points *p, size_t rows)
{
    p->rows = rows;
    bool ok = (p->method = calloc(rows, sizeof *p->method)) != NULL;
    double **f64[] = {&p->dt, &p->stiffness, &p->drag, &p->omega_dt, &p->zeta, &p->t_end,
                      &p->final_energy, &p->final_drift, &p->max_abs_drift, &p->final_error,
                      &p->max_error, &p->final_rel_error, &p->max_rel_error,
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
    free(p->method), free(p->dt), free(p->stiffness), free(p->drag), free(p->omega_dt);
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
    memset(r, 0, sizeof *r);
}

int sweep_set_lanes(osc_batch *b, const osc_config *cfg)
{
    const sweep_layout lay = layout_of(cfg);
    for (size_t lane = 0; lane < layout_lanes(lay); lane++) {
        sweep_index at = layout_index_in(lay, 0, 0, lane);
        int rc = osc_batch_set_lane(b, lane, cfg->stiffness.values[at.stiffness],
                                    config_drag(cfg, at.stiffness, at.drag), cfg->mass, cfg->x0,
                                    cfg->v0);
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

static void record_rows(sweep_points *p, size_t row0, const osc_config *cfg, const osc_method *m,
                        double dt, long steps, const osc_audit *audit)
{
    const sweep_layout lay = layout_of(cfg);
    for (size_t lane = 0; lane < layout_lanes(lay); lane++) {
        size_t r = row0 + lane;
        sweep_index at = layout_index_in(lay, 0, 0, lane);
        double k = cfg->stiffness.values[at.stiffness];
        double c = config_drag(cfg, at.stiffness, at.drag);
        osc_lane_metrics lm;
        osc_audit_lane_metrics(audit, lane, &lm); /* lane < the batch's lanes: cannot fail */
        p->method[r] = m->name;
        p->dt[r] = dt, p->stiffness[r] = k, p->drag[r] = c;
        p->omega_dt[r] = osc_omega0(k, cfg->mass) * dt;
        p->zeta[r] = osc_zeta(k, c, cfg->mass);
        p->steps[r] = steps, p->t_end[r] = (double)steps * dt;
        record_metrics(p, r, &lm);
    }
}

int sweep_open_batch(const osc_config *cfg, const osc_method *m, double dt, osc_batch **out)
{
    int rc = osc_batch_create(out, m, cfg->precision, cfg->dim, layout_lanes(layout_of(cfg)),
                              cfg->gravity);
    if (!rc)
        rc = sweep_set_lanes(*out, cfg);
    if (!rc)
        rc = osc_batch_start(*out, dt);
    if (rc) {
        osc_batch_free(*out);
        *out = NULL;
    }
    return rc;
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

static int run_batch(const osc_config *cfg, const osc_method *m, double dt, size_t row0,
                     progress *prog, sweep_result *out, char *err, size_t errlen)
{
    size_t lanes = layout_lanes(layout_of(cfg));
    long steps = sweep_steps_for(cfg, dt);
    osc_batch *b = NULL;
    osc_audit *audit = NULL;
    int rc = sweep_open_batch(cfg, m, dt, &b);
    if (!rc)
        rc = sweep_open_audit(cfg, b, &audit);
    if (rc) {
        snprintf(err, errlen, "%s: %s, dt=%g: %s", cfg->path, m->name, dt, osc_strerror(rc));
        osc_batch_free(b);
        return rc;
    }
    char label[64];
    snprintf(label, sizeof label, "%s dt=%g", m->name, dt);
    progress_label(prog, label);
    audit_ctx ctx = {audit, prog, sweep_audit_interval(cfg, dt), cfg->dim};
    double t0 = omp_get_wtime();
    rc = osc_audit_run(audit, b, steps, ctx.interval, audit_with_progress, &ctx);
    double seconds = omp_get_wtime() - t0;
    if (rc) { /* a stopped run has no metrics to record */
        snprintf(err, errlen, "%s: %s, dt=%g: stepping stopped at step %ld of %ld: %s",
                 cfg->path, m->name, dt, osc_batch_step(b), steps, osc_strerror(rc));
        osc_audit_free(audit);
        osc_batch_free(b);
        return rc;
    }
    record_rows(&out->points, row0, cfg, m, dt, steps, audit);
    out->batches[out->nbatches++] =
        (sweep_batch_time){m->name, dt, seconds, (double)lanes * (double)steps * cfg->dim};
    if (fabs((double)steps * dt - cfg->t_end) > 1e-9 * cfg->t_end && cfg->steps <= 0)
        out->t_end_rounded = true;
    osc_audit_free(audit);
    osc_batch_free(b);
    return OSC_OK;
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

static int run_trace(const osc_config *cfg, const osc_method *m, double dt, double k, double c,
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
        rc = osc_batch_set_lane(b, 0, k, c, cfg->mass, cfg->x0, cfg->v0);
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
        double k = cfg->stiffness.values[at.stiffness];
        double c = config_drag(cfg, at.stiffness, at.drag);
        out->ntraces = i + 1;
        int rc = run_trace(cfg, m, dt, k, c, row, &out->traces[i]);
        if (rc)
            return rc;
    }
    return OSC_OK;
}

int sweep_run(const osc_config *cfg, bool show_progress, sweep_result *out, char *err,
              size_t errlen)
{
    memset(out, 0, sizeof *out);
    const sweep_layout lay = layout_of(cfg);
    if (!alloc_points(&out->points, layout_rows(lay)) ||
        !(out->batches = calloc(cfg->nmethods * cfg->dt.count, sizeof *out->batches))) {
        snprintf(err, errlen, "%s: out of memory for the results table", cfg->path);
        return OSC_ENOMEM;
    }
    double total = 0;
    for (size_t d = 0; d < cfg->dt.count; d++)
        total += (double)sweep_steps_for(cfg, cfg->dt.values[d]) * (double)layout_lanes(lay) *
                 cfg->dim;
    progress prog;
    progress_init(&prog, total * cfg->nmethods, "osc-steps", show_progress);
    double t0 = omp_get_wtime();
    int rc = OSC_OK;
    for (size_t mi = 0; mi < cfg->nmethods && !rc; mi++)
        for (size_t di = 0; di < cfg->dt.count && !rc; di++) {
            size_t row0 = layout_batch_row0(lay, layout_batch(lay, mi, di));
            rc = run_batch(cfg, cfg->methods[mi], cfg->dt.values[di], row0, &prog, out, err,
                           errlen);
            if (mi == 0 && di == 0)
                test_pause("stepping");
        }
    progress_finish(&prog);
    if (!rc && cfg->trace && (rc = run_traces(cfg, out)))
        snprintf(err, errlen, "%s: tracing failed: %s", cfg->path, osc_strerror(rc));
    out->seconds = omp_get_wtime() - t0;
    return rc;
}
