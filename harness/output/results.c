/* Writing a run's tables and provenance to the HDF5 results file (README, "Results file"). */
#define _POSIX_C_SOURCE 200809L
#include "results.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag.h" /* test_pause */
#include "version.h"

/* "95% t-interval", from the fit's confidence (analysis.h), for the texts that name it */
#define STRINGIZE_(x) #x
#define STRINGIZE(x) STRINGIZE_(x)
#define FIT_INTERVAL STRINGIZE(OSC_FIT_CONFIDENCE_PERCENT) "% t-interval"

/* A table whose columns all went in, or NULL (and the table freed) if any failed. */
static h5_table *complete_or_null(h5_table *t, int rc)
{
    if (!rc)
        return t;
    h5_table_free(t);
    return NULL;
}

static h5_table *points_table(const sweep_points *p)
{
    h5_table *t = h5_table_new("points", p->rows);
    if (!t)
        return NULL;
    /* views, not copies: the sweep's arrays outlive the table, and a large sweep's /points
     * would otherwise be held twice while it is written */
    int rc = h5_table_str_view(t, "method", p->method);
    for (size_t i = 0; i < sweep_points_ncolumns; i++) {
        const sweep_column *c = &sweep_points_columns[i];
        const void *v = sweep_column_data(p, c);
        rc |= c->type == SWEEP_F64 ? h5_table_f64_view(t, c->name, v)
              : c->type == SWEEP_I64 ? h5_table_i64_view(t, c->name, v)
                                     : h5_table_bool_view(t, c->name, v);
    }
    return complete_or_null(t, rc);
}

/* The names of the verdicts and their reasons, one per row (NULL if out of memory). */
static const char **verdict_names(const convergence_rows *c, bool reasons)
{
    const char **names = calloc(c->rows ? c->rows : 1, sizeof *names);
    for (size_t i = 0; names && i < c->rows; i++)
        names[i] = reasons ? osc_verdict_reason_text(c->reason[i]) : osc_verdict_name(c->verdict[i]);
    return names;
}

/* lib/convergence.c's verdict rule, in its order, with the numbers the code uses (analysis.h):
 * a declared order below W is inconclusive, not a fail (only one above W is). */
static const char *verdict_rule(char *buf, size_t len)
{
    snprintf(buf, len,
             "the first that applies, W = [low-%g, high+%g]: inconclusive: no converging range "
             "of %d usable points, fitted points ending more than %g%% apart in time (steps: "
             "rather than t_end), fewer than %d fitted points, or half-width above %g; fail: "
             "declared above W (converges more slowly than declared); inconclusive: declared "
             "below W (converges faster), W holding declared+-1 as well, measured more than "
             "%g from declared, or %d or more usable points just below the fitted dt lying on a "
             "line of slope in [%g, declared-%g) (a lower order as dt shrinks); pass: "
             "otherwise. pass = (verdict == pass)",
             OSC_FIT_PASS_TOL, OSC_FIT_PASS_TOL, OSC_FIT_RANGE_POINTS, 100 * OSC_FIT_HORIZON_TOL,
             OSC_FIT_VERDICT_POINTS, OSC_FIT_MAX_HALF_WIDTH, OSC_FIT_PASS_TOL,
             OSC_FIT_BELOW_POINTS, OSC_FIT_BELOW_MIN, OSC_FIT_BELOW_TOL);
    return buf;
}

