/* The mass axis (harness/sweep/layout.h, sweep.c): where its lanes sit in /points, that a sweep of
 * one mass keeps the rows of the layout before mass was an axis, and that lanes of the same
 * omega0 and zeta at different masses are the same motion (x(t) depends on omega0, zeta and g
 * only: m u'' = -k u - c u' - m g with k = m omega0^2, c = 2 zeta m omega0). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "layout.h"
#include "sweep.h"

static void load_text(const char *text, osc_config *cfg)
{
    char err[1024];
    if (config_load_text("mass.yaml", text, strlen(text), cfg, err, sizeof err))
        fail_msg("%s", err);
}

/* The layout before mass was an axis, written out: row = ((method * ndt + dt) * nstiffness +
 * stiffness) * ndrag + drag. */
static size_t old_row(const osc_config *cfg, size_t method, size_t dt, size_t stiffness,
                      size_t drag)
{
    return ((method * cfg->dt.count + dt) * cfg->stiffness.count + stiffness) * cfg->drag.count +
           drag;
}

/* Every shipped config (one mass each) and a small grid: each row's index is the old layout's,
 * both ways, so files and tests written before keep their rows. */
static void one_mass_is_the_old_layout(void **state)
{
    (void)state;
    const char *paths[] = {"configs/default.yaml", "configs/damping.yaml",
                           "configs/convergence.yaml", "configs/springs.yaml",
                           "configs/stability.yaml"};
    for (size_t f = 0; f < sizeof paths / sizeof *paths; f++) {
        osc_config cfg;
        char err[1024];
        if (config_load(paths[f], &cfg, err, sizeof err))
            fail_msg("%s", err);
        const sweep_layout lay = layout_of(&cfg);
        assert_int_equal(lay.nmass, 1);
        assert_int_equal(layout_rows(lay), cfg.nmethods * cfg.dt.count * cfg.stiffness.count *
                                               cfg.drag.count);
        size_t row = 0;
        for (size_t m = 0; m < cfg.nmethods; m++)
            for (size_t d = 0; d < cfg.dt.count; d++)
                for (size_t s = 0; s < cfg.stiffness.count; s++)
                    for (size_t c = 0; c < cfg.drag.count; c++, row++) {
                        assert_int_equal(old_row(&cfg, m, d, s, c), row);
                        sweep_index at = {.method = m, .dt = d, .stiffness = s, .drag = c};
                        assert_int_equal(layout_row(lay, at), row);
                        sweep_index back = layout_index(lay, row);
                        assert_true(back.method == m && back.dt == d && back.stiffness == s &&
                                    back.drag == c && back.mass == 0);
                    }
        assert_int_equal(row, layout_rows(lay));
        config_free(&cfg);
    }
}

/* Several masses: rows run method, dt, mass, stiffness, drag (drag fastest), each batch of
 * (method, dt) contiguous with lane = (mass * nstiffness + stiffness) * ndrag + drag. */
static void masses_nest_outermost_in_a_batch(void **state)
{
    (void)state;
    osc_config cfg;
    load_text("methods: [euler, rk4]\nstiffness: [1, 2, 3]\ndrag: [0, 0.1]\n"
              "mass: [0.5, 1, 2, 4]\ndt: [0.1, 0.05]\nsteps: 1\n", &cfg);
    const sweep_layout lay = layout_of(&cfg);
    assert_int_equal(layout_lanes(lay), 4 * 3 * 2);
    assert_int_equal(layout_rows(lay), config_lane_count(&cfg));
    size_t row = 0;
    for (size_t m = 0; m < 2; m++)
        for (size_t d = 0; d < 2; d++) {
            assert_int_equal(layout_batch_row0(lay, layout_batch(lay, m, d)), row);
            for (size_t j = 0; j < 4; j++)
                for (size_t s = 0; s < 3; s++)
                    for (size_t c = 0; c < 2; c++, row++) {
                        sweep_index at = {.method = m, .dt = d, .stiffness = s, .drag = c,
                                          .mass = j};
                        assert_int_equal(layout_row(lay, at), row);
                        assert_int_equal(layout_lane(lay, at), (j * 3 + s) * 2 + c);
                        sweep_index back = layout_index(lay, row);
                        assert_memory_equal(&back, &at, sizeof at);
                    }
        }
    assert_int_equal(row, 2 * 2 * 4 * 3 * 2);
    config_free(&cfg);
}

