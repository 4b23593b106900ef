/* The analyses of a run, from its /points: work-precision always, convergence and stability
 * when the config asks for them. The numerics live in lib/ (analysis.h); this file only groups
 * rows and collects the answers into tables. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "analyses.h"
#include "diag.h"
#include "exact.h"
#include "layout.h"
#include "progress.h"
#include "whole.h"

static bool alloc_work(work_rows *w, size_t rows)
{
    w->rows = rows;
    return (w->method = calloc(rows, sizeof *w->method)) && (w->dt = calloc(rows, sizeof(double))) &&
           (w->ns_per_osc_step = calloc(rows, sizeof(double))) &&
           (w->ns_per_lane = calloc(rows, sizeof(double))) && (w->steps = calloc(rows, sizeof(int64_t))) &&
           (w->median_error = calloc(rows, sizeof(double))) &&
           (w->worst_error = calloc(rows, sizeof(double))) &&
           (w->force_evals = calloc(rows, sizeof(int64_t))) &&
           (w->stable_points = calloc(rows, sizeof(int64_t))) &&
           (w->common_points = calloc(rows, sizeof(int64_t))) &&
           (w->median_error_common = calloc(rows, sizeof(double))) &&
           (w->worst_error_common = calloc(rows, sizeof(double)));
}

long cost_probe_lanes_env(void)
{
    const char *env = getenv(COST_PROBE_LANES_ENV);
    long lanes;
    if (!env)
        return 0;
    return whole_in(env, 128, 1L << 20, &lanes) ? lanes : -1;
}

/* Lanes of the cost probe: 2^16, or OSCBENCH_COST_PROBE_LANES (`oscbench run` refuses a value
 * out of range before it starts), which test runs and memcheck runs under valgrind set to save
 * time (its figures then mean little). */
static size_t cost_probe_lanes(void)
{
    long lanes = cost_probe_lanes_env();
    return lanes > 0 ? (size_t)lanes : (size_t)1 << 16;
}

/* Wall nanoseconds per oscillator-step of a method's bare stepping (no audits), all threads,
 * measured now on 2^16 lanes: the best of three ~30 ms runs, so that one hiccup of a shared
 * machine does not set the price. */
static double step_cost_ns(const osc_method *m, osc_precision p)
{
    enum { STEPS = 512 };
    const size_t LANES = cost_probe_lanes();
    const long steps_per_run = LANES < ((size_t)1 << 16) ? 8 : STEPS; /* a probe run for memcheck */
    osc_batch *b = NULL;
    if (osc_batch_create(&b, m, p, 1, LANES, 0))
        return NAN;
    int rc = OSC_OK;
    for (size_t i = 0; i < LANES && !rc; i++) {
        double x0 = 1, v0 = 0;
        rc = osc_batch_set_lane(b, i, 1 + (double)(i % 13) * 0.1, 0.01, 1, &x0, &v0);
    }
    if (!rc)
        rc = osc_batch_start(b, 1e-3);
    double best = rc ? NAN : INFINITY; /* NaN: no price, rather than a made-up one */
    for (int rep = 0; rep < 3 && !rc; rep++) {
        double t0 = omp_get_wtime(), t;
        long steps = 0;
        do {
            rc = osc_batch_run(b, steps_per_run, steps_per_run, NULL, NULL);
            steps += steps_per_run;
        } while (!rc && (t = omp_get_wtime() - t0) < 0.03);
        best = rc ? NAN : fmin(best, 1e9 * t / ((double)steps * (double)LANES));
    }
    osc_batch_free(b);
    return best;
}

/* A lane that counts for work-precision: stable, with a finite error (a stable lane's is). */
static bool lane_counts(const sweep_points *p, size_t row)
{
    return p->stable[row] && isfinite(p->max_error[row]);
}

/* Median and largest of errors[0..n) (sorted here; finite, as lane_counts keeps); NaN for none. */
static void median_and_worst(double *errors, size_t n, double *median, double *worst)
{
    gsl_sort(errors, 1, n);
    *median = n ? gsl_stats_median_from_sorted_data(errors, 1, n) : NAN;
    *worst = n ? errors[n - 1] : NAN;
}

