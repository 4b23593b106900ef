/* The per-dt comparison of the summary (report_per_dt) on hand-made /points columns whose answer
 * is worked out in the comments: the common set, the shares, the worst values over it, and the
 * CSV and JSON forms. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Two methods x two dt x three lanes (stiffness 1, 2, 3), method-major as /points is.
 *   dt 0.1:  a stable on lanes 0, 1, 2; b on lanes 0, 2   -> common set {0, 2}
 *   dt 0.05: a stable on lane 1;         b on lanes 0, 1  -> common set {1}
 * Lane 1 of a at dt 0.1 has the largest error of a (100) but is not in the common set, so a's
 * worst error there is max(1, 3) = 3, not 100: the comparison is on b's lanes too. */
static const char *const method[] = {"a", "a", "a", "a", "a", "a", "b", "b", "b", "b", "b", "b"};
static const double dt[] = {0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.1, 0.1, 0.1, 0.05, 0.05, 0.05};
static const double k[] = {1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3};
static const double c[12] = {0};
static const double err[] = {1, 100, 3, INFINITY, 0.5, INFINITY, 2, INFINITY, 0.25, 7, 0.125, INFINITY};
static const double drift[] = {0.1, 9, 0.3, INFINITY, 0.05, INFINITY, 0.2, INFINITY, 0.025, 0.7,
                               0.0125, INFINITY};
static const bool stable[] = {1, 1, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0};

/* A memstream's text as a copy: GCC 12's -Wdangling-pointer at -O3 takes the stream's &buf for
 * a pointer that may lead back to the writer's frame, and flags every pointer into the text. */
static char *detached(char *buf)
{
    char *copy = strdup(buf);
    assert_non_null(copy);
    free(buf);
    return copy;
}

/* report_per_dt's output into a string. */
static char *per_dt(const points_view *v, summary_format format)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    assert_int_equal(report_per_dt(out, v, format), 0);
    assert_int_equal(fclose(out), 0);
    return detached(buf);
}

/* report_print's text into a string. */
static char *print_report(const osc_config *cfg, const sweep_result *res,
                          const analysis_result *ana)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    report_print(out, cfg, res, ana, "one.h5");
    assert_int_equal(fclose(out), 0);
    return detached(text);
}

static void assert_has_line(const char *text, const char *line)
{
    if (!text || !strstr(text, line))
        fail_msg("no line '%s' in:\n%s", line, text ? text : "(no text)");
}

static char *render_masses(summary_format format, const double *stiffness, const double *mass)
{
    points_view v = {12, method, dt, stiffness, c, err, drift, stable, mass};
    return per_dt(&v, format);
}

/* Without masses: a file written before mass was a column. */
static char *render(summary_format format, const double *stiffness)
{
    return render_masses(format, stiffness, NULL);
}

static void csv_answers_on_the_common_set(void **state)
{
    (void)state;
    char *csv = render(SUMMARY_CSV, k);
    assert_string_equal(
        csv,
        "dt,rate_hz,method,lanes,stable,stable_share,common_lanes,worst_error_common,"
        "worst_abs_drift_common\n"
        "0.10000000000000001,10,a,3,3,1,2,3,0.29999999999999999\n"
        "0.10000000000000001,10,b,3,2,0.66666666666666663,2,2,0.20000000000000001\n"
        "0.050000000000000003,20,a,3,1,0.33333333333333331,1,0.5,0.050000000000000003\n"
        "0.050000000000000003,20,b,3,2,0.66666666666666663,1,0.125,0.012500000000000001\n");
    free(csv);
}

static void json_and_text(void **state)
{
    (void)state;
    char *json = render(SUMMARY_JSON, k);
    assert_true(strncmp(json, "{\"per_dt\": [\n  {\"dt\": 0.10000000000000001, \"rate_hz\": 10, "
                              "\"method\": \"a\", \"lanes\": 3, \"stable\": 3, \"stable_share\": 1, "
                              "\"common_lanes\": 2, \"lanes_match\": true, "
                              "\"worst_error_common\": 3,", 150) == 0);
    assert_non_null(strstr(json, "\"worst_abs_drift_common\": 0.012500000000000001}\n]}\n"));
    free(json);
    char *text = render(SUMMARY_TEXT, k);
    assert_non_null(strstr(text, "dt = 0.1 (10 Hz): common set: 2 of 3 lanes stable for all 2 "
                                 "methods\n"));
    assert_non_null(strstr(text, "dt = 0.05 (20 Hz): common set: 1 of 3 lanes"));
    char a_line[128];
    snprintf(a_line, sizeof a_line, "  %-20s   100.0%%     3/3       %13.3e  %13.3e\n", "a", 3.0,
             0.3);
    if (!strstr(text, a_line))
        fail_msg("no line '%s' in:\n%s", a_line, text);
    free(text);
}

