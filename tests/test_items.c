/* Work items (harness/sweep/sweep.c): how a sweep is cut into items, and that the cut changes
 * nothing in the results. An item is a block of lanes of one (method, dt) batch; items are
 * spread over the threads (and ranks), so the sweep can keep every core busy whatever the size
 * of a batch, but every row must keep the bits it gets when its whole batch runs at once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "config.h"
#include "layout.h"
#include "run_mpi.h"
#include "sweep.h"

/* 1200 lanes per batch: items of 512, 512 and 176 lanes (three tiles, the last partial). */
static const char multi_item_config[] = "name: items\n"
                                        "methods: [semi-implicit, verlet, rk4]\n"
                                        "stiffness: {from: 0.5, to: 4000, count: 600, spacing: log}\n"
                                        "drag: [0, 0.7]\n"
                                        "dt: [0.05, 0.02]\n"
                                        "t_end: 4\n";

/* The same 1200 lanes per batch as 3 masses x 200 stiffness x 2 drag: items cut across the
 * masses (item 0 ends inside mass 1's block, item 1 inside mass 2's). */
static const char mass_item_config[] = "name: items\n"
                                       "methods: [semi-implicit, verlet, rk4]\n"
                                       "omega0: {from: 0.5, to: 60, count: 200, spacing: log}\n"
                                       "zeta: [0, 0.35]\n"
                                       "mass: [0.5, 1, 3]\n"
                                       "dt: [0.05, 0.02]\n"
                                       "t_end: 4\n";

static void load_text(const char *text, osc_config *cfg)
{
    char err[512];
    if (config_load_text("items.yaml", text, strlen(text), cfg, err, sizeof err))
        fail_msg("%s", err);
}

/* The items tile the rows exactly: in row order, none crossing a batch, none empty. */
static void items_cover_every_row_once_of(const char *text)
{
    osc_config cfg;
    load_text(text, &cfg);
    const sweep_layout lay = layout_of(&cfg);
    const size_t n = sweep_item_count(&cfg);
    assert_int_equal(n, 3 * 2 * 3);
    size_t next_row = 0;
    for (size_t i = 0; i < n; i++) {
        sweep_item it = sweep_item_at(&cfg, i);
        assert_int_equal(it.index, i);
        assert_int_equal(it.row0, next_row);
        assert_true(it.lanes >= 1 && it.lanes <= SWEEP_ITEM_LANES);
        assert_true(it.lane0 + it.lanes <= layout_lanes(lay));
        assert_int_equal(layout_index(lay, it.row0).method, it.method);
        assert_int_equal(layout_index(lay, it.row0 + it.lanes - 1).dt, it.dt);
        assert_true(it.cost > 0);
        next_row += it.lanes;
    }
    assert_int_equal(next_row, layout_rows(lay));
    assert_int_equal(sweep_item_at(&cfg, 2).lanes, 1200 - 2 * SWEEP_ITEM_LANES);
    config_free(&cfg);
}

static void items_cover_every_row_once(void **state)
{
    (void)state;
    items_cover_every_row_once_of(multi_item_config);
    items_cover_every_row_once_of(mass_item_config);
}

/* The default job offers enough items to keep a 64-thread machine busy (it has 54 batches of
 * 1024 lanes: with whole batches as the unit, at most 54 threads, and before work items at most
 * 2 per batch, one after another). */
static void default_config_has_items_for_64_threads(void **state)
{
    (void)state;
    osc_config cfg;
    char err[512];
    if (config_load("configs/default.yaml", &cfg, err, sizeof err))
        fail_msg("%s", err);
    size_t n = sweep_item_count(&cfg);
    print_message("configs/default.yaml: %zu work items\n", n);
    assert_true(n >= 64);
    config_free(&cfg);
}

static void assert_points_equal(const sweep_points *a, const sweep_points *b, size_t row0,
                                size_t rows)
{
    const double *const fa[] = {a->final_energy, a->final_drift, a->max_abs_drift,
                                a->final_error, a->max_error, a->last_stable_error,
                                a->max_error_while_stable, a->omega_dt, a->zeta};
    const double *const fb[] = {b->final_energy, b->final_drift, b->max_abs_drift,
                                b->final_error, b->max_error, b->last_stable_error,
                                b->max_error_while_stable, b->omega_dt, b->zeta};
    for (size_t c = 0; c < sizeof fa / sizeof *fa; c++)
        if (memcmp(fa[c] + row0, fb[c] + row0, rows * sizeof(double)))
            fail_msg("column %zu differs in rows %zu..%zu", c, row0, row0 + rows);
    assert_memory_equal(a->unstable_step + row0, b->unstable_step + row0, rows * sizeof(int64_t));
    assert_memory_equal(a->stable + row0, b->stable + row0, rows * sizeof(bool));
}

