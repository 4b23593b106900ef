/* The summary `oscbench run` prints: per method, then the analyses, then where the file went. */
#include "report.h"

#include <stdlib.h>

#include "analysis.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <omp.h>
#include <sys/resource.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct range {
    double lo, hi;
    size_t n;
} range;

static void range_add(range *r, double v)
{
    if (!isfinite(v))
        return;
    if (r->n++ == 0 || v < r->lo)
        r->lo = v;
    if (r->n == 1 || v > r->hi)
        r->hi = v;
}

static void print_range(FILE *out, const range *r)
{
    if (r->n)
        fprintf(out, "  %8.1e .. %8.1e", r->lo, r->hi);
    else
        fprintf(out, "  %20s", "-");
}

static void method_line(FILE *out, const char *name, const sweep_result *res)
{
    const sweep_points *p = &res->points;
    size_t points = 0, stable = 0;
    range error = {0}, drift = {0};
    for (size_t r = 0; r < p->rows; r++) {
        if (strcmp(p->method[r], name))
            continue;
        points++;
        if (!p->stable[r])
            continue;
        stable++;
        range_add(&error, p->max_error[r]);
        range_add(&drift, p->max_abs_drift[r]);
    }
    double seconds = 0, steps = 0;
    for (size_t b = 0; b < res->nbatches; b++)
        if (!strcmp(res->batches[b].method, name))
            seconds += res->batches[b].seconds, steps += res->batches[b].osc_steps;
    fprintf(out, "%-20s %6zu %6zu", name, points, stable);
    print_range(out, &error);
    print_range(out, &drift);
    fprintf(out, "  %10.3e\n", seconds > 0 ? steps / seconds : 0.0);
}

static void print_methods(FILE *out, const osc_config *cfg, const sweep_result *res)
{
    fprintf(out, "%-20s %6s %6s  %20s  %20s  %10s\n", "method", "points", "stable",
            "max error (stable)", "max |drift| (stable)", "osc-step/s");
    for (size_t m = 0; m < cfg->nmethods; m++)
        method_line(out, cfg->methods[m]->name, res);
}

/* The library's verdict, with its reason unless it is a pass. */
static void print_verdict(FILE *out, osc_verdict v, osc_verdict_reason why)
{
    if (v == OSC_VERDICT_PASS)
        fprintf(out, "%s\n", osc_verdict_name(v));
    else
        fprintf(out, "%s: %s\n", osc_verdict_name(v), osc_verdict_reason_text(why));
}

static void print_convergence_rows(FILE *out, const convergence_rows *c)
{
    fprintf(out, "%-20s %10s %8s %8s %8s %17s %6s %19s  %s\n", "method", "stiffness", "drag",
            "declared", "measured", "95% interval", "points", "dt fitted", "verdict");
    for (size_t i = 0; i < c->rows; i++) {
        fprintf(out, "%-20s %10.4g %8.4g %8lld %8.3f [%6.3f, %6.3f] %6lld", c->method[i],
                c->stiffness[i], c->drag[i], (long long)c->declared_order[i],
                c->measured_order[i], c->order_low[i], c->order_high[i],
                (long long)c->fit_points[i]);
        if (c->fit_points[i] > 0)
            fprintf(out, " %8.2e..%8.2e  ", c->dt_fit_min[i], c->dt_fit_max[i]);
        else
            fprintf(out, " %19s  ", "-");
        print_verdict(out, c->verdict[i], c->reason[i]);
    }
}

/* A group's verdict from its fits' (the library's) verdicts: the one that more than half of the
 * fits share, else inconclusive. So a group passes only when most of its fits pass. */
static osc_verdict group_verdict(size_t fits, size_t pass, size_t fail)
{
    if (2 * pass > fits)
        return OSC_VERDICT_PASS;
    if (2 * fail > fits)
        return OSC_VERDICT_FAIL;
    return OSC_VERDICT_INCONCLUSIVE;
}

