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

/* 1024 lanes per batch (2 x 256 x 2): exactly two items. */
static const char whole_items_config[] = "name: items\n"
                                         "methods: [euler, rk4]\n"
                                         "stiffness: {from: 0.5, to: 40, count: 256}\n"
                                         "drag: [0, 0.1]\n"
                                         "mass: [1, 2]\n"
                                         "dt: [0.05, 0.03]\n"
                                         "t_end: 4\n";

/* 512 lanes per batch: exactly one item. */
static const char one_item_config[] = "name: items\n"
                                      "methods: [verlet]\n"
                                      "stiffness: {from: 0.5, to: 40, count: 512}\n"
                                      "dt: [0.05, 0.03, 0.02]\n"
                                      "t_end: 4\n";

/* 6 lanes per batch (3 masses x 2 stiffness x 1 drag). */
static const char small_config[] = "name: items\n"
                                   "methods: [semi-implicit, rk4]\n"
                                   "stiffness: [1, 9]\n"
                                   "drag: 0.2\n"
                                   "mass: [0.5, 1, 3]\n"
                                   "dt: [0.05, 0.03]\n"
                                   "t_end: 4\n";

static void load_text(const char *text, osc_config *cfg)
{
    char err[512];
    if (config_load_text("items.yaml", text, strlen(text), cfg, err, sizeof err))
        fail_msg("%s", err);
}

/* Loads text and runs its sweep, failing the test on any error. */
static void run_text(const char *text, osc_config *cfg, sweep_result *res)
{
    load_text(text, cfg);
    char err[1024];
    if (sweep_run(cfg, false, res, err, sizeof err))
        fail_msg("%s", err);
}

/* The items tile the rows exactly: in row order, none crossing a batch, none empty. */
static void items_cover_every_row_once_of(const char *text, size_t per_batch, size_t last)
{
    osc_config cfg;
    load_text(text, &cfg);
    const sweep_layout lay = layout_of(&cfg);
    const size_t n = sweep_item_count(&cfg);
    assert_int_equal(n, cfg.nmethods * cfg.dt.count * per_batch);
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
    for (size_t i = 0; i < n; i++) /* by hand: full items, then the batch's last */
        assert_int_equal(sweep_item_at(&cfg, i).lanes,
                         i % per_batch == per_batch - 1 ? last : SWEEP_ITEM_LANES);
    config_free(&cfg);
}