/* Lane j of dt d is in the common set when it counts for every method: the /points layout
 * gives lane j the same (stiffness, drag, mass) in every method's batch of that dt. */
static bool lane_common(sweep_layout lay, const sweep_points *p, size_t d, size_t j)
{
    for (size_t m = 0; m < lay.nmethods; m++)
        if (!lane_counts(p, layout_batch_row0(lay, layout_batch(lay, m, d)) + j))
            return false;
    return true;
}

/* The error columns of batch b: over its own stable lanes, and over the common set of its dt
 * (common[j]: lane j is in it), so that methods are also compared on the same springs. */
static void batch_errors(sweep_layout lay, const sweep_points *p, size_t b, const bool *common,
                         double *errors, work_rows *w)
{
    const size_t lanes = layout_lanes(lay), row0 = layout_batch_row0(lay, b);
    size_t n = 0;
    for (size_t j = 0; j < lanes; j++)
        if (lane_counts(p, row0 + j))
            errors[n++] = p->max_error[row0 + j];
    median_and_worst(errors, n, &w->median_error[b], &w->worst_error[b]);
    w->stable_points[b] = (int64_t)n;
    n = 0;
    for (size_t j = 0; j < lanes; j++)
        if (common[j])
            errors[n++] = p->max_error[row0 + j];
    median_and_worst(errors, n, &w->median_error_common[b], &w->worst_error_common[b]);
    w->common_points[b] = (int64_t)n;
}

/* One row per (method, dt) batch: the cost of running one lane to the end (the method's bare
 * cost per oscillator-step, measured in this run, times steps and axes; and its force
 * evaluations) against the median and worst max_error of the batch's stable lanes, and of the
 * lanes of its dt stable for every method of the run (the common set). */
static int work_precision(const osc_config *cfg, const sweep_result *res, work_rows *w)
{
    const sweep_layout lay = layout_of(cfg);
    const size_t lanes = layout_lanes(lay);
    double *errors = malloc((lanes ? lanes : 1) * sizeof *errors);
    bool *common = calloc(lanes ? lanes : 1, sizeof *common);
    double *cost = calloc(cfg->nmethods, sizeof *cost);
    if (!errors || !common || !cost || !alloc_work(w, res->nbatches)) {
        free(errors), free(common), free(cost);
        return OSC_ENOMEM;
    }
    for (size_t m = 0; m < cfg->nmethods; m++)
        cost[m] = step_cost_ns(cfg->methods[m], cfg->precision);
    for (size_t d = 0; d < lay.ndt; d++) {
        for (size_t j = 0; j < lanes; j++)
            common[j] = lane_common(lay, &res->points, d, j);
        for (size_t m = 0; m < lay.nmethods; m++) {
            const size_t b = layout_batch(lay, m, d), row0 = layout_batch_row0(lay, b);
            w->method[b] = res->batches[b].method;
            w->dt[b] = res->batches[b].dt;
            w->steps[b] = res->points.steps[row0];
            w->ns_per_osc_step[b] = cost[m];
            w->ns_per_lane[b] = w->ns_per_osc_step[b] * (double)w->steps[b] * cfg->dim;
            w->force_evals[b] = cfg->methods[m]->force_evals * w->steps[b];
            batch_errors(lay, &res->points, b, common, errors, w);
        }
    }
    free(errors), free(common), free(cost);
    return OSC_OK;
}

static void free_work(work_rows *w)
{
    free(w->method), free(w->dt), free(w->ns_per_osc_step), free(w->median_error);
    free(w->ns_per_lane), free(w->steps);
    free(w->worst_error), free(w->force_evals), free(w->stable_points);
    free(w->common_points), free(w->median_error_common), free(w->worst_error_common);
}

/* ---- convergence: one fit per (method, stiffness, drag, mass) over its dt values ---- */