/* Many stiffness values: one line per (method, drag) with the counts of the fits' verdicts and
 * the spread of the measured orders. */
static void print_convergence_groups(FILE *out, const convergence_rows *c)
{
    fprintf(out, "%-20s %9s %8s %5s %5s %5s %7s  %-28s %s\n", "method", "drag", "declared",
            "fits", "pass", "fail", "inconcl", "measured: median [min, max]", "verdict");
    double *orders = malloc(c->rows * sizeof *orders);
    if (!orders)
        return;
    for (size_t i = 0; i < c->rows; i++) {
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = strcmp(c->method[j], c->method[i]) || c->drag[j] != c->drag[i];
        if (!first)
            continue;
        size_t fits = 0, pass = 0, fail = 0, n = 0;
        long long declared = c->declared_order[i];
        for (size_t j = i; j < c->rows; j++) {
            if (strcmp(c->method[j], c->method[i]) || c->drag[j] != c->drag[i])
                continue;
            fits++;
            pass += c->verdict[j] == OSC_VERDICT_PASS;
            fail += c->verdict[j] == OSC_VERDICT_FAIL;
            if (!isnan(c->measured_order[j]))
                orders[n++] = c->measured_order[j];
        }
        fprintf(out, "%-20s %9.7g %8lld %5zu %5zu %5zu %7zu", c->method[i], c->drag[i], declared,
                fits, pass, fail, fits - pass - fail);
        char measured[64] = "-";
        if (n) {
            qsort(orders, n, sizeof *orders, cmp_double);
            double median = (orders[(n - 1) / 2] + orders[n / 2]) / 2;
            snprintf(measured, sizeof measured, "%.3f [%.3f, %.3f]", median, orders[0],
                     orders[n - 1]);
        }
        fprintf(out, "  %-28s %s\n", measured,
                osc_verdict_name(group_verdict(fits, pass, fail)));
    }
    free(orders);
    fprintf(out, "(one fit per stiffness, each with the library's verdict; a group's verdict is "
                 "the one more than half of its fits share, else inconclusive; every fit is in "
                 "/convergence)\n");
}

static void print_convergence(FILE *out, const convergence_rows *c)
{
    if (!c->rows)
        return;
    fprintf(out, "\nconvergence: error ~ dt^p, least squares over the asymptotic range\n");
    if (c->rows <= 40)
        print_convergence_rows(out, c);
    else
        print_convergence_groups(out, c);
}

static void print_limit(FILE *out, double limit)
{
    if (isinf(limit))
        fprintf(out, " %12s", "always");
    else if (limit == 0)
        fprintf(out, " %12s", "never");
    else
        fprintf(out, " %12.6f", limit);
}

/* The stable intervals of one (method, zeta, source), as "(0, a], [b, c]". */
static void print_intervals(FILE *out, const stability_interval_rows *iv, const char *method,
                            double zeta, const char *source)
{
    bool first = true;
    for (size_t i = 0; i < iv->rows; i++) {
        if (iv->zeta[i] != zeta || strcmp(iv->method[i], method) || strcmp(iv->source[i], source))
            continue;
        fprintf(out, "%s", first ? "" : ", ");
        if (iv->lower[i] == 0)
            fprintf(out, "(0, ");
        else
            fprintf(out, "[%.6g, ", iv->lower[i]);
        if (isinf(iv->upper[i]))
            fprintf(out, "inf)");
        else
            fprintf(out, "%.6g]", iv->upper[i]);
        first = false;
    }
    if (first)
        fprintf(out, "none");
}

