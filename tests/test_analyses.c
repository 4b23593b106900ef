/* The work-precision table (analyses_run's /work_precision) on a real two-method sweep whose
 * stability flags and errors are then set by hand, so that the answer can be worked out in the
 * comments: each method's own stable lanes, the common set of each dt (the lanes stable for
 * every method) and the medians and maxima over both. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "analyses.h"
#include "sweep.h"

/* Two methods x three dt x three lanes (stiffness 1, 2, 3): 18 rows, method-major as /points
 * is. Row = (method * 3 + dt) * 3 + lane. */
static const char two_methods[] = "name: wp\n"
                                  "methods: [semi-implicit, rk4]\n"
                                  "stiffness: [1, 2, 3]\n"
                                  "dt: [0.1, 0.05, 0.025]\n"
                                  "steps: 4\n";

/* max_error per row; INFINITY where the lane is unstable (as the sweep writes it).
 *   dt 0.1:   a (semi-implicit) stable on lanes 0, 1, 2; b (rk4) on 0, 2   -> common {0, 2}
 *   dt 0.05:  a stable on lanes 1, 2;                    b on 0, 1        -> common {1}
 *   dt 0.025: a stable on lane 0;                        b on lane 1      -> common {} */
static const double errors[18] = {
    1, 100, 3,   INFINITY, 0.5, 4,   2, INFINITY, INFINITY,        /* a: dt 0.1, 0.05, 0.025 */
    2, INFINITY, 0.25,   7, 0.125, INFINITY,   INFINITY, 9, INFINITY, /* b */
};

typedef struct expected {
    int64_t stable_points, common_points;
    double median, worst, median_common, worst_common; /* NaN: none */
} expected;

/* Row b = method * 3 + dt of /work_precision (one per (method, dt), in the layout's order).
 * a at dt 0.1: own {1, 100, 3} -> median 3, worst 100; common lanes {0, 2} -> {1, 3}: median
 *   2, worst 3. The lane of its worst error (100) is not in the common set: rk4 blew up there.
 * b at dt 0.1: own {2, 0.25} -> median 1.125; the same lanes are its common set.
 * a at dt 0.05: own {0.5, 4} -> median 2.25; common {1} -> 0.5.
 * b at dt 0.05: own {7, 0.125} -> median 3.5625; common {1} -> 0.125.
 * dt 0.025: one stable lane each, different lanes: common set empty, NaN (never 0). */
static const expected want[6] = {
    {3, 2, 3, 100, 2, 3},        /* a, dt 0.1 */
    {2, 1, 2.25, 4, 0.5, 0.5},   /* a, dt 0.05 */
    {1, 0, 2, 2, NAN, NAN},      /* a, dt 0.025 */
    {2, 2, 1.125, 2, 1.125, 2},  /* b, dt 0.1 */
    {2, 1, 3.5625, 7, 0.125, 0.125}, /* b, dt 0.05 */
    {1, 0, 9, 9, NAN, NAN},      /* b, dt 0.025 */
};

static void assert_same(double got, double wanted, const char *what, size_t row)
{
    /* medians of two exact binary values: exact, so compared bit for bit (NaN with NaN) */
    if (isnan(wanted) ? !isnan(got) : got != wanted)
        fail_msg("row %zu %s: got %.17g, want %.17g", row, what, got, wanted);
}

/* Loads a config from text and sweeps it (the cost probe kept short: it is not under test). */
static void load_and_sweep(const char *name, const char *text, osc_config *cfg, sweep_result *res)
{
    setenv("OSCBENCH_COST_PROBE_LANES", "128", 1);
    char err[512] = "";
    if (config_load_text(name, text, strlen(text), cfg, err, sizeof err) ||
        sweep_run(cfg, false, res, err, sizeof err))
        fail_msg("%s: %s", name, err);
}

static void analyse(const osc_config *cfg, const sweep_result *res, analysis_result *ana)
{
    char err[512] = "";
    if (analyses_run(cfg, res, false, ana, err, sizeof err))
        fail_msg("analyses: %s", err);
}

static void free_run(osc_config *cfg, sweep_result *res, analysis_result *ana)
{
    analyses_free(ana);
    sweep_result_free(res);
    config_free(cfg);
}