static h5_table *convergence_table(const convergence_rows *c)
{
    const char **verdict = verdict_names(c, false), **reason = verdict_names(c, true);
    h5_table *t = verdict && reason ? h5_table_new("convergence", c->rows) : NULL;
    if (!t) {
        free(verdict), free(reason);
        return NULL;
    }
    int rc = h5_table_str(t, "method", c->method);
    rc |= h5_table_f64(t, "stiffness", c->stiffness);
    rc |= h5_table_f64(t, "drag", c->drag);
    rc |= h5_table_f64(t, "mass", c->mass);
    rc |= h5_table_f64(t, "zeta", c->zeta);
    rc |= h5_table_i64(t, "declared_order", c->declared_order);
    rc |= h5_table_f64(t, "measured_order", c->measured_order);
    rc |= h5_table_f64(t, "order_low", c->order_low);
    rc |= h5_table_f64(t, "order_high", c->order_high);
    rc |= h5_table_f64(t, "std_error", c->std_error);
    rc |= h5_table_i64(t, "fit_points", c->fit_points);
    rc |= h5_table_i64(t, "dt_points", c->dt_points);
    rc |= h5_table_bool(t, "pass", c->pass);
    rc |= h5_table_str(t, "verdict", verdict);
    rc |= h5_table_str(t, "verdict_reason", reason);
    rc |= h5_table_f64(t, "dt_fit_min", c->dt_fit_min);
    rc |= h5_table_f64(t, "dt_fit_max", c->dt_fit_max);
    rc |= h5_table_i64(t, "coefficient_order", c->coefficient_order);
    rc |= h5_table_i64(t, "linear_order", c->linear_order);
    rc |= h5_table_str(t, "order_note", c->order_note);
    rc |= h5_table_attr_str(t, "interval", "order_low..order_high: " FIT_INTERVAL " of the "
                                           "least-squares slope over the fitted points");
    char rule[1024];
    rc |= h5_table_attr_str(t, "verdict", verdict_rule(rule, sizeof rule));
    free(verdict), free(reason);
    return complete_or_null(t, rc);
}

static h5_table *convergence_local_table(const convergence_local_rows *l)
{
    h5_table *t = h5_table_new("convergence_local", l->rows);
    if (!t)
        return NULL;
    int rc = h5_table_str(t, "method", l->method);
    rc |= h5_table_f64(t, "stiffness", l->stiffness);
    rc |= h5_table_f64(t, "drag", l->drag);
    rc |= h5_table_f64(t, "mass", l->mass);
    rc |= h5_table_f64(t, "dt_low", l->dt_low);
    rc |= h5_table_f64(t, "dt_high", l->dt_high);
    rc |= h5_table_f64(t, "local_order", l->local_order);
    rc |= h5_table_bool(t, "usable", l->usable);
    rc |= h5_table_bool(t, "fitted", l->fitted);
    rc |= h5_table_attr_str(t, "local_order",
                            "log(e(dt_high) / e(dt_low)) / log(dt_high / dt_low) between "
                            "successive stable, finite dt of a group (e: max_error)");
    return complete_or_null(t, rc);
}

static h5_table *stability_table(const stability_rows *s)
{
    h5_table *t = h5_table_new("stability", s->rows);
    if (!t)
        return NULL;
    int rc = h5_table_str(t, "method", s->method);
    rc |= h5_table_f64(t, "zeta", s->zeta);
    rc |= h5_table_f64(t, "limit_theory", s->limit_theory);
    rc |= h5_table_f64(t, "limit_measured", s->limit_measured);
    rc |= h5_table_i64(t, "lanes", s->lanes);
    rc |= h5_table_i64(t, "steps", s->steps);
    rc |= h5_table_f64(t, "limit_measured_low", s->limit_measured_low);
    rc |= h5_table_f64(t, "limit_measured_high", s->limit_measured_high);
    rc |= h5_table_f64(t, "measured_resolution", s->measured_resolution);
    rc |= h5_table_i64(t, "intervals_theory", s->intervals_theory);
    rc |= h5_table_i64(t, "intervals_measured", s->intervals_measured);
    rc |= h5_table_f64(t, "rho_excess_power", s->rho_excess_power);
    rc |= h5_table_f64(t, "rho_excess_coef", s->rho_excess_coef);
    rc |= h5_table_attr_str(t, "units", "limits as omega0*dt: the first edge, the largest h "
                                        "with every omega0*dt in (0, h] stable; inf: stable for "
                                        "every dt tried, 0: unstable on every (0, h] (the "
                                        "method may be stable further up: /stability_intervals)");
    rc |= h5_table_attr_str(t, "rho_excess", "theory: rho - 1 ~ rho_excess_coef * (omega0*dt)"
                                             "^rho_excess_power as omega0*dt -> 0, fitted where "
                                             "it is resolved in long double; coef > 0 means "
                                             "unstable for every small dt; NaN: rho = 1 to "
                                             "round-off (neutral, stable)");
    rc |= h5_table_attr_str(t, "uncertainty",
                            "limit_measured_low..high: the limits the measurement allows (its "
                            "bracket and finite-step bias); measured_resolution: half of it "
                            "relative to limit_measured (NaN when not bounded). The "
                            "measurement resolves growth rates above 4e-5 per step near 0 (its "
                            "first scan: 50000 steps); for 0 (never), limit_measured_high is the "
                            "smallest omega0*dt it saw growing");
    return complete_or_null(t, rc);
}