static bool alloc_conv(convergence_rows *c, size_t rows)
{
    c->rows = rows;
    return (c->method = calloc(rows, sizeof *c->method)) &&
           (c->stiffness = calloc(rows, sizeof(double))) && (c->drag = calloc(rows, sizeof(double))) &&
           (c->mass = calloc(rows, sizeof(double))) && (c->zeta = calloc(rows, sizeof(double))) &&
           (c->measured_order = calloc(rows, sizeof(double))) &&
           (c->order_low = calloc(rows, sizeof(double))) &&
           (c->order_high = calloc(rows, sizeof(double))) &&
           (c->std_error = calloc(rows, sizeof(double))) &&
           (c->declared_order = calloc(rows, sizeof(int64_t))) &&
           (c->fit_points = calloc(rows, sizeof(int64_t))) &&
           (c->dt_points = calloc(rows, sizeof(int64_t))) && (c->pass = calloc(rows, sizeof(bool))) &&
           (c->dt_fit_min = calloc(rows, sizeof(double))) &&
           (c->dt_fit_max = calloc(rows, sizeof(double))) &&
           (c->verdict = calloc(rows, sizeof *c->verdict)) &&
           (c->reason = calloc(rows, sizeof *c->reason)) &&
           (c->coefficient_order = calloc(rows, sizeof(int64_t))) &&
           (c->linear_order = calloc(rows, sizeof(int64_t))) &&
           (c->order_note = calloc(rows, sizeof *c->order_note));
}

/* The oscillator is linear: a method whose stability polynomial matches exp(z) beyond its
 * coefficient order (the rooted-tree conditions) measures its linear order here. */
static const char linear_only_note[] =
    "linear_order > coefficient_order: the oscillator is a linear problem and checks only the "
    "linear order conditions; on nonlinear problems the order is coefficient_order";

/* A fit's coefficient and linear orders for its problem (with drag c, or without: x'' = f(x));
 * -1 for a method not defined by coefficients; and its note. */
static void coefficient_orders(const osc_config *cfg, const osc_method *m, double c,
                               convergence_rows *rows, size_t r)
{
    const config_user_method *um = config_user_method_of(cfg, m);
    const bool damped = c != 0;
    const int coef = !um ? -1 : damped ? um->coefficient_order : um->coefficient_order_undamped;
    const int lin = !um ? -1 : damped ? um->linear_order : um->linear_order_undamped;
    rows->coefficient_order[r] = coef, rows->linear_order[r] = lin;
    rows->order_note[r] = lin > coef ? linear_only_note : "";
}

/* Room for every pair of successive dt of every group; rows counts those filled. */
static bool alloc_local(convergence_local_rows *l, size_t capacity)
{
    l->rows = 0;
    size_t n = capacity ? capacity : 1;
    return (l->method = calloc(n, sizeof *l->method)) && (l->stiffness = calloc(n, sizeof(double))) &&
           (l->drag = calloc(n, sizeof(double))) && (l->mass = calloc(n, sizeof(double))) &&
           (l->dt_low = calloc(n, sizeof(double))) &&
           (l->dt_high = calloc(n, sizeof(double))) &&
           (l->local_order = calloc(n, sizeof(double))) && (l->usable = calloc(n, sizeof(bool))) &&
           (l->fitted = calloc(n, sizeof(bool)));
}

static void free_local(convergence_local_rows *l)
{
    free(l->method), free(l->stiffness), free(l->drag), free(l->mass), free(l->dt_low);
    free(l->dt_high);
    free(l->local_order), free(l->usable), free(l->fitted);
}

static void add_local(convergence_local_rows *l, const char *method, sweep_spring s,
                      const osc_local_order *local, size_t n)
{
    for (size_t i = 0; i < n; i++, l->rows++) {
        size_t r = l->rows;
        l->method[r] = method, l->stiffness[r] = s.k, l->drag[r] = s.c, l->mass[r] = s.m;
        l->dt_low[r] = local[i].dt_low, l->dt_high[r] = local[i].dt_high;
        l->local_order[r] = local[i].order;
        l->usable[r] = local[i].usable, l->fitted[r] = local[i].fitted;
    }
}