/* A results file is input: a method name with a quote, comma, backslash and newline is escaped in
 * JSON and quoted in CSV, and a dt whose 1/dt overflows gives rate_hz 1e999 in JSON (a valid
 * number that parsers read as +inf; "inf" would not parse) and inf in CSV. One lane. */
static void odd_names_and_rates_stay_parseable(void **state)
{
    (void)state;
    const char *name[] = {"a\"b,c\\d\ne"};
    const double tiny[] = {1e-320}, one[] = {1}, zero[] = {0}, small[] = {0.5};
    const bool yes[] = {true};
    points_view v = {1, name, tiny, one, zero, small, small, yes, NULL};
    for (int f = 0; f < 2; f++) {
        char *buf = per_dt(&v, f ? SUMMARY_JSON : SUMMARY_CSV);
        const char *want = f ? "\"rate_hz\": 1e999, \"method\": \"a\\\"b,c\\\\d\\u000ae\", "
                             : ",inf,\"a\"\"b,c\\d\ne\",1,1,";
        if (!strstr(buf, want))
            fail_msg("no '%s' in:\n%s", want, buf);
        free(buf);
    }
}

/* Lanes that differ between methods (not the /points layout): no common set, worst values
 * empty / null, never a comparison of different springs. */
static void different_lanes_no_common_set(void **state)
{
    (void)state;
    double other[12];
    memcpy(other, k, sizeof other);
    other[7] = 5; /* b's lane 1 at dt 0.1 is another spring */
    char *csv = render(SUMMARY_CSV, other);
    assert_non_null(strstr(csv, "0.10000000000000001,10,a,3,3,1,0,,\n"));
    assert_non_null(strstr(csv, "0.050000000000000003,20,a,3,1,0.33333333333333331,1,0.5,"));
    free(csv);
    char *json = render(SUMMARY_JSON, other);
    assert_non_null(strstr(json, "\"lanes_match\": false, \"worst_error_common\": null"));
    free(json);
    char *text = render(SUMMARY_TEXT, other);
    assert_non_null(strstr(text, "dt = 0.1 (10 Hz): methods ran different lanes: no common set"));
    free(text);
}

/* Lanes of the same k and c but another mass are other springs: with b's lane 1 at dt 0.1 of
 * mass 2, that dt has no common set (as above); with the same masses everywhere, the answer is
 * the one without a mass column. */
static void another_mass_is_another_spring(void **state)
{
    (void)state;
    double mass[12];
    for (size_t i = 0; i < 12; i++)
        mass[i] = 0.5;
    char *same = render_masses(SUMMARY_CSV, k, mass), *none = render(SUMMARY_CSV, k);
    assert_string_equal(same, none);
    free(same), free(none);
    mass[7] = 2;
    char *csv = render_masses(SUMMARY_CSV, k, mass);
    assert_non_null(strstr(csv, "0.10000000000000001,10,a,3,3,1,0,,\n"));
    assert_non_null(strstr(csv, "0.050000000000000003,20,a,3,1,0.33333333333333331,1,0.5,"));
    free(csv);
}

/* Lanes of the same k and mass but another drag are other springs too: with b's lane 1 at dt 0.1
 * of drag 0.5, that dt has no common set, and dt 0.05 keeps its answer. */
static void another_drag_is_another_spring(void **state)
{
    (void)state;
    double drag[12] = {0};
    drag[7] = 0.5;
    points_view v = {12, method, dt, k, drag, err, drift, stable, NULL};
    char *csv = per_dt(&v, SUMMARY_CSV);
    assert_non_null(strstr(csv, "0.10000000000000001,10,a,3,3,1,0,,\n"));
    assert_non_null(strstr(csv, "0.050000000000000003,20,a,3,1,0.33333333333333331,1,0.5,"));
    free(csv);
}

/* A method with no lane at a dt (a file not of the /points layout: b has no rows at dt 0.05):
 * no common set there, and b's share is "-", not 0 of 0 as a percentage; CSV leaves it empty and
 * JSON null, never a 0 that reads as "every lane unstable" (row: dt, rate, method, lanes 0,
 * stable 0, share, common 0, worst values empty). */