static void print_stability(FILE *out, const analysis_result *ana)
{
    const stability_rows *s = &ana->stab;
    if (!s->rows)
        return;
    fprintf(out, "\nstability limit of omega0*dt, the first edge (theory: spectral radius of the "
                 "one-step map; measured: stepping lanes, with its relative resolution)\n");
    fprintf(out, "%-20s %8s %12s %12s %9s\n", "method", "zeta", "theory", "measured", "+- rel");
    size_t multi = 0, never = 0;
    for (size_t i = 0; i < s->rows; i++) {
        never += s->limit_theory[i] == 0;
        fprintf(out, "%-20s %8.4g", s->method[i], s->zeta[i]);
        print_limit(out, s->limit_theory[i]);
        print_limit(out, s->limit_measured[i]);
        if (isfinite(s->measured_resolution[i]))
            fprintf(out, " %9.1e", s->measured_resolution[i]);
        else if (s->limit_measured[i] == 0 && isfinite(s->limit_measured_high[i]))
            fprintf(out, "  (< %.3g)", s->limit_measured_high[i]); /* what the steps resolve */
        fputc('\n', out);
        /* a stable set that is not one interval from 0 */
        bool from_zero = s->limit_theory[i] > 0;
        multi += s->intervals_theory[i] > 1 || (!from_zero && s->intervals_theory[i] > 0) ||
                 s->intervals_measured[i] > 1;
    }
    if (never) {
        fprintf(out, "\nnever stable near omega0*dt = 0 (theory: the trend of rho - 1 = C h^p as "
                     "h = omega0*dt -> 0, C > 0)\n");
        for (size_t i = 0; i < s->rows; i++)
            if (s->limit_theory[i] == 0)
                fprintf(out, "  %-20s zeta %-6.4g rho - 1 ~ %.3g h^%.2f\n", s->method[i],
                        s->zeta[i], s->rho_excess_coef[i], s->rho_excess_power[i]);
    }
    if (!multi)
        return;
    fprintf(out, "\nstable on more than one interval of omega0*dt (or not from 0): the limit above "
                 "is the first edge\n");
    for (size_t i = 0; i < s->rows; i++) {
        bool from_zero = s->limit_theory[i] > 0;
        if (!(s->intervals_theory[i] > 1 || (!from_zero && s->intervals_theory[i] > 0) ||
              s->intervals_measured[i] > 1))
            continue;
        fprintf(out, "  %-20s zeta %-6.4g theory ", s->method[i], s->zeta[i]);
        print_intervals(out, &ana->stab_intervals, s->method[i], s->zeta[i], "theory");
        fprintf(out, "; measured ");
        print_intervals(out, &ana->stab_intervals, s->method[i], s->zeta[i], "measured");
        fputc('\n', out);
    }
}

/* The peak resident memory measured, beside what the pre-flight estimated and the limit. */
static void print_memory(FILE *out, const osc_config *cfg)
{
    struct rusage ru;
    const double gib = 1024.0 * 1024.0 * 1024.0;
    const char *source;
    double limit = sweep_memory_limit(&source);
    double estimate = sweep_estimate_bytes(cfg, (double)cfg->dt.count,
                                           (double)(cfg->stiffness.count * cfg->drag.count),
                                           omp_get_max_threads());
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        fprintf(out, "memory: peak %.3g GiB resident, estimated %.3g GiB, limit %.3g GiB (%s)\n",
                (double)ru.ru_maxrss * 1024.0 / gib, estimate / gib, limit / gib, source);
}

void report_print(FILE *out, const osc_config *cfg, const sweep_result *res,
                  const analysis_result *ana, const char *path)
{
    fprintf(out, "oscbench %s: %s, %zu points (%zu methods x %zu dt x %zu stiffness x %zu drag), "
                 "%s, dim %d\n\n",
            OSC_VERSION, cfg->path, res->points.rows, cfg->nmethods, cfg->dt.count,
            cfg->stiffness.count, cfg->drag.count, osc_precision_name(cfg->precision), cfg->dim);
    print_methods(out, cfg, res);
    print_convergence(out, &ana->conv);
    print_stability(out, ana);
    if (res->t_end_rounded)
        fprintf(out, "\nnote: t_end is not a whole number of steps for some dt; those runs last "
                     "steps*dt (the t_end column)\n");
    fprintf(out, "\nwrote %s (sweep %.2f s, analyses %.2f s)\n", path, res->seconds,
            ana->seconds);
    print_memory(out, cfg);
}