static void items_cover_every_row_once(void **state)
{
    (void)state;
    items_cover_every_row_once_of(multi_item_config, 3, 1200 - 2 * SWEEP_ITEM_LANES);
    items_cover_every_row_once_of(mass_item_config, 3, 1200 - 2 * SWEEP_ITEM_LANES);
    /* batches of whole items (1024 and 512 lanes: no short last item, and no empty one) and of
     * fewer lanes than one item */
    items_cover_every_row_once_of(whole_items_config, 2, SWEEP_ITEM_LANES);
    items_cover_every_row_once_of(one_item_config, 1, SWEEP_ITEM_LANES);
    items_cover_every_row_once_of(small_config, 1, 6);
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
    sweep_result res;
    run_text(text, &cfg, &res);
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

/* Every row holds its own lane: the coordinates worked out by hand from the documented order
 * (method, dt, mass, stiffness, drag; drag fastest), the spring columns the config's values
 * there, steps and t_end as t_end / dt rounded by hand, and the metrics those of that lane run
 * alone in a one-lane batch (lanes are independent: same bits), so that a lane recorded in
 * another lane's row, or stepped with another lane's spring, shows. (Every row's coordinates;
 * the one-lane runs for every 7th row and the rows at the items' edges.) */
static void rows_hold_their_lanes_of(const char *text, const long *steps_by_hand)
{
    osc_config cfg;
    sweep_result res;
    omp_set_num_threads(2);
    run_text(text, &cfg, &res);
    const size_t nd = cfg.drag.count, ns = cfg.stiffness.count, nm = cfg.mass.count;
    const size_t lanes = nm * ns * nd, rows = cfg.nmethods * cfg.dt.count * lanes;
    assert_int_equal(res.points.rows, rows);
    for (size_t r = 0; r < rows; r++) {
        const size_t method = r / (cfg.dt.count * lanes), dt = r / lanes % cfg.dt.count;
        const size_t lane = r % lanes, mass = lane / (ns * nd), stiff = lane / nd % ns,
                     drag = lane % nd;
        const double k = config_stiffness(&cfg, stiff, mass),
                     c = config_drag(&cfg, stiff, drag, mass), m = cfg.mass.values[mass];
        const sweep_points *p = &res.points;
        if (strcmp(p->method[r], cfg.methods[method]->name) || p->dt[r] != cfg.dt.values[dt] ||
            p->stiffness[r] != k || p->drag[r] != c || p->mass[r] != m)
            fail_msg("row %zu: %s dt %g k %g c %g m %g, expected %s dt %g k %g c %g m %g", r,
                     p->method[r], p->dt[r], p->stiffness[r], p->drag[r], p->mass[r],
                     cfg.methods[method]->name, cfg.dt.values[dt], k, c, m);
        assert_int_equal(p->steps[r], steps_by_hand[dt]);
        assert_true(p->t_end[r] == (double)steps_by_hand[dt] * cfg.dt.values[dt]);
        if (r % 7 && lane % SWEEP_ITEM_LANES && (lane + 1) % SWEEP_ITEM_LANES && lane + 1 < lanes)
            continue; /* run alone: every 7th row, and each item's first and last */

        osc_batch *b = NULL;
        osc_audit *audit = NULL;
        assert_int_equal(osc_batch_create(&b, cfg.methods[method], cfg.precision, cfg.dim, 1,
                                          cfg.gravity),
                         OSC_OK);
        assert_int_equal(osc_batch_set_lane(b, 0, k, c, m, cfg.x0, cfg.v0), OSC_OK);
        assert_int_equal(osc_batch_start(b, cfg.dt.values[dt]), OSC_OK);
        assert_int_equal(sweep_open_audit(&cfg, b, &audit), OSC_OK);
        assert_int_equal(osc_audit_run(audit, b, steps_by_hand[dt],
                                       sweep_audit_interval(&cfg, cfg.dt.values[dt]), NULL, NULL),
                         OSC_OK);
        osc_lane_metrics lm;
        assert_int_equal(osc_audit_lane_metrics(audit, 0, &lm), OSC_OK);
        if (memcmp(&lm.max_error, &p->max_error_while_stable[r], sizeof(double)) ||
            memcmp(&lm.final_energy, &p->last_stable_energy[r], sizeof(double)) ||
            memcmp(&lm.final_error, &p->last_stable_error[r], sizeof(double)) ||
            (lm.unstable_step < 0) != p->stable[r])
            fail_msg("row %zu (%s dt %g k %g c %g m %g): max_error %.17g, alone %.17g", r,
                     cfg.methods[method]->name, cfg.dt.values[dt], k, c, m,
                     p->max_error_while_stable[r], lm.max_error);
        osc_audit_free(audit);
        osc_batch_free(b);
    }
    sweep_result_free(&res);
    config_free(&cfg);
    omp_set_num_threads(omp_get_num_procs());
}

static void rows_hold_their_lanes(void **state)
{
    (void)state;
    rows_hold_their_lanes_of(mass_item_config, (const long[]){80, 200});
    rows_hold_their_lanes_of(whole_items_config, (const long[]){80, 133}); /* 4 / 0.03 */
    rows_hold_their_lanes_of(small_config, (const long[]){80, 133});
}

/* Each item's cost is lanes x steps x axes x the method's operations per step (worked out here
 * from the item's lanes by hand), and on one thread the items run costliest first, ties in row
 * order. */
typedef struct order_log {
    size_t order[64];
    size_t n;
} order_log;

static int log_order(void *ctx, const sweep_item *it, const sweep_result *res, char *err,
                     size_t errlen)
{
    (void)res, (void)err, (void)errlen;
    order_log *log = ctx;
    if (log->n < 64)
        log->order[log->n] = it->index;
    log->n++;
    return 0;
}

static void items_run_costliest_first(void **state)
{
    (void)state;
    osc_config cfg;
    load_text(multi_item_config, &cfg); /* 3 items per batch: 512, 512, 176 lanes */
    const size_t n = sweep_item_count(&cfg);
    assert_int_equal(n, 18);
    const long steps[] = {80, 200};
    double cost[18];
    for (size_t i = 0; i < n; i++) {
        const size_t batch = i / 3, method = batch / 2, dt = batch % 2;
        const double lanes = i % 3 == 2 ? 1200 - 2 * 512 : 512;
        const int fma = cfg.methods[method]->fma_per_step;
        cost[i] = lanes * (double)steps[dt] * cfg.dim * (fma > 0 ? fma : 1);
        assert_true(sweep_item_at(&cfg, i).cost == cost[i]);
    }
    size_t want[18]; /* insertion sort by hand: cost descending, then index */
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        for (; j > 0 && cost[want[j - 1]] < cost[i]; j--)
            want[j] = want[j - 1];
        want[j] = i;
    }
    char err[1024] = "";
    sweep_result res;
    assert_int_equal(sweep_alloc(&cfg, &res, err, sizeof err), OSC_OK);
    static order_log log;
    memset(&log, 0, sizeof log);
    sweep_plan plan = {.item_done = log_order, .ctx = &log};
    omp_set_num_threads(1);
    assert_int_equal(sweep_run_items(&cfg, &plan, false, &res, err, sizeof err), OSC_OK);
    assert_int_equal(log.n, n);
    for (size_t k = 0; k < n; k++)
        if (log.order[k] != want[k])
            fail_msg("item %zu ran %zuth, expected item %zu", log.order[k], k, want[k]);
    /* the batch times: each (method, dt) batch named by hand, its seconds its items' sum */
    assert_int_equal(sweep_finish(&cfg, &res, err, sizeof err), OSC_OK);
    assert_int_equal(res.nbatches, 6);
    for (size_t b = 0; b < 6; b++) {
        assert_string_equal(res.batches[b].method, cfg.methods[b / 2]->name);
        assert_true(res.batches[b].dt == cfg.dt.values[b % 2]);
        assert_true(res.batches[b].osc_steps == 1200.0 * (double)steps[b % 2] * cfg.dim);
        const double sum = res.item_seconds[3 * b] + res.item_seconds[3 * b + 1] +
                           res.item_seconds[3 * b + 2];
        assert_true(res.batches[b].seconds == sum);
    }
    sweep_result_free(&res);
    config_free(&cfg);
    omp_set_num_threads(omp_get_num_procs());
}