static void method_without_lanes_at_a_dt(void **state)
{
    (void)state;
    const char *name[] = {"a", "a", "b"};
    const double h[] = {0.1, 0.05, 0.1}, one[] = {1, 1, 1}, zero[] = {0, 0, 0},
                 small[] = {0.5, 0.5, 0.5};
    const bool yes[] = {true, true, true};
    points_view v = {3, name, h, one, zero, small, small, yes, NULL};
    char *text = per_dt(&v, SUMMARY_TEXT);
    const char *at = strstr(text, "dt = 0.05 (20 Hz): methods ran different lanes: no common set\n");
    char b_line[128];
    snprintf(b_line, sizeof b_line, "\n  %-20s  %20s  %13s  %13s\n", "b", "-", "-", "-");
    if (!at || !strstr(at, b_line))
        fail_msg("no line '%s' after dt = 0.05 in:\n%s", b_line + 1, text);
    free(text);
    for (int f = 0; f < 2; f++) {
        char *buf = per_dt(&v, f ? SUMMARY_JSON : SUMMARY_CSV);
        const char *want = f ? "\"method\": \"b\", \"lanes\": 0, \"stable\": 0, \"stable_share\": "
                               "null, \"common_lanes\": 0,"
                             : "\n0.050000000000000003,20,b,0,0,,0,,\n";
        if (!strstr(buf, want))
            fail_msg("no '%s' in:\n%s", want, buf);
        free(buf);
    }
}

/* The summary's list of methods stable on more than one interval: a method whose theory finds
 * two intervals of omega0*dt, (0, 0.5] and [1, 2], while no stepping lane was stable (the
 * measured source has no interval) gets "none" on the measured side, not an empty cell. */
static void stable_intervals_of_one_source_only(void **state)
{
    (void)state;
    const char *name[] = {"m"}, *iv_name[] = {"m", "m"}, *source[] = {"theory", "theory"};
    double zeta[] = {0}, theory[] = {0.5}, measured[] = {0}, nan_col[] = {NAN};
    double iv_zeta[] = {0, 0}, lower[] = {0, 1}, upper[] = {0.5, 2}, iv_nan[] = {NAN, NAN};
    int64_t intervals_theory[] = {2}, intervals_measured[] = {0}, count[] = {1};
    analysis_result ana = {
        .stab = {.rows = 1, .method = name, .zeta = zeta, .limit_theory = theory,
                 .limit_measured = measured, .lanes = count, .steps = count,
                 .limit_measured_low = nan_col, .limit_measured_high = nan_col,
                 .measured_resolution = nan_col, .intervals_theory = intervals_theory,
                 .intervals_measured = intervals_measured, .rho_excess_power = nan_col,
                 .rho_excess_coef = nan_col},
        .stab_intervals = {.rows = 2, .method = iv_name, .source = source, .zeta = iv_zeta,
                           .lower = lower, .upper = upper, .lower_resolution = iv_nan,
                           .upper_resolution = iv_nan}};
    osc_config cfg = {.path = "one.yaml", .dim = 1};
    cfg.mass.count = 1;
    sweep_result res = {0};
    char *text = print_report(&cfg, &res, &ana);
    char want[128];
    snprintf(want, sizeof want, "\n  %-20s zeta %-6.4g theory (0, 0.5], [1, 2]; measured none\n",
             "m", 0.0);
    assert_has_line(text, want);
    free(text);
}

/* The per-method line: of m's 4 rows 3 are stable; the ranges are over the stable rows with a
 * finite value (error 5e-5 .. 2e-3, drift 1e-7 .. 3e-6: the unstable row's 7e9 and the inf
 * are not in them), the rate is 1.5e9 osc-steps over 0.5 s = 3e9/s. Rows of another method
 * ("x") count for nothing. */
static void method_line_ranges_and_rate(void **state)
{
    (void)state;
    const char *name[] = {"m", "x", "m", "m", "m"};
    double err[] = {2e-3, 1e-9, 5e-5, 7e9, INFINITY}, drift[] = {3e-6, 1e-12, 1e-7, 8e9, 2e-6};
    bool stable[] = {true, true, true, false, true};
    sweep_batch_time batch[] = {{"m", 0.1, 0.5, 1.5e9}, {"x", 0.1, 100, 1}};
    double h[] = {0.1, 0.1, 0.1, 0.1, 0.1}, spring[] = {1, 1, 2, 3, 4}, zero[5] = {0};
    sweep_result res = {.points = {.rows = 5, .method = name, .dt = h, .stiffness = spring,
                                   .drag = zero, .max_error = err, .max_abs_drift = drift,
                                   .stable = stable},
                        .batches = batch, .nbatches = 2};
    osc_method m = {.name = "m"};
    const osc_method *methods[] = {&m};
    osc_config cfg = {.path = "one.yaml", .dim = 1, .methods = methods, .nmethods = 1};
    cfg.mass.count = 1;
    analysis_result ana = {0};
    char *text = print_report(&cfg, &res, &ana);
    char want[160];
    snprintf(want, sizeof want, "\n%-20s %6d %6d  %8.1e .. %8.1e  %8.1e .. %8.1e  %10.3e\n", "m",
             4, 3, 5e-5, 2e-3, 1e-7, 3e-6, 3e9);
    assert_has_line(text, want);
    free(text);
}