static h5_table *stability_intervals_table(const stability_interval_rows *s)
{
    h5_table *t = h5_table_new("stability_intervals", s->rows);
    if (!t)
        return NULL;
    int rc = h5_table_str(t, "method", s->method);
    rc |= h5_table_f64(t, "zeta", s->zeta);
    rc |= h5_table_str(t, "source", s->source);
    rc |= h5_table_f64(t, "lower", s->lower);
    rc |= h5_table_f64(t, "upper", s->upper);
    rc |= h5_table_f64(t, "lower_resolution", s->lower_resolution);
    rc |= h5_table_f64(t, "upper_resolution", s->upper_resolution);
    rc |= h5_table_attr_str(t, "units", "omega0*dt; lower 0: (0, upper]; upper inf: stable up to "
                                        "the end of the scan (1e3)");
    return complete_or_null(t, rc);
}

static h5_table *stability_theory_table(const stability_theory_rows *s)
{
    h5_table *t = h5_table_new("stability_theory", s->rows);
    if (!t)
        return NULL;
    int rc = h5_table_str(t, "method", s->method);
    rc |= h5_table_f64(t, "zeta", s->zeta);
    rc |= h5_table_f64(t, "limit", s->limit);
    rc |= h5_table_i64(t, "intervals", s->intervals);
    rc |= h5_table_attr_str(t, "about", "the theory's limit_theory on a dense zeta grid over the "
                                        "run's stability zetas, for plotting");
    return complete_or_null(t, rc);
}

static h5_table *work_table(const work_rows *w)
{
    h5_table *t = h5_table_new("work_precision", w->rows);
    if (!t)
        return NULL;
    int rc = h5_table_str(t, "method", w->method);
    rc |= h5_table_f64(t, "dt", w->dt);
    rc |= h5_table_i64(t, "steps", w->steps);
    rc |= h5_table_f64(t, "ns_per_osc_step", w->ns_per_osc_step);
    rc |= h5_table_f64(t, "ns_per_lane", w->ns_per_lane);
    rc |= h5_table_i64(t, "force_evals", w->force_evals);
    rc |= h5_table_f64(t, "median_error", w->median_error);
    rc |= h5_table_f64(t, "worst_error", w->worst_error);
    rc |= h5_table_i64(t, "stable_points", w->stable_points);
    rc |= h5_table_i64(t, "common_points", w->common_points);
    rc |= h5_table_f64(t, "median_error_common", w->median_error_common);
    rc |= h5_table_f64(t, "worst_error_common", w->worst_error_common);
    rc |= h5_table_attr_str(t, "common_set", "*_common: over the lanes of the row's dt stable for "
                                             "every method of the run (common_points of them, "
                                             "the same springs for every method; NaN when none)");
    return complete_or_null(t, rc);
}

