/* The summary `oscbench run` prints: per method, then the analyses, then where the file went. */
#include "report.h"

#include <stdlib.h>

#include "analysis.h"
#include "diag.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <omp.h>
#include <sys/resource.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#define REPORT_MIN_SECONDS 0.1

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
    /* a rate over less than a tenth of a second is mostly start-up: not shown */
    if (seconds >= REPORT_MIN_SECONDS)
        fprintf(out, "  %10.3e\n", steps / seconds);
    else
        fprintf(out, "  %10s\n", "too short");
}

/* ---- per dt: which method, compared on the same lanes --------------------------------- */

points_view report_points_view(const sweep_points *p)
{
    return (points_view){p->rows,      p->method,    p->dt,           p->stiffness,
                         p->drag,      p->max_error, p->max_abs_drift, p->stable,
                         p->mass};
}

/* One (dt, method) of the comparison. */
typedef struct dt_row {
    const char *method;
    double dt;
    size_t lanes, stable, common; /* common: lanes stable for every method at this dt */
    double worst_error, worst_drift; /* over the common set; NaN when it is empty */
    bool lanes_match;                /* every method's lane j is the same (k, c, m) */
} dt_row;

typedef struct dt_table {
    size_t nmethods, ndt;
    const char **methods;
    double *dts;
    dt_row *rows; /* dt-major: rows[d * nmethods + m] */
} dt_table;

static size_t method_slot(const char **methods, size_t *n, const char *name, size_t hint)
{
    if (hint < *n && !strcmp(methods[hint], name))
        return hint;
    for (size_t i = 0; i < *n; i++)
        if (!strcmp(methods[i], name))
            return i;
    methods[*n] = name;
    return (*n)++;
}

static size_t dt_slot(double *dts, size_t *n, double dt, size_t hint)
{
    if (hint < *n && dts[hint] == dt)
        return hint;
    for (size_t i = 0; i < *n; i++)
        if (dts[i] == dt)
            return i;
    dts[*n] = dt;
    return (*n)++;
}

/* rows_of[offset[b] .. offset[b + 1]) are the rows of group b = d * nmethods + m, in order. */
static int group_rows(const points_view *v, dt_table *t, size_t **offset_out, size_t **rows_out)
{
    size_t *slot = malloc((v->rows ? v->rows : 1) * sizeof *slot);
    t->methods = malloc((v->rows ? v->rows : 1) * sizeof *t->methods);
    t->dts = malloc((v->rows ? v->rows : 1) * sizeof *t->dts);
    if (!slot || !t->methods || !t->dts) {
        free(slot);
        return -1;
    }
    size_t m = 0, d = 0;
    for (size_t r = 0; r < v->rows; r++) { /* the layout keeps runs of a method and a dt */
        m = method_slot(t->methods, &t->nmethods, v->method[r], m);
        d = dt_slot(t->dts, &t->ndt, v->dt[r], d);
        slot[r] = d * v->rows + m; /* provisional: nmethods is not known yet */
    }
    size_t groups = t->nmethods * t->ndt;
    size_t *offset = calloc(groups + 1, sizeof *offset);
    size_t *rows = malloc((v->rows ? v->rows : 1) * sizeof *rows);
    if (!offset || !rows) {
        free(slot), free(offset), free(rows);
        return -1;
    }
    for (size_t r = 0; r < v->rows; r++) {
        slot[r] = slot[r] / v->rows * t->nmethods + slot[r] % v->rows;
        offset[slot[r] + 1]++;
    }
    for (size_t b = 0; b < groups; b++)
        offset[b + 1] += offset[b];
    size_t *fill = calloc(groups ? groups : 1, sizeof *fill);
    if (!fill) {
        free(slot), free(offset), free(rows);
        return -1;
    }
    for (size_t r = 0; r < v->rows; r++)
        rows[offset[slot[r]] + fill[slot[r]]++] = r;
    free(fill), free(slot);
    *offset_out = offset;
    *rows_out = rows;
    return 0;
}

/* Rows a and b hold the same spring (k, c, m; a view without masses has one). */
static bool same_spring(const points_view *v, size_t a, size_t b)
{
    return v->stiffness[a] == v->stiffness[b] && v->drag[a] == v->drag[b] &&
           (!v->mass || v->mass[a] == v->mass[b]);
}