/* More than 40 fits: one line per (method, drag, mass) group, its verdict the one more than half
 * of its fits share, its orders' median [min, max] over the orders that are numbers. "many" at
 * mass 1: 36 passes, orders 4.00 .. 4.34 once each, given out of order, and one NaN; "many" at
 * mass 2 (row 1: the masses differ from the second row on): its own group, one fail; "tie": 2
 * pass, 2 fail of 4 -> inconclusive; "split": pass, fail, inconclusive -> inconclusive. */
static void group_verdicts_by_majority(void **state)
{
    (void)state;
    enum { N = 44 };
    const char *name[N], *note[N];
    double drag[N], mass[N], order[N], nan_col[N];
    int64_t declared[N], points[N], minus[N];
    osc_verdict verdict[N];
    osc_verdict_reason reason[N];
    for (size_t i = 0; i < N; i++) {
        name[i] = "many", drag[i] = 0, mass[i] = 1, declared[i] = 4, points[i] = 5;
        nan_col[i] = NAN, minus[i] = -1, verdict[i] = OSC_VERDICT_PASS, note[i] = "";
        reason[i] = (osc_verdict_reason)0;
        order[i] = 4 + 0.01 * (double)((i * 8) % 35); /* rows 0..34: 4.00 .. 4.34, shuffled */
    }
    mass[1] = 2, verdict[1] = OSC_VERDICT_FAIL, order[1] = 1; /* row 1's 4.08: row 42 */
    order[2] = NAN;                                            /* row 2's 4.16: row 43 */
    order[42] = 4.08, order[43] = 4.16;
    const osc_verdict tie[] = {OSC_VERDICT_PASS, OSC_VERDICT_FAIL, OSC_VERDICT_PASS,
                               OSC_VERDICT_FAIL};
    for (size_t j = 0; j < 4; j++)
        name[35 + j] = "tie", verdict[35 + j] = tie[j], order[35 + j] = NAN;
    const osc_verdict split[] = {OSC_VERDICT_PASS, OSC_VERDICT_FAIL, OSC_VERDICT_INCONCLUSIVE};
    for (size_t j = 0; j < 3; j++)
        name[39 + j] = "split", verdict[39 + j] = split[j], order[39 + j] = NAN;
    analysis_result ana = {
        .conv = {.rows = N, .method = name, .stiffness = nan_col, .drag = drag, .mass = mass,
                 .measured_order = order, .order_low = nan_col, .order_high = nan_col,
                 .std_error = nan_col, .dt_fit_min = nan_col, .dt_fit_max = nan_col,
                 .declared_order = declared, .fit_points = points, .dt_points = points,
                 .verdict = verdict, .reason = reason, .coefficient_order = minus,
                 .linear_order = minus, .order_note = note}};
    osc_config cfg = {.path = "one.yaml", .dim = 1};
    cfg.mass.count = 1;
    sweep_result res = {0};
    char *text = print_report(&cfg, &res, &ana);
    const char *fmt = "\n%-20s %9.7g %8.4g %8d %5d %5d %5d %7d  %-28s %s\n";
    char want[192];
    snprintf(want, sizeof want, fmt, "many", 0.0, 1.0, 4, 36, 36, 0, 0, "4.170 [4.000, 4.340]",
             "pass");
    assert_has_line(text, want);
    snprintf(want, sizeof want, fmt, "many", 0.0, 2.0, 4, 1, 0, 1, 0, "1.000 [1.000, 1.000]",
             "fail");
    assert_has_line(text, want);
    snprintf(want, sizeof want, fmt, "tie", 0.0, 1.0, 4, 4, 2, 2, 0, "-", "inconclusive");
    assert_has_line(text, want);
    snprintf(want, sizeof want, fmt, "split", 0.0, 1.0, 4, 3, 1, 1, 1, "-", "inconclusive");
    assert_has_line(text, want);
    free(text);
}