static h5_table *trace_table(const sweep_trace *tr)
{
    char path[256];
    snprintf(path, sizeof path, "traces/%s/%zu", tr->method, tr->row);
    h5_table *t = h5_table_new(path, tr->samples);
    if (!t)
        return NULL;
    int rc = h5_table_f64(t, "t", tr->t);
    if (tr->dim == 1) {
        rc |= h5_table_f64(t, "x", tr->x);
        rc |= h5_table_f64(t, "v", tr->v);
        rc |= h5_table_f64(t, "x_exact", tr->x_exact);
    } else {
        rc |= h5_table_f64_2d(t, "x", tr->x, (size_t)tr->dim);
        rc |= h5_table_f64_2d(t, "v", tr->v, (size_t)tr->dim);
        rc |= h5_table_f64_2d(t, "x_exact", tr->x_exact, (size_t)tr->dim);
    }
    rc |= h5_table_f64(t, "energy", tr->energy);
    rc |= h5_table_f64(t, "drift", tr->drift);
    rc |= h5_table_f64(t, "error", tr->error);
    return complete_or_null(t, rc);
}

/* Every column's CF units and long_name, by name (the same name means the same thing in every
 * table). Units are SI, as the numbers are when the config's are (k in N/m, c in kg/s, m in kg,
 * x in m); "1": dimensionless (ratios, counts, flags), "": text. */