static int convergence_analysis(const osc_config *cfg, const sweep_result *res,
                                convergence_rows *out)
{
    const sweep_points *p = &res->points;
    const sweep_layout lay = layout_of(cfg);
    const size_t ndt = lay.ndt, lanes = layout_lanes(lay);
    size_t rows = ndt >= 2 ? cfg->nmethods * lanes : 0;
    osc_conv_point *pts = calloc(ndt, sizeof *pts);
    osc_local_order *local = calloc(ndt ? ndt : 1, sizeof *local);
    bool *used = calloc(ndt ? ndt : 1, sizeof *used);
    int rc = OSC_OK;
    if (!pts || !local || !used || !alloc_conv(out, rows) ||
        !alloc_local(&out->local, rows * (ndt ? ndt - 1 : 0)))
        rc = OSC_ENOMEM;
    for (size_t r = 0; r < rows && rc == OSC_OK; r++) {
        /* fit r: lane r % lanes of each dt batch of method r / lanes */
        sweep_index at = layout_index_in(lay, r / lanes, 0, r % lanes);
        const osc_method *m = cfg->methods[at.method];
        const sweep_spring s = layout_spring(cfg, at);
        double t_end = 0;
        for (at.dt = 0; at.dt < ndt; at.dt++) {
            size_t row = layout_row(lay, at);
            pts[at.dt] = (osc_conv_point){p->dt[row], p->max_error[row], (long)p->steps[row],
                                          p->stable[row], p->t_end[row]};
            t_end = fmax(t_end, p->t_end[row]);
        }
        double scale = osc_motion_scale(cfg->dim, s.k, s.c, s.m, cfg->gravity, cfg->x0,
                                        cfg->v0, t_end);
        coefficient_orders(cfg, m, s.c, out, r);
        osc_fit_params par = {osc_precision_eps(cfg->precision), scale,
                              osc_omega0(s.k, s.m) * t_end, osc_method_declared_order(m, s.c),
                              (int)out->coefficient_order[r]};
        osc_order_fit fit;
        size_t nlocal = 0;
        rc = osc_fit_order(pts, ndt, &par, &fit, used);
        if (!rc)
            rc = osc_local_orders(pts, ndt, &par, used, local, &nlocal);
        if (rc)
            break;
        out->method[r] = m->name, out->stiffness[r] = s.k, out->drag[r] = s.c;
        out->mass[r] = s.m, out->zeta[r] = osc_zeta(s.k, s.c, s.m); /* as record_rows */
        out->declared_order[r] = par.declared_order;
        out->measured_order[r] = fit.order, out->std_error[r] = fit.order_se;
        out->order_low[r] = fit.order_low, out->order_high[r] = fit.order_high;
        out->fit_points[r] = (int64_t)fit.fit_points, out->dt_points[r] = (int64_t)ndt;
        out->dt_fit_min[r] = fit.dt_min, out->dt_fit_max[r] = fit.dt_max;
        out->verdict[r] = fit.verdict, out->reason[r] = fit.reason;
        out->pass[r] = fit.pass;
        add_local(&out->local, m->name, s, local, nlocal);
    }
    free(pts), free(local), free(used);
    return rc;
}

/* ---- stability: theory and measurement per (method, zeta) ---- */

/* Damping ratios examined when the config names none. */
static const double default_zetas[] = {0, 0.05, 0.1, 0.2, 0.5, 0.8, 1.0};

static bool alloc_stab(stability_rows *s, size_t rows)
{
    s->rows = rows;
    return (s->method = calloc(rows, sizeof *s->method)) && (s->zeta = calloc(rows, sizeof(double))) &&
           (s->limit_theory = calloc(rows, sizeof(double))) &&
           (s->limit_measured = calloc(rows, sizeof(double))) &&
           (s->lanes = calloc(rows, sizeof(int64_t))) && (s->steps = calloc(rows, sizeof(int64_t))) &&
           (s->limit_measured_low = calloc(rows, sizeof(double))) &&
           (s->limit_measured_high = calloc(rows, sizeof(double))) &&
           (s->measured_resolution = calloc(rows, sizeof(double))) &&
           (s->intervals_theory = calloc(rows, sizeof(int64_t))) &&
           (s->intervals_measured = calloc(rows, sizeof(int64_t))) &&
           (s->rho_excess_power = calloc(rows, sizeof(double))) &&
           (s->rho_excess_coef = calloc(rows, sizeof(double)));
}