/* The common set of dt d and each method's figures over it. */
static void compare_at_dt(const points_view *v, dt_table *t, size_t d, const size_t *offset,
                          const size_t *rows)
{
    dt_row *out = &t->rows[d * t->nmethods];
    size_t lanes = offset[d * t->nmethods + 1] - offset[d * t->nmethods];
    bool match = true;
    for (size_t m = 1; m < t->nmethods && match; m++) {
        const size_t *a = rows + offset[d * t->nmethods], *b = rows + offset[d * t->nmethods + m];
        match = offset[d * t->nmethods + m + 1] - offset[d * t->nmethods + m] == lanes;
        for (size_t j = 0; match && j < lanes; j++)
            match = same_spring(v, a[j], b[j]);
    }
    for (size_t m = 0; m < t->nmethods; m++) {
        size_t b = d * t->nmethods + m;
        out[m] = (dt_row){.method = t->methods[m], .dt = t->dts[d],
                          .lanes = offset[b + 1] - offset[b], .lanes_match = match,
                          .worst_error = NAN, .worst_drift = NAN};
        for (size_t j = offset[b]; j < offset[b + 1]; j++)
            out[m].stable += v->stable[rows[j]];
    }
    for (size_t j = 0; match && j < lanes; j++) {
        bool all = true;
        for (size_t m = 0; m < t->nmethods && all; m++)
            all = v->stable[rows[offset[d * t->nmethods + m] + j]];
        for (size_t m = 0; all && m < t->nmethods; m++) {
            size_t r = rows[offset[d * t->nmethods + m] + j];
            dt_row *o = &out[m];
            /* a stable lane's maxima are finite; fmax keeps the first value over NaN */
            o->worst_error = o->common ? fmax(o->worst_error, v->max_error[r]) : v->max_error[r];
            o->worst_drift = o->common ? fmax(o->worst_drift, v->max_abs_drift[r])
                                       : v->max_abs_drift[r];
            o->common++;
        }
    }
}

static void dt_table_free(dt_table *t)
{
    free(t->methods), free(t->dts), free(t->rows);
}

static int dt_table_build(const points_view *v, dt_table *t)
{
    *t = (dt_table){0};
    size_t *offset = NULL, *rows = NULL;
    if (group_rows(v, t, &offset, &rows))
        return dt_table_free(t), -1;
    t->rows = calloc(t->nmethods * t->ndt + 1, sizeof *t->rows);
    if (!t->rows) {
        free(offset), free(rows), dt_table_free(t);
        return -1;
    }
    for (size_t d = 0; d < t->ndt; d++)
        compare_at_dt(v, t, d, offset, rows);
    free(offset), free(rows);
    return 0;
}

static void print_share(FILE *out, size_t part, size_t whole)
{
    if (whole)
        fprintf(out, "  %6.1f%% %5zu/%-6zu", 100.0 * (double)part / (double)whole, part, whole);
    else
        fprintf(out, "  %20s", "-");
}

static void print_worst(FILE *out, double v)
{
    if (isnan(v))
        fprintf(out, "  %13s", "-");
    else
        fprintf(out, "  %13.3e", v);
}

static void per_dt_text(FILE *out, const dt_table *t)
{
    fprintf(out, "\nwhich method at each dt: the share of lanes stable, and the worst error and "
                 "|drift| over the\ncommon set, the lanes (stiffness, drag, mass) stable for EVERY "
                 "method at that dt, so methods\nare compared on the same springs\n");
    for (size_t d = 0; d < t->ndt; d++) {
        const dt_row *r = &t->rows[d * t->nmethods];
        fprintf(out, "\ndt = %.6g (%.6g Hz): ", r->dt, 1.0 / r->dt);
        if (!r->lanes_match)
            fprintf(out, "methods ran different lanes: no common set\n");
        else
            fprintf(out, "common set: %zu of %zu lanes stable for all %zu methods\n", r->common,
                    r->lanes, t->nmethods);
        fprintf(out, "  %-20s  %-20s  %13s  %13s\n", "method", "stable (share, lanes)",
                "worst error", "worst |drift|");
        for (size_t m = 0; m < t->nmethods; m++) {
            fprintf(out, "  %-20s", r[m].method);
            print_share(out, r[m].stable, r[m].lanes);
            print_worst(out, r[m].worst_error);
            print_worst(out, r[m].worst_drift);
            fputc('\n', out);
        }
    }
}

/* JSON and CSV numbers: %.17g round-trips; NaN (an empty common set) is null / empty; an
 * infinity is 1e999 in JSON, valid JSON that parsers read as inf, and inf in CSV. A run refuses
 * a subnormal dt now, but a file from before, or from a library caller, can hold its rate 1/dt
 * = inf. */
static void put_number(FILE *out, double v, summary_format format)
{
    bool json = format == SUMMARY_JSON;
    if (isnan(v))
        fputs(json ? "null" : "", out);
    else if (isinf(v) && json)
        fputs(v > 0 ? "1e999" : "-1e999", out);
    else
        fprintf(out, "%.17g", v);
}