#define SI_ENERGY "kg m2 s-2"
static const h5_column_doc column_docs[] = {
    {"method", "", "integrator (registry name)", NULL},
    {"dt", "s", "time step", NULL},
    {"stiffness", "kg s-2", "spring stiffness k", NULL},
    {"drag", "kg s-1", "linear drag coefficient c", NULL},
    {"mass", "kg", "mass m (0: a pinned lane)", NULL},
    {"omega_dt", "1", "omega0*dt, omega0 = sqrt(k/m): the dimensionless step", NULL},
    {"zeta", "1", "damping ratio c / (2 sqrt(k m))", NULL},
    {"steps", "1", "steps per lane", NULL},
    {"t_end", "s", "simulated time, steps*dt", NULL},
    {"final_energy", SI_ENERGY, "energy at the last step (+inf if unstable)", NULL},
    {"final_drift", "1", "(E_num - E_exact) / |E(0)| at the last step", NULL},
    {"max_abs_drift", "1", "largest |drift| (+inf if unstable)", NULL},
    {"final_error", "m", "|x - x_exact| at the last step", NULL},
    {"max_error", "m", "largest |x - x_exact| (+inf if unstable)", NULL},
    {"final_rel_error", "1", "final_error / |x0 - rest point|", NULL},
    {"max_rel_error", "1", "max_error / |x0 - rest point|", NULL},
    {"stable", "1", "true if no audit found the lane unstable", NULL},
    {"unstable_step", "1", "step of the first unstable audit (-1: never)", NULL},
    {"last_stable_step", "1", "step of the last stable audit", NULL},
    {"last_stable_energy", SI_ENERGY, "energy at the last stable audit", NULL},
    {"last_stable_drift", "1", "drift at the last stable audit", NULL},
    {"last_stable_error", "m", "error at the last stable audit", NULL},
    {"last_stable_rel_error", "1", "relative error at the last stable audit", NULL},
    {"max_abs_drift_while_stable", "1", "largest |drift| up to the last stable audit", NULL},
    {"max_error_while_stable", "m", "largest error up to the last stable audit", NULL},
    {"max_rel_error_while_stable", "1", "largest relative error up to the last stable audit",
     NULL},
    {"declared_order", "1", "order of convergence the method declares at this drag", NULL},
    {"measured_order", "1", "least-squares slope of log(max_error) against log(dt)", NULL},
    {"order_low", "1", "lower end of the measured order's " FIT_INTERVAL, NULL},
    {"order_high", "1", "upper end of the measured order's " FIT_INTERVAL, NULL},
    {"std_error", "1", "standard error of the measured order", NULL},
    {"fit_points", "1", "dt values fitted", NULL},
    {"dt_points", "1", "dt values of the group", NULL},
    {"pass", "1", "true only for verdict pass", NULL},
    {"verdict", "", "pass, fail or inconclusive", NULL},
    {"verdict_reason", "", "why the verdict", NULL},
    {"dt_fit_min", "s", "smallest dt fitted (NaN: no fit)", NULL},
    {"dt_fit_max", "s", "largest dt fitted (NaN: no fit)", NULL},
    {"coefficient_order", "1",
     "order of the conditions the coefficients satisfy on the row's problem (with drag: "
     "x'' = f(x, v); without: x'' = f(x)): rooted trees (rk), Nystrom trees (rkn), checked up to "
     "linear_order, which bounds them; "
     "a composition's to 8 for a base of its base's order and symmetry (-1: a registry method)",
     NULL},
    {"linear_order", "1",
     "order to which the one-step map of the row's linear problem matches the exact one, all a "
     "linear problem checks (a composition's measured from its base's reference; -1: a "
     "registry method)", NULL},
    {"order_note", "", "set when linear_order > coefficient_order: the oscillator measures the "
                       "linear order", NULL},
    {"dt_low", "s", "the smaller dt of the pair", NULL},
    {"dt_high", "s", "the larger dt of the pair", NULL},
    {"local_order", "1", "log(e_high / e_low) / log(dt_high / dt_low)", NULL},
    {"usable", "1", "both points between the round-off floor and the ceiling", NULL},
    {"fitted", "1", "both points in the fitted range", NULL},
    {"limit_theory", "1", "stability limit of omega0*dt from the spectral radius (first edge)",
     NULL},
    {"limit_measured", "1", "stability limit of omega0*dt measured by stepping (first edge)",
     NULL},
    {"lanes", "1", "lanes stepped by the measurement", NULL},
    {"limit_measured_low", "1", "lowest limit of omega0*dt the measurement allows", NULL},
    {"limit_measured_high", "1", "highest limit of omega0*dt the measurement allows", NULL},
    {"measured_resolution", "1", "relative half-width of the measured limit (NaN: unbounded)",
     NULL},
    {"intervals_theory", "1", "stable intervals of omega0*dt, theory", NULL},
    {"intervals_measured", "1", "stable intervals of omega0*dt, measured", NULL},
    {"rho_excess_power", "1", "p in rho - 1 ~ coef (omega0*dt)^p as omega0*dt -> 0", NULL},
    {"rho_excess_coef", "1", "coef in rho - 1 ~ coef (omega0*dt)^p as omega0*dt -> 0", NULL},
    {"source", "", "theory or measured", NULL},
    {"lower", "1", "lower end of a stable interval of omega0*dt", NULL},
    {"upper", "1", "upper end of a stable interval of omega0*dt (inf: to the scan's end)", NULL},
    {"lower_resolution", "1", "relative uncertainty of the measured lower end", NULL},
    {"upper_resolution", "1", "relative uncertainty of the measured upper end", NULL},
    {"limit", "1", "stability limit of omega0*dt from theory (first edge)", NULL},
    {"intervals", "1", "stable intervals of omega0*dt, theory", NULL},
    {"ns_per_osc_step", "ns", "wall time per oscillator-step of bare stepping, all threads", NULL},
    {"ns_per_lane", "ns", "bare stepping cost of one lane over the run: ns_per_osc_step x steps x dim",
     NULL},
    {"force_evals", "1", "force evaluations per lane over the run", NULL},
    {"median_error", "m", "median max_error over the stable lanes", NULL},
    {"worst_error", "m", "largest max_error over the stable lanes", NULL},
    {"stable_points", "1", "stable lanes", NULL},
    {"common_points", "1", "lanes of this dt stable for every method (the common set)", NULL},
    {"median_error_common", "m", "median max_error over the common set (NaN: empty)", NULL},
    {"worst_error_common", "m", "largest max_error over the common set (NaN: empty)", NULL},
    {"t", "s", "time", NULL},
    {"x", "m", "position", "t"},
    {"v", "m s-1", "velocity", "t"},
    {"x_exact", "m", "position of the closed-form solution", "t"},
    {"energy", SI_ENERGY, "energy", "t"},
    {"drift", "1", "(E_num - E_exact) / |E(0)|", "t"},
    {"error", "m", "|x - x_exact|", "t"},
};