static bool alloc_intervals(stability_interval_rows *s, size_t rows)
{
    s->rows = 0; /* filled by add_interval_row */
    return (s->method = calloc(rows, sizeof *s->method)) &&
           (s->source = calloc(rows, sizeof *s->source)) &&
           (s->zeta = calloc(rows, sizeof(double))) && (s->lower = calloc(rows, sizeof(double))) &&
           (s->upper = calloc(rows, sizeof(double))) &&
           (s->lower_resolution = calloc(rows, sizeof(double))) &&
           (s->upper_resolution = calloc(rows, sizeof(double)));
}

static void add_interval_row(stability_interval_rows *s, const char *method, double zeta,
                             const char *source, osc_stab_interval iv, double lower_res,
                             double upper_res)
{
    size_t r = s->rows++;
    s->method[r] = method, s->zeta[r] = zeta, s->source[r] = source;
    s->lower[r] = iv.lower, s->upper[r] = iv.upper;
    s->lower_resolution[r] = lower_res, s->upper_resolution[r] = upper_res;
}

/* /stability_intervals from each row's theory and measurement, in row order. */
static int collect_intervals(const stability_rows *st, const osc_stab_theory *th,
                             const osc_stab_measured *me, stability_interval_rows *out)
{
    if (!alloc_intervals(out, st->rows * 2 * OSC_STAB_MAX_INTERVALS + 1))
        return OSC_ENOMEM;
    for (size_t r = 0; r < st->rows; r++) {
        for (size_t i = 0; i < th[r].nintervals; i++)
            add_interval_row(out, st->method[r], st->zeta[r], "theory", th[r].intervals[i], NAN,
                             NAN);
        for (size_t i = 0; i < me[r].nintervals; i++)
            add_interval_row(out, st->method[r], st->zeta[r], "measured", me[r].intervals[i],
                             me[r].lower_resolution[i], me[r].upper_resolution[i]);
    }
    return OSC_OK;
}

/* Points of the dense zeta grid the theory is drawn on. The theory costs ~2-15 ms per (method,
 * zeta) (long double, 1100 points of omega0*dt): 201 points per method stay around a second. */
#define DENSE_ZETAS 201

static int dense_theory(const osc_config *cfg, const double *zetas, size_t nz,
                        stability_theory_rows *out)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < nz; i++)
        lo = fmin(lo, zetas[i]), hi = fmax(hi, zetas[i]);
    size_t per_method = hi > lo ? DENSE_ZETAS : 1;
    size_t rows = cfg->nmethods * per_method;
    out->rows = rows;
    if (!(out->method = calloc(rows, sizeof *out->method)) ||
        !(out->zeta = calloc(rows, sizeof(double))) || !(out->limit = calloc(rows, sizeof(double))) ||
        !(out->intervals = calloc(rows, sizeof(int64_t))))
        return OSC_ENOMEM;
    int failed = OSC_OK;
#pragma omp parallel for schedule(dynamic, 4)
    for (size_t r = 0; r < rows; r++) {
        size_t j = r % per_method;
        double zeta = per_method > 1 ? lo + (hi - lo) * (double)j / (double)(per_method - 1) : lo;
        osc_stab_theory th;
        int rc = osc_stability_theory(cfg->methods[r / per_method], zeta, &th);
        if (rc) {
#pragma omp atomic write
            failed = rc;
            continue;
        }
        out->method[r] = cfg->methods[r / per_method]->name, out->zeta[r] = zeta;
        out->limit[r] = th.limit, out->intervals[r] = (int64_t)th.nintervals;
    }
    return failed;
}