/* The audit interval and the step counts of a config, worked out by hand from the rules in
 * sweep.c: the steps t_end / dt to the nearest step (at least 1); A audits, as many as fit 64
 * steps apart at the fewest steps (at most 64), preferring the largest count down to a quarter
 * of that which divides every dt's steps; the interval t_end / A / dt to the nearest step (with
 * `steps`: steps / A rounded up), capped at the steps; `audit_every` as given, capped likewise. */
typedef struct interval_case {
    const char *text;
    double dt[2];
    long steps[2], interval[2];
    bool rounded;
} interval_case;

static void audit_interval_by_hand(void **state)
{
    (void)state;
    static const interval_case cases[] = {
        /* 10000 and 25000 steps: at most 64 audits; 50 is the largest count down to 16 dividing
         * both (64..51 do not) */
        {"dt: [0.01, 0.004]\nt_end: 100\n", {0.01, 0.004}, {10000, 25000}, {200, 500}, false},
        /* 400 and 2000 steps: at most 400 / 64 = 6 audits; 6 does not divide 400, 5 does; the
         * fewest steps are the first dt's */
        {"dt: [0.05, 0.01]\nt_end: 20\n", {0.05, 0.01}, {400, 2000}, {80, 400}, false},
        /* 4913 = 17^3 steps: at most 64 audits, and of 64..16 only 17 divides it */
        {"dt: 0.01\nsteps: 4913\n", {0.01, 0}, {4913, 0}, {289, 0}, false},
        /* 1280 steps: at most 1280 / 64 = 20 audits, which divides it */
        {"dt: 0.01\nsteps: 1280\n", {0.01, 0}, {1280, 0}, {64, 0}, false},
        /* 1147 = 31 x 37 steps: at most 17 audits, none of 17..5 divides it: 17, 68 apart */
        {"dt: 0.01\nsteps: 1147\n", {0.01, 0}, {1147, 0}, {68, 0}, false},
        /* audit_every beyond the steps: the steps */
        {"dt: [0.01, 0.1]\nsteps: 10\naudit_every: 50\n", {0.01, 0.1}, {10, 10}, {10, 10}, false},
        {"dt: 0.01\nsteps: 100\naudit_every: 7\n", {0.01, 0}, {100, 0}, {7, 0}, false},
        /* t_end / dt: 3.33 -> 3 (0.9 < t_end: rounded), 4.0; 3.57 -> 4, 0.33 -> 1 */
        {"dt: [0.3, 0.25]\nt_end: 1\n", {0.3, 0.25}, {3, 4}, {3, 4}, true},
        {"dt: [0.28, 3]\nt_end: 1\n", {0.28, 3}, {4, 1}, {4, 1}, true},
        {"dt: [0.25, 0.5]\nt_end: 1\n", {0.25, 0.5}, {4, 2}, {4, 2}, false},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const interval_case *c = &cases[k];
        char text[512];
        snprintf(text, sizeof text, "name: interval\nmethods: [euler]\nstiffness: 1\n%s", c->text);
        osc_config cfg;
        load_text(text, &cfg);
        for (size_t d = 0; d < cfg.dt.count; d++) {
            assert_true(cfg.dt.values[d] == c->dt[d]);
            const long steps = sweep_steps_for(&cfg, c->dt[d]);
            const long interval = sweep_audit_interval(&cfg, c->dt[d]);
            if (steps != c->steps[d] || interval != c->interval[d])
                fail_msg("case %zu, dt %g: %ld steps, audits every %ld; expected %ld, %ld", k,
                         c->dt[d], steps, interval, c->steps[d], c->interval[d]);
        }
        char err[512];
        sweep_result res;
        assert_int_equal(sweep_alloc(&cfg, &res, err, sizeof err), OSC_OK);
        if (res.t_end_rounded != c->rounded)
            fail_msg("case %zu: t_end_rounded %d", k, res.t_end_rounded);
        sweep_result_free(&res);
        config_free(&cfg);
    }
}