static int write_and_free(h5_out *out, h5_table *t)
{
    if (!t)
        return -1;
    /* a column without a doc is a bug here, caught by the tests: written all the same */
    h5_table_describe(t, column_docs, sizeof column_docs / sizeof *column_docs);
    int rc = h5_out_write_table(out, t);
    h5_table_free(t);
    return rc;
}

static void cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!strncmp(line, "model name", 10) && colon) {
            colon += 1 + strspn(colon + 1, " \t");
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(buf, len, "%s", colon);
            break;
        }
    }
    fclose(f);
}

/* The audit schedule in words, as sweep_audit_interval sets it for this config. */
static void audit_schedule(const osc_config *cfg, char *buf, size_t len)
{
    const char *maxima = "; max_* are maxima over every step or over the audits, as the maxima "
                         "attribute says";
    const long count = sweep_audit_count(cfg);
    if (cfg->audit_every > 0)
        snprintf(buf, len, "metrics are sampled at audits: every %ld steps for every dt "
                           "(audit_every) and at the last step%s",
                 cfg->audit_every, maxima);
    else if (cfg->steps > 0)
        snprintf(buf, len, "metrics are sampled at audits: every %ld steps for every dt "
                           "(ceil(steps/A), A = %ld) and at the last step%s",
                 sweep_audit_interval(cfg, cfg->dt.values[0]), count, maxima);
    else
        snprintf(buf, len, "metrics are sampled at audits: every dt at the same times t_end*j/A, "
                           "A = %ld (every lround(t_end/A/dt) steps, so to that rounding) and at "
                           "the last step%s",
                 count, maxima);
}

static int write_provenance(h5_out *out, const osc_config *cfg, const sweep_result *res,
                            const results_ranks *ranks)
{
    char created[64], cpu[256];
    time_t now = time(NULL);
    struct tm utc;
    if (now == (time_t)-1 || !gmtime_r(&now, &utc) ||
        !strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &utc))
        snprintf(created, sizeof created, "unknown"); /* no clock: say so, never garbage */
    cpu_model(cpu, sizeof cpu);
    char isa[192]; /* the kernels' path, and why when it is not the CPU's best */
    osc_isa_describe(isa, sizeof isa);
    int rc = h5_out_attr_str(out, "oscbench_version", OSC_VERSION);
    rc |= h5_out_attr_str(out, "git_revision", OSC_GIT_REVISION);
    rc |= h5_out_attr_str(out, "config", cfg->text);
    if (cfg->included_text) /* the method files it includes, as read */
        rc |= h5_out_attr_str(out, "config_includes", cfg->included_text);
    rc |= h5_out_attr_str(out, "config_path", cfg->path);
    rc |= h5_out_attr_str(out, "name", cfg->name);
    rc |= h5_out_attr_str(out, "created", created);
    int64_t threads = 0; /* of the whole run: every rank's */
    for (int r = 0; r < ranks->ranks; r++)
        threads += ranks->threads[r];
    rc |= h5_out_attr_i64(out, "threads", threads);
    rc |= h5_out_attr_i64(out, "mpi_ranks", ranks->ranks);
    rc |= h5_out_attr_i64_array(out, "threads_per_rank", ranks->threads, (size_t)ranks->ranks);
    rc |= h5_out_attr_str(out, "precision", osc_precision_name(cfg->precision));
    rc |= h5_out_attr_i64(out, "dim", cfg->dim);
    rc |= h5_out_attr_str(out, "compiler", "gcc-compatible " __VERSION__);
    rc |= h5_out_attr_str(out, "build_flags", OSC_BUILD_FLAGS);
    rc |= h5_out_attr_str(out, "cpu", cpu);
    rc |= h5_out_attr_str(out, "kernel_isa", isa);
    rc |= h5_out_attr_str(out, "t_end_rounding",
                          res->t_end_rounded
                              ? "t_end is not a whole number of steps for some dt: those runs "
                                "last the nearest whole number of steps (t_end column = steps*dt)"
                              : "none: t_end is a whole number of steps for every dt");
    char schedule[512];
    audit_schedule(cfg, schedule, sizeof schedule);
    rc |= h5_out_attr_str(out, "audit_schedule", schedule);
    rc |= h5_out_attr_f64(out, "unstable_factor", cfg->unstable_factor);
    rc |= h5_out_attr_f64(out, "unstable_drift", cfg->unstable_drift);
    rc |= h5_out_attr_str(out, "instability",
                          "a lane is unstable from the first audit where its state is non-finite, "
                          "its energy-norm distance from the exact state exceeds unstable_factor "
                          "times the motion's own scale, or |drift| exceeds unstable_drift "
                          "(inf: no drift limit)");
    rc |= h5_out_attr_str(out, "maxima",
                          cfg->maxima_sampled ? "audits" : "every_step");
    return rc;
}