static int stability_analysis(const osc_config *cfg, bool show_progress, analysis_result *ana)
{
    stability_rows *out = &ana->stab;
    const double *zetas = cfg->has_stability_zeta ? cfg->stability_zeta.values : default_zetas;
    size_t nz = cfg->has_stability_zeta ? cfg->stability_zeta.count
                                        : sizeof default_zetas / sizeof *default_zetas;
    size_t rows = cfg->nmethods * nz;
    osc_stab_theory *th = calloc(rows ? rows : 1, sizeof *th);
    osc_stab_measured *me = calloc(rows ? rows : 1, sizeof *me);
    if (!th || !me || !alloc_stab(out, rows)) {
        free(th), free(me);
        return OSC_ENOMEM;
    }
    int failed = OSC_OK;
    progress prog;
    progress_init(&prog, (double)out->rows, "limits", show_progress);
    progress_label(&prog, "stability limits (theory and measured)");
    /* Each (method, zeta) is an independent, deterministic measurement of a few small batches:
     * spread them over the threads (the batches inside then run on one thread each). */
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t r = 0; r < out->rows; r++) {
        const osc_method *m = cfg->methods[r / nz];
        double zeta = zetas[r % nz];
        int rc = osc_stability_theory(m, zeta, &th[r]);
        if (!rc)
            rc = osc_stability_measured(m, cfg->precision, zeta, NULL, &me[r]);
        if (rc) {
#pragma omp atomic write
            failed = rc;
            continue;
        }
        out->method[r] = m->name, out->zeta[r] = zeta;
        out->limit_theory[r] = th[r].limit, out->limit_measured[r] = me[r].limit;
        out->lanes[r] = (int64_t)me[r].lanes, out->steps[r] = me[r].max_steps;
        out->limit_measured_low[r] = me[r].limit_low;
        out->limit_measured_high[r] = me[r].limit_high;
        out->measured_resolution[r] = me[r].resolution;
        out->intervals_theory[r] = (int64_t)th[r].nintervals;
        out->intervals_measured[r] = (int64_t)me[r].nintervals;
        out->rho_excess_power[r] = th[r].small_h_power;
        out->rho_excess_coef[r] = th[r].small_h_coef;
        progress_add(&prog, 1);
    }
    progress_finish(&prog);
    if (!failed)
        failed = collect_intervals(out, th, me, &ana->stab_intervals);
    if (!failed)
        failed = dense_theory(cfg, zetas, nz, &ana->stab_theory);
    free(th), free(me);
    return failed;
}

int analyses_run(const osc_config *cfg, const sweep_result *res, bool show_progress,
                 analysis_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    double t0 = omp_get_wtime();
    int rc = work_precision(cfg, res, &out->work);
    if (!rc && cfg->convergence)
        rc = convergence_analysis(cfg, res, &out->conv);
    if (!rc && cfg->stability)
        rc = stability_analysis(cfg, show_progress, out);
    out->seconds = omp_get_wtime() - t0;
    if (rc)
        error_line(err, errlen, "%s: analyses: %s", cfg->path, osc_strerror(rc));
    return rc ? -1 : 0;
}

void analyses_free(analysis_result *a)
{
    free_work(&a->work);
    convergence_rows *c = &a->conv;
    free(c->method), free(c->stiffness), free(c->drag), free(c->mass), free(c->measured_order);
    free(c->zeta), free(c->order_low), free(c->order_high), free(c->std_error);
    free(c->declared_order);
    free(c->fit_points), free(c->dt_points), free(c->pass);
    free(c->dt_fit_min), free(c->dt_fit_max), free(c->verdict), free(c->reason);
    free(c->coefficient_order), free(c->linear_order), free(c->order_note);
    free_local(&c->local);
    stability_rows *s = &a->stab;
    free(s->method), free(s->zeta), free(s->limit_theory), free(s->limit_measured);
    free(s->lanes), free(s->steps);
    free(s->limit_measured_low), free(s->limit_measured_high), free(s->measured_resolution);
    free(s->intervals_theory), free(s->intervals_measured);
    free(s->rho_excess_power), free(s->rho_excess_coef);
    stability_interval_rows *iv = &a->stab_intervals;
    free(iv->method), free(iv->source), free(iv->zeta), free(iv->lower), free(iv->upper);
    free(iv->lower_resolution), free(iv->upper_resolution);
    stability_theory_rows *dt = &a->stab_theory;
    free(dt->method), free(dt->zeta), free(dt->limit), free(dt->intervals);
    memset(a, 0, sizeof *a);
}
