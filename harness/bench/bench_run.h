/* One batch of oscbench-bench's default/ benchmarks, stepped bare or audited as `oscbench run`
 * audits it: apart from bench.c (and Google Benchmark) so that the tests can run it. */
#ifndef OSCBENCH_BENCH_RUN_H
#define OSCBENCH_BENCH_RUN_H

#include "audit.h"
#include "oscbench.h"

/* How a batch is run: bare, audited with maxima over every step (the fused kernel, as
 * `oscbench run` by default), audited with maxima at the audits (`maxima: audits`). */
typedef enum bench_run_kind { BENCH_RUN_BARE, BENCH_RUN_EVERY_STEP, BENCH_RUN_SAMPLED } bench_run_kind;

/* Step started batch b by `steps` (audited every `every` steps unless bare). *audit receives the
 * audit (NULL if none was made; the caller frees it, outside its timing). Returns OSC_OK or the
 * first failure: an audited run whose audit cannot be created or set up fails, with the batch
 * not stepped. It never runs bare in place of an audited run. */
int bench_run_batch(osc_batch *b, bench_run_kind how, long steps, long every, osc_audit **audit);

#endif