/* /points when the ranks wrote its numeric columns (and the row scale's values): the method
 * column, the CF attributes and the scales (h5_out_complete_table). */
static int complete_points(h5_out *out, const sweep_points *p)
{
    h5_table *t = points_table(p);
    if (!t)
        return -1;
    h5_table_describe(t, column_docs, sizeof column_docs / sizeof *column_docs);
    int rc = h5_out_complete_table(out, t);
    h5_table_free(t);
    return rc;
}

hid_t results_open(const char *path, const char **why)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t f = H5Fis_hdf5(path) > 0 ? H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT) : H5I_INVALID_HID;
    if (f < 0) {
        *why = "cannot open as an HDF5 file";
        return H5I_INVALID_HID;
    }
    if (H5Lexists(f, "/points", H5P_DEFAULT) <= 0) {
        H5Fclose(f);
        *why = "not an oscbench results file (no /points table)";
        return H5I_INVALID_HID;
    }
    return f;
}

int64_t results_team_threads(void)
{
    int n = 1;
#pragma omp parallel
#pragma omp single
    n = omp_get_num_threads();
    return n;
}

int results_write(h5_out *out, const osc_config *cfg, const sweep_result *res,
                  const analysis_result *ana, char *err, size_t errlen)
{
    const int64_t threads = results_team_threads();
    const results_ranks one = {1, &threads};
    return results_write_ranks(out, cfg, res, ana, &one, false, err, errlen);
}

int results_write_ranks(h5_out *out, const osc_config *cfg, const sweep_result *res,
                        const analysis_result *ana, const results_ranks *ranks,
                        bool points_in_file, char *err, size_t errlen)
{
    int rc = write_provenance(out, cfg, res, ranks);
    rc |= points_in_file ? complete_points(out, &res->points)
                         : write_and_free(out, points_table(&res->points));
    test_pause("write");
    if (cfg->convergence)
        rc |= write_and_free(out, convergence_table(&ana->conv));
    if (cfg->convergence)
        rc |= write_and_free(out, convergence_local_table(&ana->conv.local));
    if (cfg->stability) {
        rc |= write_and_free(out, stability_table(&ana->stab));
        rc |= write_and_free(out, stability_intervals_table(&ana->stab_intervals));
        rc |= write_and_free(out, stability_theory_table(&ana->stab_theory));
    }
    rc |= write_and_free(out, work_table(&ana->work));
    for (size_t i = 0; i < res->ntraces && !rc; i++)
        rc |= write_and_free(out, trace_table(&res->traces[i]));
    if (rc) {
        const char *why = h5_out_error(out);
        snprintf(err, errlen, "writing results: %s", *why ? why : "out of memory");
        return -1;
    }
    return 0;
}