/* Hand-made convergence fits, column by column as /convergence holds them, up to MAX_FITS rows. */
enum { MAX_FITS = 100 };
typedef struct {
    const char *name[MAX_FITS], *note[MAX_FITS];
    double k[MAX_FITS], drag[MAX_FITS], zeta[MAX_FITS], mass[MAX_FITS], order[MAX_FITS];
    double low[MAX_FITS], high[MAX_FITS], dt_min[MAX_FITS], dt_max[MAX_FITS], nan_col[MAX_FITS];
    int64_t declared[MAX_FITS], points[MAX_FITS], minus[MAX_FITS];
    osc_verdict verdict[MAX_FITS];
    osc_verdict_reason reason[MAX_FITS];
} fit_columns;

/* Every row "p", a pass of its declared order 2 on 5 points at stiffness 1 + row, no drag, mass
 * 1, with no interval or dt range (NaN); the tests change what they look at. */
static void passing_fits(fit_columns *f)
{
    for (size_t i = 0; i < MAX_FITS; i++) {
        f->name[i] = "p", f->note[i] = "", f->k[i] = 1 + (double)i, f->drag[i] = 0;
        f->zeta[i] = 0, f->mass[i] = 1, f->order[i] = 2, f->nan_col[i] = NAN;
        f->low[i] = f->high[i] = f->dt_min[i] = f->dt_max[i] = NAN;
        f->declared[i] = 2, f->points[i] = 5, f->minus[i] = -1;
        f->verdict[i] = OSC_VERDICT_PASS, f->reason[i] = OSC_REASON_CONFIRMED;
    }
}

/* The report of f's first `rows` fits (with its zeta column, or without one as older files). */
static char *print_fit_columns(fit_columns *f, size_t rows, bool with_zeta)
{
    assert_true(rows <= MAX_FITS);
    analysis_result ana = {
        .conv = {.rows = rows, .method = f->name, .stiffness = f->k, .drag = f->drag,
                 .mass = f->mass, .zeta = with_zeta ? f->zeta : NULL,
                 .measured_order = f->order, .order_low = f->low, .order_high = f->high,
                 .std_error = f->nan_col, .dt_fit_min = f->dt_min, .dt_fit_max = f->dt_max,
                 .declared_order = f->declared, .fit_points = f->points, .dt_points = f->points,
                 .verdict = f->verdict, .reason = f->reason, .coefficient_order = f->minus,
                 .linear_order = f->minus, .order_note = f->note}};
    osc_config cfg = {.path = "one.yaml", .dim = 1};
    cfg.mass.count = 1;
    sweep_result res = {0};
    return print_report(&cfg, &res, &ana);
}

/* 2 methods x 25 omega0 (0.5 to 20, log) x zeta 0, 0.05 at mass 1: 100 fits as a sweep in
 * zeta writes them, c = 2 zeta sqrt(k m) and zeta = c / (2 sqrt(k m)) of it (round-off leaves
 * some of the 0.05s an ulp off). Each fit its own drag but two zetas: one line per (method,
 * zeta), 25 fits each, under a zeta heading. With only the drag grouping (no zeta column, or a
 * drag sweep: two stiffnesses x 21 drags, 42 zetas) the lines are per drag as before. */
enum { ZFITS = 100, DFITS = 42 };
static char *print_zeta_fits(bool with_zeta, bool drag_sweep)
{
    static fit_columns f;
    passing_fits(&f);
    for (size_t i = 0; i < ZFITS; i++) {
        const double w = 0.5 * pow(40, (double)(i / 2 % 25) / 24), z = i % 2 ? 0.05 : 0;
        f.k[i] = w * w, f.drag[i] = 2 * z * sqrt(f.k[i]);
        if (drag_sweep)
            f.k[i] = i % 2 ? 4 : 1, f.drag[i] = 0.1 * (double)(i / 2);
        f.zeta[i] = f.drag[i] == 0 ? 0 : f.drag[i] / (2 * sqrt(f.k[i]));
        f.name[i] = i < ZFITS / 2 ? "verlet" : "rk4";
        f.declared[i] = i < ZFITS / 2 ? 2 : 4, f.order[i] = (double)f.declared[i];
    }
    size_t off = 0; /* the test's point: zetas not all equal to the bit */
    for (size_t i = 3; i < ZFITS; i += 2)
        off += f.zeta[i] != f.zeta[1];
    assert_true(off > 0);
    return print_fit_columns(&f, drag_sweep ? DFITS : ZFITS, with_zeta);
}

static size_t count_of(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *at = text; (at = strstr(at, what)); at++)
        n++;
    return n;
}