/* A JSON string: quotes, backslashes and control characters escaped (a results file is input:
 * its method names are not trusted to be plain). */
static void put_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(out, "\\u%04x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

/* A CSV field (RFC 4180): quoted, with quotes doubled, when it holds a comma, quote or newline. */
static void put_csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (const char *c = s; *c; c++) {
        if (*c == '"')
            fputc('"', out);
        fputc(*c, out);
    }
    fputc('"', out);
}

static void per_dt_csv(FILE *out, const dt_table *t)
{
    fprintf(out, "dt,rate_hz,method,lanes,stable,stable_share,common_lanes,worst_error_common,"
                 "worst_abs_drift_common\n");
    for (size_t i = 0; i < t->ndt * t->nmethods; i++) {
        const dt_row *r = &t->rows[i];
        fprintf(out, "%.17g,", r->dt);
        put_number(out, 1.0 / r->dt, SUMMARY_CSV);
        fputc(',', out);
        put_csv_field(out, r->method);
        fprintf(out, ",%zu,%zu,", r->lanes, r->stable);
        put_number(out, r->lanes ? (double)r->stable / (double)r->lanes : NAN, SUMMARY_CSV);
        fprintf(out, ",%zu,", r->common);
        put_number(out, r->worst_error, SUMMARY_CSV);
        fputc(',', out);
        put_number(out, r->worst_drift, SUMMARY_CSV);
        fputc('\n', out);
    }
}

static void per_dt_json(FILE *out, const dt_table *t)
{
    fprintf(out, "{\"per_dt\": [");
    for (size_t i = 0; i < t->ndt * t->nmethods; i++) {
        const dt_row *r = &t->rows[i];
        fprintf(out, "%s\n  {\"dt\": %.17g, \"rate_hz\": ", i ? "," : "", r->dt);
        put_number(out, 1.0 / r->dt, SUMMARY_JSON);
        fputs(", \"method\": ", out);
        put_json_string(out, r->method);
        fprintf(out, ", \"lanes\": %zu, \"stable\": %zu, \"stable_share\": ", r->lanes, r->stable);
        put_number(out, r->lanes ? (double)r->stable / (double)r->lanes : NAN, SUMMARY_JSON);
        fprintf(out, ", \"common_lanes\": %zu, \"lanes_match\": %s, \"worst_error_common\": ",
                r->common, r->lanes_match ? "true" : "false");
        put_number(out, r->worst_error, SUMMARY_JSON);
        fprintf(out, ", \"worst_abs_drift_common\": ");
        put_number(out, r->worst_drift, SUMMARY_JSON);
        fputc('}', out);
    }
    fprintf(out, "\n]}\n");
}

int report_per_dt(FILE *out, const points_view *v, summary_format format)
{
    dt_table t;
    if (dt_table_build(v, &t))
        return -1;
    if (format == SUMMARY_CSV)
        per_dt_csv(out, &t);
    else if (format == SUMMARY_JSON)
        per_dt_json(out, &t);
    else
        per_dt_text(out, &t);
    dt_table_free(&t);
    return 0;
}