/* Rows computed item by item equal the rows of each batch run whole, audited the same way:
 * the bits do not depend on where the lanes were cut. */
static void items_equal_whole_batches_of(const char *text)
{
    osc_config cfg;
    load_text(text, &cfg);
    char err[1024];
    sweep_result res;
    if (sweep_run(&cfg, false, &res, err, sizeof err))
        fail_msg("%s", err);
    const sweep_layout lay = layout_of(&cfg);
    const size_t lanes = layout_lanes(lay);
    size_t unstable = 0;
    for (size_t mi = 0; mi < cfg.nmethods; mi++)
        for (size_t di = 0; di < cfg.dt.count; di++) {
            const double dt = cfg.dt.values[di];
            osc_batch *b = NULL;
            osc_audit *audit = NULL;
            assert_int_equal(sweep_open_batch(&cfg, cfg.methods[mi], dt, &b), OSC_OK);
            assert_int_equal(sweep_open_audit(&cfg, b, &audit), OSC_OK);
            assert_int_equal(osc_audit_run(audit, b, sweep_steps_for(&cfg, dt),
                                           sweep_audit_interval(&cfg, dt), NULL, NULL),
                             OSC_OK);
            const size_t row0 = layout_batch_row0(lay, layout_batch(lay, mi, di));
            for (size_t lane = 0; lane < lanes; lane++) {
                osc_lane_metrics lm;
                assert_int_equal(osc_audit_lane_metrics(audit, lane, &lm), OSC_OK);
                const size_t r = row0 + lane;
                assert_true(lm.unstable_step < 0 ? res.points.stable[r] : !res.points.stable[r]);
                unstable += !res.points.stable[r];
                assert_memory_equal(&lm.max_error, &res.points.max_error_while_stable[r],
                                    sizeof(double));
                assert_memory_equal(&lm.max_abs_drift, &res.points.max_abs_drift_while_stable[r],
                                    sizeof(double));
                assert_memory_equal(&lm.final_error, &res.points.last_stable_error[r],
                                    sizeof(double));
                assert_memory_equal(&lm.final_energy, &res.points.last_stable_energy[r],
                                    sizeof(double));
            }
            osc_audit_free(audit);
            osc_batch_free(b);
        }
    /* omega0 dt reaches sqrt(4000) * 0.05 = 3.2 (60 * 0.05 = 3 with masses): the stiffest
     * lanes go unstable for every method, so rows of unstable lanes (their last stable values)
     * are compared too */
    print_message("%zu rows compared, %zu unstable\n", layout_rows(lay), unstable);
    assert_true(unstable > 0);
    sweep_result_free(&res);
    config_free(&cfg);
}

static void items_equal_whole_batches(void **state)
{
    (void)state;
    items_equal_whole_batches_of(multi_item_config);
    items_equal_whole_batches_of(mass_item_config);
}

/* Same rows, bit for bit, on 1 and 3 threads (3 threads: items finish out of order). */
static void items_identical_on_any_thread_count(void **state)
{
    (void)state;
    osc_config cfg;
    load_text(multi_item_config, &cfg);
    char err[1024];
    sweep_result one, three;
    omp_set_num_threads(1);
    if (sweep_run(&cfg, false, &one, err, sizeof err))
        fail_msg("%s", err);
    omp_set_num_threads(3);
    if (sweep_run(&cfg, false, &three, err, sizeof err))
        fail_msg("%s", err);
    assert_points_equal(&one.points, &three.points, 0, one.points.rows);
    sweep_result_free(&one);
    sweep_result_free(&three);
    config_free(&cfg);
}

typedef struct done_log {
    atomic_int calls;
    bool seen[64];
    int fail_at; /* the call that returns an error, 0: none */
} done_log;

static int log_item(void *ctx, const sweep_item *it, const sweep_result *res, char *err,
                    size_t errlen)
{
    done_log *log = ctx;
    int call = atomic_fetch_add(&log->calls, 1) + 1;
    if (it->index < 64)
        log->seen[it->index] = true;
    if (!isfinite(res->item_seconds[it->index]) || res->item_seconds[it->index] < 0)
        fail_msg("item %zu: seconds %g when done", it->index, res->item_seconds[it->index]);
    if (call == log->fail_at) {
        snprintf(err, errlen, "checkpoint refused item %zu", it->index);
        return 5;
    }
    return 0;
}