/* Masses 0.5, 1, 2 and 3 under gravity, for omega0 from easy to unstable for semi-implicit
 * (omega0*dt up to 2.25 > 2) and zeta 0, 0.1, 1. */
static const char scale_config[] = "methods: [semi-implicit, verlet, rk4]\n"
                                   "omega0: [1, 7, 45]\n"
                                   "zeta: [0, 0.1, 1]\n"
                                   "mass: [0.5, 1, 2, 3]\n"
                                   "gravity: -9.81\n"
                                   "x0: 1\n"
                                   "v0: 0.5\n"
                                   "dt: [0.05, 0.01]\n"
                                   "t_end: 10\n";

/* The row of lane `at` at mass index j. */
static size_t row_at_mass(sweep_layout lay, sweep_index at, size_t j)
{
    at.mass = j;
    return layout_row(lay, at);
}

/* Row r (mass m) against row r1 (mass 1): the same motion. The columns in metres (x does not
 * depend on m) and the dimensionless ones (drift: E and E(0) both scale with m) agree:
 *  - exactly for m = 0.5 and 2: k = (m omega0) omega0 and c = 2 zeta sqrt(k m) are the mass-1
 *    values times a power of two, which commutes with rounding, so w2 = k/m and gam = c/m, and
 *    every step and audit, are the same bits;
 *  - for m = 3 to round-off: w2 = k/m is then within 2 ulp of the mass-1 value (three roundings),
 *    a phase shift of at most omega0 t eps over the run, and each step's own round-off differs;
 *    bound: 64 eps (steps + omega0 t_end) times the motion's scale A = |x0 - rest| + |v0|/omega0
 *    + |rest| (the audit's errors are taken against the exact motion of the lane's own k, c,
 *    m, so what remains is the round-off of two runs of `steps` steps). */
static void assert_same_motion(const sweep_points *p, size_t r, size_t r1, double tol)
{
    const double *const cols[] = {p->max_error,     p->final_error,   p->max_rel_error,
                                  p->final_rel_error, p->max_abs_drift, p->final_drift,
                                  p->max_error_while_stable, p->last_stable_error};
    const char *names[] = {"max_error",     "final_error", "max_rel_error",
                           "final_rel_error", "max_abs_drift", "final_drift",
                           "max_error_while_stable", "last_stable_error"};
    assert_true(p->stable[r] == p->stable[r1]);
    assert_int_equal(p->unstable_step[r], p->unstable_step[r1]);
    for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) {
        double a = cols[c][r], b = cols[c][r1];
        bool same = a == b || (isnan(a) && isnan(b)); /* +inf == +inf: both unstable */
        if (!same && !(tol > 0 && fabs(a - b) <= tol))
            fail_msg("%s: row %zu (mass %g) %.17g, row %zu (mass 1) %.17g, tolerance %g",
                     names[c], r, p->mass[r], a, r1, b, tol);
    }
}

