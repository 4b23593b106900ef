/* The harness's runs fail loudly: the sweep (harness/sweep/sweep.c) reports a stepping run that fails
 * instead of recording it, and a benchmark's audited run (harness/bench/bench_run.c) whose audit cannot
 * be made fails instead of stepping bare. osc_audit_run, osc_batch_run and osc_audit_create are
 * wrapped at link time (tests/meson.build): while a failure is injected they return it without
 * doing anything (as a run stopped by its audit, or an audit out of memory, would); otherwise
 * they pass the call on. malloc is wrapped too, so that the sweep's and the analyses' own
 * allocations can fail (nothing a config can ask for makes them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "analyses.h"
#include "audit.h"
#include "bench_run.h"
#include "config.h"
#include "sweep.h"

static int audit_run_fails, batch_run_fails; /* the status the wrapped call returns, 0: pass */
int __real_osc_audit_run(osc_audit *a, osc_batch *b, long nsteps, long audit_every,
                         osc_audit_fn fn, void *ctx);
int __wrap_osc_audit_run(osc_audit *a, osc_batch *b, long nsteps, long audit_every,
                         osc_audit_fn fn, void *ctx);
int __real_osc_batch_run(osc_batch *b, long nsteps, long audit_every, osc_audit_fn audit,
                         void *ctx);
int __wrap_osc_batch_run(osc_batch *b, long nsteps, long audit_every, osc_audit_fn audit,
                         void *ctx);
int __wrap_osc_audit_run(osc_audit *a, osc_batch *b, long nsteps, long audit_every,
                         osc_audit_fn fn, void *ctx)
{
    if (audit_run_fails)
        return audit_run_fails;
    return __real_osc_audit_run(a, b, nsteps, audit_every, fn, ctx);
}
int __wrap_osc_batch_run(osc_batch *b, long nsteps, long audit_every, osc_audit_fn audit,
                         void *ctx)
{
    if (batch_run_fails)
        return batch_run_fails;
    return __real_osc_batch_run(b, nsteps, audit_every, audit, ctx);
}

static int audit_create_fails;
int __real_osc_audit_create(osc_audit **out, const osc_batch *b);
int __wrap_osc_audit_create(osc_audit **out, const osc_batch *b);
int __wrap_osc_audit_create(osc_audit **out, const osc_batch *b)
{
    if (audit_create_fails) {
        *out = NULL;
        return audit_create_fails;
    }
    return __real_osc_audit_create(out, b);
}

/* When set, the next malloc (of the harness or lib/, which the wrap reaches) returns NULL and
 * clears it; set only around serial code, so that it is that code's allocation that fails. */
static bool next_malloc_fails;
void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);
void *__wrap_malloc(size_t size)
{
    if (next_malloc_fails) {
        next_malloc_fails = false;
        return NULL;
    }
    return __real_malloc(size);
}

static const char traced_config[] = "name: t\n"
                                    "methods: [rk4]\n"
                                    "stiffness: 1\n"
                                    "dt: 0.1\n"
                                    "steps: 10\n"
                                    "trace: {every: 2}\n";

/* The config's name holds a newline and an ESC: an error shows each as '?' (diag.h). */
static void load(osc_config *cfg)
{
    char err[512];
    assert_int_equal(config_load_text("t\n\033.yaml", traced_config, strlen(traced_config), cfg,
                                      err, sizeof err),
                     0);
}

/* Without injection the sweep and its trace run (the wrappers pass the calls on). */
static void sweep_runs_when_nothing_fails(void **state)
{
    (void)state;
    osc_config cfg;
    load(&cfg);
    sweep_result res;
    char err[512] = "";
    assert_int_equal(sweep_run(&cfg, false, &res, err, sizeof err), 0);
    assert_int_equal(res.points.rows, 1);
    assert_true(res.points.stable[0]);
    assert_int_equal(res.ntraces, 1);
    assert_int_equal(res.traces[0].samples, 6); /* t = 0 and every 2nd of 10 steps */
    sweep_result_free(&res);
    config_free(&cfg);
}

/* With *inject set to code (one of the wrapped calls failing with it), the sweep fails with
 * that code and one line holding want. */
static void expect_sweep_failure(int *inject, int code, const char *want)
{
    osc_config cfg;
    load(&cfg);
    sweep_result res;
    char err[512] = "";
    *inject = code;
    int rc = sweep_run(&cfg, false, &res, err, sizeof err);
    *inject = 0;
    assert_int_equal(rc, code);
    assert_non_null(strstr(err, want));
    assert_null(strchr(err, '\n'));
    sweep_result_free(&res);
    config_free(&cfg);
}

/* A failed run of a sweep batch is an error of the sweep, with one line saying where. */
static void failed_batch_run_is_reported(void **state)
{
    (void)state;
    expect_sweep_failure(&audit_run_fails, OSC_ESTATE,
                         "t??.yaml: rk4, dt=0.1: stepping stopped at step 0 of 10");
}