/* A plan's skipped items are not run (their rows stay as the caller left them), every other
 * item is reported exactly once with its time, and an error from the report stops the sweep
 * with the report's message. */
static void plan_skips_and_reports_items(void **state)
{
    (void)state;
    osc_config cfg;
    load_text(multi_item_config, &cfg);
    char err[1024] = "";
    sweep_result res;
    assert_int_equal(sweep_alloc(&cfg, &res, err, sizeof err), OSC_OK);
    const size_t n = res.nitems;
    assert_true(n <= 64);
    bool skip[64] = {0};
    for (size_t i = 0; i < n; i += 2)
        skip[i] = true;
    const sweep_item skipped = sweep_item_at(&cfg, 0);
    res.points.max_error[skipped.row0] = -42.0; /* as a checkpoint would have restored */
    static done_log log;
    memset(&log, 0, sizeof log);
    sweep_plan plan = {.skip = skip, .item_done = log_item, .ctx = &log};
    omp_set_num_threads(2);
    assert_int_equal(sweep_run_items(&cfg, &plan, false, &res, err, sizeof err), OSC_OK);
    assert_int_equal(atomic_load(&log.calls), (int)(n / 2));
    for (size_t i = 0; i < n; i++)
        assert_true(log.seen[i] == !skip[i]);
    assert_true(res.points.max_error[skipped.row0] == -42.0);
    assert_true(isnan(res.item_seconds[0]));
    sweep_result_free(&res);

    /* On one thread no item starts after the failing report: exactly fail_at reports. (On two,
     * the other thread may finish items between the report and the failure being recorded:
     * how many is a race, so only the outcome is checked there.) */
    for (int threads = 1; threads <= 2; threads++) {
        omp_set_num_threads(threads);
        assert_true(n > 3);
        assert_int_equal(sweep_alloc(&cfg, &res, err, sizeof err), OSC_OK);
        memset(&log, 0, sizeof log);
        log.fail_at = 2;
        plan = (sweep_plan){.item_done = log_item, .ctx = &log};
        assert_int_equal(sweep_run_items(&cfg, &plan, false, &res, err, sizeof err), 5);
        assert_non_null(strstr(err, "checkpoint refused item"));
        if (threads == 1)
            assert_int_equal(atomic_load(&log.calls), log.fail_at);
        sweep_result_free(&res);
    }
    config_free(&cfg);
}

/* The ranks' shares (run_mpi_assign): every item to exactly one rank, the same plan every time
 * it is computed (each rank computes it alone), items marked done to none, and balanced as
 * greedy costliest-first allows: when the last item went to the least-loaded rank, that rank
 * was at most the mean, so no rank ends more than one item's cost above the least loaded. */
static void ranks_share_items_evenly(void **state)
{
    (void)state;
    osc_config cfg;
    load_text(multi_item_config, &cfg);
    const size_t n = sweep_item_count(&cfg);
    bool done[64] = {false};
    assert_true(n <= 64);
    for (size_t i = 0; i < n; i += 4)
        done[i] = true;
    for (int ranks = 1; ranks <= 5; ranks++) {
        for (int with_done = 0; with_done < 2; with_done++) {
            int *owner = run_mpi_assign(&cfg, ranks, with_done ? done : NULL);
            int *again = run_mpi_assign(&cfg, ranks, with_done ? done : NULL);
            assert_non_null(owner);
            assert_non_null(again);
            assert_memory_equal(owner, again, n * sizeof *owner);
            double load[5] = {0}, biggest = 0;
            for (size_t i = 0; i < n; i++) {
                if (with_done && done[i]) {
                    assert_int_equal(owner[i], -1);
                    continue;
                }
                assert_true(owner[i] >= 0 && owner[i] < ranks);
                double cost = sweep_item_at(&cfg, i).cost;
                load[owner[i]] += cost;
                biggest = cost > biggest ? cost : biggest;
            }
            double most = load[0], least = load[0];
            for (int r = 1; r < ranks; r++) {
                most = load[r] > most ? load[r] : most;
                least = load[r] < least ? load[r] : least;
            }
            assert_true(most - least <= biggest);
            free(owner), free(again);
        }
    }
    config_free(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(items_cover_every_row_once),
        cmocka_unit_test(default_config_has_items_for_64_threads),
        cmocka_unit_test(items_equal_whole_batches),
        cmocka_unit_test(items_identical_on_any_thread_count),
        cmocka_unit_test(plan_skips_and_reports_items),
        cmocka_unit_test(ranks_share_items_evenly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