static void print_methods(FILE *out, const osc_config *cfg, const sweep_result *res)
{
    fprintf(out, "%-20s %6s %6s  %20s  %20s  %10s\n", "method", "points", "stable",
            "max error (stable)", "max |drift| (stable)", "audited osc-steps/s/thread");
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

/* Whether the fits are of more than one mass (then the tables name each fit's mass). */
static bool several_masses(const convergence_rows *c)
{
    for (size_t i = 1; i < c->rows; i++)
        if (c->mass[i] != c->mass[0])
            return true;
    return false;
}

/* " %8.4g" of the mass, or nothing with a single mass (the table as before mass was an axis). */
static void print_mass(FILE *out, bool masses, const char *head, double mass)
{
    if (masses && head)
        fprintf(out, " %8s", head);
    else if (masses)
        fprintf(out, " %8.4g", mass);
}

static void print_convergence_rows(FILE *out, const convergence_rows *c)
{
    const bool masses = several_masses(c);
    fprintf(out, "%-20s %10s %8s", "method", "stiffness", "drag");
    print_mass(out, masses, "mass", 0);
    char interval[32];
    snprintf(interval, sizeof interval, "%d%% interval", OSC_FIT_CONFIDENCE_PERCENT);
    fprintf(out, " %8s %8s %17s %6s %19s  %s\n", "declared", "measured", interval, "points",
            "dt fitted", "verdict");
    for (size_t i = 0; i < c->rows; i++) {
        fprintf(out, "%-20s %10.4g %8.4g", c->method[i], c->stiffness[i], c->drag[i]);
        print_mass(out, masses, NULL, c->mass[i]);
        fprintf(out, " %8lld %8.3f [%6.3f, %6.3f] %6lld", (long long)c->declared_order[i],
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

/* Zeta values this close (relative) are one: c = 2 zeta sqrt(k m) of a zeta sweep, taken back as
 * c / (2 sqrt(k m)), is zeta give or take an ulp, not always to the bit. */
#define ZETA_SAME_REL 1e-12

/* key[i]: the least of the values v[0..n) that chain to v[i] in sorted order, each within rel
 * (relative) of the one before; returns how many such clusters there are. order: room for n. */
static size_t cluster_keys(const double *v, size_t n, double rel, size_t *order, double *key)
{
    gsl_sort_index(order, v, 1, n);
    size_t clusters = 0;
    for (size_t j = 0; j < n; j++) {
        const double a = v[order[j]], prev = j ? v[order[j - 1]] : NAN;
        const bool same = a == prev || (isfinite(a) && a - prev <= rel * fabs(a));
        key[order[j]] = same ? key[order[j - 1]] : a;
        clusters += !same;
    }
    return clusters;
}

static bool any_nan(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isnan(v[i]))
            return true;
    return false;
}

/* Each fit's value to group by, into key: its zeta when the fits have fewer zeta values than
 * drag values (a sweep in zeta gives each spring its own drag), else its drag. Returns whether
 * by zeta. order, spare: room for the rows. */
static bool group_keys(const convergence_rows *c, size_t *order, double *spare, double *key)
{
    memcpy(key, c->drag, c->rows * sizeof *key);
    if (!c->zeta || any_nan(c->zeta, c->rows))
        return false;
    const size_t zetas = cluster_keys(c->zeta, c->rows, ZETA_SAME_REL, order, spare);
    if (zetas >= cluster_keys(c->drag, c->rows, 0, order, key))
        return false;
    memcpy(key, spare, c->rows * sizeof *key);
    return true;
}

/* Fits i and j are of one group: the same method, key (drag or zeta) and mass. */
static bool same_group(const convergence_rows *c, const double *key, size_t i, size_t j)
{
    return !strcmp(c->method[j], c->method[i]) && key[j] == key[i] && c->mass[j] == c->mass[i];
}

/* The fits of group i: their count, the passes and fails, and their numeric orders (n). */
static void group_counts(const convergence_rows *c, const double *key, size_t i, size_t *fits,
                         size_t *pass, size_t *fail, double *orders, size_t *n)
{
    *fits = *pass = *fail = *n = 0;
    for (size_t j = i; j < c->rows; j++) {
        if (!same_group(c, key, i, j))
            continue;
        ++*fits;
        *pass += c->verdict[j] == OSC_VERDICT_PASS;
        *fail += c->verdict[j] == OSC_VERDICT_FAIL;
        if (!isnan(c->measured_order[j]))
            orders[(*n)++] = c->measured_order[j];
    }
}

/* Many stiffness values: one line per (method, drag, mass), or per (method, zeta, mass) for a
 * sweep in zeta (group_keys), with the counts of the fits' verdicts and the spread of the
 * measured orders. */
static void print_convergence_groups(FILE *out, const convergence_rows *c)
{
    double *orders = malloc(c->rows * sizeof *orders), *key = malloc(c->rows * sizeof *key);
    double *spare = malloc(c->rows * sizeof *spare);
    size_t *order = malloc(c->rows * sizeof *order);
    if (!orders || !key || !spare || !order) {
        free(orders), free(key), free(spare), free(order);
        return;
    }
    const bool masses = several_masses(c), by_zeta = group_keys(c, order, spare, key);
    fprintf(out, "%-20s %9s", "method", by_zeta ? "zeta" : "drag");
    print_mass(out, masses, "mass", 0);
    fprintf(out, " %8s %5s %5s %5s %7s  %-28s %s\n", "declared", "fits", "pass", "fail",
            "inconcl", "measured: median [min, max]", "verdict");
    for (size_t i = 0; i < c->rows; i++) {
        bool first = true;
        for (size_t j = 0; j < i && first; j++)
            first = !same_group(c, key, i, j);
        if (!first)
            continue;
        size_t fits, pass, fail, n;
        group_counts(c, key, i, &fits, &pass, &fail, orders, &n);
        fprintf(out, "%-20s %9.7g", c->method[i], key[i]);
        print_mass(out, masses, NULL, c->mass[i]);
        fprintf(out, " %8lld %5zu %5zu %5zu %7zu", (long long)c->declared_order[i], fits, pass,
                fail, fits - pass - fail);
        char measured[64] = "-";
        if (n) {
            gsl_sort(orders, 1, n);
            double median = gsl_stats_median_from_sorted_data(orders, 1, n);
            snprintf(measured, sizeof measured, "%.3f [%.3f, %.3f]", median, orders[0],
                     orders[n - 1]);
        }
        fprintf(out, "  %-28s %s\n", measured,
                osc_verdict_name(group_verdict(fits, pass, fail)));
    }
    free(orders), free(key), free(spare), free(order);
    fprintf(out, "(one fit per stiffness, each with the library's verdict; a group's verdict is "
                 "the one more than half of its fits share, else inconclusive; every fit is in "
                 "/convergence)\n");
}

/* One line per method whose linear order exceeds its coefficient order: its measured order
 * here is the linear one, not its order on nonlinear problems. */
static void print_order_notes(FILE *out, const convergence_rows *c)
{
    for (size_t i = 0; i < c->rows; i++) {
        bool first = c->order_note[i][0] != '\0';
        for (size_t j = 0; j < i && first; j++)
            first = strcmp(c->method[j], c->method[i]) != 0;
        if (first)
            fprintf(out, "note: %s: coefficient order %lld, linear order %lld: the oscillator "
                         "is a linear problem and checks only the linear order conditions; "
                         "expect order %lld here and %lld on nonlinear problems\n",
                    c->method[i], (long long)c->coefficient_order[i],
                    (long long)c->linear_order[i], (long long)c->linear_order[i],
                    (long long)c->coefficient_order[i]);
    }
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
    print_order_notes(out, c);
}

static void print_limit(FILE *out, double limit)
{
    if (isinf(limit))
        fprintf(out, " %12s", "always");
    else if (limit == 0)
        fprintf(out, " %12s", "never");
    else
        fprintf(out, " %12.6g", limit); /* 6 digits at any size: 2e-7 is not 0.000000 */
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
        /* 6 digits, or as many as tell a narrow band's ends apart (forest-ruth's theory has
         * bands 1e-6 wide: [13.51232, 13.51233] at zeta 0.2) */
        int digits = 6;
        char lo[32], hi[32];
        do {
            snprintf(lo, sizeof lo, "%.*g", digits, iv->lower[i]);
            snprintf(hi, sizeof hi, "%.*g", digits, iv->upper[i]);
        } while (strcmp(lo, hi) == 0 && iv->lower[i] < iv->upper[i] && ++digits <= 17);
        if (iv->lower[i] == 0)
            fprintf(out, "(0, ");
        else
            fprintf(out, "[%s, ", lo);
        if (isinf(iv->upper[i]))
            fprintf(out, "inf)");
        else
            fprintf(out, "%s]", hi);
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
    double estimate = sweep_estimate_bytes(
        cfg, (double)cfg->dt.count,
        (double)(cfg->mass.count * cfg->stiffness.count * cfg->drag.count),
        omp_get_max_threads());
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        fprintf(out, "memory: peak %.3g GiB resident, estimated %.3g GiB, limit %.3g GiB (%s)\n",
                (double)ru.ru_maxrss * 1024.0 / gib, estimate / gib, limit / gib, source);
}

void report_print(FILE *out, const osc_config *cfg, const sweep_result *res,
                  const analysis_result *ana, const char *path)
{
    char masses[48] = ""; /* one mass: the header as before mass was an axis */
    if (cfg->mass.count > 1)
        snprintf(masses, sizeof masses, " x %zu mass", cfg->mass.count);
    print_line(out, "oscbench %s: %s, %zu points (%zu methods x %zu dt x %zu stiffness x %zu "
                    "drag%s), %s, dim %d",
               OSC_VERSION, cfg->path, res->points.rows, cfg->nmethods, cfg->dt.count,
               cfg->stiffness.count, cfg->drag.count, masses, osc_precision_name(cfg->precision),
               cfg->dim);
    fputc('\n', out);
    print_methods(out, cfg, res);
    points_view view = report_points_view(&res->points);
    if (report_per_dt(out, &view, SUMMARY_TEXT))
        fprintf(out, "\n(no per-dt comparison: out of memory)\n");
    print_convergence(out, &ana->conv);
    print_stability(out, ana);
    if (res->t_end_rounded)
        fprintf(out, "\nnote: t_end is not a whole number of steps for some dt; those runs last "
                     "steps*dt (the t_end column)\n");
    fputc('\n', out);
    print_line(out, "wrote %s (sweep %.2f s, analyses %.2f s)", path, res->seconds, ana->seconds);
    print_memory(out, cfg);
}