/* An item whose audit cannot be made fails before stepping, with the same one line. */
static void failed_audit_is_reported(void **state)
{
    (void)state;
    expect_sweep_failure(&audit_create_fails, OSC_ENOMEM, "t??.yaml: rk4, dt=0.1: out of memory");
}

/* A failed trace run too (the trace runs its lane by plain osc_batch_run). */
static void failed_trace_run_is_reported(void **state)
{
    (void)state;
    expect_sweep_failure(&batch_run_fails, OSC_ESTATE,
                         "t??.yaml: tracing failed: call out of order");
}

/* A results table that cannot be allocated fails the sweep before it runs, with one line. */
static void results_table_out_of_memory_is_reported(void **state)
{
    (void)state;
    osc_config cfg;
    load(&cfg);
    sweep_result res;
    char err[512] = "";
    next_malloc_fails = true;
    int rc = sweep_alloc(&cfg, &res, err, sizeof err);
    assert_false(next_malloc_fails); /* sweep_alloc's allocation failed, not a later one */
    assert_int_equal(rc, OSC_ENOMEM);
    assert_string_equal(err, "t??.yaml: out of memory for the results table");
    sweep_result_free(&res);
    config_free(&cfg);
}

/* So does a list of work items that cannot be allocated (the sweep's table could be). */
static void work_items_out_of_memory_is_reported(void **state)
{
    (void)state;
    osc_config cfg;
    load(&cfg);
    sweep_result res;
    char err[512] = "";
    assert_int_equal(sweep_alloc(&cfg, &res, err, sizeof err), 0);
    next_malloc_fails = true;
    int rc = sweep_run_items(&cfg, NULL, false, &res, err, sizeof err);
    assert_false(next_malloc_fails);
    assert_int_equal(rc, OSC_ENOMEM);
    assert_string_equal(err, "t??.yaml: out of memory for the work items");
    sweep_result_free(&res);
    config_free(&cfg);
}

/* Analyses that fail (here: out of memory for their first table) say so on one line. */
static void failed_analyses_are_reported(void **state)
{
    (void)state;
    osc_config cfg;
    load(&cfg);
    sweep_result res;
    char err[512] = "";
    assert_int_equal(sweep_run(&cfg, false, &res, err, sizeof err), 0);
    analysis_result ana;
    next_malloc_fails = true;
    int rc = analyses_run(&cfg, &res, false, &ana, err, sizeof err);
    assert_false(next_malloc_fails);
    assert_int_equal(rc, -1);
    assert_string_equal(err, "t??.yaml: analyses: out of memory");
    analyses_free(&ana);
    sweep_result_free(&res);
    config_free(&cfg);
}

/* A benchmark's audited run whose audit cannot be created fails and leaves the batch unstepped:
 * it must not time bare stepping under an audited name. */
static void audited_bench_run_never_runs_bare(void **state)
{
    (void)state;
    osc_batch *b = NULL;
    const double x0 = 1;
    assert_int_equal(osc_batch_create(&b, osc_method_find("semi-implicit"), OSC_DOUBLE, 1, 1, 0),
                     OSC_OK);
    assert_int_equal(osc_batch_set_lane(b, 0, 1, 0, 1, &x0, NULL), OSC_OK);
    assert_int_equal(osc_batch_start(b, 0.01), OSC_OK);
    osc_audit *audit = NULL;
    audit_create_fails = OSC_ENOMEM;
    const bench_run_kind audited[] = {BENCH_RUN_EVERY_STEP, BENCH_RUN_SAMPLED};
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(bench_run_batch(b, audited[i], 10, 5, &audit), OSC_ENOMEM);
        assert_null(audit);
        assert_int_equal(osc_batch_step(b), 0); /* not stepped */
    }
    audit_create_fails = 0;
    assert_int_equal(bench_run_batch(b, BENCH_RUN_EVERY_STEP, 10, 5, &audit), OSC_OK);
    assert_non_null(audit);
    assert_int_equal(osc_batch_step(b), 10);
    osc_lane_metrics mt;
    assert_int_equal(osc_audit_lane_metrics(audit, 0, &mt), OSC_OK);
    assert_int_equal(mt.audits, 2); /* audited at steps 5 and 10 */
    osc_audit_free(audit);
    assert_int_equal(bench_run_batch(b, BENCH_RUN_BARE, 10, 5, &audit), OSC_OK);
    assert_null(audit);
    assert_int_equal(osc_batch_step(b), 20);
    osc_batch_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sweep_runs_when_nothing_fails),
        cmocka_unit_test(failed_batch_run_is_reported),
        cmocka_unit_test(failed_audit_is_reported),
        cmocka_unit_test(failed_trace_run_is_reported),
        cmocka_unit_test(results_table_out_of_memory_is_reported),
        cmocka_unit_test(work_items_out_of_memory_is_reported),
        cmocka_unit_test(failed_analyses_are_reported),
        cmocka_unit_test(audited_bench_run_never_runs_bare),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