static void zeta_sweep_grouped_by_zeta(void **state)
{
    (void)state;
    char *text = print_zeta_fits(true, false), want[192];
    const char *row = "\n%-20s %9.7g %8d %5d %5d %5d %7d  %-28s %s\n";
    snprintf(want, sizeof want, "\n%-20s %9s %8s %5s", "method", "zeta", "declared", "fits");
    assert_has_line(text, want);
    snprintf(want, sizeof want, row, "verlet", 0.0, 2, 25, 25, 0, 0, "2.000 [2.000, 2.000]",
             "pass");
    assert_has_line(text, want);
    snprintf(want, sizeof want, row, "verlet", 0.05, 2, 25, 25, 0, 0, "2.000 [2.000, 2.000]",
             "pass");
    assert_has_line(text, want);
    snprintf(want, sizeof want, row, "rk4", 0.05, 4, 25, 25, 0, 0, "4.000 [4.000, 4.000]",
             "pass");
    assert_has_line(text, want);
    assert_int_equal(count_of(text, "\nverlet "), 2);
    assert_int_equal(count_of(text, "\nrk4 "), 2);
    free(text);
    text = print_zeta_fits(false, false); /* no zeta: a drag per fit, as before */
    snprintf(want, sizeof want, "\n%-20s %9s %8s", "method", "drag", "declared");
    assert_has_line(text, want);
    assert_int_equal(count_of(text, "\nverlet "), 26);
    free(text);
}

static void drag_sweep_grouped_by_drag(void **state)
{
    (void)state;
    char *text = print_zeta_fits(true, true), want[192];
    snprintf(want, sizeof want, "\n%-20s %9s %8s", "method", "drag", "declared");
    assert_has_line(text, want);
    snprintf(want, sizeof want, "\n%-20s %9.7g %8d %5d %5d %5d %7d  %-28s %s\n", "verlet", 0.1,
             2, 2, 2, 0, 0, "2.000 [2.000, 2.000]", "pass");
    assert_has_line(text, want);
    assert_int_equal(count_of(text, "\nverlet "), 21);
    free(text);
}

/* Convergence fits, one line each up to 40 fits, one per (method, drag, mass) group beyond (the
 * README's "more than 40 fits"). Each line: method, stiffness, drag, declared, measured, the 95%
 * interval low then high, fit points, the dt range fitted ("-" without a fit), and the verdict
 * with the library's reason unless it passes. Row 0 passes (2.010 in [1.950, 2.070] on 5 points
 * over dt 1e-3..1e-2), row 1 fails (1 in [0.9, 1.1] against 2), row 2 had no fit. */
static char *print_fits(size_t rows)
{
    static fit_columns f;
    passing_fits(&f);
    for (size_t i = 0; i < rows; i++) {
        f.order[i] = 2.01, f.low[i] = 1.95, f.high[i] = 2.07;
        f.dt_min[i] = 1e-3, f.dt_max[i] = 1e-2;
    }
    f.name[1] = "f", f.order[1] = 1, f.low[1] = 0.9, f.high[1] = 1.1;
    f.verdict[1] = OSC_VERDICT_FAIL, f.reason[1] = OSC_REASON_EXCLUDED;
    f.name[2] = "n", f.order[2] = f.low[2] = f.high[2] = f.dt_min[2] = f.dt_max[2] = NAN;
    f.points[2] = 0;
    f.verdict[2] = OSC_VERDICT_INCONCLUSIVE, f.reason[2] = OSC_REASON_NO_RANGE;
    return print_fit_columns(&f, rows, false);
}

static void fit_lines_up_to_40_fits(void **state)
{
    (void)state;
    char *text = print_fits(40), want[192];
    const char *row = "\n%-20s %10.4g %8.4g %8d %8.3f [%6.3f, %6.3f] %6d %8.2e..%8.2e  %s\n";
    snprintf(want, sizeof want, row, "p", 1.0, 0.0, 2, 2.01, 1.95, 2.07, 5, 1e-3, 1e-2, "pass");
    assert_has_line(text, want);
    snprintf(want, sizeof want, row, "f", 2.0, 0.0, 2, 1.0, 0.9, 1.1, 5, 1e-3, 1e-2,
             "fail: declared order above the interval: converges more slowly than declared");
    assert_has_line(text, want);
    snprintf(want, sizeof want, " %6d %19s  %s", 0, "-", "inconclusive: no converging range of ");
    assert_has_line(text, want);
    assert_null(strstr(text, "measured: median"));
    free(text);
    text = print_fits(41); /* grouped: p's 39 passes, f's fail and n's inconclusive */
    snprintf(want, sizeof want, "\n%-20s %9.7g %8d %5d %5d %5d %7d  %-28s %s\n", "p", 0.0, 2, 39,
             39, 0, 0, "2.010 [2.010, 2.010]", "pass");
    assert_has_line(text, want);
    assert_null(strstr(text, "dt fitted"));
    free(text);
}