static void work_precision_compares_on_the_common_set(void **state)
{
    (void)state;
    osc_config cfg;
    sweep_result res;
    load_and_sweep("wp.yaml", two_methods, &cfg, &res);
    assert_int_equal(res.points.rows, 18);
    for (size_t r = 0; r < 18; r++) {
        assert_int_equal(res.points.stiffness[r], (double)(r % 3 + 1)); /* the layout assumed */
        res.points.max_error[r] = errors[r];
        res.points.stable[r] = isfinite(errors[r]);
    }
    analysis_result ana;
    analyse(&cfg, &res, &ana);
    const work_rows *w = &ana.work;
    assert_int_equal(w->rows, 6);
    static const double dts[3] = {0.1, 0.05, 0.025};
    for (size_t b = 0; b < 6; b++) {
        assert_string_equal(w->method[b], b < 3 ? "semi-implicit" : "rk4");
        assert_true(w->dt[b] == dts[b % 3]);
        assert_int_equal(w->stable_points[b], want[b].stable_points);
        assert_int_equal(w->common_points[b], want[b].common_points);
        assert_same(w->median_error[b], want[b].median, "median_error", b);
        assert_same(w->worst_error[b], want[b].worst, "worst_error", b);
        assert_same(w->median_error_common[b], want[b].median_common, "median_error_common", b);
        assert_same(w->worst_error_common[b], want[b].worst_common, "worst_error_common", b);
    }
    free_run(&cfg, &res, &ana);
}

/* The cost columns of /work_precision on a dim 2 run of 4 steps: force_evals is the method's
 * force evaluations per step (semi-implicit 1, rk4 4 stages) times the steps, and ns_per_lane
 * is ns_per_osc_step x steps x dim (products of powers of two: exact). */
static void work_precision_cost_columns(void **state)
{
    (void)state;
    static const char text[] = "name: cost\nmethods: [semi-implicit, rk4]\ndim: 2\n"
                               "stiffness: [1]\ndt: [0.1, 0.05]\nsteps: 4\n";
    osc_config cfg;
    sweep_result res;
    analysis_result ana;
    load_and_sweep("cost.yaml", text, &cfg, &res);
    analyse(&cfg, &res, &ana);
    const work_rows *w = &ana.work;
    assert_int_equal(w->rows, 4);
    for (size_t b = 0; b < 4; b++) {
        assert_int_equal(w->steps[b], 4);
        assert_int_equal(w->force_evals[b], b < 2 ? 4 : 16);
        assert_true(w->ns_per_osc_step[b] > 0 && isfinite(w->ns_per_osc_step[b]));
        assert_true(w->ns_per_lane[b] == w->ns_per_osc_step[b] * 4 * 2);
    }
    free_run(&cfg, &res, &ana);
}

/* /convergence_local's usable flags sit on the round-off floor of the run's precision and
 * phase: error >= 10 eps scale (sqrt(steps) + omega0 t_end) (docs/model.md, convergence.c step
 * 2). rk4 in float, k = m = 1, x0 = 1 (scale 1), t_end 10 (omega0 t_end = 10), errors set by
 * hand: at dt 0.025 (400 steps) the floor is 10 FLT_EPSILON (20 + 10) = 3.58e-5, so 3e-5 is
 * below it; it would be above a floor without the phase term (2.38e-5) or in double. */
static void convergence_floor_of_the_precision(void **state)
{
    (void)state;
    static const char text[] = "name: floor\nmethods: [rk4]\nprecision: float\nstiffness: [1]\n"
                               "dt: [0.1, 0.05, 0.025]\nt_end: 10\nanalyses: [convergence]\n";
    static const double dts[3] = {0.1, 0.05, 0.025}, errs[3] = {1e-2, 1e-3, 3e-5};
    osc_config cfg;
    sweep_result res;
    load_and_sweep("floor.yaml", text, &cfg, &res);
    assert_int_equal(res.points.rows, 3);
    for (size_t r = 0; r < 3; r++) {
        assert_true(res.points.dt[r] == dts[r]);
        res.points.max_error[r] = errs[r], res.points.stable[r] = true;
    }
    analysis_result ana;
    analyse(&cfg, &res, &ana);
    const convergence_rows *c = &ana.conv;
    assert_int_equal(c->rows, 1);
    assert_int_equal(c->dt_points[0], 3);
    assert_int_equal(c->fit_points[0], 0); /* two usable points: no range */
    const convergence_local_rows *l = &c->local;
    assert_int_equal(l->rows, 2); /* sorted by dt: (0.025, 0.05), (0.05, 0.1) */
    assert_true(l->dt_low[0] == 0.025 && l->dt_high[0] == 0.05);
    assert_false(l->usable[0]); /* 3e-5 is under the float floor */
    assert_true(l->usable[1]);
    assert_false(l->fitted[0] || l->fitted[1]);
    /* log(e_high / e_low) / log(dt_high / dt_low), from the errors set above */
    assert_float_equal(l->local_order[0], log(1e-3 / 3e-5) / log(2), 1e-12);
    assert_float_equal(l->local_order[1], log(10) / log(2), 1e-12);
    free_run(&cfg, &res, &ana);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(work_precision_compares_on_the_common_set),
        cmocka_unit_test(work_precision_cost_columns),
        cmocka_unit_test(convergence_floor_of_the_precision),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