static void same_omega0_and_zeta_same_motion_at_every_mass(void **state)
{
    (void)state;
    osc_config cfg;
    load_text(scale_config, &cfg);
    sweep_result res;
    char err[1024];
    if (sweep_run(&cfg, false, &res, err, sizeof err))
        fail_msg("%s", err);
    const sweep_points *p = &res.points;
    const sweep_layout lay = layout_of(&cfg);
    const double m[] = {0.5, 1, 2, 3}, w[] = {1, 7, 45}, z[] = {0, 0.1, 1};
    const size_t unit = 1; /* mass index of m = 1 */
    size_t compared = 0, unstable = 0;
    for (size_t r = 0; r < p->rows; r++) {
        const sweep_index at = layout_index(lay, r);
        const double k = m[at.mass] * w[at.stiffness] * w[at.stiffness];
        /* the file records k = m omega0^2 and c = 2 zeta sqrt(k m) as computed, and m */
        assert_true(p->mass[r] == m[at.mass]);
        assert_true(p->stiffness[r] == k);
        assert_true(p->drag[r] == 2.0 * z[at.drag] * sqrt(k * m[at.mass]));
        const size_t r1 = row_at_mass(lay, at, unit);
        /* omega_dt and zeta from (k, c, m): a few roundings apart at most (8 ulp) */
        assert_true(fabs(p->omega_dt[r] - p->omega_dt[r1]) <= 8 * DBL_EPSILON * p->omega_dt[r1]);
        assert_true(fabs(p->zeta[r] - p->zeta[r1]) <= 8 * DBL_EPSILON * p->zeta[r1]);
        const double w0 = w[at.stiffness], rest = 9.81 / (w0 * w0);
        const double scale = fabs(1.0 - rest) + 0.5 / w0 + rest;
        const double steps = (double)p->steps[r];
        const double tol = m[at.mass] == 3 ? 64 * DBL_EPSILON * (steps + w0 * 10) * scale : 0;
        assert_same_motion(p, r, r1, tol);
        compared++;
        unstable += !p->stable[r];
    }
    /* omega0*dt = 45 * 0.05 = 2.25: semi-implicit and verlet (limit 2) blow up at every mass */
    print_message("%zu rows compared with their mass-1 lane, %zu unstable\n", compared, unstable);
    assert_true(unstable > 0 && unstable < compared);
    sweep_result_free(&res);
    config_free(&cfg);
}

/* A trace of a lane of mass 3 follows that lane, k, c and m: its energy at t = 0 is that lane's,
 * E(0) = 1/2 m v0^2 + 1/2 k x0^2 + m g x0 (three times the mass-1 lane's, which moves the same
 * way), and its last error is the row's final error (a trace re-runs its lane, the same bits). */
static void trace_follows_its_mass(void **state)
{
    (void)state;
    osc_config cfg;
    load_text("methods: [rk4]\nomega0: [1, 7]\nzeta: [0.1]\nmass: [1, 3]\ngravity: -9.81\n"
              "x0: 1\nv0: 0.5\ndt: 0.01\nt_end: 2\n"
              "trace: {every: 1, where: {omega0: 7, mass: 3}}\n", &cfg);
    assert_int_equal(cfg.ntrace_points, 1);
    const size_t row = cfg.trace_points[0];
    assert_int_equal(row, 3); /* mass index 1, omega0 index 1, one zeta */
    sweep_result res;
    char err[1024];
    if (sweep_run(&cfg, false, &res, err, sizeof err))
        fail_msg("%s", err);
    const sweep_trace *t = &res.traces[0];
    assert_int_equal(t->row, row);
    assert_true(res.points.mass[row] == 3 && res.points.stiffness[row] == 3.0 * 7 * 7);
    const double m = 3, k = 147, e0 = 0.5 * m * 0.25 + 0.5 * k + m * -9.81;
    assert_true(fabs(t->energy[0] - e0) <= 4 * DBL_EPSILON * (0.5 * m * 0.25 + 0.5 * k + 9.81 * m));
    /* the same x; x_exact by the closed form here and by the audit's co-stepped, re-anchored
     * exact motion there: a few ulp of the motion's scale (|x0 - rest| + |v0|/omega0 + |rest|,
     * rest = 9.81/49) apart, bounded by 16 eps of it */
    const double rest = 9.81 / 49, scale = fabs(1 - rest) + 0.5 / 7 + rest;
    assert_true(fabs(t->error[t->samples - 1] - res.points.final_error[row]) <=
                16 * DBL_EPSILON * scale);
    sweep_result_free(&res);
    config_free(&cfg);
}