/* The stability table's forms (README, /stability: limit inf is "always stable", 0 "not stable on
 * any (0, h]"): "a" is stable for every omega0*dt in both sources; "n" never near 0, its measured
 * limit bounded above by the 0.01 its steps resolve, so it is listed with its theory trend rho - 1
 * ~ 0.125 h^4 (the two-stage methods' h^4/8 at zeta 0); "f" has the finite limits 1.5 (theory)
 * and 1.49 +- 1e-4 (measured) and a second theory interval [1.8, inf) reaching to infinity; "s"
 * has limits of 2e-7 (euler at zeta 1e7), which six fixed decimals printed as 0.000000, the
 * form of "never". */
static void stability_forms(void **state)
{
    (void)state;
    const char *name[] = {"a", "n", "f", "s"}, *iv_name[] = {"f", "f", "f"};
    const char *source[] = {"theory", "theory", "measured"};
    double zeta[] = {0.1, 0, 0, 1e7}, theory[] = {INFINITY, 0, 1.5, 2.0007e-7};
    double measured[] = {INFINITY, 0, 1.49, 2.0008e-7}, high[] = {NAN, 0.01, 1.4902, 2.0009e-7};
    double res_col[] = {NAN, NAN, 1e-4, 1e-4}, nan_col[] = {NAN, NAN, NAN, NAN};
    double power[] = {NAN, 4, NAN, NAN}, coef[] = {NAN, 0.125, NAN, NAN};
    double iv_zeta[] = {0, 0, 0}, lower[] = {0, 1.8, 0}, upper[] = {1.5, INFINITY, 1.49};
    int64_t intervals_theory[] = {1, 0, 2, 1}, intervals_measured[] = {1, 0, 1, 1};
    int64_t count[] = {1, 1, 1, 1};
    analysis_result ana = {
        .stab = {.rows = 4, .method = name, .zeta = zeta, .limit_theory = theory,
                 .limit_measured = measured, .lanes = count, .steps = count,
                 .limit_measured_low = nan_col, .limit_measured_high = high,
                 .measured_resolution = res_col, .intervals_theory = intervals_theory,
                 .intervals_measured = intervals_measured, .rho_excess_power = power,
                 .rho_excess_coef = coef},
        .stab_intervals = {.rows = 3, .method = iv_name, .source = source, .zeta = iv_zeta,
                           .lower = lower, .upper = upper, .lower_resolution = iv_zeta,
                           .upper_resolution = iv_zeta}};
    osc_config cfg = {.path = "one.yaml", .dim = 1};
    cfg.mass.count = 1;
    sweep_result res = {0};
    char *text = print_report(&cfg, &res, &ana), want[160];
    snprintf(want, sizeof want, "\n%-20s %8.4g %12s %12s\n", "a", 0.1, "always", "always");
    assert_has_line(text, want);
    snprintf(want, sizeof want, "\n%-20s %8.4g %12s %12s  (< 0.01)\n", "n", 0.0, "never", "never");
    assert_has_line(text, want);
    snprintf(want, sizeof want, "\n%-20s %8.4g %12s %12s %9s\n", "f", 0.0, "1.5", "1.49",
             "1.0e-04");
    assert_has_line(text, want);
    snprintf(want, sizeof want, "\n%-20s %8.4g %12s %12s %9s\n", "s", 1e7, "2.0007e-07",
             "2.0008e-07", "1.0e-04");
    assert_has_line(text, want);
    const char *list = strstr(text, "\nnever stable near omega0*dt = 0");
    assert_non_null(list);
    snprintf(want, sizeof want, "\n  %-20s zeta %-6s rho - 1 ~ 0.125 h^4.00\n", "n", "0");
    assert_has_line(list, want);
    const char *end = strstr(list + 1, "\n\n"); /* the list ends at a blank line */
    assert_non_null(end);
    for (const char *q = strstr(list + 1, "\n  "); q && q < end; q = strstr(q + 1, "\n  "))
        if (strncmp(q, "\n  n ", 5))
            fail_msg("'%.*s' is not never stable", (int)strcspn(q + 1, "\n"), q + 1);
    snprintf(want, sizeof want, "\n  %-20s zeta %-6s %s\n", "f", "0",
             "theory (0, 1.5], [1.8, inf); measured (0, 1.49]");
    assert_has_line(text, want);
    free(text);
}

/* The header's counts, each by its axis (methods 1, dt 2, stiffness 3, drag 5, mass 7: 210
 * points), the mass only when there are several; and the t_end note only when a dt does not
 * divide t_end. */