/* Traces: by default the first point of each method, row method x ndt x lanes by hand (method i
 * traced as method i); a traced run of 10 steps sampled every 3 has the samples t = 0, 3, 6, 9
 * and the last step, 10. */
static void traces_follow_their_rows(void **state)
{
    (void)state;
    static const char text[] = "name: traced\n"
                               "methods: [euler, verlet, rk4]\n"
                               "stiffness: [1, 4, 9]\n"
                               "mass: [1, 2]\n"
                               "dt: [0.1, 0.05]\n"
                               "steps: 10\n"
                               "trace: {every: 3}\n";
    osc_config cfg;
    sweep_result res;
    run_text(text, &cfg, &res);
    assert_int_equal(res.ntraces, 3);
    for (size_t i = 0; i < 3; i++) {
        const sweep_trace *t = &res.traces[i];
        assert_int_equal(t->row, i * 2 * 6);
        assert_string_equal(t->method, cfg.methods[i]->name);
        assert_string_equal(res.points.method[t->row], cfg.methods[i]->name);
        assert_int_equal(t->samples, 5);
        const double want[] = {0, 3, 6, 9, 10};
        for (size_t s = 0; s < 5; s++)
            assert_true(t->t[s] == want[s] * 0.1);
    }
    sweep_result_free(&res);
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
        cmocka_unit_test(rows_hold_their_lanes),
        cmocka_unit_test(items_run_costliest_first),
        cmocka_unit_test(audit_interval_by_hand),
        cmocka_unit_test(traces_follow_their_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
