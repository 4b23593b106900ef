/* Writing a run's tables and provenance to the HDF5 results file (CONTRACT.md "HDF5 results"). */
#define _POSIX_C_SOURCE 200809L
#include "results.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "version.h"

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
    int rc = h5_table_str(t, "method", p->method);
    rc |= h5_table_f64(t, "dt", p->dt);
    rc |= h5_table_f64(t, "stiffness", p->stiffness);
    rc |= h5_table_f64(t, "drag", p->drag);
    rc |= h5_table_f64(t, "omega_dt", p->omega_dt);
    rc |= h5_table_f64(t, "zeta", p->zeta);
    rc |= h5_table_i64(t, "steps", p->steps);
    rc |= h5_table_f64(t, "t_end", p->t_end);
    rc |= h5_table_f64(t, "final_energy", p->final_energy);
    rc |= h5_table_f64(t, "final_drift", p->final_drift);
    rc |= h5_table_f64(t, "max_abs_drift", p->max_abs_drift);
    rc |= h5_table_f64(t, "final_error", p->final_error);
    rc |= h5_table_f64(t, "max_error", p->max_error);
    rc |= h5_table_f64(t, "final_rel_error", p->final_rel_error);
    rc |= h5_table_f64(t, "max_rel_error", p->max_rel_error);
    rc |= h5_table_bool(t, "stable", p->stable);
    rc |= h5_table_i64(t, "unstable_step", p->unstable_step);
    return complete_or_null(t, rc);
}

static h5_table *convergence_table(const convergence_rows *c)
{
    h5_table *t = h5_table_new("convergence", c->rows);
    if (!t)
        return NULL;
    int rc = h5_table_str(t, "method", c->method);
    rc |= h5_table_f64(t, "stiffness", c->stiffness);
    rc |= h5_table_f64(t, "drag", c->drag);
    rc |= h5_table_i64(t, "declared_order", c->declared_order);
    rc |= h5_table_f64(t, "measured_order", c->measured_order);
    rc |= h5_table_f64(t, "order_low", c->order_low);
    rc |= h5_table_f64(t, "order_high", c->order_high);
    rc |= h5_table_f64(t, "std_error", c->std_error);
    rc |= h5_table_i64(t, "fit_points", c->fit_points);
    rc |= h5_table_i64(t, "dt_points", c->dt_points);
    rc |= h5_table_bool(t, "pass", c->pass);
    rc |= h5_table_attr_str(t, "interval", "order_low..order_high: 95% t-interval of the "
                                           "least-squares slope over the fitted points");
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
    rc |= h5_table_attr_str(t, "units", "limits as omega0*dt; inf: stable for every dt tried, "
                                        "0: unstable for every dt > 0");
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

static int write_and_free(h5_out *out, h5_table *t)
{
    if (!t)
        return -1;
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

static int write_provenance(h5_out *out, const osc_config *cfg, const sweep_result *res)
{
    char created[64], cpu[256];
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &utc);
    cpu_model(cpu, sizeof cpu);
    int rc = h5_out_attr_str(out, "oscbench_version", OSC_VERSION);
    rc |= h5_out_attr_str(out, "git_revision", OSC_GIT_REVISION);
    rc |= h5_out_attr_str(out, "config", cfg->text);
    rc |= h5_out_attr_str(out, "config_path", cfg->path);
    rc |= h5_out_attr_str(out, "name", cfg->name);
    rc |= h5_out_attr_str(out, "created", created);
    rc |= h5_out_attr_i64(out, "threads", omp_get_max_threads());
    rc |= h5_out_attr_str(out, "precision", osc_precision_name(cfg->precision));
    rc |= h5_out_attr_i64(out, "dim", cfg->dim);
    rc |= h5_out_attr_str(out, "compiler", "gcc-compatible " __VERSION__);
    rc |= h5_out_attr_str(out, "build_flags", OSC_BUILD_FLAGS);
    rc |= h5_out_attr_str(out, "cpu", cpu);
    rc |= h5_out_attr_str(out, "t_end_rounding",
                          res->t_end_rounded
                              ? "t_end is not a whole number of steps for some dt: those runs "
                                "last the nearest whole number of steps (t_end column = steps*dt)"
                              : "none: t_end is a whole number of steps for every dt");
    rc |= h5_out_attr_str(out, "audit_schedule",
                          "metrics are sampled at audits: every dt at the same times t_end*j/A "
                          "(nearest step) and at the last step; max_* are maxima over every "
                          "step or over the audits, as the maxima attribute says");
    rc |= h5_out_attr_str(out, "maxima",
                          cfg->maxima_sampled ? "audits" : "every_step");
    return rc;
}

int results_write(h5_out *out, const osc_config *cfg, const sweep_result *res,
                  const analysis_result *ana, char *err, size_t errlen)
{
    int rc = write_provenance(out, cfg, res);
    rc |= write_and_free(out, points_table(&res->points));
    if (cfg->convergence)
        rc |= write_and_free(out, convergence_table(&ana->conv));
    if (cfg->stability)
        rc |= write_and_free(out, stability_table(&ana->stab));
    rc |= write_and_free(out, work_table(&ana->work));
    for (size_t i = 0; i < res->ntraces && !rc; i++)
        rc |= write_and_free(out, trace_table(&res->traces[i]));
    if (rc) {
        const char *why = h5_out_error(out);
        snprintf(err, errlen, "writing results: %s", *why ? why : "out of memory");
        return EXIT_RUNTIME;
    }
    return 0;
}