/* The rows of a config's one-mass run (the mass given as a scalar, the path of every config
 * before mass was an axis). */
static sweep_result run_text(const char *text)
{
    osc_config cfg;
    load_text(text, &cfg);
    sweep_result res;
    char err[1024];
    if (sweep_run(&cfg, false, &res, err, sizeof err))
        fail_msg("%s", err);
    config_free(&cfg);
    return res;
}

/* Mass 0 in a list pins its lanes as a scalar mass 0 does (it never moves: error 0, stable), and
 * each row of the list's run is bit for bit the row of the same mass given alone: lanes of other
 * masses beside it change nothing. */
static void mass_list_rows_equal_scalar_runs(void **state)
{
    (void)state;
    const char *head = "methods: [semi-implicit, rk4]\nstiffness: [1, 30]\ndrag: [0, 0.5]\n"
                       "gravity: 9.81\ndt: [0.02, 0.01]\nt_end: 3\n";
    char text[512];
    snprintf(text, sizeof text, "%smass: [0, 1, 3]\n", head);
    sweep_result list = run_text(text);
    const double masses[] = {0, 1, 3};
    for (size_t j = 0; j < 3; j++) {
        snprintf(text, sizeof text, "%smass: %g\n", head, masses[j]);
        sweep_result one = run_text(text);
        assert_int_equal(one.points.rows * 3, list.points.rows);
        for (size_t r = 0; r < one.points.rows; r++) {
            /* row r of the one-mass run: batch r / 4, lane r % 4 (2 stiffness x 2 drag) */
            const size_t lr = r / 4 * 12 + j * 4 + r % 4;
            for (size_t c = 0; c < sweep_points_ncolumns; c++) {
                const sweep_column *col = &sweep_points_columns[c];
                const size_t bytes = sweep_column_size(col);
                if (memcmp((const char *)sweep_column_data(&one.points, col) + r * bytes,
                           (const char *)sweep_column_data(&list.points, col) + lr * bytes, bytes))
                    fail_msg("mass %g: column %s of row %zu differs from the list's row %zu",
                             masses[j], col->name, r, lr);
            }
            if (j == 0)
                assert_true(list.points.stable[lr] && list.points.max_error[lr] == 0);
        }
        sweep_result_free(&one);
    }
    sweep_result_free(&list);
}

/* configs/masses.yaml loads and traces what its comment promises: omega0 nearest 6, zeta 0.1,
 * mass 3, at 60 Hz, for each of its three methods. */
static void shipped_mass_config(void **state)
{
    (void)state;
    osc_config cfg;
    char err[1024];
    if (config_load("configs/masses.yaml", &cfg, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(cfg.mass.count, 4);
    assert_int_equal(cfg.ntrace_points, 3);
    const sweep_layout lay = layout_of(&cfg);
    for (size_t i = 0; i < 3; i++) {
        const sweep_index at = layout_index(lay, cfg.trace_points[i]);
        assert_int_equal(at.method, i);
        assert_true(cfg.mass.values[at.mass] == 3 && cfg.zeta_axis.values[at.drag] == 0.1);
        assert_true(cfg.rate_hz.values[at.dt] == 60);
        const double w = cfg.omega0_axis.values[at.stiffness];
        for (size_t s = 0; s < cfg.omega0_axis.count; s++) /* the nearest omega0 to 6 */
            assert_true(fabs(w - 6) <= fabs(cfg.omega0_axis.values[s] - 6));
    }
    config_free(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_mass_is_the_old_layout),
        cmocka_unit_test(masses_nest_outermost_in_a_batch),
        cmocka_unit_test(same_omega0_and_zeta_same_motion_at_every_mass),
        cmocka_unit_test(trace_follows_its_mass),
        cmocka_unit_test(shipped_mass_config),
        cmocka_unit_test(mass_list_rows_equal_scalar_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