static void header_counts_and_t_end_note(void **state)
{
    (void)state;
    osc_method m = {.name = "m"};
    const osc_method *methods[] = {&m};
    osc_config cfg = {.path = "one.yaml", .dim = 1, .methods = methods, .nmethods = 1};
    cfg.dt.count = 2, cfg.stiffness.count = 3, cfg.drag.count = 5, cfg.mass.count = 7;
    enum { ROWS = 210 };
    static const char *name[ROWS];
    static double zero[ROWS];
    static bool unstable[ROWS];
    for (size_t i = 0; i < ROWS; i++)
        name[i] = "m";
    sweep_result res = {.points = {.rows = ROWS, .method = name, .dt = zero, .stiffness = zero,
                                   .drag = zero, .mass = zero, .max_error = zero,
                                   .max_abs_drift = zero, .stable = unstable},
                        .t_end_rounded = true};
    analysis_result ana = {0};
    char *text = print_report(&cfg, &res, &ana);
    assert_has_line(text, ": one.yaml, 210 points (1 methods x 2 dt x 3 stiffness x 5 drag x 7 "
                          "mass), ");
    assert_has_line(text, "\nnote: t_end is not a whole number of steps for some dt");
    free(text);
    cfg.mass.count = 1, res.points.rows = 30, res.t_end_rounded = false;
    text = print_report(&cfg, &res, &ana);
    assert_has_line(text, ": one.yaml, 30 points (1 methods x 2 dt x 3 stiffness x 5 drag), ");
    assert_null(strstr(text, "t_end"));
    free(text);
}

/* The order note, once per method whose note is not empty, in the README's words for its
 * example: lin4's coefficients have order 3, its R(z) matches exp(z) to order 4, so the
 * oscillator (linear) shows 4 and nonlinear problems 3. rk4 (no note) gets no line, and lin4's
 * second fit no second one. */
static void order_note_once_per_method(void **state)
{
    (void)state;
    const char *name[] = {"lin4", "rk4", "lin4"}, *note[] = {"linear", "", "linear"};
    double one[] = {1, 1, 1}, zero[] = {0, 0, 0}, order[] = {4, 4, 4};
    int64_t declared[] = {3, 4, 3}, points[] = {5, 5, 5}, coef[] = {3, 4, 3}, lin[] = {4, 4, 4};
    osc_verdict verdict[] = {OSC_VERDICT_INCONCLUSIVE, OSC_VERDICT_PASS, OSC_VERDICT_INCONCLUSIVE};
    osc_verdict_reason reason[] = {OSC_REASON_ABOVE, OSC_REASON_CONFIRMED, OSC_REASON_ABOVE};
    analysis_result ana = {
        .conv = {.rows = 3, .method = name, .stiffness = one, .drag = zero, .mass = one,
                 .measured_order = order, .order_low = order, .order_high = order,
                 .std_error = zero, .dt_fit_min = one, .dt_fit_max = one,
                 .declared_order = declared, .fit_points = points, .dt_points = points,
                 .verdict = verdict, .reason = reason, .coefficient_order = coef,
                 .linear_order = lin, .order_note = note}};
    osc_config cfg = {.path = "one.yaml", .dim = 1};
    cfg.mass.count = 1;
    sweep_result res = {0};
    char *text = print_report(&cfg, &res, &ana);
    const char *want = "\nnote: lin4: coefficient order 3, linear order 4: the oscillator is a "
                       "linear problem and checks only the linear order conditions; expect order "
                       "4 here and 3 on nonlinear problems\n";
    assert_has_line(text, want);
    const char *first = strstr(text, "\nnote: ");
    assert_true(first && !strstr(first + 1, "\nnote: "));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(csv_answers_on_the_common_set),
        cmocka_unit_test(json_and_text),
        cmocka_unit_test(different_lanes_no_common_set),
        cmocka_unit_test(odd_names_and_rates_stay_parseable),
        cmocka_unit_test(another_mass_is_another_spring),
        cmocka_unit_test(method_without_lanes_at_a_dt),
        cmocka_unit_test(stable_intervals_of_one_source_only),
        cmocka_unit_test(method_line_ranges_and_rate),
        cmocka_unit_test(group_verdicts_by_majority),
        cmocka_unit_test(another_drag_is_another_spring),
        cmocka_unit_test(fit_lines_up_to_40_fits),
        cmocka_unit_test(zeta_sweep_grouped_by_zeta),
        cmocka_unit_test(drag_sweep_grouped_by_drag),
        cmocka_unit_test(stability_forms),
        cmocka_unit_test(header_counts_and_t_end_note),
        cmocka_unit_test(order_note_once_per_method),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
